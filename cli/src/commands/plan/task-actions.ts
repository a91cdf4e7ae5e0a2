import { InvalidInput, VersionConflict } from "@whilly/core";
import type { Argv } from "yargs";
import type { CliContext } from "../../context.js";
import type { ControlActions } from "../../control/actions.js";
import { controlActionsFor } from "../../control/choose.js";
import { textFlag } from "../../options.js";

const CONNECT = {
  type: "string",
  describe: "act on this control plane (WHILLY_ADMIN_TOKEN) instead of the store",
} as const;

/** One operator verb on a single task: its command line, what it calls and what it says. */
type TaskVerb = {
  readonly command: string;
  readonly describe: string;
  readonly act: (actions: ControlActions, planId: string, taskId: string) => Promise<void>;
  readonly rule: { only: string; hint: string };
  readonly done: (planId: string, taskId: string) => string;
};

/**
 * `whilly plan release <plan_id> <task_id> [--connect URL]`: takes a claimed or running task back to
 * PENDING (`RELEASE`, reason `admin_release`), e.g. one stuck on a machine that is gone; the worker that
 * held it loses its lease. Exit 1 when the task is in another status (naming it) or missing.
 */
export function releaseCommand(y: Argv, ctx: CliContext): Argv {
  return taskVerb(y, ctx, {
    command: "release <plan_id> <task_id>",
    describe: "Take a claimed or running task back to PENDING; its worker loses the lease",
    act: (actions, planId, taskId) => actions.releaseTask(planId, taskId),
    rule: {
      only: "a CLAIMED or IN_PROGRESS task can be released",
      hint: "whilly plan show shows each task's status; a FAILED task is retried with whilly plan retry",
    },
    done: (planId, taskId) => `released task '${taskId}' of plan '${planId}': it is PENDING again.\n`,
  });
}

/**
 * `whilly plan retry <plan_id> <task_id> [--connect URL]`: sends one FAILED task back to PENDING with a
 * fresh set of attempts (`RESET`, reason `retry_failed`), as `plan reset --failed` does for all of them.
 * Exit 1 when the task is not FAILED (naming its status) or missing.
 */
export function retryCommand(y: Argv, ctx: CliContext): Argv {
  return taskVerb(y, ctx, {
    command: "retry <plan_id> <task_id>",
    describe: "Send one FAILED task back to PENDING with a fresh set of attempts",
    act: (actions, planId, taskId) => actions.resetTask(planId, taskId),
    rule: {
      only: "only a FAILED task can be retried",
      hint: "whilly plan show shows each task's status; a stuck CLAIMED or IN_PROGRESS task is freed with whilly plan release",
    },
    done: (planId, taskId) => `task '${taskId}' of plan '${planId}' is PENDING again, with fresh attempts.\n`,
  });
}

function taskVerb(y: Argv, ctx: CliContext, verb: TaskVerb): Argv {
  return y.command(
    verb.command,
    verb.describe,
    (a) =>
      a
        .positional("plan_id", { type: "string", demandOption: true })
        .positional("task_id", { type: "string", demandOption: true })
        .option("connect", CONNECT),
    async (args) => {
      const actions = await controlActionsFor(ctx, textFlag(args.connect, "--connect"));
      await explained(verb.act(actions, args.plan_id, args.task_id), verb.rule);
      ctx.io.out.write(verb.done(args.plan_id, args.task_id));
    },
  );
}

/**
 * Awaits an action, turning a wrong-status refusal into an error that names the status and the rule.
 * @throws {InvalidInput} (exit 1) for a task in a status the action may not leave; anything else as is.
 */
async function explained(action: Promise<void>, rule: { only: string; hint: string }): Promise<void> {
  try {
    await action;
  } catch (error) {
    if (!(error instanceof VersionConflict) || error.actualStatus === undefined) throw error;
    const where = error.planId === undefined ? "" : ` of plan '${error.planId}'`;
    throw new InvalidInput(
      "task_id",
      `task '${error.taskId}'${where} is ${error.actualStatus}; ${rule.only}`,
      {
        hint: rule.hint,
      },
    );
  }
}
