// The two hosts of the control plane, started as child processes: `whilly server` on Node, and the
// Workers build under `wrangler dev` (workerd) through `npm run dev:workers`'s script. Each host reports
// the processes that serve requests, for RSS and CPU readings from /proc.
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { sleep } from "./stats.mjs";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** A running host. */
export class Host {
  /**
   * @param {string} name @param {import("node:child_process").ChildProcess} child
   * @param {string} url @param {() => number[]} servingPids the processes that serve requests.
   */
  constructor(name, child, url, servingPids) {
    this.name = name;
    this.child = child;
    this.url = url;
    this.servingPids = servingPids;
    this.log = [];
    const keep = (chunk) => {
      this.log.push(...chunk.split("\n").filter(Boolean));
      if (this.log.length > 200) this.log.splice(0, this.log.length - 200);
    };
    child.stderr?.setEncoding("utf8").on("data", keep);
    child.stdout?.setEncoding("utf8").on("data", keep);
    this.exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  }

  /** Resident memory of the serving processes, MB (1,048,576 bytes). */
  rssMb() {
    return this.servingPids().reduce((sum, pid) => sum + statusKb(pid, "VmRSS"), 0) / 1024;
  }

  /** Resident memory of every process the host started (tooling and proxies included), MB. */
  treeRssMb() {
    return (
      [this.child.pid, ...descendants(this.child.pid)].reduce((s, pid) => s + statusKb(pid, "VmRSS"), 0) /
      1024
    );
  }

  /** CPU time (user + system) the serving processes used so far, ms. */
  cpuMs() {
    return this.servingPids().reduce((sum, pid) => sum + cpuTicks(pid), 0) * (1000 / TICKS_PER_SECOND);
  }

  /** Stops the host: SIGTERM, then SIGKILL of its whole tree after `graceMs`. */
  async stop(graceMs = 15_000) {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const tree = [this.child.pid, ...descendants(this.child.pid)];
    this.child.kill("SIGTERM");
    const ended = await Promise.race([this.exited, sleep(graceMs).then(() => undefined)]);
    if (ended === undefined) {
      for (const pid of tree) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {}
      }
    }
  }
}

/**
 * `whilly server --port 0` with Postgres; resolves once it prints its URL.
 * @param {{ databaseUrl: string, bootstrapToken: string, profileDir?: string }} options `profileDir`
 *   writes a V8 CPU profile of the server there when it stops (`node --cpu-prof`).
 * @returns {Promise<Host>}
 */
export async function startNodeHost({ databaseUrl, bootstrapToken, profileDir }) {
  const profile = profileDir ? ["--cpu-prof", "--cpu-prof-dir", profileDir] : [];
  const whilly = join(ROOT, "cli", "bin", "whilly.js");
  const child = spawn(
    process.execPath,
    [...profile, whilly, "server", "--port", "0", "--host", "127.0.0.1"],
    {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        WHILLY_DATABASE_URL: databaseUrl,
        WHILLY_WORKER_BOOTSTRAP_TOKEN: bootstrapToken,
        // Bench workers do not heartbeat; keep them online for the whole run.
        WHILLY_HEARTBEAT_TIMEOUT: "3600",
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const host = new Host("node", child, "", () => [child.pid]);
  host.url = await waitFor("whilly server's URL", host, 30_000, async () => {
    const line = host.log.find((text) => /^http:\/\/127\.0\.0\.1:\d+$/.test(text));
    return line;
  });
  return host;
}

/**
 * The Workers build under `wrangler dev` (offline, local Durable Objects), started through
 * scripts/dev-workers.mjs, which also runs the WebSocket-to-TCP proxy the Neon driver needs.
 * Wrangler's per-request log lines are turned off (`--log-level warn`): a deployed Worker has none.
 * @param {{ databaseUrl: string, bootstrapToken: string }} options
 * @returns {Promise<Host>} serving processes: the workerd processes.
 */
export async function startWorkerdHost({ databaseUrl, bootstrapToken }) {
  const port = await freePort();
  const inspectorPort = await freePort();
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("WHILLY_")));
  const child = spawn(
    process.execPath,
    [
      join(ROOT, "scripts", "dev-workers.mjs"),
      "--ip",
      "127.0.0.1",
      "--port",
      String(port),
      "--inspector-port",
      String(inspectorPort),
      "--log-level",
      "warn",
    ],
    {
      cwd: ROOT,
      env: { ...env, WHILLY_DATABASE_URL: databaseUrl, WHILLY_WORKER_BOOTSTRAP_TOKEN: bootstrapToken },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const workerd = () => descendants(child.pid).filter((pid) => processName(pid) === "workerd");
  const url = `http://127.0.0.1:${port}`;
  const host = new Host("workerd", child, url, workerd);
  await waitFor("wrangler dev's /health", host, 120_000, async () => {
    try {
      const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) });
      return response.status === 200 ? true : undefined;
    } catch {
      return undefined;
    }
  });
  return host;
}

/** Polls `check` every 200 ms until it returns a value; fails when the host exits or after `timeoutMs`. */
async function waitFor(what, host, timeoutMs, check) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (host.child.exitCode !== null || host.child.signalCode !== null) {
      throw new Error(
        `${host.name} host exited while waiting for ${what}:\n${host.log.slice(-30).join("\n")}`,
      );
    }
    const value = await check();
    if (value !== undefined) return value;
    await sleep(200);
  }
  await host.stop();
  throw new Error(`no ${what} after ${timeoutMs} ms:\n${host.log.slice(-30).join("\n")}`);
}

/** A TCP port free on 127.0.0.1 right now. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Every process under `pid`, from /proc. @param {number} pid @returns {number[]} */
export function descendants(pid) {
  const children = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readProc(Number(entry), "stat");
    if (!stat) continue;
    const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (!children.has(parent)) children.set(parent, []);
    children.get(parent).push(Number(entry));
  }
  const found = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

function processName(pid) {
  return readProc(pid, "comm")?.trim();
}

/** A `Name: N kB` line of /proc/<pid>/status, kB (0 when the process is gone). */
function statusKb(pid, name) {
  const match = new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(readProc(pid, "status") ?? "");
  return match ? Number(match[1]) : 0;
}

/** utime + stime of /proc/<pid>/stat, in clock ticks. */
function cpuTicks(pid) {
  const stat = readProc(pid, "stat");
  if (!stat) return 0;
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Fields after the command: state(0) ppid(1) ... utime(11) stime(12).
  return Number(fields[11]) + Number(fields[12]);
}

function readProc(pid, file) {
  try {
    return readFileSync(`/proc/${pid}/${file}`, "utf8");
  } catch {
    return undefined;
  }
}
