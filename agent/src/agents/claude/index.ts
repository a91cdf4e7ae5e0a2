import { AGENT_UNAVAILABLE_HINTS, findResultObject } from "@whilly/core";
import { modelEnv } from "../../generate/model-env.js";
import { claudeArgv, claudeEnv } from "../../runner/argv.js";
import type { ClaudeSettings } from "../../runner/settings.js";
import { DEFAULT_NO_PROXY } from "../../runner/settings.js";
import { StreamEvents } from "../../runner/stream-events.js";
import type { AgentAdapter } from "../types.js";
import { generationArgv } from "./answer-argv.js";

export { GENERATION_DISALLOWED_TOOLS, generationArgv } from "./answer-argv.js";

/**
 * Claude Code behind the adapter interface (docs/agent.md): `stream-json` output read by
 * {@link StreamEvents}, the `result` object as the result, the completion marker as the success rule,
 * sessions resumed with `--resume`. A task runs with {@link claudeArgv} and the worker's environment
 * plus the agent proxy; an answer (plan generation) runs with {@link generationArgv}, every tool off,
 * and only the model's environment ({@link modelEnv}).
 * @param settings from `parseClaudeSettings` (`CLAUDE_BIN`, `WHILLY_MODEL`, permissions, proxy).
 */
export function createClaudeAdapter(settings: ClaudeSettings): AgentAdapter {
  return {
    name: "claude",
    bin: settings.claudeBin,
    binVariable: "CLAUDE_BIN",
    defaultModel: settings.model,
    resumes: true,
    answers: true,
    unavailableHints: AGENT_UNAVAILABLE_HINTS,
    successRule: "completion-marker",
    argv: (invocation) =>
      invocation.mode === "answer"
        ? generationArgv(settings.claudeBin, invocation.model, invocation.prompt)
        : claudeArgv({ ...settings, model: invocation.model }, invocation.prompt, {
            resumeSessionId: invocation.resumeSessionId,
          }),
    env: (base, invocation) =>
      invocation.mode === "answer"
        ? modelEnv(base, { url: settings.proxyUrl, noProxy: settings.noProxy ?? DEFAULT_NO_PROXY })
        : claudeEnv(base, settings),
    stream: (onChange) => new StreamEvents(onChange),
    result: ({ stdout, stderr }) => findResultObject(stdout) ?? findResultObject(stderr),
    versionArgv: () => [settings.claudeBin, "--version"],
  };
}
