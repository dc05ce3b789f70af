/**
 * The public surface of frames, and lazy loading: requiring the built frames module (what
 * `risk-portal-lab`'s `frames` export will be) loads neither danfo nor tensorflow; the `…Columns`
 * adapters never do; the first DataFrame adapter does. Runs in a plain node process on dist/ (built by
 * test/global-setup.ts), because the test runner itself may have danfo loaded.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import * as frames from "../../src/frames";

const run = promisify(execFile);
const root = path.resolve(__dirname, "../..");

const CHILD = `
const heavy = () => Object.keys(require.cache).some((k) => /[\\\\/]vendor[\\\\/]danfo[\\\\/]|danfojs-node|@tensorflow/.test(k));
const frames = require("./dist/frames");
const steps = { afterImport: heavy() };
frames.transactionTableColumns([{ a: 1, d: "2026-11-20" }]);
frames.yieldCurveColumns({ currency: "EUR", market_date: "2026-11-20T00:00:00Z", data: [{ maturity: 1, rate: 0.02 }] }, { derived: true });
steps.afterColumns = heavy();
const df = frames.transactionTable([{ a: 1 }]);
steps.afterFrame = heavy();
steps.shape = df.shape;
process.stdout.write(JSON.stringify(steps));
`;

describe("frames' public surface", () => {
  it("exports every adapter, its column-table twin, the batch helpers and the upload direction", () => {
    const adapters = [
      "yieldCurve",
      "volResults",
      "volResultsWide",
      "volGrid",
      "volGridWide",
      "transactionTable",
      "reportInfos",
      "reportList",
      "lookBacks",
      "apiKeys",
      "positionEffects",
      "operationOutcome",
      "pivot",
      "pivotCurves",
    ];
    for (const name of adapters) {
      expect(typeof (frames as Record<string, unknown>)[name], name).toBe("function");
      expect(typeof (frames as Record<string, unknown>)[`${name}Columns`], `${name}Columns`).toBe("function");
    }
    for (const name of [
      "fetchYieldCurves",
      "fetchYieldCurvesColumns",
      "fetchReportInfosByDate",
      "fetchReportInfosByDateColumns",
      "fetchTransactionTable",
      "fetchTransactionTableColumns",
      "bondPriceRecords",
      "uploadBondPrices",
      "equityVolCurveRecords",
      "uploadEquityVolCurves",
      "parseCsv",
      "readCsvFile",
      "toDataFrame",
      "fromDataFrame",
      "frameInfo",
      "loadDanfo",
    ]) {
      expect(typeof (frames as Record<string, unknown>)[name], name).toBe("function");
    }
  });

  it("loads danfo only when a DataFrame is first asked for", async () => {
    const { stdout } = await run(process.execPath, ["-e", CHILD], { cwd: root, encoding: "utf8", timeout: 60_000 });
    expect(JSON.parse(stdout)).toEqual({ afterImport: false, afterColumns: false, afterFrame: true, shape: [1, 1] });
  });
});
