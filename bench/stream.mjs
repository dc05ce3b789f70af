/**
 * Peak memory of a 1,000,000-row transaction table fetched over HTTP into one Parquet file: streamed
 * (`frames.fetchTransactionTableToParquet(rp, req, file)`, issue 16's target ≤ 600 MB peak RSS)
 * against the in-memory path (fetch the column table, then `frames.writeParquet`). Run after
 * `npm run build`:
 *
 *   node bench/stream.mjs          # STREAM_BENCH_ROWS=… to change the size
 *
 * The simulator runs in this process; each fetch runs in a fresh child process, which reports its own
 * peak RSS (`process.resourceUsage().maxRSS`) and time, so neither the simulator nor the other path is
 * counted. Both files are read back through DuckDB to check they hold the same rows. Prints the figures
 * and writes bench/results/stream.json.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { REPO_ROOT, envInt, formatTable, isMain, repoRequire, round, writeResults } from "./common.mjs";

const ROWS = envInt("STREAM_BENCH_ROWS", 1_000_000);

/** In the child: one fetch, then its figures as JSON on stdout. */
async function child(mode, url, apiKey, file) {
  const { RiskPortalClient } = repoRequire(join(REPO_ROOT, "dist", "index.js"));
  const frames = repoRequire(join(REPO_ROOT, "dist", "frames", "index.js"));
  const rp = new RiskPortalClient({ baseUrl: url, auth: { apiKey }, timeoutMs: 600_000 });
  const request = { portfolio_name: "GLOBAL-MACRO" };
  const start = performance.now();
  let rows;
  if (mode === "stream") rows = (await frames.fetchTransactionTableToParquet(rp, request, file)).rows;
  else {
    const table = await frames.fetchTransactionTableColumns(rp, request);
    rows = table.rowCount;
    await frames.writeParquet(table, file);
  }
  const ms = performance.now() - start;
  process.stdout.write(JSON.stringify({ mode, rows, ms, peakRssMB: process.resourceUsage().maxRSS / 1024 }));
}

function runChild(mode, url, apiKey, file) {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [new URL(import.meta.url).pathname, "--child", mode, url, apiKey, file], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    proc.stdout.on("data", (d) => (out += d));
    proc.on("error", reject);
    proc.on("exit", (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`${mode} child exited with ${code}`)),
    );
  });
}

async function main() {
  const { startSimulator } = repoRequire(join(REPO_ROOT, "dist", "sim", "index.js"));
  const frames = repoRequire(join(REPO_ROOT, "dist", "frames", "index.js"));
  const machine = { node: process.version, cpuModel: os.cpus()[0]?.model ?? "unknown", cpus: os.cpus().length };
  const loadBefore = os.loadavg().map((x) => round(x, 2));
  console.log(
    `stream bench: a ${ROWS.toLocaleString("en-US")}-row transaction table over HTTP into Parquet; node ${machine.node} on ${machine.cpuModel} x${machine.cpus}`,
  );
  const sim = await startSimulator({ transactionRows: ROWS });
  const dir = mkdtempSync(join(os.tmpdir(), "rpl-stream-bench-"));
  try {
    const results = {};
    for (const mode of ["stream", "memory"]) {
      const file = join(dir, `${mode}.parquet`);
      const r = await runChild(mode, sim.url, sim.credentials.apiKey, file);
      results[mode] = { ...r, fileMB: statSync(file).size / 1e6 };
      console.log(
        `${mode}: ${r.rows.toLocaleString("en-US")} rows in ${round(r.ms / 1000, 1)} s, peak RSS ${round(r.peakRssMB, 0)} MB`,
      );
    }
    // Row for row: what one file has and the other has not, both ways (EXCEPT ALL keeps duplicates).
    const [s, m] = ["stream", "memory"].map((mode) => `read_parquet('${join(dir, `${mode}.parquet`)}')`);
    const diff = await frames.queryColumns(
      `select (select count(*) from (select * from ${s} except all select * from ${m})) as only_streamed, (select count(*) from (select * from ${m} except all select * from ${s})) as only_in_memory`,
    );
    const same = diff.data.only_streamed[0] === 0 && diff.data.only_in_memory[0] === 0;
    if (!same) throw new Error(`the two files differ: ${JSON.stringify(diff.data)}`);
    const loadAfter = os.loadavg().map((x) => round(x, 2));
    console.log(
      "\n" +
        formatTable(
          ["", "streamed into Parquet", "in memory, then writeParquet", "ratio"],
          [
            [
              "peak RSS",
              `${round(results.stream.peakRssMB, 0)} MB`,
              `${round(results.memory.peakRssMB, 0)} MB`,
              `${round(results.stream.peakRssMB / results.memory.peakRssMB, 2)}×`,
            ],
            [
              "time",
              `${round(results.stream.ms / 1000, 1)} s`,
              `${round(results.memory.ms / 1000, 1)} s`,
              `${round(results.stream.ms / results.memory.ms, 2)}×`,
            ],
            ["file", `${round(results.stream.fileMB, 1)} MB`, `${round(results.memory.fileMB, 1)} MB`, ""],
          ],
        ) +
        `\nthe two files hold the same rows (EXCEPT ALL both ways is empty): ${same}; target: streamed peak RSS ≤ 600 MB`,
    );
    writeResults("stream", { rows: ROWS, machine, loadBefore, loadAfter, results, sameRows: same });
  } finally {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === "--child") await child(...process.argv.slice(3));
else if (isMain(import.meta.url)) await main();
