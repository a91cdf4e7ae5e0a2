import type { Argv } from "yargs";
import type { CliContext } from "../../context.js";
import { pauseCommand, resumeCommand } from "./pause.js";
import { registerCommand } from "./register.js";
import { revokeCommand } from "./revoke.js";

/** `whilly worker <verb>`: worker credentials, and pausing every worker. */
export function workerCommand(y: Argv, ctx: CliContext): Argv {
  return y.command("worker", "Register workers, revoke their tokens, pause and resume them", (w) => {
    registerCommand(w, ctx);
    revokeCommand(w, ctx);
    pauseCommand(w, ctx);
    resumeCommand(w, ctx);
    return w.demandCommand(1, "name a worker verb: register, revoke, pause or resume");
  });
}
