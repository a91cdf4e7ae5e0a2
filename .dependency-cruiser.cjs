/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "core-is-pure",
      severity: "error",
      comment:
        "core/ is the domain: it imports only its own files and zod, never a Node built-in or another workspace.",
      from: { path: "^core/src", pathNot: "\\.test\\.ts$" },
      to: { pathNot: ["^core/src", "^node_modules/zod/"] },
    },
    {
      name: "agent-stays-slim",
      severity: "error",
      comment:
        "agent/ (whilly-worker) depends on core and undici only, so a worker box never installs hono, drizzle or pg.",
      from: { path: "^agent/src", pathNot: "\\.test\\.ts$" },
      to: {
        pathNot: ["^agent/src", "^core/src", "^node_modules/undici/", "^node_modules/zod/"],
        dependencyTypesNot: ["core"],
      },
    },
    {
      name: "drizzle-only-in-store",
      severity: "error",
      comment: "SQL and drizzle live in the data-access layer: worker-api/src/store and the schema package.",
      from: { pathNot: ["^worker-api/src/store", "^drizzle/"] },
      to: {
        path: [
          "^node_modules/drizzle-orm/",
          "^node_modules/pg/",
          "^node_modules/@electric-sql/",
          "^drizzle/",
        ],
      },
    },
    {
      name: "no-cli-imports",
      severity: "error",
      comment: "Nothing depends on the CLI; it is the outermost layer (its own tests and test support may).",
      from: { pathNot: ["^cli/", "^test/", "\\.test\\.ts$"] },
      to: { path: "^cli/" },
    },
    {
      name: "worker-api-not-agent",
      severity: "error",
      comment: "The control plane never imports the worker; both meet in core.",
      from: { path: "^worker-api/src" },
      to: { path: "^agent/" },
    },
    {
      name: "no-circular",
      severity: "error",
      comment: "Circular imports hide layering mistakes.",
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: ["dist/", "\\.d\\.ts$"] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.test.json" },
    combinedDependencies: true,
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["source", "import", "default"],
      mainFields: ["main", "types"],
    },
  },
};
