/**
 * Small helpers shared by the benchmarks: where the built package is, how to require it, the timing loop
 * of the single-process benchmarks, summary statistics, number formatting, and the main block of a
 * single-process benchmark (`runStandalone`).
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { createServer } from "node:http";

export const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = dirname(BENCH_DIR);
export const DIST_ENTRY = join(REPO_ROOT, "dist", "index.js");

/** A CommonJS `require` rooted at the repository, for the built package and its dependencies. */
export const repoRequire = createRequire(join(REPO_ROOT, "package.json"));

/**
 * How to require the built package: by name when `node_modules/risk-portal-lab` exists (an installed
 * or linked copy), else by the path of `dist/index.js`. Throws when neither is there (run `npm run build`).
 */
export function packageSpecifier() {
  if (existsSync(join(REPO_ROOT, "node_modules", "risk-portal-lab", "package.json"))) {
    return { specifier: "risk-portal-lab", resolved: repoRequire.resolve("risk-portal-lab"), via: "package name" };
  }
  if (!existsSync(DIST_ENTRY)) throw new Error(`${DIST_ENTRY} is missing: run \`npm run build\` first`);
  return { specifier: DIST_ENTRY, resolved: DIST_ENTRY, via: "dist path" };
}

/** Loads the built package into this process. */
export function loadPackage() {
  return repoRequire(packageSpecifier().specifier);
}

/** One module of the built package: `requireBuilt("vol", "index.js")` is dist/vol/index.js. Throws when it is not built. */
export function requireBuilt(...parts) {
  const file = join(REPO_ROOT, "dist", ...parts);
  if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` first`);
  return repoRequire(file);
}

/** Wall time and this process's CPU time (user + system) of one call, in ms, and its result. */
export function timeCall(fn) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const result = fn();
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { ms, cpuMs: (cpu.user + cpu.system) / 1000, result };
}

/**
 * The timing loop of the single-process benchmarks: `warmup` untimed calls of each variant's `run()`, then
 * `rounds` rounds that call every variant once in turn (interleaved, so the machine's drift hits all of
 * them alike). Returns, per variant key, the wall and CPU ms of every timed call. `onResult(key, result)`
 * sees every result, warm-ups included (a sink, so that no call is optimised away); `onRound(r, ms)` runs
 * after each round with the wall times so far.
 */
export function timeVariants(variants, { warmup, rounds }, { onResult = () => {}, onRound = () => {} } = {}) {
  const ms = Object.fromEntries(Object.keys(variants).map((key) => [key, []]));
  const cpuMs = Object.fromEntries(Object.keys(variants).map((key) => [key, []]));
  for (const [key, v] of Object.entries(variants)) for (let w = 0; w < warmup; w++) onResult(key, v.run());
  for (let r = 0; r < rounds; r++) {
    for (const [key, v] of Object.entries(variants)) {
      const t = timeCall(v.run);
      ms[key].push(t.ms);
      cpuMs[key].push(t.cpuMs);
      onResult(key, t.result);
    }
    onRound(r, ms);
  }
  return { ms, cpuMs };
}

/** Items per second of `count` items done in `ms` milliseconds. */
export const perSecond = (count, ms) => count / (ms / 1000);

/** The q-quantile (0..1) of a list of numbers, nearest-rank. */
export function quantile(values, q) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank];
}

export const median = (values) => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** min / median / p90 / max of a list, and the spread (max−min) relative to the median. */
export function summarise(values) {
  const med = median(values);
  return {
    n: values.length,
    min: Math.min(...values),
    median: med,
    p90: quantile(values, 0.9),
    max: Math.max(...values),
    spreadPct: med ? ((Math.max(...values) - Math.min(...values)) / med) * 100 : NaN,
  };
}

/** Rounds for JSON output (keeps results files readable). */
export const round = (x, digits = 2) => (Number.isFinite(x) ? Number(x.toFixed(digits)) : x);

/** A row of a results table: name, median, min, max, spread, and the CPU median (or "-" without `cpu`), the figures through `f`. */
export const statRow = (name, s, cpu, f) => [
  name,
  f(s.median),
  f(s.min),
  f(s.max),
  `${round(s.spreadPct, 1)}%`,
  cpu ? f(cpu.median) : "-",
];

/** Prints rows of objects as an aligned text table (first column left-aligned, the rest right-aligned). */
export function formatTable(headers, rows) {
  const cells = [headers, ...rows.map((r) => r.map((c) => String(c)))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  const line = (r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
  return [line(headers), widths.map((w) => "-".repeat(w)).join("  "), ...cells.slice(1).map(line)].join("\n");
}

/** A positive integer from the environment, else the default. */
export function envInt(name, fallback) {
  const n = Number(process.env[name]);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

/** True when `import.meta.url` is the script node was started with. */
export const isMain = (metaUrl) => process.argv[1] !== undefined && fileURLToPath(metaUrl) === process.argv[1];

/**
 * The main block of a one-process benchmark (`node bench/<name>.mjs`): prints the machine and its load,
 * runs `measure(log)`, prints `format(result)`, writes `bench/results/<name>.json` (the result without its
 * `sink`, with the machine, the load average before and after, start time and duration) and sets exit
 * code 1 when the result's `check.ok` is false (a fast wrong answer does not pass).
 */
export function runStandalone(name, measure, format) {
  const machine = {
    node: process.version,
    v8: process.versions.v8,
    cpuModel: os.cpus()[0]?.model ?? "unknown",
    cpus: os.cpus().length,
  };
  const loadBefore = os.loadavg().map((x) => round(x, 2));
  console.log(`node ${machine.node} on ${machine.cpuModel} x${machine.cpus}; load average ${loadBefore.join(" ")}\n`);
  const startedAt = new Date();
  const result = measure((line) => console.log(line));
  const loadAfter = os.loadavg().map((x) => round(x, 2));
  console.log("\n" + format(result));
  const { sink: _, ...figures } = result;
  const record = {
    startedAt: startedAt.toISOString(),
    durationS: round((Date.now() - startedAt.getTime()) / 1000, 2),
    machine,
    loadAverage: { before: loadBefore, after: loadAfter },
    ...figures,
  };
  console.log(`\nwrote ${writeResults(name, record)}`);
  if (!result.check.ok) process.exitCode = 1;
}

/**
 * Writes a benchmark's figures to `<name>.json` in bench/results, or in BENCH_RESULTS_DIR when set (a test's
 * small run, kept apart from the real figures); returns the file's path.
 */
export function writeResults(name, value) {
  const dir = process.env.BENCH_RESULTS_DIR || join(BENCH_DIR, "results");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(value, null, 2) + "\n");
  return file;
}

/** A loopback server answering every request with `body` from memory: the server's own work is next to nothing. */
export async function serveFromMemory(body) {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json", "content-length": body.length });
      res.end(body);
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
