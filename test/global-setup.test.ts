import { createServer } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { TestProject } from "vitest/node";
import { setupPostgres as setup } from "./global-setup.js";

async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  const port = typeof address === "object" && address ? address.port : 1;
  return `postgres://postgres:hunter2@127.0.0.1:${port}/postgres`;
}

function fakeProject() {
  const provided = new Map<string, unknown>();
  const project = { provide: (key: string, value: unknown) => provided.set(key, value) };
  return { project: project as unknown as TestProject, provided };
}

describe("test global setup without Postgres", () => {
  afterEach(() => vi.unstubAllEnvs());

  it("fails the run under CI=true, naming the server without its password", async () => {
    vi.stubEnv("WHILLY_TEST_DATABASE_URL", await closedPortUrl());
    vi.stubEnv("CI", "true");
    const { project } = fakeProject();
    const error = await setup(project).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(
      /Postgres for the tests is unreachable at postgres:\/\/postgres:\*\*\*@127\.0\.0\.1/,
    );
    expect((error as Error).message).not.toContain("hunter2");
  });

  it("elsewhere warns loudly and marks Postgres unavailable, so its tests skip", async () => {
    vi.stubEnv("WHILLY_TEST_DATABASE_URL", await closedPortUrl());
    vi.stubEnv("CI", "");
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const { project, provided } = fakeProject();
    await setup(project);
    expect(provided.get("pgUrl")).toBeNull();
    expect(provided.get("pgTemplate")).toBeNull();
    expect(String(warn.mock.calls[0]?.[0])).toContain("SKIPPED");
    warn.mockRestore();
  });
});
