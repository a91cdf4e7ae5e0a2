// Renders the bench's results as markdown: the machine, a summary against the targets, and details.
import { fmt, markdownTable } from "./stats.mjs";

/**
 * @param {{ machine: Record<string, string>, hosts: Array<{ name: string, result?: HostResult, error?: string }> }} run
 * @typedef {{ idleFreshMb: number, idleTreeMb: number, idleWarmMb?: number, backgroundCommitsPerSecond: number,
 *   throughput?: import("../scenarios/throughput.mjs").ThroughputRow[],
 *   wake?: import("../scenarios/wake.mjs").WakeRow, dag?: import("../scenarios/dag.mjs").DagRow,
 *   parked?: import("../scenarios/memory.mjs").ParkedRow, notes: string[] }} HostResult
 * @returns {string}
 */
export function renderReport(run) {
  const parts = ["## Machine", "", ...Object.entries(run.machine).map(([k, v]) => `- ${k}: ${v}`), ""];
  const hosts = run.hosts;
  parts.push("## Summary", "", summaryTable(hosts), "");
  for (const { name, result, error } of hosts) {
    parts.push(`## ${name}`, "");
    if (error) parts.push(`Failed: ${error}`, "");
    if (!result) continue;
    if (result.throughput) parts.push(throughputTable(result.throughput), "");
    for (const note of result.notes) parts.push(`- ${note}`);
    parts.push("");
  }
  return parts.join("\n");
}

/** One row per measure, one column per host, and the target. */
function summaryTable(hosts) {
  const at = (rows, workers) => rows?.find((row) => row.workers === workers);
  const measures = [
    ["GET /health p50 (ms)", (r) => fmt(r.health?.p50Ms, 1), ""],
    ["claim→complete, 1 worker (tasks/s)", (r) => fmt(at(r.throughput, 1)?.tasksPerSecond), "≥ 500 (G1)"],
    [
      "claim→complete, 16 workers (tasks/s)",
      (r) => fmt(at(r.throughput, 16)?.tasksPerSecond),
      "≥ 1,200 (Node)",
    ],
    [
      "claim→complete, 64 workers (tasks/s)",
      (r) => fmt(at(r.throughput, 64)?.tasksPerSecond),
      "≤ 10 % below 16",
    ],
    [
      "cycle p50 / p99, 16 workers (ms)",
      (r) => pair(at(r.throughput, 16)?.cycleP50Ms, at(r.throughput, 16)?.cycleP99Ms, 1),
      "",
    ],
    ["wake p50 / p99, client-measured (ms)", (r) => pair(r.wake?.p50Ms, r.wake?.p99Ms, 2), "≤ 2 / ≤ 10"],
    ["wake p50 / p99, database clock (ms)", (r) => pair(r.wake?.dbP50Ms, r.wake?.dbP99Ms, 2), ""],
    ["requests per task, 16 workers", (r) => fmt(at(r.throughput, 16)?.requestsPerTask, 2), "≤ 2"],
    ["transactions per task, 16 workers", (r) => fmt(at(r.throughput, 16)?.transactionsPerTask, 2), "≤ 3"],
    [
      "DB connections opened per task, 16 workers",
      (r) => fmt(at(r.throughput, 16)?.connectionsPerTask, 2),
      "",
    ],
    ["host CPU per task, 16 workers (ms)", (r) => fmt(at(r.throughput, 16)?.cpuMsPerTask, 2), "≤ 1.5 (G3)"],
    ["10k DAG drained by 16 workers (s)", (r) => fmt(r.dag && r.dag.elapsedMs / 1000, 1), "≤ 15"],
    ["10k DAG: claims before a dependency completed", (r) => fmt(r.dag?.early), "0"],
    [
      "10k DAG: tasks claimed / completed twice",
      (r) => pair(r.dag?.reclaimed, r.dag?.doubleDone, 0),
      "0 / 0",
    ],
    [
      "10k DAG: requests / transactions per task",
      (r) => pair(r.dag?.requestsPerTask, r.dag?.transactionsPerTask, 2),
      "≤ 2 / ≤ 3",
    ],
    ["memory idle, fresh (MB RSS)", (r) => fmt(r.idleFreshMb, 1), "≤ 150"],
    ["memory idle, after the runs (MB RSS)", (r) => fmt(r.idleWarmMb, 1), "≤ 150"],
    ["memory with 1,000 parked polls (MB RSS)", (r) => fmt(r.parked?.rssParkedMb, 1), "≤ 250 (G5)"],
    ["per parked poll (KiB)", (r) => fmt(r.parked?.kibPerPoll, 1), "≤ 40 (G5)"],
    ["DB connections while 1,000 polls park", (r) => fmt(r.parked?.databaseConnections), "pool only (G5)"],
    [
      "1,000 parked claims all served after an import (s)",
      (r) => fmt(r.parked && r.parked.herdMs / 1000, 2),
      "",
    ],
  ];
  const header = ["measure", ...hosts.map((host) => host.name), "target"];
  const rows = measures.map(([label, cell, target]) => [
    label,
    ...hosts.map((host) => (host.result ? cell(host.result) : "-")),
    target,
  ]);
  return markdownTable(header, rows);
}

function throughputTable(rows) {
  return markdownTable(
    [
      "workers",
      "tasks done",
      "wall (s)",
      "tasks/s",
      "cycle p50 (ms)",
      "cycle p99 (ms)",
      "requests/task",
      "transactions/task",
      "connections/task",
      "host CPU ms/task",
      "errors",
      "load avg",
    ],
    rows.map((row) => [
      row.workers,
      `${fmt(row.completed)}${row.timedOut ? " (time limit)" : ""}`,
      fmt(row.elapsedMs / 1000, 2),
      fmt(row.tasksPerSecond),
      fmt(row.cycleP50Ms, 2),
      fmt(row.cycleP99Ms, 2),
      fmt(row.requestsPerTask, 2),
      fmt(row.transactionsPerTask, 2),
      fmt(row.connectionsPerTask, 2),
      fmt(row.cpuMsPerTask, 2),
      row.errors === 0 ? "0" : `${row.errors} (${row.lastError})`,
      row.load,
    ]),
  );
}

function pair(a, b, digits) {
  if (a === undefined && b === undefined) return "-";
  return `${fmt(a, digits)} / ${fmt(b, digits)}`;
}
