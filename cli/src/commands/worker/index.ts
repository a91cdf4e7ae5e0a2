import type { Argv } from "yargs";
import type { CliContext } from "../../context.js";
import { registerCommand } from "./register.js";
import { revokeCommand } from "./revoke.js";

/** `whilly worker <verb>`: worker credentials. */
export function workerCommand(y: Argv, ctx: CliContext): Argv {
  return y.command("worker", "Register workers and revoke their tokens", (w) => {
    registerCommand(w, ctx);
    revokeCommand(w, ctx);
    return w.demandCommand(1, "name a worker verb: register or revoke");
  });
}
