/**
 * Built-in tools named to `--disallowedTools` as well, in case a Claude Code version reads `--tools ""`
 * differently: every tool that writes, runs, fetches or starts another agent.
 */
export const GENERATION_DISALLOWED_TOOLS: readonly string[] = [
  "Bash",
  "Edit",
  "MultiEdit",
  "Write",
  "NotebookEdit",
  "WebFetch",
  "WebSearch",
  "Agent",
  "Task",
  "Read",
  "Glob",
  "Grep",
];

/**
 * The command line of a tool-less answer (plan generation): every built-in tool disabled (`--tools ""`,
 * and the dangerous ones denied by name too), any other tool call denied without asking
 * (`--permission-mode dontAsk`), no MCP server (`--strict-mcp-config` without a config), no slash
 * commands, only the user's settings (not a project's), no session saved, one turn, and the prompt as
 * one argument after `--`.
 */
export function generationArgv(claudeBin: string, model: string, prompt: string): string[] {
  return [
    claudeBin,
    "--tools",
    "",
    "--disallowedTools",
    GENERATION_DISALLOWED_TOOLS.join(" "),
    "--permission-mode",
    "dontAsk",
    "--strict-mcp-config",
    "--disable-slash-commands",
    "--setting-sources",
    "user",
    "--no-session-persistence",
    "--max-turns",
    "1",
    "--output-format",
    "stream-json",
    "--verbose",
    "--model",
    model,
    "-p",
    "--",
    prompt,
  ];
}
