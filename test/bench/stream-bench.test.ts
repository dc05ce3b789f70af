/**
 * bench/stream.mjs runs (issue 30's row "1M-row table streamed to Parquet"): at a small size, both of its
 * paths fetch over HTTP into Parquet and DuckDB finds the same rows in the two files. It had stopped
 * running when streaming into Parquet became its own verb (fcfb65d), and no test ran it.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = path.resolve(__dirname, "..", "..");
const results = mkdtempSync(path.join(tmpdir(), "rpl-bench-results-"));
afterAll(() => rmSync(results, { recursive: true, force: true }));

describe("bench/stream.mjs", () => {
  it("streams a 3,000-row table into Parquet by both routes and writes it from memory, and the files hold the same rows", () => {
    const run = spawnSync(process.execPath, [path.join(root, "bench", "stream.mjs")], {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, STREAM_BENCH_ROWS: "3000", BENCH_RESULTS_DIR: results },
      timeout: 60_000,
    });
    expect(run.status, run.stderr.slice(-2000)).toBe(0);
    expect(run.stdout).toContain("the Parquet files hold the same rows (EXCEPT ALL both ways is empty): true");
    const written = JSON.parse(readFileSync(path.join(results, "stream.json"), "utf8")) as {
      rows: number;
      results: Record<string, { rows: number }>;
    };
    // The simulator's table of 3,000 rows, less those of zero quantity (left out by default), both ways.
    const { stream, memory } = written.results;
    expect([written.rows, stream?.rows, written.results["stream-js"]?.rows]).toEqual([
      3000,
      memory?.rows,
      memory?.rows,
    ]);
    expect(stream!.rows).toBeGreaterThan(2500);
    // The floor (fetch → pipe → DuckDB's COPY, nothing checked) read them all too (its file is among those compared).
    expect(written.results.floor?.rows).toBe(memory?.rows);
    // The child's own limit, and room to start it, on a loaded 2-core machine (20 s, the default, was hit there).
  }, 90_000);
});
