/**
 * What a Parquet path means and what a Parquet file says about its dates. A path is read as it is —
 * `data[1]` is the directory writeParquet wrote, not a glob — and a glob only when asked ({ glob: true }).
 * Dates are written UTC-adjusted (Parquet TIMESTAMP(isAdjustedToUTC = true, MICROS), DuckDB's TIMESTAMP
 * WITH TIME ZONE), so Spark, pandas and pyarrow read UTC instants; checked with DuckDB's parquet_schema()
 * on files from writeParquet, a streamed fetch and a streamed panel, and read back as the same Dates
 * whatever the process's time zone.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RiskPortalClient } from "../../src";
import * as frames from "../../src/frames";
import { TableBuilder } from "../../src/table/column-table";
import { startSimulator, type Simulator } from "../../src/sim";

const dir = mkdtempSync(path.join(tmpdir(), "rpl-pq-paths-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const when = ["2026-11-20T00:00:00.000Z", "1969-07-20T20:17:40.123Z", null, "2026-03-29T01:30:00.000Z"];
function dated(): frames.ColumnTable {
  return new TableBuilder(4, "Hand-made", {})
    .add("book", ["A", "B", "A", "B"], { hint: "category" })
    .add("when", when)
    .add("n", [1, 2, 3, 4])
    .build();
}
const iso = (values: unknown[]) => values.map((v) => (v instanceof Date ? v.toISOString() : v));

/** Each Parquet file's physical schema entry for `column`, as DuckDB reads it. */
async function schemaOf(glob: string, column: string): Promise<{ type: string; logical: string; duck: string }[]> {
  const t = await frames.queryColumns(
    `select type, logical_type::varchar as logical from parquet_schema('${glob}') where name = '${column}' order by file_name`,
  );
  const types = await frames.queryColumns(`select distinct typeof("${column}") as duck from read_parquet('${glob}')`);
  return (t.data.type as string[]).map((type, i) => ({
    type,
    logical: (t.data.logical as string[])[i]!,
    duck: (types.data.duck as string[])[0]!,
  }));
}
const UTC = {
  type: "INT64",
  logical: expect.stringMatching(/isAdjustedToUTC=(1|true).*MICROS/),
  duck: "TIMESTAMP WITH TIME ZONE",
};

describe("a Parquet path is a path", () => {
  it("readParquet reads data[1] (a file and a dataset) where writeParquet wrote it", async () => {
    const file = path.join(dir, "data[1].parquet");
    await frames.writeParquet(dated(), file);
    expect((await frames.readParquetColumns(file)).rowCount).toBe(4);
    const out = path.join(dir, "data[1]");
    await frames.writeParquet(dated(), out, { partitionBy: "book" });
    const back = await frames.readParquetColumns(out);
    expect(back.rowCount).toBe(4);
    expect(back.columns).toEqual(["book", "when", "n"]);
    expect((await frames.readParquet(out)).shape).toEqual([4, 3]);
    const star = path.join(dir, "what?*");
    await frames.writeParquet(dated(), star, { partitionBy: "book" });
    expect((await frames.readParquetColumns(star)).rowCount).toBe(4);
    const db = await frames.duckdb();
    try {
      await db.registerParquet("pq", out);
      expect((await db.queryColumns("select count(*) as n from pq")).data.n).toEqual([4]);
    } finally {
      await db.close();
    }
  });

  it("a glob only when asked: { glob: true }; a glob-like path that is not there says so", async () => {
    const globbed = path.join(dir, "globbed");
    mkdirSync(globbed);
    await frames.writeParquet(dated(), path.join(globbed, "a-1.parquet"));
    await frames.writeParquet(dated(), path.join(globbed, "a-2.parquet"));
    const glob = path.join(globbed, "a-*.parquet");
    expect((await frames.readParquetColumns(glob, { glob: true })).rowCount).toBe(8);
    await expect(frames.readParquetColumns(glob)).rejects.toThrow(
      /no Parquet file or directory at .*a-\*\.parquet \(for a glob, pass \{ glob: true \}\)/,
    );
    const db = await frames.duckdb();
    try {
      await db.registerParquet("pq", glob, { glob: true });
      expect((await db.queryColumns("select count(*) as n from pq")).data.n).toEqual([8]);
    } finally {
      await db.close();
    }
  });
});

describe("Parquet dates are UTC instants", () => {
  const tz = process.env.TZ;
  beforeAll(() => {
    process.env.TZ = "Asia/Tokyo"; // DuckDB's session time zone follows it: writing must not
  });
  afterAll(() => {
    if (tz === undefined) delete process.env.TZ;
    else process.env.TZ = tz;
  });

  it("writeParquet: a file and a dataset say isAdjustedToUTC, and read back as the same Dates", async () => {
    const file = path.join(dir, "dates.parquet");
    await frames.writeParquet(dated(), file);
    expect(await schemaOf(file, "when")).toEqual([UTC]);
    const utc = await frames.queryColumns(
      `select strftime(timezone('UTC', "when"), '%Y-%m-%dT%H:%M:%S.%g') as t from read_parquet('${file}')`,
    );
    expect(utc.data.t).toEqual(when.map((w) => (w === null ? null : w.slice(0, -1))));
    const back = await frames.readParquetColumns(file);
    expect(back.kinds.when).toBe("date");
    expect(iso(back.data.when!)).toEqual(when);

    const out = path.join(dir, "dates");
    await frames.writeParquet(dated(), out, { partitionBy: "book" });
    expect(await schemaOf(`${out}/**/*.parquet`, "when")).toEqual([UTC, UTC]);
    expect(iso((await frames.readParquetColumns(out)).data.when!).sort()).toEqual([...when].sort());
  });

  it("SQL over them counts in UTC whatever the process's time zone: a trade at 20:00 UTC on 31 October is October's", async () => {
    const file = path.join(dir, "late.parquet");
    await frames.writeParquet(new TableBuilder(1, "Hand-made", {}).add("when", ["2026-10-31T20:00:00Z"]).build(), file);
    const month = await frames.queryColumns(
      `select strftime(date_trunc('month', "when"), '%Y-%m') as m, hour("when") as h from read_parquet('${file}')`,
    );
    expect(month.data).toEqual({ m: ["2026-10"], h: [20] });
  });

  describe("streamed from the simulator", () => {
    let sim: Simulator;
    let rp: RiskPortalClient;
    beforeAll(async () => {
      sim = await startSimulator({ transactionRows: 300 });
      rp = new RiskPortalClient({ baseUrl: sim.url, auth: { apiKey: sim.credentials.apiKey } });
    });
    afterAll(async () => {
      await sim?.close();
    });

    it("a streamed table and a streamed panel say isAdjustedToUTC, with the Dates of the table in memory", async () => {
      const request = {
        portfolio_name: "GLOBAL-MACRO",
        start_date: "2026-10-01T00:00:00Z",
        end_date: "2026-10-31T23:59:59.999Z",
      };
      const inMemory = await frames.fetchTransactionTableColumns(rp, request);
      expect(inMemory.kinds.trade_date).toBe("date");
      const file = path.join(dir, "stream.parquet");
      await frames.fetchTransactionTableToParquet(rp, request, file);
      expect(await schemaOf(file, "trade_date")).toEqual([UTC]);
      expect(iso((await frames.readParquetColumns(file)).data.trade_date!)).toEqual(iso(inMemory.data.trade_date!));

      const panel = path.join(dir, "panel");
      const written = await frames.fetchTransactionTablesToParquet(
        rp,
        { portfolios: ["GLOBAL-MACRO"], months: ["2026-10"], progress: "none" },
        panel,
      );
      expect(written.files).toHaveLength(1);
      expect(await schemaOf(`${panel}/**/*.parquet`, "trade_date")).toEqual([UTC]);
      expect(iso((await frames.readParquetColumns(panel)).data.trade_date!)).toEqual(iso(inMemory.data.trade_date!));
    });
  });
});
