import { describe, expect, it } from "vitest";
import { idealityScore, trizSummary, trizVerdict } from "./score.js";
import type { TrizFinding, TrizSeverity } from "./types.js";

const finding = (severity: TrizSeverity): TrizFinding => ({
  severity,
  category: "duplicate_work",
  taskIds: ["A"],
  title: "t",
  recommendation: "r",
  trizPrinciple: 5,
});
const of = (...severities: TrizSeverity[]) => severities.map(finding);

describe("TRIZ verdict and ideality", () => {
  it("rejects on a critical finding, revises on high or medium, approves otherwise", () => {
    expect(trizVerdict(of("low", "critical"))).toBe("reject");
    expect(trizVerdict(of("low", "high"))).toBe("revise");
    expect(trizVerdict(of("medium"))).toBe("revise");
    expect(trizVerdict(of("low", "low"))).toBe("approve");
    expect(trizVerdict([])).toBe("approve");
  });

  it("is 1 − Σweights / max(1, 3 × tasks), clamped to [0, 1], two decimals rounded half up", () => {
    expect(idealityScore(0, [])).toBe(1);
    expect(idealityScore(4, [])).toBe(1);
    expect(idealityScore(1, of("low"))).toBe(0.83); // 1 − 0.5/3
    expect(idealityScore(2, of("medium", "low"))).toBe(0.75); // 1 − 1.5/6
    expect(idealityScore(8, of("medium"))).toBe(0.96); // 1 − 1/24 = 0.9583…
    expect(idealityScore(1, of("critical"))).toBe(0);
    expect(idealityScore(0, of("high"))).toBe(0); // max(1, 0) = 1
    expect(idealityScore(3, of("critical", "high", "medium", "low"))).toBe(0.17); // 1 − 7.5/9
    expect(idealityScore(40, of("low"))).toBe(1); // 1 − 0.5/120 = 0.9958…
  });

  it("summarises the verdict with counts, most serious first", () => {
    expect(trizSummary("revise", of("low", "medium", "medium"))).toBe(
      "Runnable, but worth tightening (2 medium, 1 low).",
    );
    expect(trizSummary("approve", of("low"))).toBe("Only low-risk improvements (1 low).");
  });
});
