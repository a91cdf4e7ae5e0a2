/**
 * The Prometheus text exposition format, version 0.0.4: what `GET /metrics` answers. A small writer
 * rather than prom-client: its metrics keep their values in process memory, while every value here is
 * read from the database per scrape (a Workers isolate's memory is its own); and its package index
 * loads the Node built-ins of its Pushgateway and default metrics (`http`, `https`, `zlib`, `v8`,
 * `perf_hooks`), which the Worker, built without `nodejs_compat` on purpose (wrangler.toml), cannot load.
 */

/** The `content-type` of a text-format answer. */
export const TEXT_FORMAT_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** Label names and values of one series; values may be any text (they are escaped). */
export type Labels = Readonly<Record<string, string>>;

/** One sample of a counter or gauge. */
export type Sample = { readonly labels?: Labels; readonly value: number };

/** One series of a histogram: cumulative counts at each bucket's upper bound, then the total count and sum. */
export type HistogramSample = {
  readonly labels?: Labels;
  /** Upper bounds, ascending and finite; the writer adds `+Inf` with `count`. */
  readonly bounds: readonly number[];
  /** `buckets[i]` observations at most `bounds[i]` (cumulative). */
  readonly buckets: readonly number[];
  readonly count: number;
  readonly sum: number;
};

/** A metric family: its name, help text, type and series. A family with no series is still written (HELP and TYPE). */
export type MetricFamily =
  | {
      readonly name: string;
      readonly help: string;
      readonly type: "counter" | "gauge";
      readonly samples: readonly Sample[];
    }
  | {
      readonly name: string;
      readonly help: string;
      readonly type: "histogram";
      readonly samples: readonly HistogramSample[];
    };

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/**
 * Writes families in the text format, in the order given, each as `# HELP`, `# TYPE` and its samples;
 * the answer ends with a newline. Label values and help text are escaped (`\\`, `"`, newline).
 * @throws {Error} for an invalid metric or label name, a counter not named `_total`, a label `le` on a
 *   histogram, or bucket counts that do not match their bounds: a bug in the caller, never input.
 */
export function writeTextFormat(families: readonly MetricFamily[]): string {
  const lines: string[] = [];
  for (const family of families) {
    if (!METRIC_NAME.test(family.name)) throw new Error(`invalid metric name: ${family.name}`);
    if (family.type === "counter" && !family.name.endsWith("_total")) {
      throw new Error(`a counter's name must end in _total: ${family.name}`);
    }
    lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.type}`);
    if (family.type === "histogram") {
      for (const sample of family.samples) lines.push(...histogramLines(family.name, sample));
    } else {
      for (const sample of family.samples) {
        lines.push(`${family.name}${labelSet(sample.labels)} ${formatValue(sample.value)}`);
      }
    }
  }
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}

function histogramLines(name: string, sample: HistogramSample): string[] {
  if (sample.labels && "le" in sample.labels) throw new Error(`a histogram series may not set le: ${name}`);
  if (sample.buckets.length !== sample.bounds.length) {
    throw new Error(
      `histogram ${name}: ${sample.buckets.length} bucket counts for ${sample.bounds.length} bounds`,
    );
  }
  const bucket = (le: string, count: number) =>
    `${name}_bucket${labelSet({ ...sample.labels, le })} ${formatValue(count)}`;
  return [
    ...sample.bounds.map((bound, i) => bucket(formatValue(bound), sample.buckets[i] ?? 0)),
    bucket("+Inf", sample.count),
    `${name}_sum${labelSet(sample.labels)} ${formatValue(sample.sum)}`,
    `${name}_count${labelSet(sample.labels)} ${formatValue(sample.count)}`,
  ];
}

function labelSet(labels: Labels | undefined): string {
  const entries = Object.entries(labels ?? {});
  if (entries.length === 0) return "";
  const pairs = entries.map(([name, value]) => {
    if (!LABEL_NAME.test(name) || name.startsWith("__")) throw new Error(`invalid label name: ${name}`);
    return `${name}="${escapeLabelValue(value)}"`;
  });
  return `{${pairs.join(",")}}`;
}

/** A sample value: integers as written, other finite numbers in JavaScript's shortest form, `+Inf`, `-Inf`, `NaN`. */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Number.POSITIVE_INFINITY) return "+Inf";
  if (value === Number.NEGATIVE_INFINITY) return "-Inf";
  return String(value);
}

function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
}

function escapeHelp(help: string): string {
  return help.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}
