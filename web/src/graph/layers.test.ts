import { describe, expect, it } from "vitest";
import { layer } from "./layers.js";

const t = (id: string, ...dependencies: string[]) => ({ id, dependencies });
const layerOf = (r: ReturnType<typeof layer>) => Object.fromEntries(r.nodes.map((n) => [n.id, n.layer]));

describe("layer", () => {
  it("puts each task one layer below its deepest dependency (longest path, not shortest)", () => {
    const r = layer([t("d", "a", "c"), t("a"), t("b", "a"), t("c", "b"), t("x", "missing")]);
    expect(layerOf(r)).toEqual({ a: 0, b: 1, c: 2, d: 3, x: 0 });
    expect(r.layers).toBe(4);
  });

  it("gives every node of a layer its own slot, near its dependencies", () => {
    const r = layer([t("r1"), t("r2"), t("c2", "r2"), t("c1", "r1")]);
    const slot = Object.fromEntries(r.nodes.map((n) => [n.id, n.slot]));
    expect(slot).toEqual({ r1: 0, r2: 1, c1: 0, c2: 1 });
  });

  it("cuts a cycle instead of looping, and survives a chain of 20,000 tasks", () => {
    expect(layerOf(layer([t("a", "b"), t("b", "a")]))).toEqual({ a: 1, b: 0 });
    const chain = Array.from({ length: 20_000 }, (_, i) => t(`n${i}`, ...(i === 0 ? [] : [`n${i - 1}`])));
    const r = layer(chain.reverse());
    expect(r.layers).toBe(20_000);
    expect(r.nodes.find((n) => n.id === "n19999")?.layer).toBe(19_999);
  });
});
