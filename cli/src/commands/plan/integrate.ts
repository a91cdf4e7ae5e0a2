import { isAbsolute, resolve } from "node:path";
import { DEFAULT_VERIFY_TIMEOUT, EXIT, PlanNotFound } from "@whilly/core";
import type { Argv } from "yargs";
import type { CliContext } from "../../context.js";
import { UsageError } from "../../exit-codes.js";
import { integrationQueue } from "../../integrate/order.js";
import { reportJson, reportText } from "../../integrate/report.js";
import { durationFlag, textFlag } from "../../options.js";

/**
 * `whilly plan integrate <plan_id>`: merges the DONE tasks' work (the branch and commit each worker
 * reported) in dependency order into `whilly/<plan-slug>` or `--into`, in a worktree of the clone,
 * with the plan's verify after each merge; stops at the first conflict or failure and continues on a
 * rerun (docs/integrate.md). Exit 0 when every DONE task is in (or none is DONE: nothing to
 * integrate), 1 when it stopped, 2 for usage or configuration.
 */
export function integrateCommand(y: Argv, ctx: CliContext): Argv {
  return y.command(
    "integrate <plan_id>",
    "Merge the DONE tasks' branches, in dependency order, into one branch",
    (a) =>
      a
        .positional("plan_id", { type: "string", demandOption: true })
        .option("into", {
          type: "string",
          describe:
            "branch to merge into, made from the remote's branch of that name, else HEAD, when missing (default whilly/<plan-slug>)",
        })
        .option("push", {
          type: "boolean",
          default: false,
          describe: "push the branch to the remote at the end",
        })
        .option("remote", {
          type: "string",
          default: "origin",
          describe: "remote the task branches are fetched from (and --push pushes to)",
        })
        .option("repo", { type: "string", describe: "the clone to work in (default: the current directory)" })
        .option("verify-timeout", {
          type: "string",
          default: DEFAULT_VERIFY_TIMEOUT,
          describe: "stop one verify (or setup) command after this long: 90s, 10m (bare number: seconds)",
        })
        .option("json", { type: "boolean", default: false, describe: "print the report as JSON" }),
    async (args) => {
      // git, the agent's settings and the merge load only when an integration runs.
      const [{ parseClaudeSettings, slugOf }, { integratePlan }, { openTarget, requireRemote }] =
        await Promise.all([
          import("@whilly/agent"),
          import("../../integrate/integrate-plan.js"),
          import("../../integrate/target.js"),
        ]);
      const timeoutMs = durationFlag(args.verifyTimeout, "--verify-timeout", "10m");
      const into = textFlag(args.into, "--into");
      const remote = textFlag(args.remote, "--remote") ?? "origin";
      if (remote.startsWith("-")) {
        throw new UsageError(`--remote '${remote}' is not a remote name`, {
          hint: "name a remote of the clone (git remote lists them), e.g. --remote origin",
        });
      }
      const repoFlag = textFlag(args.repo, "--repo");
      const repoDir = repoFlag === undefined ? ctx.io.cwd : resolveFrom(ctx.io.cwd, repoFlag);
      const killGraceMs = parseClaudeSettings(ctx.io.env).killGraceMs;
      const branch = into ?? `whilly/${slugOf(args.plan_id)}`;
      const env = ctx.io.env;
      const target = await openTarget({ repoDir, branch, branchFlag: into && "--into", remote, env });
      if (args.push) await requireRemote(target, "--push pushes the branch there");

      const store = await ctx.store({ mustExist: true });
      const plan = await store.getPlan(args.plan_id);
      if (!plan) throw new PlanNotFound(args.plan_id);
      const queue = integrationQueue(await store.listTasks(plan.id));
      const secrets = ctx.settings.secrets;
      // Merges and checks may take minutes: the embedded store's lock is not held meanwhile.
      await ctx.close();
      const report = await integratePlan(target, {
        planId: plan.id,
        queue,
        checks: {
          verify: plan.verify ?? [],
          setup: plan.setup,
          timeoutMs,
          killGraceMs,
          env,
          secrets,
          signal: ctx.io.interrupt,
        },
        push: args.push,
        rerun: rerunCommand(plan.id, args),
        progress: (line) => ctx.io.err.write(`integrate: ${line}\n`),
      });
      ctx.io.out.write(args.json ? `${JSON.stringify(reportJson(report), null, 2)}\n` : reportText(report));
      const stop = report.stop;
      ctx.exitCode =
        stop === undefined ? EXIT.ok : stop.reason === "interrupted" ? EXIT.interrupted : EXIT.failed;
    },
  );
}

function resolveFrom(cwd: string, path: string): string {
  return isAbsolute(path) ? path : resolve(cwd, path);
}

/** The command line that runs this integration again, for the hints of a stop. */
function rerunCommand(
  planId: string,
  args: { into?: unknown; remote?: unknown; repo?: unknown; push?: boolean; verifyTimeout?: unknown },
): string {
  const words = ["whilly", "plan", "integrate", planId];
  if (args.into !== undefined) words.push("--into", String(args.into));
  if (args.remote !== undefined && args.remote !== "origin") words.push("--remote", String(args.remote));
  if (args.repo !== undefined) words.push("--repo", String(args.repo));
  if (args.verifyTimeout !== undefined && args.verifyTimeout !== DEFAULT_VERIFY_TIMEOUT)
    words.push("--verify-timeout", String(args.verifyTimeout));
  if (args.push) words.push("--push");
  return words.map(shellWord).join(" ");
}

function shellWord(word: string): string {
  return /^[\w./:@%+=,-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}
