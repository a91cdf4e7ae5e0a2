import { migratePostgres } from "@whilly/worker-api";
import type { Argv } from "yargs";
import type { CliContext } from "../context.js";

/** `whilly db migrate`: applies the schema migrations to the Postgres server in `WHILLY_DATABASE_URL`. */
export function dbCommand(y: Argv, ctx: CliContext): Argv {
  return y.command("db", "Manage the database schema", (d) =>
    d
      .command(
        "migrate",
        "Apply schema migrations to WHILLY_DATABASE_URL (the embedded store migrates itself)",
        (a) => a,
        async () => {
          const url = ctx.settings.databaseUrl;
          if (url === undefined) {
            await ctx.store();
            ctx.io.out.write(
              "the embedded store in .whilly/ is migrated (it migrates itself on every open).\n",
            );
            return;
          }
          const { applied } = await migratePostgres(url);
          ctx.io.out.write(`database migrated (${applied} migration(s) applied).\n`);
        },
      )
      .demandCommand(1, "name a db verb: migrate"),
  );
}
