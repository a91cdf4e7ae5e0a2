// The layer rule of docs/architecture.md ("Workspaces and who may import whom"), checked by `npm run lint:deps`.
// npm packages resolve into node_modules and are checked by name, so only the workspaces' own build output
// is excluded: an exclusion of every `dist/` would hide hono, jose, PGlite and others, whose entry files
// live in their own dist/.

/** Test code: test files, the store contract suite, `testing/` helpers, and the repository's test/ folder. */
const TEST_CODE = ["\\.test\\.ts$", "\\.contract\\.ts$", "/testing/", "^test/"];
const WORKSPACE_TESTS = "^(core|agent|cli|worker-api|drizzle)/src/.*\\.(test|contract)\\.ts$";

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "web-stands-alone",
      severity: "error",
      comment:
        "web/ is the browser's bundle: it speaks to the control plane over HTTP only, so it imports no workspace (they carry Node and server code) and of npm only Preact; no workspace imports it.",
      from: { path: "^web/src", pathNot: TEST_CODE },
      to: { pathNot: ["^web/src", "^node_modules/preact/"] },
    },
    {
      name: "nothing-imports-web",
      severity: "error",
      comment: "The web bundle is served as files (web/dist), never imported by server or CLI code.",
      from: { pathNot: "^web/" },
      to: { path: "^web/src" },
    },
    {
      name: "core-is-pure",
      severity: "error",
      comment:
        "core/ is the domain: it imports only its own files and zod, never a Node built-in or another workspace.",
      from: { path: "^core/src", pathNot: TEST_CODE },
      to: { pathNot: ["^core/src", "^node_modules/zod/"] },
    },
    {
      name: "agent-stays-slim",
      severity: "error",
      comment:
        "agent/ (whilly-worker) imports core, undici, zod (core's own dependency) and Node built-ins only, so a worker box never installs hono, drizzle or pg.",
      from: { path: "^agent/src", pathNot: TEST_CODE },
      to: {
        pathNot: ["^agent/src", "^core/src", "^node_modules/undici/", "^node_modules/zod/"],
        dependencyTypesNot: ["core"],
      },
    },
    {
      name: "cli-npm-packages",
      severity: "error",
      comment:
        "cli/ reaches the store, the server and the worker through the workspaces' exports; of npm it imports only yargs and zod, and Ink and React for the dashboard's screen (never hono, jose, drizzle, pg or PGlite directly).",
      from: { path: "^cli/src", pathNot: TEST_CODE },
      to: {
        path: "^node_modules/",
        pathNot: ["^node_modules/yargs/", "^node_modules/zod/", "^node_modules/ink/", "^node_modules/react/"],
      },
    },
    {
      name: "ink-only-in-dashboard-screen",
      severity: "error",
      comment:
        "Ink and React are loaded by whilly dashboard alone: only its screen (cli/src/dashboard/*.tsx) imports them, and the command imports the screen dynamically, so no other command's start pays for them.",
      from: { path: "^cli/src", pathNot: "^cli/src/dashboard/[^/]+\\.tsx$" },
      to: {
        path: ["^node_modules/ink/", "^node_modules/react/", "^cli/src/dashboard/[^/]+\\.tsx$"],
        dependencyTypesNot: ["dynamic-import"],
      },
    },
    {
      name: "cli-commands-load-lazily",
      severity: "error",
      comment:
        "Every whilly start registers all commands: a command's registration (its options and help) imports the store, the server or the agents only dynamically, in its handler (or through a *-handler.ts module it imports dynamically), so --help, usage errors and the other commands do not pay for them.",
      from: {
        path: ["^cli/src/(main|context)\\.ts$", "^cli/src/commands/"],
        pathNot: [TEST_CODE, "-handler\\.ts$", "^cli/src/commands/init/run-init\\.ts$"].flat(),
      },
      to: {
        path: [
          "^agent/src",
          "^worker-api/src",
          "^cli/src/(settings|store/open-store|events/follow-store|dashboard/sources|pr/plan-pr|forge/run-intake|run/local-run|run/runner)\\.ts$",
          "^cli/src/integrate/(integrate-plan|target|checks|branch|worktree)\\.ts$",
        ],
        dependencyTypesNot: ["dynamic-import", "type-only", "type-import"],
      },
    },
    {
      name: "drizzle-only-in-store",
      severity: "error",
      comment:
        "SQL and its drivers live in the data-access layer: worker-api/src/store and the schema package (drizzle/).",
      from: { pathNot: ["^worker-api/src/store/", "^drizzle/"] },
      to: {
        path: [
          "^node_modules/drizzle-orm/",
          "^node_modules/pg/",
          "^node_modules/@electric-sql/",
          "^node_modules/@neondatabase/",
          "^drizzle/",
        ],
      },
    },
    {
      name: "hono-only-in-http",
      severity: "error",
      comment: "Hono is the HTTP layer (worker-api/src/app); the Node host alone binds it to a socket.",
      from: { pathNot: ["^worker-api/src/app/", ...TEST_CODE] },
      to: { path: "^node_modules/hono/" },
    },
    {
      name: "node-server-only-in-node-host",
      severity: "error",
      comment:
        "@hono/node-server serves the app on Node: worker-api/src/node only (tests may serve one too).",
      from: { pathNot: ["^worker-api/src/node/", ...TEST_CODE] },
      to: { path: "^node_modules/@hono/node-server/" },
    },
    {
      name: "jose-only-in-auth",
      severity: "error",
      comment: "Tokens are signed and checked in worker-api/src/auth only.",
      from: { pathNot: ["^worker-api/src/auth/", ...TEST_CODE] },
      to: { path: "^node_modules/jose/" },
    },
    {
      name: "store-knows-no-callers",
      severity: "error",
      comment:
        "The store is the innermost part of worker-api: it imports core, the schema and its drivers, never the HTTP layer, auth, coordinator, sweeps, event buffer or hosts.",
      from: { path: "^worker-api/src/store/" },
      to: { path: "^worker-api/src/", pathNot: "^worker-api/src/store/" },
    },
    {
      name: "http-sees-store-port-only",
      severity: "error",
      comment:
        "The HTTP layer (routes, caller, long polls) knows the store only through its port, worker-api/src/store/store.ts, which re-exports the port's vocabulary.",
      from: { path: "^worker-api/src/app/", pathNot: TEST_CODE },
      to: { path: "^worker-api/src/store/", pathNot: "^worker-api/src/store/store\\.ts$" },
    },
    {
      name: "store-internals-stay-inside",
      severity: "error",
      comment:
        "Outside the store, worker-api runs store code only through the port, the package index and the openers (store/open); type-only imports of the store's vocabulary are harmless to a bundle.",
      from: { path: "^worker-api/src/", pathNot: ["^worker-api/src/store/", ...TEST_CODE] },
      to: {
        path: "^worker-api/src/store/",
        pathNot: [
          "^worker-api/src/store/store\\.ts$",
          "^worker-api/src/store/index\\.ts$",
          "^worker-api/src/store/open/",
        ],
        dependencyTypesNot: ["type-only"],
      },
    },
    {
      name: "background-parts-not-http",
      severity: "error",
      comment:
        "auth, the coordinator, the event buffer and the sweeps serve the HTTP layer and the hosts, never import them; they meet the HTTP layer in the port types (worker-api/src/ports).",
      from: { path: "^worker-api/src/(auth|coordinator|events-buffer|stream|sweeps)/", pathNot: TEST_CODE },
      to: { path: ["^worker-api/src/app/", "^worker-api/src/node/", "^worker-api/src/cloudflare/"] },
    },
    {
      name: "ports-are-types",
      severity: "error",
      comment:
        "worker-api/src/ports holds the types its parts meet in (logger, auth, work coordinator, event sink): they name core and the store port's vocabulary only.",
      from: { path: "^worker-api/src/ports/" },
      to: {
        path: "^worker-api/src/",
        pathNot: ["^worker-api/src/ports/", "^worker-api/src/store/store\\.ts$"],
      },
    },
    {
      name: "hosts-are-outermost",
      severity: "error",
      comment:
        "The Node host (node/) and the Cloudflare Workers runtime (cloudflare/) compose the parts; within worker-api only the package index imports them.",
      from: {
        path: "^worker-api/src/",
        pathNot: ["^worker-api/src/(node|cloudflare)/", "^worker-api/src/index\\.ts$"],
      },
      to: { path: "^worker-api/src/(node|cloudflare)/" },
    },
    {
      name: "no-cli-imports",
      severity: "error",
      comment:
        "Nothing depends on the CLI; it is the outermost layer (its own tests, test/support and test/e2e may).",
      from: { pathNot: ["^cli/", "^test/(support|e2e)/"] },
      to: { path: "^cli/" },
    },
    {
      name: "worker-api-not-agent",
      severity: "error",
      comment: "The control plane never imports the worker, not even in its tests; both meet in core.",
      from: { path: "^worker-api/src" },
      to: { path: "^agent/" },
    },
    {
      name: "production-never-imports-tests",
      severity: "error",
      comment:
        "Shipped code never imports test code (test files, the contract suite, testing/ helpers, test/, the fake model) or a devDependency.",
      from: { path: "^(core|agent|cli|worker-api|drizzle)/src/", pathNot: TEST_CODE },
      to: { path: TEST_CODE },
    },
    {
      name: "production-no-dev-dependencies",
      severity: "error",
      comment: "A devDependency is not installed with the package: shipped code may not import one.",
      from: { path: "^(core|agent|cli|worker-api|drizzle)/src/", pathNot: TEST_CODE },
      to: { dependencyTypes: ["npm-dev"] },
    },
    {
      name: "core-tests-stay-in-core",
      severity: "error",
      comment: "core's tests exercise core alone (plus test libraries, Node built-ins and fixture files).",
      from: { path: "^core/src/.*\\.test\\.ts$" },
      to: { path: ["^(agent|cli|worker-api|drizzle)/", "^test/(support|e2e|fake-anthropic|fake-gemini)/"] },
    },
    {
      name: "agent-tests-meet-control-plane-by-entry",
      severity: "error",
      comment:
        "An agent test may stand up a real control plane, through worker-api's package entry, its store fixtures and its loopback server only; it never reaches worker-api internals, drizzle or the CLI.",
      from: { path: "^agent/src/.*\\.test\\.ts$" },
      to: {
        path: ["^worker-api/", "^drizzle/", "^cli/"],
        pathNot: [
          "^worker-api/src/index\\.ts$",
          "^worker-api/src/store/testing/",
          "^worker-api/src/app/testing/serve-loopback\\.ts$",
        ],
      },
    },
    {
      name: "workspace-tests-use-shared-support",
      severity: "error",
      comment:
        "Workspace tests share test/support and fixture files; they never import an e2e test or the global setup.",
      from: { path: WORKSPACE_TESTS },
      to: { path: ["^test/e2e/", "^test/workerd/", "^test/global-setup"] },
    },
    {
      name: "fake-model-stands-alone",
      severity: "error",
      comment:
        "test/fake-anthropic stands in for the Anthropic API: it imports no whilly workspace, so it cannot drift towards what whilly expects.",
      from: { path: "^test/fake-anthropic/" },
      to: { path: ["^(core|agent|cli|worker-api|drizzle)/", "^test/(support|e2e|workerd|fixtures)/"] },
    },
    {
      name: "fake-gemini-stands-alone",
      severity: "error",
      comment:
        "test/fake-gemini stands in for the Gemini API: it imports no whilly workspace, so it cannot drift towards what whilly expects.",
      from: { path: "^test/fake-gemini/" },
      to: {
        path: [
          "^(core|agent|cli|worker-api|drizzle)/",
          "^test/(support|e2e|workerd|fixtures|fake-anthropic)/",
        ],
      },
    },
    {
      name: "declared-dependencies",
      severity: "error",
      comment:
        "Every npm package a workspace imports is listed in that workspace's package.json (dependencies, or devDependencies for tests).",
      from: {},
      to: { dependencyTypes: ["npm-no-pkg", "npm-unknown"] },
    },
    {
      name: "resolvable",
      severity: "error",
      comment: "Every import resolves (cloudflare: modules exist only inside workerd).",
      from: {},
      to: { couldNotResolve: true, pathNot: "^cloudflare:" },
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
    exclude: {
      path: ["^(core|agent|cli|worker-api|drizzle|test/fake-anthropic|test/fake-gemini)/dist/", "\\.d\\.ts$"],
    },
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
