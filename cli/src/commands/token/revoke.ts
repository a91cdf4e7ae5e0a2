import { InvalidInput } from "@whilly/core";
import type { Argv } from "yargs";
import type { CliContext } from "../../context.js";
import { UsageError } from "../../exit-codes.js";

/**
 * `whilly token revoke ID`: revokes a read-only token in the database this CLI uses; its next request
 * gets 401. Exit 1 for an unknown id, 2 for an empty one; revoking twice is not an error.
 */
export function revokeTokenCommand(y: Argv, ctx: CliContext): Argv {
  return y.command(
    "revoke <token_id>",
    "Revoke a read-only token at once",
    (a) =>
      a
        .positional("token_id", { type: "string", demandOption: true, describe: "the id create printed" })
        .option("json", { type: "boolean", default: false, describe: "print the result as JSON" }),
    async (args) => {
      const id = args.token_id.trim();
      if (id === "") {
        throw new UsageError("<token_id> must not be empty", {
          hint: "whilly token revoke <token_id>, with an id from whilly token list",
        });
      }
      const store = await ctx.store({ mustExist: true });
      const result = await store.revokeReadToken(id);
      if (!result.found) {
        throw new InvalidInput("token_id", `no read-only token '${id}' in this database`, {
          hint: "whilly token list shows the ids, against the control plane's WHILLY_DATABASE_URL",
        });
      }
      if (args.json) {
        ctx.io.out.write(`${JSON.stringify({ id, revoked: result.wasLive })}\n`);
        return;
      }
      ctx.io.out.write(
        result.wasLive
          ? `revoked read-only token '${id}': it is refused from now on.\n`
          : `read-only token '${id}' was already revoked.\n`,
      );
    },
  );
}
