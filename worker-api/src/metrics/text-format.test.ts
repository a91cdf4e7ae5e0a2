import { describe, expect, it } from "vitest";
import { parseExposition } from "../../../test/support/prometheus-text.js";
import { DurationHistogram } from "./histogram.js";
import { formatValue, writeTextFormat } from "./text-format.js";

describe("writeTextFormat", () => {
  it("writes HELP, TYPE and samples, escaping help text and label values", async () => {
    const text = writeTextFormat([
      {
        name: "x_total",
        help: 'counts \\ things\nover "lines"',
        type: "counter",
        samples: [
          { labels: { plan_id: 'a "b" \\ c\nd' }, value: 3 },
          { labels: { plan_id: "é" }, value: 0 },
        ],
      },
      { name: "y", help: "a gauge", type: "gauge", samples: [{ value: 0.000001 }] },
      { name: "z_seconds", help: "no series yet", type: "histogram", samples: [] },
    ]);
    expect(text).toBe(
      [
        '# HELP x_total counts \\\\ things\\nover "lines"',
        "# TYPE x_total counter",
        'x_total{plan_id="a \\"b\\" \\\\ c\\nd"} 3',
        'x_total{plan_id="é"} 0',
        "# HELP y a gauge",
        "# TYPE y gauge",
        "y 0.000001",
        "# HELP z_seconds no series yet",
        "# TYPE z_seconds histogram",
        "",
      ].join("\n"),
    );
    const { samples, families } = await parseExposition(text);
    expect(samples.get('x_total{plan_id="a \\"b\\" \\\\ c\\nd"}')).toBe(3);
    // The parser leaves HELP's escapes as written; the exact text above checks them.
    expect(families.get("x_total")?.type).toBe("counter");
  });

  it("writes a histogram's cumulative buckets, +Inf, sum and count per label set", async () => {
    const histogram = new DurationHistogram([0.1, 1]);
    for (const seconds of [0.05, 0.1, 0.5, 3, -1, Number.NaN]) histogram.observe(seconds);
    const snapshot = histogram.snapshot();
    expect(snapshot).toEqual({ bounds: [0.1, 1], buckets: [2, 3], count: 4, sum: 3.65 });
    const text = writeTextFormat([
      { name: "w_seconds", help: "waits", type: "histogram", samples: [{ labels: { k: "v" }, ...snapshot }] },
    ]);
    expect(text).toContain('w_seconds_bucket{k="v",le="0.1"} 2\nw_seconds_bucket{k="v",le="1"} 3\n');
    const { samples } = await parseExposition(text);
    expect(Object.fromEntries(samples)).toEqual({
      'w_seconds_bucket{k="v",le="0.1"}': 2,
      'w_seconds_bucket{k="v",le="1"}': 3,
      'w_seconds_bucket{k="v",le="+Inf"}': 4,
      'w_seconds_sum{k="v"}': 3.65,
      'w_seconds_count{k="v"}': 4,
    });
  });

  it("refuses names Prometheus would not take, and a counter without _total", () => {
    const gauge = (name: string, labels: Record<string, string> = {}) =>
      writeTextFormat([{ name, help: "h", type: "gauge", samples: [{ labels, value: 1 }] }]);
    expect(() => gauge("1abc")).toThrow(/invalid metric name/);
    expect(() => gauge("ok", { "bad-label": "v" })).toThrow(/invalid label name/);
    expect(() => gauge("ok", { __reserved: "v" })).toThrow(/invalid label name/);
    expect(() => writeTextFormat([{ name: "c", help: "h", type: "counter", samples: [] }])).toThrow(/_total/);
    expect(() => new DurationHistogram([1, 1])).toThrow(/ascending/);
  });

  it("formats special values as the format spells them", () => {
    expect(
      [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.NaN, 1e21, 7].map(formatValue),
    ).toEqual(["+Inf", "-Inf", "NaN", "1e+21", "7"]);
  });
});
