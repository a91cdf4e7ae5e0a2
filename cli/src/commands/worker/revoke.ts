import { InvalidInput } from "@whilly/core";
import type { Argv } from "yargs";
import type { CliContext } from "../../context.js";
import { UsageError } from "../../exit-codes.js";

/**
 * `whilly worker revoke ID`: revokes a worker's token in the database this CLI uses (`WHILLY_DATABASE_URL`
 * or the embedded store); its next request gets 401. The worker is marked offline and its tasks go back
 * to `PENDING` at once. Exit 1 for an unknown id, 2 for an empty one.
 */
export function revokeCommand(y: Argv, ctx: CliContext): Argv {
  return y.command(
    "revoke <worker_id>",
    "Revoke a worker's token at once and return its tasks to the queue",
    (a) =>
      a
        .positional("worker_id", { type: "string", demandOption: true, describe: "the id register printed" })
        .option("json", { type: "boolean", default: false, describe: "print the result as JSON" }),
    async (args) => {
      const workerId = args.worker_id;
      if (workerId.trim() === "") {
        throw new UsageError("<worker_id> must not be empty", {
          hint: "whilly worker revoke <worker_id>, with the id `whilly worker register` printed",
        });
      }
      const store = await ctx.store({ mustExist: true });
      const result = await store.revokeWorker(workerId);
      if (!result.found) {
        throw new InvalidInput("workerId", `no worker '${workerId}' is registered in this database`, {
          hint: "use the id `whilly worker register` printed, against the control plane's WHILLY_DATABASE_URL",
        });
      }
      const released = result.released.map((t) => ({ plan_id: t.planId, task_id: t.id }));
      if (args.json) {
        ctx.io.out.write(`${JSON.stringify({ worker_id: workerId, revoked: result.hadToken, released })}\n`);
        return;
      }
      ctx.io.out.write(
        result.hadToken
          ? `revoked worker '${workerId}': its token is refused from now on.\n`
          : `worker '${workerId}' had no token to revoke (already revoked); it is marked offline.\n`,
      );
      if (released.length > 0) {
        const list = released.map((t) => `${t.plan_id}/${t.task_id}`).join(", ");
        ctx.io.out.write(`returned ${released.length} task(s) to PENDING: ${list}\n`);
      }
    },
  );
}
