/**
 * The quant's path of issue 41, as a notebook of theirs (test/notebook/quant-path.ipynb) under Deno's kernel,
 * where no type checker stands between a cell and the library: a forgotten `await`, a Saturday and a date
 * list with a weekend, a request with a day that does not exist and a lower-case currency, a CSV of bond
 * prices with a bad row, an exact duplicate and two rows that disagree (best effort, `skipInvalid`), a
 * vega-weighted fit to noisy quotes, and a Jupyter-saved notebook compared with a headless run. Each cell
 * prints what the library says where it happens; each must name the problem in words, none may pass silently.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Executed, inCI, missingDeno, runCli, type Run } from "./executed";

const missing = missingDeno();
if (missing && !inCI) console.warn(`test/notebook/quant-path: skipping: ${missing}`);
const outDir = mkdtempSync(path.join(tmpdir(), "rpl-quant-path-"));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe.skipIf(missing !== undefined && !inCI)("a quant's notebook under Deno: nothing silently wrong", () => {
  let run: Run;
  let nb: Executed;
  beforeAll(async () => {
    if (missing) throw new Error(`The quant's notebook must be run in CI, but ${missing}`);
    run = await runCli(["run", "test/notebook/quant-path.ipynb", "--kernel", "deno", "--out", outDir], 120_000);
    nb = Executed.read(path.join(outDir, "quant-path.ipynb"));
  }, 120_000);

  it("runs every cell", () => {
    expect(run.code, run.stderr).toBe(0);
    expect(nb.unexecuted()).toEqual([]);
  });

  it("a forgotten await is an error naming the function and the await", () => {
    expect(nb.stdout("forgotten-await")).toBe(
      "forgotten await: frames.yieldCurve got a Promise: did you forget `await`?\n",
    );
  });

  it("a Saturday's curve and a date list with a weekend say which date answered", () => {
    const text = nb.stdout("saturday");
    expect(text).toContain("saturday: market_date: asked for 2026-11-21, answered with 2026-11-20 (RateAsset EUR)");
    expect(text).toContain("history: market_date (RateAsset EUR): 1 of 3 dates asked came back as another date's data");
    expect(text).toContain("2026-11-21 → 2026-11-20");
  });

  it("a day that does not exist and a lower-case currency are named as such, nothing sent", () => {
    const text = nb.stdout("bad-request");
    expect(text).toContain("nothing was sent");
    expect(text).toContain("currency: eur: currency codes are upper case: EUR");
    expect(text).toContain("market_date: 2026-11-31: November has 30 days");
  });

  it("the upload sends the valid rows once and lists every row it did not store, with the pillar replaced", () => {
    const text = nb.stdout("upload");
    expect(text).toContain("upload: 5 rows read, 1 sent, 1 duplicates sent once");
    expect(text).toContain("exact duplicate of row 0 (date 2026-11-20, code DE0001102580): sent once");
    expect(text).toContain("replaces pillar EUR SWAP 7Y");
    expect(text).toContain("conflicting duplicates are refused");
    expect(text).toContain('line 6 (local) traded_price: expected number, got "95.5O"');
  });

  it("the vega-weighted fit shows the weighted error beside the vol error, each slice within the noise", () => {
    const lines = nb.stdout("vega-fit").trim().split("\n");
    expect(lines).toHaveLength(4);
    for (const line of lines) {
      const m = /^fit \d+d: RMSE ([\d.]+) bp, weighted ([\d.]+) bp, (converged|not converged: .+)$/.exec(line);
      expect(m, line).not.toBeNull();
      // 15 bp of noise: a fit far above it is not good, whatever the solver says
      if (m![3] === "converged") expect(Number(m![1]), line).toBeLessThan(30);
    }
  });

  it("a Jupyter-saved notebook compared with a headless run of it: no change", () => {
    expect(nb.stdout("jupyter-diff")).toMatch(/^diff: jupyter: no change in \d+ code cells/);
  });
});
