/**
 * A Parquet file's key-value metadata set after DuckDB wrote the file (issue 46: the Parquet route writes
 * the file while the rows arrive; the body's fields and provenance are known at the end). The oracle is
 * DuckDB reading the file back: the new values (long, non-ASCII, quotes, newlines), the other entries
 * as they were and in order, every row, and the row groups' own metadata (statistics, offsets) unchanged.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import * as frames from "../../src/frames";
import { ColumnarError } from "../../src/columnar/errors";
import { setParquetKeyValues } from "../../src/columnar/parquet-footer";

const dir = mkdtempSync(path.join(tmpdir(), "rpl-pq-footer-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

/** A file DuckDB wrote: 5,000 rows in row groups of 1,000, with `kv` (DuckDB's KV_METADATA) when given. */
async function written(kv?: Record<string, string>): Promise<string> {
  const file = path.join(dir, `f-${++files}.parquet`);
  const option = kv
    ? `, KV_METADATA {${Object.entries(kv)
        .map(([k, v]) => `'${k}': '${v}'`)
        .join(", ")}}`
    : "";
  await frames.queryColumns(
    `copy (select i, 'name ' || i as name, i * 0.5 as x, timestamptz '2026-01-01 00:00:00+00' + to_days(i::INTEGER) as d from range(5000) t(i)) to '${file}' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 1000${option})`,
  );
  return file;
}

const keyValues = async (file: string) => {
  const kv = await frames.queryColumns(
    `select decode(key) as key, decode(value) as value from parquet_kv_metadata('${file}')`,
  );
  return (kv.data.key as string[]).map((key, i) => [key, (kv.data.value as string[])[i]]);
};
/** Everything DuckDB reads of the file but its key-value metadata. */
const contents = async (file: string) => ({
  rows: (await frames.queryColumns(`select * from read_parquet('${file}')`)).data,
  groups: (
    await frames.queryColumns(
      `select * exclude (file_name) from parquet_metadata('${file}') order by row_group_id, column_id`,
    )
  ).data,
});

describe("setParquetKeyValues", () => {
  it("sets the values, keeps the other entries in their order, adds new keys; the rows and row groups are as they were", async () => {
    const file = await written({ meta: "", keep: "kept", provenance: "[]" });
    const before = await contents(file);
    expect(new Set(before.groups.row_group_id).size).toBeGreaterThan(1); // several row groups
    const piece = "é€😀\\\"'\n"; // a backslash, quotes, a newline
    const long = `{"fields":"${piece.repeat(5_000)}"}`;
    setParquetKeyValues(file, { meta: long, provenance: '[{"source":"x"}]', added: "new" }, "test");
    expect(await keyValues(file)).toEqual([
      ["meta", long],
      ["keep", "kept"],
      ["provenance", '[{"source":"x"}]'],
      ["added", "new"],
    ]);
    expect(await contents(file)).toEqual(before);
    // Set again, shorter: the file ends where its new footer does.
    const size = readFileSync(file).length;
    setParquetKeyValues(file, { meta: "short" }, "test");
    expect(readFileSync(file).length).toBeLessThan(size);
    expect((await keyValues(file))[0]).toEqual(["meta", "short"]);
    expect(await contents(file)).toEqual(before);
  });

  it("15 entries (the first size the list's header gives in a varint of its own)", async () => {
    const file = await written({ a: "1" });
    const many = Object.fromEntries(Array.from({ length: 14 }, (_, i) => [`k${i}`, `v${i}`]));
    setParquetKeyValues(file, many, "test");
    expect(await keyValues(file)).toEqual([["a", "1"], ...Object.entries(many)]);
    setParquetKeyValues(file, { k13: "last", k14: "16th" }, "test");
    expect((await keyValues(file)).slice(-2)).toEqual([
      ["k13", "last"],
      ["k14", "16th"],
    ]);
  });

  it("a file written without key-value metadata, or not a Parquet file: an error naming the file, the file untouched", async () => {
    const plain = await written();
    const text = path.join(dir, "text.parquet");
    writeFileSync(text, "this is not a Parquet file");
    for (const [file, reason] of [
      [plain, /could not set the key-value metadata of .*f-\d+\.parquet: .*without KV_METADATA/],
      [text, /text\.parquet: it does not end with PAR1/],
    ] as const) {
      const bytes = readFileSync(file);
      let thrown: unknown;
      try {
        setParquetKeyValues(file, { meta: "x" }, "frames.test");
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ColumnarError);
      expect((thrown as Error).message).toMatch(/^frames\.test: /);
      expect((thrown as Error).message).toMatch(reason);
      expect(readFileSync(file).equals(bytes)).toBe(true);
    }
  });
});
