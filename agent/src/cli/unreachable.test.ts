import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { WorkerIo } from "./io.js";
import { workerMain } from "./main.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const token = `${part({ alg: "HS256" })}.${part({ sub: "w-7" })}.sig`;
const neverRuns = () => async () => {
  throw new Error("no task can be claimed from a closed port");
};

/** A URL on which nothing listens: a port bound once to learn a free number, then closed. */
async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

function testIo(interrupt?: AbortSignal) {
  let err = "";
  const io: WorkerIo = {
    out: { write: () => true },
    err: { write: (t: string) => (err += t) },
    env: {},
    cwd: root,
    interrupt,
  };
  return { io, err: () => err };
}

describe("whilly-worker against a control plane that is not there", () => {
  it("with --once or --max-iterations gives up after the retry budget and exits 1", async () => {
    for (const bound of [["--once"], ["--max-iterations", "3"]]) {
      const url = await deadUrl();
      const t = testIo();
      const argv = ["--connect", url, "--token", token, "--plan", "demo", ...bound, "--retry-budget", "1s"];
      expect(await workerMain(argv, t.io, { makeRunAttempt: neverRuns })).toBe(1);
      expect(t.err()).toMatch(/failed \(cannot reach the control plane at .*\); retrying in \d+ ms\n/);
      expect(t.err()).toContain(
        `error: cannot reach the control plane at ${url}: fetch failed (ECONNREFUSED) (gave up after `,
      );
      expect(t.err()).toMatch(/ attempts in [\d.]+ s; retry budget 1 s\)\n/);
      // The last wait is cut to the time left, so the whole budget is used before giving up.
      const spent = Number(/ attempts in ([\d.]+) s; retry budget/.exec(t.err())?.[1]);
      expect(spent).toBeGreaterThanOrEqual(0.9);
      expect(t.err()).toContain("hint: check --connect (WHILLY_CONTROL_URL) and that the control plane runs");
      expect(t.err()).toContain("finished — iterations=0 completed=0");
    }
  });

  it("without them keeps retrying with backoff until it is stopped", async () => {
    const stop = new AbortController();
    const t = testIo(stop.signal);
    setTimeout(() => stop.abort(), 1500);
    const argv = ["--connect", await deadUrl(), "--token", token, "--plan", "demo"];
    expect(await workerMain(argv, t.io, { makeRunAttempt: neverRuns })).toBe(130);
    const delays = [...t.err().matchAll(/; retrying in (\d+) ms\n/g)].map((m) => Number(m[1]));
    expect(delays.length).toBeGreaterThanOrEqual(2);
    expect(delays[1]).toBeGreaterThanOrEqual(delays[0] ?? 0);
    expect(t.err()).not.toContain("gave up");
    expect(t.err()).not.toContain("error:");
  });
});
