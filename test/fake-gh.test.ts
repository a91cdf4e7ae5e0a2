import { execFile } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { removeAll } from "./support/cli.js";
import { type FakeGh, type FakeGhState, fakeGh } from "./support/fake-gh.js";

afterAll(removeAll);

type Run = { code: number; out: string; err: string };

/** Runs the fake `gh` as a caller would: a child process found on PATH. */
function gh(fake: FakeGh, argv: string[], options: { input?: string; env?: Record<string, string> } = {}) {
  return new Promise<Run>((resolve) => {
    const child = execFile("gh", argv, { env: { ...fake.env, ...options.env } }, (error, out, err) =>
      resolve({ code: error ? Number(error.code) : 0, out, err }),
    );
    child.stdin?.end(options.input ?? "");
  });
}

const SHOP: FakeGhState = {
  default_repo: "acme/shop",
  repos: {
    "acme/shop": {
      labels: [{ name: "whilly-pending", color: "fbca04" }],
      issues: [
        {
          number: 7,
          title: "Add checkout",
          body: "Please add it",
          labels: ["whilly-pending"],
          comments: [{ author: "alice", body: "+1" }],
        },
      ],
    },
  },
};

describe("the fake gh", () => {
  it("answers issue view --json with the requested fields, and refuses an issue or field it does not have", async () => {
    const fake = fakeGh(SHOP);
    const fields = "number,title,body,labels,comments,state,url";
    const view = await gh(fake, ["issue", "view", "7", "--repo", "acme/shop", "--json", fields]);
    expect(view.code, view.err).toBe(0);
    expect(JSON.parse(view.out)).toMatchObject({
      number: 7,
      title: "Add checkout",
      state: "OPEN",
      url: "https://github.com/acme/shop/issues/7",
      labels: [{ name: "whilly-pending", color: "fbca04" }],
      comments: [{ author: { login: "alice" }, body: "+1" }],
    });
    const missing = await gh(fake, ["issue", "view", "9", "-R", "acme/shop", "--json", "number"]);
    expect(missing).toMatchObject({ code: 1, out: "" });
    expect(missing.err).toContain("Could not resolve to an issue or pull request with the number of 9");
    const field = await gh(fake, ["issue", "view", "7", "--json", "nope"]);
    expect(field.err).toContain('Unknown JSON field: "nope"');
    const flag = await gh(fake, ["issue", "view", "7", "--bogus"]);
    expect(flag).toMatchObject({ code: 1, err: "unknown flag: --bogus\n" });
  });

  it("keeps labels, label edits and comments across calls; adding a label the repository lacks fails", async () => {
    const fake = fakeGh(SHOP);
    const flip = [
      "issue",
      "edit",
      "7",
      "--add-label",
      "whilly-in-progress",
      "--remove-label",
      "whilly-pending",
    ];
    const before = await gh(fake, flip);
    expect(before).toMatchObject({ code: 1 });
    expect(before.err).toContain("'whilly-in-progress' not found");
    expect((await gh(fake, ["label", "create", "whilly-in-progress", "--color", "0e8a16"])).code).toBe(0);
    const again = await gh(fake, ["label", "create", "whilly-in-progress"]);
    expect(again.err).toContain("already exists; use `--force`");
    const list = await gh(fake, ["label", "list", "--json", "name,color", "--limit", "100"]);
    expect(JSON.parse(list.out)).toEqual([
      { name: "whilly-pending", color: "fbca04" },
      { name: "whilly-in-progress", color: "0e8a16" },
    ]);
    expect(await gh(fake, flip)).toMatchObject({ code: 0, out: "https://github.com/acme/shop/issues/7\n" });
    const comment = await gh(fake, ["issue", "comment", "7", "--body-file", "-"], { input: "plan stored" });
    expect(comment.out).toMatch(/^https:\/\/github\.com\/acme\/shop\/issues\/7#issuecomment-\d+\n$/);
    const issue = fake.state().repos?.["acme/shop"]?.issues?.[0];
    expect(issue?.labels).toEqual(["whilly-in-progress"]);
    expect(issue?.comments?.map((c) => [c.author, c.body])).toEqual([
      ["alice", "+1"],
      ["whilly-bot", "plan stored"],
    ]);
    expect(fake.callsOf("issue", "comment")[0]?.stdin).toBe("plan stored");
  });

  it("finds a pull request it opened by head branch, refuses a second for the same head, and edits it", async () => {
    const fake = fakeGh(SHOP);
    const create = ["pr", "create", "--head", "whilly/p", "--title", "T", "--body", "one", "--draft"];
    expect(await gh(fake, create)).toMatchObject({ code: 0, out: "https://github.com/acme/shop/pull/8\n" });
    const dup = await gh(fake, create);
    expect(dup.err).toContain('a pull request for branch "whilly/p" into branch "main" already exists');
    const list = await gh(fake, [
      "pr",
      "list",
      "--head",
      "whilly/p",
      "--json",
      "number,url,isDraft,baseRefName",
    ]);
    expect(JSON.parse(list.out)).toEqual([
      { number: 8, url: "https://github.com/acme/shop/pull/8", isDraft: true, baseRefName: "main" },
    ]);
    expect((await gh(fake, ["pr", "edit", "8", "--body-file", "-"], { input: "two" })).code).toBe(0);
    const view = await gh(fake, ["pr", "view", "whilly/p", "--json", "body,state"]);
    expect(JSON.parse(view.out)).toEqual({ body: "two", state: "OPEN" });
    expect((await gh(fake, ["pr", "list", "--head", "other", "--json", "number"])).out).toBe("[]\n");
  });

  it("says when gh is not logged in (exit 4 for API commands) unless a token variable is set", async () => {
    const fake = fakeGh({ ...SHOP, auth: { logged_in: false } });
    const status = await gh(fake, ["auth", "status"]);
    expect(status).toMatchObject({ code: 1 });
    expect(status.err).toContain("You are not logged into any GitHub hosts");
    expect((await gh(fake, ["issue", "view", "7"])).code).toBe(4);
    const token = await gh(fake, ["auth", "status"], { env: { GH_TOKEN: "ghp_x" } });
    expect(token.code).toBe(0);
    expect(token.out).toContain("(GH_TOKEN)");
    expect(fake.calls().map((c) => c.env.GH_TOKEN)).toEqual([false, false, true]);
    expect((await gh(fake, ["--version"])).out).toMatch(/^gh version 2\./);
  });

  it("fails matching calls as scripted, a given number of times", async () => {
    const fake = fakeGh({
      ...SHOP,
      failures: [{ args: ["issue", "view"], times: 1, exit_code: 1, stderr: "HTTP 502: Bad Gateway" }],
    });
    const failed = await gh(fake, ["issue", "view", "7", "--json", "number"]);
    expect(failed).toMatchObject({ code: 1, err: "HTTP 502: Bad Gateway" });
    expect((await gh(fake, ["issue", "view", "7", "--json", "number"])).out).toBe('{"number":7}\n');
    expect(fake.state().failures).toEqual([]);
  });

  it("loses no update when several gh processes change the state at once", async () => {
    const fake = fakeGh(SHOP);
    const runs = Array.from({ length: 6 }, (_, i) => [
      gh(fake, ["issue", "comment", "7", "--body", `comment ${i}`]),
      gh(fake, ["label", "create", `label-${i}`]),
    ]).flat();
    for (const run of await Promise.all(runs)) expect(run.code, run.err).toBe(0);
    const repo = fake.state().repos?.["acme/shop"];
    expect(repo?.labels).toHaveLength(7);
    expect(repo?.issues?.[0]?.comments).toHaveLength(7);
    expect(fake.calls()).toHaveLength(12);
  });
});
