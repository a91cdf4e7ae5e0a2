import type { Argv } from "yargs";
import type { CliContext } from "../context.js";

/**
 * `whilly db migrate [--create]`: applies the schema migrations to the Postgres database in
 * `WHILLY_DATABASE_URL`, first creating that database on its server with `--create`.
 */
export function dbCommand(y: Argv, ctx: CliContext): Argv {
  return y.command("db", "Manage the database schema", (d) =>
    d
      .command(
        "migrate",
        "Apply schema migrations to WHILLY_DATABASE_URL (the embedded store migrates itself)",
        (a) =>
          a.option("create", {
            type: "boolean",
            default: false,
            describe: "create the database first if its server lacks it (as the URL's user)",
          }),
        async (args) => {
          const url = ctx.settings.databaseUrl;
          if (url === undefined) {
            await ctx.store();
            ctx.io.out.write(
              "the embedded store in .whilly/ is migrated (it migrates itself on every open).\n",
            );
            return;
          }
          const { createPostgresDatabase, migratePostgres } = await import("@whilly/worker-api");
          if (args.create) {
            const { created, name } = await createPostgresDatabase(url);
            ctx.io.out.write(created ? `created database '${name}'.\n` : `database '${name}' exists.\n`);
          }
          const { applied } = await migratePostgres(url);
          ctx.io.out.write(`database migrated (${applied} migration(s) applied).\n`);
        },
      )
      .demandCommand(1, "name a db verb: migrate"),
  );
}
