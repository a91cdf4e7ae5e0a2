import { getMetricsFromIterator, type PromHistogramData, type PromLabels } from "prom2javascript";

/**
 * Reads a Prometheus text-format answer with an independent parser (prom2javascript, which refuses a
 * line it cannot parse) into one entry per sample, keyed `name{label="value",...}` with labels in
 * name order: counters and gauges as their value, histograms as `_bucket{...,le="..."}`, `_sum` and
 * `_count` entries, as Prometheus stores them. Also returns each family's type and help.
 * @throws {Error} for a line the parser refuses, a family without HELP or TYPE, or a series written twice.
 */
export async function parseExposition(text: string): Promise<{
  samples: Map<string, number>;
  families: Map<string, { type: string; help: string }>;
}> {
  const samples = new Map<string, number>();
  const families = new Map<string, { type: string; help: string }>();
  const add = (key: string, value: number | undefined) => {
    if (samples.has(key)) throw new Error(`series written twice: ${key}`);
    samples.set(key, Number(value));
  };
  const parsed = await getMetricsFromIterator(text.split("\n")[Symbol.iterator]());
  for (const [name, family] of Object.entries(parsed)) {
    if (!family.type || family.type === "untyped" || !family.help)
      throw new Error(`${name} lacks TYPE or HELP`);
    families.set(name, { type: family.type, help: family.help });
    for (const series of family.data) {
      const labels = series.labels ?? {};
      if (family.type !== "histogram") {
        add(seriesKey(name, labels), (series as { value: number }).value);
        continue;
      }
      const histogram = series as PromHistogramData;
      for (const [le, count] of Object.entries(histogram.buckets))
        add(seriesKey(`${name}_bucket`, { ...labels, le }), count);
      add(seriesKey(`${name}_sum`, labels), histogram.sum);
      add(seriesKey(`${name}_count`, labels), histogram.count);
    }
  }
  return { samples, families };
}

/** `name{a="1",b="2"}` with labels in name order, or `name` without labels. */
export function seriesKey(name: string, labels: PromLabels = {}): string {
  const pairs = Object.keys(labels)
    .sort()
    .map((label) => `${label}=${JSON.stringify(labels[label])}`);
  return pairs.length === 0 ? name : `${name}{${pairs.join(",")}}`;
}
