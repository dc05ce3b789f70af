/**
 * Every frame the package returns has a fresh 0..n-1 index, which keeps it out of danfo's query-after-sort
 * trap (a boolean query on a frame whose index is not 0..n-1 in order returns wrong rows): only
 * frames/danfo.ts makes DataFrames, and the frames made from sorted, pivoted, queried or read-back data
 * are numbered afresh.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { DataFrame } from "../../vendor/danfo";
import { afterAll, describe, expect, it } from "vitest";
import * as frames from "../../src/frames";
import { TableBuilder } from "../../src/table/column-table";

const dir = mkdtempSync(path.join(tmpdir(), "rpl-index-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function sources(root: string): string[] {
  return readdirSync(root).flatMap((name) => {
    const p = path.join(root, name);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith(".ts") ? [p] : [];
  });
}

const fresh = (df: DataFrame) => expect(df.index).toEqual([...Array(df.shape[0]).keys()]);

describe("frames come with a fresh 0..n-1 index", () => {
  it("only frames/danfo.ts constructs DataFrames (everything else goes through toDataFrame; danfo-fixes/ builds danfo's own results)", () => {
    const src = path.resolve(__dirname, "../../src");
    const door = (f: string) =>
      f.endsWith(path.join("frames", "danfo.ts")) || f.includes(path.join("frames", "danfo-fixes") + path.sep);
    const makers = sources(src).filter(
      (f) => !door(f) && /new\s+(?:\w+\.)?DataFrame\s*\(/.test(readFileSync(f, "utf8")),
    );
    expect(makers).toEqual([]);
  });

  it("sorted, pivoted, queried and read-back data are numbered afresh, and a boolean query on them is right", async () => {
    const t = new TableBuilder(6, "hand")
      .add("party", ["MS", "JPM", "DB", "UBS", "GS", "CITI"], { hint: "string" })
      .add("ccy", ["USD", "EUR", "USD", "EUR", "USD", "EUR"], { hint: "string" })
      .add("notional", [50, 10, 40, 20, 30, 60])
      .build();
    const sorted = await frames.query("select * from t order by notional", { t });
    fresh(sorted);
    // The trap's own test: above-average rows of a sorted frame, by a boolean query.
    const above = sorted.query(sorted["notional"].gt(35));
    expect(above["party"].values).toEqual(["DB", "MS", "CITI"]);
    fresh(frames.pivot(t, { index: "ccy", columns: "party", values: "notional", agg: "sum" }));
    fresh(frames.toDataFrame(t));
    const file = path.join(dir, "t.parquet");
    await frames.writeParquet(t, file);
    fresh(await frames.readParquet(file));
  });
});
