import { parseArgs } from "node:util";
import { InvalidInput } from "@whilly/core";

/** The command line of `whilly-worker`, as given (values unchecked; see `parseWorkerSettings`). */
export type WorkerFlags = {
  readonly connect?: string | undefined;
  readonly token?: string | undefined;
  readonly tokenFile?: string | undefined;
  readonly plan?: string | undefined;
  readonly workerId?: string | undefined;
  readonly once: boolean;
  readonly heartbeatInterval?: string | undefined;
  readonly maxIterations?: string | undefined;
  readonly workdir?: string | undefined;
  readonly stateDir?: string | undefined;
  readonly taskTimeout?: string | undefined;
  readonly stallTimeout?: string | undefined;
  readonly verifyTimeout?: string | undefined;
  readonly setup?: string | undefined;
  /** Every `--verify` given, in order. */
  readonly verify?: readonly string[] | undefined;
  readonly push: boolean;
  readonly remote?: string | undefined;
  readonly retryBudget?: string | undefined;
  readonly agent?: string | undefined;
  readonly model?: string | undefined;
  readonly forceAgent?: string | undefined;
  readonly forceModel?: string | undefined;
  readonly agentCmd?: string | undefined;
  readonly tags?: string | undefined;
  readonly help: boolean;
  readonly version: boolean;
};

const OPTIONS = {
  connect: { type: "string" },
  token: { type: "string" },
  "token-file": { type: "string" },
  plan: { type: "string" },
  "worker-id": { type: "string" },
  once: { type: "boolean" },
  "heartbeat-interval": { type: "string" },
  "max-iterations": { type: "string" },
  workdir: { type: "string" },
  "state-dir": { type: "string" },
  "task-timeout": { type: "string" },
  "stall-timeout": { type: "string" },
  "verify-timeout": { type: "string" },
  setup: { type: "string" },
  verify: { type: "string", multiple: true },
  push: { type: "boolean" },
  remote: { type: "string" },
  "retry-budget": { type: "string" },
  agent: { type: "string" },
  model: { type: "string" },
  "force-agent": { type: "string" },
  "force-model": { type: "string" },
  "agent-cmd": { type: "string" },
  tags: { type: "string" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "V" },
} as const;

/**
 * Splits the command line into flags (`--flag value` or `--flag=value`; the last of a repeated flag wins,
 * except `--verify`, which is kept each time).
 * @throws {InvalidInput} for an unknown flag, a flag without its value, or a stray argument.
 */
export function parseWorkerArgs(argv: readonly string[]): WorkerFlags {
  let values: ReturnType<typeof parse>["values"];
  try {
    ({ values } = parse(argv));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new InvalidInput("argv", firstLine(message), { hint: "whilly-worker --help lists the flags" });
  }
  return {
    connect: values.connect,
    token: values.token,
    tokenFile: values["token-file"],
    plan: values.plan,
    workerId: values["worker-id"],
    once: values.once ?? false,
    heartbeatInterval: values["heartbeat-interval"],
    maxIterations: values["max-iterations"],
    workdir: values.workdir,
    stateDir: values["state-dir"],
    taskTimeout: values["task-timeout"],
    stallTimeout: values["stall-timeout"],
    verifyTimeout: values["verify-timeout"],
    setup: values.setup,
    verify: values.verify,
    push: values.push ?? false,
    remote: values.remote,
    retryBudget: values["retry-budget"],
    agent: values.agent,
    model: values.model,
    forceAgent: values["force-agent"],
    forceModel: values["force-model"],
    agentCmd: values["agent-cmd"],
    tags: values.tags,
    help: values.help ?? false,
    version: values.version ?? false,
  };
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: joinNegativeValues(argv, OPTIONS),
    options: OPTIONS,
    strict: true,
    allowPositionals: false,
  });
}

/**
 * Joins `--flag -5` into `--flag=-5` for the string flags in `options`. Node's parseArgs takes a value
 * starting with `-` only in the `=` form and otherwise says the flag's `argument is ambiguous`; a
 * negative number (`-1`, `-5s`, `-.5`) is a value, so the flag's own check can say what range it takes.
 */
export function joinNegativeValues(
  argv: readonly string[],
  options: Readonly<Record<string, { readonly type: "string" | "boolean" }>>,
): string[] {
  const joined: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] as string;
    const next = argv[index + 1];
    const name = arg.startsWith("--") ? arg.slice(2) : undefined;
    if (
      name !== undefined &&
      options[name]?.type === "string" &&
      next !== undefined &&
      /^-\.?\d/.test(next)
    ) {
      joined.push(`${arg}=${next}`);
      index++;
    } else {
      joined.push(arg);
    }
  }
  return joined;
}

/** Node's messages carry a second line of advice about `--`; the first says what is wrong. */
function firstLine(message: string): string {
  return message.split("\n")[0] ?? message;
}
