/**
 * A group-by larger than memory (issue 48, item 2): a Parquet dataset of SPILL_BENCH_ROWS rows (default
 * 20,000,000; a unique int64 key, a double), grouped by the key — 20M groups, a hash table about 3× a
 * 256 MB limit — through `frames.queryColumns(sql, {}, { memoryLimit, tempDirectory })`, each variant in a
 * child process of its own that reports its peak RSS (VmHWM) and time:
 *   limit     memoryLimit "256MB" (SPILL_BENCH_LIMIT), spilling to a temporary folder
 *   no-limit  DuckDB's default limit (80% of the machine's memory)
 * Rows per second are the dataset's rows over the query's wall time; rounds (SPILL_BENCH_ROUNDS, default 1)
 * interleave the variants, figures are medians. Both variants must give the same count and sum. Run after
 * `npm run build`: `node bench/spill.mjs`. Writes bench/results/spill.json.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { REPO_ROOT, envInt, formatTable, isMain, median, repoRequire, round, writeResults } from "./common.mjs";

const ROWS = envInt("SPILL_BENCH_ROWS", 20_000_000);
const ROUNDS = envInt("SPILL_BENCH_ROUNDS", 1);
const LIMIT = process.env.SPILL_BENCH_LIMIT ?? "256MB";
const VARIANTS = ["limit", "no-limit"];
const frames = () => repoRequire(join(REPO_ROOT, "dist", "frames", "index.js"));

/** This process's peak RSS in MB (Linux's VmHWM). */
function peakRssMB() {
  const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"));
  return hwm ? Number(hwm[1]) / 1024 : process.resourceUsage().maxRSS / 1024;
}

/** In the child: the group-by, then its figures as JSON on stdout. */
async function child(variant, file, spill) {
  const options = variant === "limit" ? { memoryLimit: LIMIT, tempDirectory: spill } : {};
  const sql = `select count(*) as groups, sum(s) as total from (select k, sum(v) as s from read_parquet('${file}') group by k)`;
  const started = performance.now();
  const cpu = process.cpuUsage();
  const out = await frames().queryColumns(sql, {}, options);
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const figures = {
    ms,
    cpuMs: (used.user + used.system) / 1000,
    peakMB: peakRssMB(),
    groups: Number(out.data.groups[0]),
    total: out.data.total[0],
  };
  process.stdout.write(JSON.stringify(figures));
}

function runChild(variant, file, spill) {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [new URL(import.meta.url).pathname, "--child", variant, file, spill], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    proc.stdout.on("data", (d) => (out += d));
    proc.on("error", reject);
    proc.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`${variant} exited ${code}`))));
  });
}

async function main() {
  const loadBefore = os.loadavg().map((x) => round(x, 2));
  console.log(`spill bench: group-by of ${ROWS.toLocaleString("en-US")} keys; load average ${loadBefore.join(" ")}`);
  const dir = mkdtempSync(join(os.tmpdir(), "rpl-spill-bench-"));
  try {
    const file = join(dir, "keys.parquet");
    const db = await frames().duckdb();
    await db.run(`copy (select i as k, (i % 1000) * 1.0 as v from range(${ROWS}) t(i)) to '${file}' (format parquet)`);
    await db.close();
    const runs = Object.fromEntries(VARIANTS.map((v) => [v, []]));
    for (let round_ = 0; round_ < ROUNDS; round_++)
      for (const v of VARIANTS) runs[v].push(await runChild(v, file, join(dir, `spill-${v}-${round_}`)));
    const figures = Object.fromEntries(
      VARIANTS.map((v) => {
        const ms = median(runs[v].map((r) => r.ms));
        return [
          v,
          {
            ms: round(ms, 0),
            cpuMs: round(median(runs[v].map((r) => r.cpuMs)), 0),
            rowsPerSecond: round(ROWS / (ms / 1000), 0),
            peakMB: round(median(runs[v].map((r) => r.peakMB)), 0),
          },
        ];
      }),
    );
    const answers = new Set(VARIANTS.flatMap((v) => runs[v].map((r) => `${r.groups} ${r.total}`)));
    const check = { ok: answers.size === 1 && runs.limit[0].groups === ROWS, answers: [...answers] };
    const loadAfter = os.loadavg().map((x) => round(x, 2));
    console.log(
      formatTable(
        ["variant", "wall ms", "CPU ms", "rows/s", "peak RSS MB"],
        VARIANTS.map((v) => [
          v === "limit" ? `memoryLimit ${LIMIT}, spilling` : "no limit",
          figures[v].ms,
          figures[v].cpuMs,
          figures[v].rowsPerSecond.toLocaleString("en-US"),
          figures[v].peakMB,
        ]),
      ),
    );
    console.log(`load average after: ${loadAfter.join(" ")}; check ${check.ok ? "ok" : "FAILED"} ${check.answers}`);
    writeResults("spill", { rows: ROWS, limit: LIMIT, rounds: ROUNDS, loadBefore, loadAfter, figures, check });
    if (!check.ok) process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === "--child") await child(...process.argv.slice(3));
else if (isMain(import.meta.url)) await main();
