/**
 * Columns named like Object.prototype members (`constructor`, `toString`, `valueOf`, `hasOwnProperty`,
 * `__proto__`): a service may answer with such a field and an SQL query may alias one, and each must
 * be a column like any other: in the table from the service's rows (also when some rows lack it: then
 * it is missing there, not Object.prototype's function), in an SQL result, through Arrow and Parquet,
 * in a DataFrame (renamed, as every DataFrame member is, and said so), and in `diff` of two runs.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { RiskPortalClient } from "../../src";
import * as frames from "../../src/frames";
import { fetchTransactionTableColumns } from "../../src/transactions/fetch";
import { fetchTransactionTableToParquet } from "../../src/transactions/stream";
import { transactionTableColumns } from "../../src/transactions/table";
import { transactionTable } from "../../src/frames/transactions";
import { frameInfo } from "../../src/frames/danfo";
import { diffNotebookFiles } from "../../src/notebook/diff";
import { runCli } from "../notebook/executed";
import { startLoopback } from "../helpers/loopback";
import { writeTableNotebook } from "../helpers/table-notebook";
import { tableHtml } from "../../src/plot/table-view";
import { TableBuilder } from "../../src/table/column-table";

const NAMES = ["constructor", "toString", "valueOf", "hasOwnProperty", "__proto__"] as const;
const dir = mkdtempSync(path.join(tmpdir(), "rpl-proto-names-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A GetTransactionTable answer as the wire gives it: row 0 has every field, row 1 only `trade_id`. */
const RESPONSE = JSON.parse(
  `{"data_table": [{"trade_id": "T1", ${NAMES.map((n, k) => `"${n}": ${k + 1}`).join(", ")}}, {"trade_id": "T2"}], "latest_market_date": "2026-11-20", "__proto__": {"note": "a field"}}`,
) as unknown;

describe("columns named like Object.prototype members", () => {
  it("are columns of the table read from the service's rows, missing where a row lacks them", () => {
    const t = transactionTableColumns(RESPONSE);
    expect(t.columns).toEqual(["trade_id", ...NAMES]);
    expect(Object.keys(t.meta.fields)).toEqual(["latest_market_date", "__proto__"]);
    NAMES.forEach((n, k) => {
      expect(Object.hasOwn(t.data, n), n).toBe(true);
      expect(t.data[n], n).toEqual([k + 1, NaN]);
      expect(t.kinds[n], n).toBe("number");
      expect(t.meta.missing[n], n).toBe(1);
    });
    expect(t.meta.warnings).toEqual([]);
  });

  it("are columns of the table a client fetches from a service over HTTP, held in memory or streamed", async () => {
    const server = await startLoopback({
      "/api/Position/GetTransactionTable": {
        body: JSON.stringify(RESPONSE),
        headers: { "content-type": "application/json" },
      },
    });
    try {
      const rp = new RiskPortalClient({ baseUrl: server.url, auth: { token: "test-bearer-token-123" }, retry: false });
      const t = await fetchTransactionTableColumns(rp, { portfolio_name: "P" });
      expect(t.columns).toEqual(["trade_id", ...NAMES]);
      expect(Object.keys(t.meta.fields)).toEqual(["latest_market_date", "__proto__"]);
      expect(t.meta.fields["__proto__"]).toEqual({ note: "a field" });
      NAMES.forEach((n, k) => expect(t.data[n], n).toEqual([k + 1, NaN]));
      const file = path.join(dir, "streamed.parquet");
      await fetchTransactionTableToParquet(rp, { portfolio_name: "P" }, file);
      const read = await frames.readParquetColumns(file);
      expect(read.columns).toEqual(["trade_id", ...NAMES]);
      expect(read.meta.fields["__proto__"]).toEqual({ note: "a field" });
      NAMES.forEach((n, k) => expect(read.data[n], n).toEqual([k + 1, NaN]));
    } finally {
      await server.close();
    }
  });

  it("are DataFrame columns under a renamed name where danfo has a member of that name, each said so", () => {
    const df = transactionTable(RESPONSE);
    const info = frameInfo(df)!;
    const frameName = (n: string) => (Object.hasOwn(info.renamed, n) ? info.renamed[n]! : n);
    expect(Object.keys(info.renamed).sort()).toEqual(["__proto__", "constructor", "toString"]);
    NAMES.forEach((n, k) => {
      expect(df.columns, n).toContain(frameName(n));
      expect([...(df.column(frameName(n)).values as number[])], n).toEqual([k + 1, NaN]);
    });
    for (const n of Object.keys(info.renamed))
      expect(info.warnings).toContain(`column "${n}" is "${n}_" in the DataFrame: "${n}" is a DataFrame member`);
  });

  it("are columns of a DuckDB result, and survive Arrow and Parquet", async () => {
    const select = NAMES.map((n, k) => `${k + 1} AS "${n}"`).join(", ");
    const t = await frames.queryColumns(`SELECT ${select} UNION ALL SELECT ${NAMES.map(() => "NULL").join(", ")}`);
    expect(t.columns).toEqual([...NAMES]);
    NAMES.forEach((n, k) => expect(t.data[n], n).toEqual([k + 1, NaN]));
    const back = frames.fromArrow(frames.toArrow(t));
    expect(back.columns).toEqual([...NAMES]);
    NAMES.forEach((n, k) => expect(back.data[n], n).toEqual([k + 1, NaN]));
    const file = path.join(dir, "names.parquet");
    await frames.writeParquet(t, file);
    const read = await frames.readParquetColumns(file);
    expect(read.columns).toEqual([...NAMES]);
    NAMES.forEach((n, k) => expect(read.data[n], n).toEqual([k + 1, NaN]));
  });

  it("are shown as they are when digits names other columns", () => {
    const t = new TableBuilder(1, "t").add("rate", [0.123456]);
    NAMES.forEach((n) => t.add(n, [1.25]));
    const html = tableHtml(t.build(), { digits: { rate: 2 } });
    expect(html).toContain('<td data-x="0.123456">0.12</td>');
    expect(html.split("<td>1.25</td>").length - 1).toBe(NAMES.length);
  });

  it("are compared by diff: two runs differing only in such a column differ (exit 1)", async () => {
    const before = path.join(dir, "before.ipynb");
    const after = path.join(dir, "after.ipynb");
    const table = (v: number) =>
      transactionTableColumns(
        JSON.parse(`{"data_table": [{"trade_id": "T1", ${NAMES.map((n) => `"${n}": ${v}`).join(", ")}}]}`),
      );
    writeTableNotebook(before, table(1));
    for (const changed of NAMES) {
      const t = table(1);
      t.data[changed] = [2];
      writeTableNotebook(after, t);
      const d = await diffNotebookFiles(before, after);
      expect(d.changed, changed).toBe(true);
      const rows = d.cells[0]!.tables[0]! as { rows: { rows: { changes: { column: string }[] }[] } };
      expect(
        rows.rows.rows.flatMap((r) => r.changes.map((c) => c.column)),
        changed,
      ).toEqual([changed]);
    }
    const run = await runCli(["diff", before, after], 60_000);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toMatch(/after: 1 of 1 code cell changed \(1 table\)/);
  });
});
