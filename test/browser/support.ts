import { existsSync } from "node:fs";
import { type Browser, chromium, type Page } from "playwright-core";
import { type BinProcess, baseEnv, makeRepo, spawnBin, waitFor } from "../support/cli.js";

/** Debian's Chromium: the browser tests drive it through playwright-core (no browser download). */
export const CHROMIUM = process.env.WHILLY_TEST_CHROMIUM ?? "/usr/bin/chromium";

/** The tokens of {@link startDashboardServer}'s server. */
export const ADMIN = "admin-s3cret-for-the-web-dashboard";
export const BOOTSTRAP = "bootstrap-s3cret-for-the-web-dashboard";

/**
 * Starts headless Chromium with the flags this closed network needs (no background connections that
 * would be refused, no sandbox as root).
 * @throws {Error} naming the install command when the browser is missing: a browser test never skips.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: the browser tests need Debian's chromium (apt-get install -y chromium; .ci/run installs it)`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/** A `whilly server` on an embedded store, restartable on the same port and store. */
export type DashboardServer = {
  url: string;
  /** The repository the server runs in (its store is `.whilly/pgdata`) and its environment. */
  cwd: string;
  env: Record<string, string | undefined>;
  proc: BinProcess;
  stop(): Promise<void>;
  /** Starts the server again in the same repository (same store) on the same port. */
  restart(): Promise<void>;
};

/**
 * Starts `whilly server --port 0` as a real process in a fresh repository whose embedded store is
 * copied from `template`, taking {@link ADMIN} and {@link BOOTSTRAP}.
 */
export async function startDashboardServer(
  template: string,
  extraEnv: Record<string, string> = {},
): Promise<DashboardServer> {
  const cwd = makeRepo(template);
  const env = baseEnv({
    WHILLY_WORKER_BOOTSTRAP_TOKEN: BOOTSTRAP,
    WHILLY_ADMIN_TOKEN: ADMIN,
    WHILLY_EVENTS_KEEPALIVE: "1",
    ...extraEnv,
  });
  const start = async (port: string) => {
    const proc = spawnBin(["server", "--port", port], { cwd, env });
    const url = await waitFor(
      "the server's URL",
      () => /^(http:\/\/\S+)\n/m.exec(proc.out())?.[1],
      50_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}; stderr: ${proc.err()}`);
    });
    return { proc, url };
  };
  const first = await start("0");
  const server: DashboardServer = {
    url: first.url,
    cwd,
    env,
    proc: first.proc,
    stop: async () => {
      server.proc.child.kill("SIGTERM");
      await server.proc.done;
    },
    restart: async () => {
      const next = await start(new URL(server.url).port);
      server.proc = next.proc;
    },
  };
  return server;
}

/** A JSON request to the server with a bearer; throws on a status other than `expect`. */
export async function call(
  url: string,
  method: string,
  path: string,
  bearer: string,
  body?: unknown,
  expect = 200,
): Promise<Record<string, unknown>> {
  const reply = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await reply.text();
  if (reply.status !== expect) throw new Error(`${method} ${path}: ${reply.status} ${text}`);
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

/** A worker speaking protocol v1 to the server, so tasks change state "elsewhere" than the page. */
export type ApiWorker = {
  readonly workerId: string;
  /** Claims (and starts) the next ready task of `planId`; undefined when none is ready. */
  claim(planId: string): Promise<{ id: string; version: number } | undefined>;
  complete(planId: string, task: { id: string; version: number }): Promise<void>;
  fail(planId: string, task: { id: string; version: number }, reason: string): Promise<void>;
};

/** Registers a worker with the bootstrap token. */
export async function registerWorker(url: string): Promise<ApiWorker> {
  const { worker_id: workerId, token } = (await call(
    url,
    "POST",
    "/workers/register",
    BOOTSTRAP,
    {
      hostname: "browser-test",
    },
    201,
  )) as { worker_id: string; token: string };
  const fence = (planId: string, task: { version: number }) => ({
    worker_id: workerId,
    plan_id: planId,
    version: task.version,
  });
  return {
    workerId,
    claim: async (planId) => {
      const reply = await fetch(`${url}/tasks/claim`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ worker_id: workerId, plan_id: planId, start: true }),
        signal: AbortSignal.timeout(5_000),
      }).catch(() => undefined);
      if (!reply || reply.status === 204) return undefined;
      if (reply.status !== 200) throw new Error(`claim: ${reply.status} ${await reply.text()}`);
      const { task } = (await reply.json()) as { task: { id: string; version: number } };
      return { id: task.id, version: task.version };
    },
    complete: async (planId, task) => {
      await call(url, "POST", `/tasks/${encodeURIComponent(task.id)}/complete`, token, {
        ...fence(planId, task),
        cost_usd: "0.25",
        verification: "passed",
      });
    },
    fail: async (planId, task, reason) => {
      await call(url, "POST", `/tasks/${encodeURIComponent(task.id)}/fail`, token, {
        ...fence(planId, task),
        reason,
        cost_usd: "0.10",
        failure: { step: "npm test", exit_code: 1, output_tail: "1 failing test" },
      });
    },
  };
}

/** Imports `plan` with the admin token. */
export async function importPlan(url: string, plan: object): Promise<void> {
  await call(url, "POST", "/api/v1/plans", ADMIN, plan, 201);
}

/** Signs the page in through the sign-in form with `token`. */
export async function signIn(page: Page, url: string, token: string): Promise<void> {
  await page.goto(url);
  await page.getByTestId("signin-token").fill(token);
  await page.getByTestId("signin-submit").click();
}
