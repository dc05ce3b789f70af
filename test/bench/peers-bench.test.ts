/**
 * bench/peers.mjs runs (issue 46, item 5): at a small size, one round, every variant goes through the whole
 * pipeline on the simulator's body and they all find the same groups, sums and filtered rows; the table has a
 * row for each. The figures themselves are the bench's to report, not this test's.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = path.resolve(__dirname, "..", "..");
const results = mkdtempSync(path.join(tmpdir(), "rpl-bench-results-"));
afterAll(() => rmSync(results, { recursive: true, force: true }));

interface PeersResults {
  rows: number;
  rounds: number;
  pandas: { version: string } | null;
  figures: Record<string, { load: { ms: number }; sort?: { ms: number }; peakMB: { end: number } }>;
  check: { ok: boolean; reference: { groups: number; filtered: number } };
}

describe("bench/peers.mjs", () => {
  it("runs every variant on a 2,000-row table, and all find the same groups and filtered rows", () => {
    const run = spawnSync(process.execPath, [path.join(root, "bench", "peers.mjs")], {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, PEERS_BENCH_ROWS: "2000", PEERS_BENCH_ROUNDS: "1", BENCH_RESULTS_DIR: results },
      timeout: 90_000,
    });
    expect(run.status, run.stderr.slice(-2000) + run.stdout.slice(-2000)).toBe(0);
    expect(run.stdout).toContain("every variant agrees (groups, Σ notional, sorted and filtered rows): true");
    const written = JSON.parse(readFileSync(path.join(results, "peers.json"), "utf8")) as PeersResults;
    const expected = ["ours-duckdb", "ours-danfo", "arquero", "polars", "duckdb-body", "duckdb-array"];
    if (written.pandas) expected.splice(4, 0, "pandas");
    else expect(run.stdout).toContain("pandas: skipped");
    // The body straight into DuckDB (issue 46, item 1) runs as its own variant once the built package has it.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const frames = require(path.join(root, "dist", "frames", "index.js")) as Record<string, unknown>;
    if (typeof frames.fetchTransactionTableToDuckDB === "function") expected.splice(1, 0, "ours-json-duckdb");
    else expect(run.stdout).toContain("ours-json-duckdb: skipped (dist/frames has no fetchTransactionTableToDuckDB)");
    expect(Object.keys(written.figures)).toEqual(expected);
    for (const key of expected) {
      expect(written.figures[key]!.load.ms, key).toBeGreaterThan(0);
      expect(written.figures[key]!.peakMB.end, key).toBeGreaterThan(10);
      expect(written.figures[key]!.sort === undefined, key).toBe(key === "duckdb-array");
    }
    // The simulator's 2,000 trades less those of zero quantity; 50 counterparty × currency pairs at most.
    expect(written.rows).toBeGreaterThan(1500);
    expect(written.check.reference.groups).toBeGreaterThan(10);
    expect(written.check.reference.filtered).toBeGreaterThan(0);
    expect(run.stdout).toContain("| ours: column table + DuckDB |");
    expect(run.stdout).toContain("| DuckDB `read_json` of the rows as a bare JSON array |");
    // The child's own limit, and room to start it, on a loaded 2-core machine (20 s, the default, was hit there).
  }, 120_000);
});
