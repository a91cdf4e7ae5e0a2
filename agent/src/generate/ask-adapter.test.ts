import { ConfigurationError } from "@whilly/core";
import { describe, expect, it } from "vitest";
import { askModel } from "./ask-model.js";
import { generationAgentFromEnv } from "./settings.js";

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", WHILLY_GENERATE_TIMEOUT: "20s" };

describe("plan generation through another adapter", () => {
  it("asks the generic command, whose stdout is the answer", async () => {
    const agent = generationAgentFromEnv(env, { agent: "cmd", agentCmd: "cat {prompt_file}", cwd: "/" });
    expect(agent.adapter?.name).toBe("cmd");
    const { outcome, argv } = await askModel(agent, 'Write the plan.\nIt\'s "quoted"; $(nothing) runs.');
    expect(outcome).toMatchObject({
      ok: true,
      resultText: 'Write the plan.\nIt\'s "quoted"; $(nothing) runs.',
    });
    expect(argv[0]).toBe("cat");
  });

  it("fails an answer that is empty, as for Claude Code", async () => {
    const agent = generationAgentFromEnv(env, { agent: "cmd", agentCmd: "true {prompt_file}", cwd: "/" });
    const { outcome } = await askModel(agent, "Write the plan.");
    expect(outcome).toMatchObject({ ok: false, reason: "empty_result" });
  });

  it("keeps Claude Code without --agent, and refuses an agent whilly does not know", () => {
    expect(generationAgentFromEnv(env).adapter).toBeUndefined();
    expect(generationAgentFromEnv(env, { agent: "claude" }).adapter).toBeUndefined();
    expect(() => generationAgentFromEnv(env, { agent: "nosuch" })).toThrow(ConfigurationError);
  });
});
