/** The `whilly-worker --help` text. */
export const WORKER_HELP = `whilly-worker: claim tasks of one plan from a whilly control plane and run Claude Code on each

Usage: whilly-worker --connect URL --token BEARER --plan ID [options]
       whilly-worker register --connect URL --bootstrap-token T [--hostname H] [--json]

Required (flag, or its environment variable):
  --connect URL              the control plane, e.g. http://whilly.internal:8000   (WHILLY_CONTROL_URL)
  --token BEARER             this worker's token from \`whilly-worker register\`   (WHILLY_WORKER_TOKEN)
  --token-file FILE          read the token from FILE instead (a --token value shows in \`ps\`)
  --plan ID                  the plan whose tasks to run                         (WHILLY_PLAN_ID)

Options:
  --worker-id ID             the worker id to act as (WHILLY_WORKER_ID); default: the id the token
                             was issued for. A legacy shared token carries none and needs this flag.
  --workdir DIR              the project's git clone: each task runs in a worktree of its own, from
                             the clone's HEAD with its dependencies' work merged in (default: the
                             current directory; outside git, tasks run in it, in place)
  --push                     push each DONE task's branch (whilly-tasks/<plan>/<task>) to the remote
  --remote NAME              fetch dependencies' branches from, and push to, NAME (default origin)
  --setup CMD                run CMD in each new worktree before the agent, e.g. 'npm ci'
                             (else the plan's setup)
  --verify CMD               check run after each attempt, e.g. 'npm test'; repeatable
                             (else the plan's verify)
  --verify-timeout DURATION  stop one check (or the setup) after this long (default 10m)
  --state-dir DIR            where running attempts are recorded, so a restarted worker ends what
                             a killed one left running (WHILLY_STATE_DIR, default:
                             $XDG_STATE_HOME/whilly-worker or ~/.local/state/whilly-worker)
  --task-timeout DURATION    kill the agent after this long per task: 90s, 30m, 1h (default 30m)
  --stall-timeout DURATION   end an attempt whose agent printed nothing for this long (default 10m)
  --heartbeat-interval S     seconds between heartbeats, which renew the task's lease
                             (WHILLY_HEARTBEAT_INTERVAL, default 30)
  --once                     stop after the first task finished (done or failed)
  --max-iterations N         stop after N claim requests, idle polls included
                             (either stops, exit 0, when the plan has no open task left)
  --retry-budget DURATION    give up (exit 1) when the control plane stays unreachable this long
                             (WHILLY_RETRY_BUDGET; default 60s with --once or --max-iterations,
                             otherwise none: retry for ever)
  --agent NAME               the agent for tasks whose plan names none: claude, cmd (default claude)
  --model MODEL              that agent's model (default: the agent's own, e.g. WHILLY_MODEL)
  --force-agent NAME         run every task on NAME, whatever the plan says
  --force-model MODEL        run every task with MODEL
  --agent-cmd 'CMD {prompt_file}'
                             the generic agent cmd (WHILLY_AGENT_CMD); placeholders {prompt}
                             {prompt_file} {model} {workdir} {task_id}, never run through a shell
  --tags a,b                 tags this worker advertises; tasks that require tags go to workers with them
  -h, --help                 show this help
  -V, --version              show the version

Agents found working at start (a quick --version each, WHILLY_AGENT_PROBE_TIMEOUT) are advertised
with every claim (docs/agents.md). The default agent is Claude Code: CLAUDE_BIN, WHILLY_MODEL and the other WHILLY_CLAUDE_* variables apply
(docs/agent.md). It never gets the worker's credentials, git's included (SSH_AUTH_SOCK, GIT_ASKPASS,
GH_TOKEN, ...): only the worker fetches and pushes. A fetch or push that fails hands the task back
and pauses claims (WHILLY_LIMIT_BACKOFF, doubling up to WHILLY_LIMIT_BACKOFF_MAX). While the agent runs, or no task is ready, a line says so every
WHILLY_PROGRESS_INTERVAL seconds (default 30). SIGTERM or Ctrl-C stops the agent, hands its task back and exits 130.
WHILLY_TRIZ_ENABLED=1 asks Claude Code after each FAIL, in the background and within WHILLY_TRIZ_TIMEOUT
(default 25s), whether the task holds a contradiction, and reports a triz.* event (docs/triz.md).

Exit codes: 0 the loop ended (--once, --max-iterations), 1 failure (including a control plane
unreachable past --retry-budget), 2 usage or configuration (including a plan the control plane does
not store and a token it refuses), 130 interrupted. Docs: docs/worker.md
`;

/** The `whilly-worker register --help` text. */
export const REGISTER_HELP = `whilly-worker register: register a worker with a control plane and print its token

Usage: whilly-worker register --connect URL --bootstrap-token T [--hostname H] [--json]

  --connect URL              the control plane (WHILLY_CONTROL_URL)
  --bootstrap-token T        the control plane's join secret (WHILLY_WORKER_BOOTSTRAP_TOKEN; prefer the
                             variable, a flag shows in the process list)
  --hostname H               the host name to record (default: this machine's)
  --json                     print {"worker_id","token"} instead of the token alone
  -h, --help                 show this help

stdout holds only the token, so TOKEN=$(whilly-worker register ...) captures it; the token carries
the worker id, so whilly-worker --token "$TOKEN" needs no --worker-id.
Exit codes: 0 registered, 1 refused (wrong bootstrap token) or unreachable, 2 usage or configuration,
130 interrupted. Docs: docs/worker.md
`;
