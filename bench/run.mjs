/**
 * Runs the benchmarks against the built package (`npm run bench` builds first): import time
 * (bench/import-time.mjs), then client throughput vs. bare fetch (bench/throughput.mjs). Prints each
 * report and a summary table, and writes the figures with the machine's details (node version, CPU
 * model, load average before and after, as a hint of noise from other processes) to
 * bench/results/latest.json. Exits non-zero when importing the package loads danfo or plotly.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { BENCH_DIR, formatTable, round } from "./common.mjs";
import { formatImportTime, measureImportTime } from "./import-time.mjs";
import { formatThroughput, measureThroughput, settingsFromEnv } from "./throughput.mjs";

const machine = {
  node: process.version,
  v8: process.versions.v8,
  platform: `${process.platform} ${os.release()} ${process.arch}`,
  cpuModel: os.cpus()[0]?.model ?? "unknown",
  cpus: os.cpus().length,
  memoryGiB: round(os.totalmem() / 2 ** 30, 1),
};
const loadBefore = os.loadavg().map((x) => round(x, 2));
const startedAt = new Date();
console.log(`node ${machine.node} on ${machine.cpuModel} x${machine.cpus}; load average ${loadBefore.join(" ")}\n`);

const importTime = measureImportTime();
console.log(formatImportTime(importTime) + "\n");

const throughput = await measureThroughput(settingsFromEnv(), (line) => console.log(line));
console.log("\n" + formatThroughput(throughput) + "\n");

const loadAfter = os.loadavg().map((x) => round(x, 2));
const rows = [
  ["import: added to process start (median wall delta)", `${round(importTime.deltaMs, 1)} ms`],
  ["import: CPU of the child / `node -e 0`'s (median)", `${round(importTime.cpuRatio, 2)}×`],
  ["import: require() inside the child (median)", `${round(importTime.inChildRequireMs.median, 1)} ms`],
  ["import: modules loaded / danfo, plotly loaded", `${importTime.modulesLoaded} / ${importTime.ok ? "no" : "YES"}`],
  ...Object.entries(throughput.variants).map(([v, x]) => [
    `throughput ${v}. ${x.name}`,
    `${round(x.rpsMedian, 0)} req/s`,
  ]),
  ...throughput.overheads.map((o) => [
    `overhead ${o.label} (req/s lost; client CPU/req)`,
    `${round(o.rpsOverheadPct, 1)}%; +${round(o.cpuOverheadPct, 1)}%`,
  ]),
];
console.log(formatTable(["summary", "value"], rows));
console.log(`load average before ${loadBefore.join(" ")}, after ${loadAfter.join(" ")} (${machine.cpus} CPUs)`);

const resultsDir = join(BENCH_DIR, "results");
mkdirSync(resultsDir, { recursive: true });
const file = join(resultsDir, "latest.json");
const roundDeep = (value) =>
  typeof value === "number"
    ? round(value, 2)
    : Array.isArray(value)
      ? value.map(roundDeep)
      : value && typeof value === "object"
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, roundDeep(v)]))
        : value;
writeFileSync(
  file,
  JSON.stringify(
    roundDeep({
      startedAt: startedAt.toISOString(),
      durationS: (Date.now() - startedAt.getTime()) / 1000,
      machine,
      loadAverage: { before: loadBefore, after: loadAfter },
      importTime,
      throughput,
    }),
    null,
    2,
  ) + "\n",
);
console.log(`results written to ${file}`);
if (!importTime.ok) process.exitCode = 1;

// The other benchmarks run in their own processes (each measures its own peak memory or loads its own
// server) and write their own results: vol model, DataFrames, simulator, its scaling with stored data,
// a bad day (20% faults), replay, the charts' scaling with their rows, diffing two runs of each notebook,
// what tslab costs a notebook against Deno (from a folder the packed package is installed in), the holiday
// calendars' isBusinessDay and advance calls per second, implied vols per second (Black and Bachelier).
for (const bench of [
  "vol.mjs",
  "frames.mjs",
  "danfo.mjs",
  "sim.mjs",
  "sim-scale.mjs",
  "faults.mjs",
  "replay.mjs",
  "plot-scale.mjs",
  "diff.mjs",
  "tslab-cost.mjs",
  "calendar.mjs",
  "implied.mjs",
]) {
  console.log(`\n=== bench/${bench} ===`);
  const run = spawnSync(process.execPath, ["--expose-gc", join(BENCH_DIR, bench)], { stdio: "inherit" });
  if (run.status !== 0) {
    console.error(`bench/${bench} failed (exit ${run.status})`);
    process.exitCode = 1;
  }
}
