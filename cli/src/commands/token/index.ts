import type { Argv } from "yargs";
import type { CliContext } from "../../context.js";
import { createTokenCommand } from "./create.js";
import { listTokensCommand } from "./list.js";
import { revokeTokenCommand } from "./revoke.js";

/** `whilly token <verb>`: read-only tokens of the read API, kept in the database this CLI uses. */
export function tokenCommand(y: Argv, ctx: CliContext): Argv {
  return y.command("token", "Mint, list and revoke read-only tokens of the read API", (t) => {
    createTokenCommand(t, ctx);
    listTokensCommand(t, ctx);
    revokeTokenCommand(t, ctx);
    return t.demandCommand(1, "name a token verb: create, list or revoke");
  });
}
