import { execFileSync, spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  baseEnv,
  makeRepo,
  makeStoreTemplate,
  ROOT,
  removeAll,
  runBin,
  scratchDir,
  spawnBin,
  waitFor,
} from "../support/cli.js";

// The README's install and worker commands, run as written (bar the clone, which this checkout is).
let template: string;
beforeAll(async () => {
  template = await makeStoreTemplate();
});
afterAll(removeAll);

const README = readFileSync(join(ROOT, "README.md"), "utf8");

/** The lines of the first `sh` block after `heading` that holds `marker`. */
function shBlock(heading: string, marker: string): string[] {
  const section = README.slice(README.indexOf(heading));
  for (const match of section.matchAll(/```sh\n([\s\S]*?)```/g)) {
    const body = match[1] ?? "";
    if (body.includes(marker)) return body.trimEnd().split("\n");
  }
  throw new Error(`no sh block with ${marker} under ${heading}`);
}

/** A PATH with only the system's tools and node, as a new user's shell might have. */
const SYSTEM_PATH = `/usr/local/bin:/usr/bin:/bin:${dirname(process.execPath)}`;

function bash(script: string, cwd: string, env: Record<string, string>) {
  const result = spawnSync("bash", ["--norc", "--noprofile", "-euo", "pipefail", "-c", script], {
    cwd,
    env,
    encoding: "utf8",
  });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

/** Runs the quick start's install lines in this checkout, for a user whose home is `home`. */
function install(home: string) {
  const [clone, ...link] = shBlock("## Quick start", "ln -s");
  // The first line clones and installs; this checkout is that clone, installed.
  expect(clone).toMatch(/^git clone .* && cd whilly && npm ci$/);
  return bash(link.join("\n"), ROOT, { HOME: home, PATH: SYSTEM_PATH });
}

describe("the README", () => {
  it("links only whilly and whilly-worker, which then run from anywhere, after the user's own tools", () => {
    const home = scratchDir("whilly-home-");
    expect(install(home)).toMatchObject({ code: 0, err: "" });
    expect(readdirSync(join(home, ".local", "bin")).sort()).toEqual(["whilly", "whilly-worker"]);
    const path = `${SYSTEM_PATH}:${home}/.local/bin`;
    const elsewhere = scratchDir();
    const versions = bash("whilly --version && whilly-worker --version", elsewhere, {
      HOME: home,
      PATH: path,
    });
    expect(versions).toEqual({ code: 0, out: "whilly 0.1.0\nwhilly-worker 0.1.0\n", err: "" });
    // The checkout's own claude and tsc are not on the user's PATH.
    const tools = bash("command -v claude tsc || true", elsewhere, { HOME: home, PATH: path });
    expect(tools.out).not.toContain(ROOT);
  });

  it("registers a worker into a token file only its user may read, and runs it from that file", async () => {
    const home = scratchDir("whilly-home-");
    expect(install(home).code).toBe(0);
    const repo = makeRepo(template);
    // The worker machine's clone has the remote its DONE work is pushed to (`--push`).
    const origin = join(scratchDir("whilly-origin-"), "origin.git");
    execFileSync("git", ["init", "-q", "--bare", origin]);
    execFileSync("git", ["remote", "add", "origin", origin], { cwd: repo });
    const bootstrap = "readme-bootstrap-token-0123456789";
    const created = await runBin(["plan", "create", "--id", "readme", "--name", "Readme"], {
      cwd: repo,
      env: baseEnv(),
    });
    expect(created.code).toBe(0);
    const server = spawnBin(["server", "--port", "0"], {
      cwd: repo,
      env: baseEnv({ WHILLY_WORKER_BOOTSTRAP_TOKEN: bootstrap, WHILLY_CLAIM_TIMEOUT: "0.2" }),
    });
    try {
      const url = await waitFor(
        "the server's URL",
        () => /^(http:\/\/\S+)\n/m.exec(server.out())?.[1],
        30_000,
      );
      const lines = shBlock("## Distributed mode", "whilly-worker register");
      expect(lines).toHaveLength(2);
      // As written, pointed at this server and plan; --max-iterations ends the worker after one claim.
      const script = lines
        .map((line) => line.replaceAll("http://control-host:8000", url).replaceAll("<plan_id>", "readme"))
        .join("\n");
      const result = bash(`${script} --max-iterations 1`, repo, {
        HOME: home,
        PATH: `${SYSTEM_PATH}:${home}/.local/bin`,
        WHILLY_WORKER_BOOTSTRAP_TOKEN: bootstrap,
        CLAUDE_BIN: "/bin/true",
      });
      expect(result.code).toBe(0);
      const tokenFile = join(home, ".whilly-worker-token");
      expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
      expect(readFileSync(tokenFile, "utf8")).toMatch(/^\S+\n$/);
      expect(result.err).not.toContain("open to other users");
      expect(result.err).toContain("whilly-worker: worker '");
    } finally {
      server.child.kill("SIGTERM");
      await server.done;
    }
  });
});
