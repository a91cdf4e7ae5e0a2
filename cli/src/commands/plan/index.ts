import type { Argv } from "yargs";
import type { CliContext } from "../../context.js";
import { applyCommand } from "./apply.js";
import { budgetCommand } from "./budget.js";
import { createCommand } from "./create.js";
import { exportCommand } from "./export.js";
import { importCommand } from "./import.js";
import { integrateCommand } from "./integrate.js";
import { listCommand } from "./list.js";
import { prCommand } from "./pr.js";
import { resetCommand } from "./reset.js";
import { showCommand } from "./show.js";
import { releaseCommand, retryCommand } from "./task-actions.js";
import { trizCommand } from "./triz.js";

/** `whilly plan <verb>`. */
export function planCommand(y: Argv, ctx: CliContext): Argv {
  return y.command("plan", "Import, inspect and manage plans", (p) => {
    for (const register of [
      importCommand,
      applyCommand,
      createCommand,
      exportCommand,
      showCommand,
      resetCommand,
      retryCommand,
      releaseCommand,
      budgetCommand,
      listCommand,
      integrateCommand,
      prCommand,
      trizCommand,
    ]) {
      register(p, ctx);
    }
    return p.demandCommand(
      1,
      "name a plan verb: import, apply, create, export, show, reset, retry, release, budget, list, integrate, pr or triz",
    );
  });
}
