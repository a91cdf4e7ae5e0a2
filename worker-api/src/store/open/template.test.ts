import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openEmbeddedStore } from "./embedded.js";
import { storeTemplate } from "./template.js";

/**
 * Opens the store at `dataDir`, checks it is empty and that the newest migration's table columns answer
 * (the waiting list reads the routing columns), writes a plan, and closes it.
 */
async function useStore(dataDir: string, cacheDir: string | undefined): Promise<void> {
  const store = await openEmbeddedStore(dataDir, { cacheDir });
  try {
    expect(await store.listPlans()).toEqual([]);
    await store.createPlan({ id: "p", name: "a plan" });
    expect(await store.listWaiting("p", { onlineWithinMs: 60_000 })).toEqual([]);
    expect((await store.listPlans()).map((p) => p.id)).toEqual(["p"]);
  } finally {
    await store.close();
  }
}

describe("a new embedded store from the cached template", () => {
  // One directory for the file: each test goes on from the template the one before it left.
  const dir = mkdtempSync(join(tmpdir(), "whilly-template-"));
  const cacheDir = join(dir, "cache");
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("is written by the first new store, and a second store started from it is migrated, empty and writable", async () => {
    const template = storeTemplate(cacheDir);
    expect(template).toBeDefined();
    await useStore(join(dir, "a"), cacheDir);
    expect(existsSync(template?.file ?? "")).toBe(true);
    // No partial files are left behind by the write.
    expect(readdirSync(cacheDir)).toEqual([template?.file.split("/").pop()]);

    // The template was taken before any plan was written: a's plan is not in b (useStore checks).
    await useStore(join(dir, "b"), cacheDir);
  });

  it("replaces a damaged template: the store still starts, in full, and the next one starts from the new template", async () => {
    const template = storeTemplate(cacheDir);
    if (template === undefined) throw new Error("no template key");
    writeFileSync(template.file, "not a tarball");
    await useStore(join(dir, "damaged"), cacheDir);
    expect(statSync(template.file).size).toBeGreaterThan(1000);
    await useStore(join(dir, "after"), cacheDir);
  });

  it("is neither used nor written for a directory that already holds a store", async () => {
    const again = await openEmbeddedStore(join(dir, "a"), { cacheDir: join(dir, "other-cache") });
    try {
      expect((await again.listPlans()).map((p) => p.id)).toEqual(["p"]);
    } finally {
      await again.close();
    }
    expect(existsSync(join(dir, "other-cache"))).toBe(false);
  });
});
