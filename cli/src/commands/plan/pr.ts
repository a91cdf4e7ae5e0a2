import { isAbsolute, resolve } from "node:path";
import { ConfigurationError, EXIT, PlanNotFound } from "@whilly/core";
import type { Argv } from "yargs";
import type { CliContext } from "../../context.js";
import { UsageError } from "../../exit-codes.js";
import { ghRunner, ghTimeoutMs } from "../../github/gh.js";
import { textFlag } from "../../options.js";

/**
 * `whilly plan pr <plan_id>`: pushes the plan's integration branch `whilly/<plan-slug>` (made by
 * `whilly plan integrate`) and opens a pull request of it with `gh`, or updates the one already open;
 * a forge plan's issue is closed by it and labelled `whilly-in-review` (docs/pr.md). Exit 0 done, 1 the
 * plan or branch is not ready or git/gh failed, 2 usage, a missing or logged-out gh.
 */
export function prCommand(y: Argv, ctx: CliContext): Argv {
  return y.command(
    "pr <plan_id>",
    "Push the plan's integration branch and open (or update) its pull request with gh",
    (a) =>
      a
        .positional("plan_id", { type: "string", demandOption: true })
        .option("base", {
          type: "string",
          describe: "the branch to merge into (default: the repository's default branch)",
        })
        .option("draft", { type: "boolean", default: false, describe: "open the pull request as a draft" })
        .option("partial", {
          type: "boolean",
          default: false,
          describe: "open it with the DONE tasks when others are not DONE (else refused)",
        })
        .option("remote", { type: "string", default: "origin", describe: "the remote to push the branch to" })
        .option("repo", {
          type: "string",
          describe: "the clone to push from (default: the current directory)",
        })
        .option("json", { type: "boolean", default: false, describe: "print the result as JSON" }),
    async (args) => {
      // git's runner loads only when a pull request is made.
      const [{ gitRunner, gitTopLevel, slugOf }, { planPr, planPrJson, planPrText }] = await Promise.all([
        import("@whilly/agent"),
        import("../../pr/plan-pr.js"),
      ]);
      const base = textFlag(args.base, "--base");
      const remote = textFlag(args.remote, "--remote") ?? "origin";
      if (remote.startsWith("-")) {
        throw new UsageError(`--remote '${remote}' is not a remote name`, {
          hint: "name a remote of the clone (git remote lists them), e.g. --remote origin",
        });
      }
      const branch = `whilly/${slugOf(args.plan_id)}`;
      if (base === branch) {
        throw new UsageError(`--base '${base}' is the plan's integration branch itself`, {
          hint: "name the branch the work should go into, e.g. --base main",
        });
      }
      const repoFlag = textFlag(args.repo, "--repo");
      const repoDir = repoFlag === undefined ? ctx.io.cwd : resolveFrom(ctx.io.cwd, repoFlag);
      const env = ctx.io.env;
      const timeoutMs = ghTimeoutMs(env);
      const git = gitRunner(env);
      const top = await gitTopLevel(git, repoDir);
      if (top === undefined) {
        throw new ConfigurationError(`${repoDir} is not inside a git repository`, {
          hint: "run it in the clone where whilly plan integrate made the branch, or pass --repo DIR",
        });
      }

      const store = await ctx.store({ mustExist: true });
      const plan = await store.getPlan(args.plan_id);
      if (!plan) throw new PlanNotFound(args.plan_id);
      const tasks = await store.listTasks(plan.id);
      const secrets = ctx.settings.secrets;
      // git and gh may take a while: the embedded store's lock is not held meanwhile.
      await ctx.close();
      const gh = ghRunner({
        env,
        cwd: top,
        timeoutMs,
        secrets,
        purpose: "whilly plan pr opens the pull request with it",
        signal: ctx.io.interrupt,
      });
      const run = planPr({
        plan,
        tasks,
        at: { git, top, branch, remote, planId: plan.id },
        base,
        draft: args.draft,
        partial: args.partial,
        gh,
        progress: (line) => ctx.io.err.write(`pr: ${line}\n`),
        signal: ctx.io.interrupt,
      });
      const report = await run.catch((error: unknown) => {
        if (ctx.io.interrupt?.aborted !== true) throw error;
        return undefined;
      });
      if (report === undefined) {
        ctx.io.err.write("pr: interrupted; run it again to finish (it picks up the open pull request)\n");
        ctx.exitCode = EXIT.interrupted;
        return;
      }
      ctx.io.out.write(args.json ? `${JSON.stringify(planPrJson(report), null, 2)}\n` : planPrText(report));
    },
  );
}

function resolveFrom(cwd: string, path: string): string {
  return isAbsolute(path) ? path : resolve(cwd, path);
}
