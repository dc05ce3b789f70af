/**
 * frames.fetchTransactionTables(Columns): a panel of transaction tables over portfolios × months from the
 * simulator, in memory and streamed into a hive-partitioned Parquet dataset; the dataset read back
 * through DuckDB's own read_parquet(…, hive_partitioning = true) has the same rows and aggregates as the
 * panel in memory, and as the calls made one by one.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RiskPortalClient } from "../../src";
import * as frames from "../../src/frames";
import { startSimulator, type Simulator } from "../../src/sim";

let sim: Simulator;
let rp: RiskPortalClient;
const dir = mkdtempSync(path.join(tmpdir(), "rpl-panel-"));
const portfolios = ["GLOBAL-MACRO", "RATES-EU"];
const months = ["2026-08", "2026-09", "2026-10"];

beforeAll(async () => {
  sim = await startSimulator({ transactionRows: 2_000 });
  rp = new RiskPortalClient({ baseUrl: sim.url, auth: { apiKey: sim.credentials.apiKey } });
});
afterAll(async () => {
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Rows and Σ notional per "portfolio|month". */
function byCell(t: frames.ColumnTable): Record<string, [number, number]> {
  const out: Record<string, [number, number]> = {};
  for (let i = 0; i < t.rowCount; i++) {
    const key = `${String(t.data.portfolio![i])}|${String(t.data.month![i])}`;
    const cell = (out[key] ??= [0, 0]);
    cell[0] += 1;
    cell[1] += t.data.notional![i] as number;
  }
  return out;
}

function expectSame(a: Record<string, [number, number]>, b: Record<string, [number, number]>): void {
  expect(Object.keys(b).sort()).toEqual(Object.keys(a).sort());
  for (const k of Object.keys(a)) {
    expect(b[k]![0], k).toBe(a[k]![0]);
    expect(Math.abs(b[k]![1] - a[k]![1]), k).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(a[k]![1])));
  }
}

describe("frames.fetchTransactionTablesColumns", () => {
  let panel: frames.BatchColumns<frames.TransactionTablesFailure>;
  beforeAll(async () => {
    panel = await frames.fetchTransactionTablesColumns(rp, { portfolios, months, progress: "none" });
  });

  it("one call per portfolio × month, labelled, each row inside its month; the same rows as the calls made one by one", async () => {
    expect(panel.failures).toEqual([]);
    expect(panel.table.columns.slice(0, 2)).toEqual(["portfolio", "month"]);
    expect(panel.table.kinds).toMatchObject({ portfolio: "category", month: "category", trade_date: "date" });
    expect(panel.table.meta.provenance).toHaveLength(portfolios.length * months.length);
    for (let i = 0; i < panel.table.rowCount; i++)
      expect((panel.table.data.trade_date![i] as Date).toISOString().slice(0, 7), `row ${i}`).toBe(
        panel.table.data.month![i],
      );
    const oneByOne: Record<string, [number, number]> = {};
    for (const portfolio of portfolios)
      for (const month of months) {
        const [y, m] = month.split("-").map(Number);
        const t = await frames.fetchTransactionTableColumns(rp, {
          portfolio_name: portfolio,
          start_date: new Date(Date.UTC(y!, m! - 1, 1)).toISOString(),
          end_date: new Date(Date.UTC(y!, m, 1) - 1).toISOString(),
        });
        oneByOne[`${portfolio}|${month}`] = [t.rowCount, (t.data.notional as number[]).reduce((s, v) => s + v, 0)];
      }
    expectSame(oneByOne, byCell(panel.table));
  });

  it("fetchTransactionTablesToParquet streams into a hive-partitioned dataset that DuckDB reads back with the same rows and aggregates", async () => {
    const out = path.join(dir, "panel");
    const written = await frames.fetchTransactionTablesToParquet(rp, { portfolios, months, progress: "none" }, out);
    expect(written.failures).toEqual([]);
    expect(written.rows).toBe(panel.table.rowCount);
    expect(readdirSync(out).sort()).toEqual(portfolios.map((p) => `portfolio=${p}`).sort());
    expect(readdirSync(path.join(out, "portfolio=GLOBAL-MACRO")).sort()).toEqual(months.map((m) => `month=${m}`));
    const viaDuckDB = await frames.queryColumns(
      `select portfolio, month, count(*) as n, sum(notional) as s from read_parquet('${out}/**/*.parquet', hive_partitioning = true) group by all`,
    );
    const fromSql: Record<string, [number, number]> = {};
    for (let i = 0; i < viaDuckDB.rowCount; i++)
      fromSql[`${String(viaDuckDB.data.portfolio![i])}|${String(viaDuckDB.data.month![i])}`] = [
        viaDuckDB.data.n![i] as number,
        viaDuckDB.data.s![i] as number,
      ];
    expectSame(byCell(panel.table), fromSql);
    const back = await frames.readParquetColumns(out);
    expect(back.columns).toEqual(panel.table.columns);
    expect(back.kinds).toEqual(panel.table.kinds);
    expect(back.meta.provenance).toHaveLength(portfolios.length * months.length);
    expectSame(byCell(panel.table), byCell(back));
  });

  it("reports failed calls beside what arrived, and never writes over a dataset unless asked", async () => {
    const out = path.join(dir, "with-failure");
    const written = await frames.fetchTransactionTablesToParquet(
      rp,
      { portfolios: ["GLOBAL-MACRO", "NOPE"], months: ["2026-10"], progress: "none" },
      out,
    );
    expect(written.failures).toEqual([
      { portfolio: "NOPE", month: "2026-10", status: 404, error: expect.stringMatching(/Portfolio 'NOPE' not found/) },
    ]);
    expect(readdirSync(out)).toEqual(["portfolio=GLOBAL-MACRO"]);
    await expect(
      frames.fetchTransactionTablesToParquet(rp, { portfolios, months, progress: "none" }, out),
    ).rejects.toThrow(
      /with-failure exists and is not an empty directory; pass overwrite: true to replace it \(nothing was fetched\)/,
    );
    const again = await frames.fetchTransactionTablesToParquet(
      rp,
      { portfolios: ["RATES-EU"], months: ["2026-10"], overwrite: true, progress: "none" },
      out,
    );
    expect(again.failures).toEqual([]);
    expect(readdirSync(out)).toEqual(["portfolio=RATES-EU"]);
    const file = path.join(dir, "a-file");
    writeFileSync(file, "x");
    await expect(frames.fetchTransactionTablesToParquet(rp, { portfolios, progress: "none" }, file)).rejects.toThrow(
      /a-file exists/,
    );
  });

  it("refuses a month that is not YYYY-MM, naming it", async () => {
    await expect(
      frames.fetchTransactionTablesColumns(rp, { portfolios, months: ["2026-13"], progress: "none" }),
    ).rejects.toThrow(/months: expected YYYY-MM, e\.g\. "2026-01"; got "2026-13"/);
    await expect(frames.fetchTransactionTablesColumns(rp, { portfolios: [], progress: "none" })).rejects.toThrow(
      /portfolios must be a non-empty array/,
    );
  });

  it("in memory as a danfo DataFrame too, with a fresh index", async () => {
    const { frame, failures } = await frames.fetchTransactionTables(rp, {
      portfolios: ["GLOBAL-MACRO"],
      months: ["2026-10"],
      progress: "none",
    });
    expect(failures).toEqual([]);
    expect(frame.index).toEqual([...Array(frame.shape[0]).keys()]);
  });
});
