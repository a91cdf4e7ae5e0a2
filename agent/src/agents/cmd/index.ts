import { isAbsolute, resolve } from "node:path";
import type { AttemptProgress } from "@whilly/core";
import type { AgentAdapter, AgentStreamReader } from "../types.js";
import { cmdResult } from "./result.js";
import { type CmdTemplate, parseCmdTemplate, substituteCmd } from "./template.js";

export { cmdResult } from "./result.js";
export {
  CMD_PLACEHOLDERS,
  type CmdPlaceholder,
  type CmdTemplate,
  type CmdValues,
  parseCmdTemplate,
  substituteCmd,
} from "./template.js";

/** Options of {@link createCmdAdapter}. */
export type CmdAdapterOptions = {
  /** The template (`--agent-cmd`, `WHILLY_AGENT_CMD`), parsed or as text. */
  readonly template: CmdTemplate | string;
  /** Where a relative program path (`./bin/agent`) is taken from: whilly's own directory. */
  readonly cwd: string;
  /** What `{model}` is when nothing names a model; default empty. */
  readonly defaultModel?: string | undefined;
};

/**
 * A command the user gives (`--agent-cmd 'my-agent --prompt-file {prompt_file} --model {model}'`) as
 * an agent: its words with the placeholders filled in, started without a shell in the task's
 * workspace, with the worker's environment (credentials removed). Success is exit 0 (`exit-code`;
 * whilly's checks then decide); the cost is the last line's `{"cost_usd": n}` when it prints one
 * ({@link cmdResult}). No sessions, no progress beyond the run itself. Its start check only looks the
 * program up (an empty `versionArgv`): an unknown command need not understand `--version`.
 * @throws {ConfigurationError} when the template is not valid ({@link parseCmdTemplate}).
 */
export function createCmdAdapter(options: CmdAdapterOptions): AgentAdapter {
  const template =
    typeof options.template === "string" ? parseCmdTemplate(options.template) : options.template;
  const first =
    substituteCmd(template, { prompt: "", prompt_file: "", model: "", workdir: "", task_id: "" })[0] ?? "";
  const programOf = (word: string) =>
    word.includes("/") && !isAbsolute(word) ? resolve(options.cwd, word) : word;
  return {
    name: "cmd",
    bin: programOf(first),
    binVariable: "WHILLY_AGENT_CMD",
    defaultModel: options.defaultModel ?? "",
    resumes: false,
    answers: true,
    unavailableHints: {
      auth: "log the command of --agent-cmd (WHILLY_AGENT_CMD) in for the user whilly runs as, then run again",
      install:
        "install the program --agent-cmd (WHILLY_AGENT_CMD) names, or fix its path (a relative one is taken from where whilly was started), then run again",
    },
    successRule: "exit-code",
    stderrIsActivity: true,
    argv: (invocation) => {
      const argv = substituteCmd(template, {
        prompt: invocation.prompt,
        prompt_file: invocation.promptFile,
        model: invocation.model,
        workdir: invocation.cwd,
        task_id: invocation.taskId,
      });
      return [programOf(argv[0] ?? ""), ...argv.slice(1)];
    },
    env: (base) => ({ ...base }),
    stream: () => silentReader(),
    result: (output) => cmdResult(output),
    versionArgv: () => [],
  };
}

/** A generic command prints no events whilly knows: no session, no turns. */
function silentReader(): AgentStreamReader {
  const progress: AttemptProgress = { turns: 0 };
  return { push: () => {}, sessionId: undefined, progress, limitResetsAt: undefined };
}
