/**
 * Parquet files and datasets, written and read through DuckDB ({@link SqlSession}): one file, or a
 * hive-partitioned directory (`currency=USD/market_date=2026-11-20/data_0.parquet`) that Spark, Trino,
 * Polars, pandas/pyarrow and DuckDB read as it is. zstd-compressed.
 *
 * What a frame knows beyond its values goes in the files' key-value metadata, as JSON: the kinds and
 * category levels of its columns and its facts (`risk_portal_lab.meta`), and the responses its rows came
 * from (`risk_portal_lab.provenance`); reading it back restores them. Dates are written as TIMESTAMP WITH
 * TIME ZONE (Parquet `TIMESTAMP(isAdjustedToUTC = true, MICROS)`: UTC instants, microseconds), so Spark,
 * pandas and pyarrow read them as UTC.
 *
 * Writing over something never loses it: the new file or dataset is written beside the target first,
 * then moved in place by rename; an overwrite replaces only what the dataset owns (its partition folders
 * and `.parquet` files, not a `NOTES.md` or `.git/` beside them), and on any failure what was there stays.
 */
import { mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import type { DataFrame } from "../../vendor/danfo";
import type { Provenance } from "../client/provenance";
import { besidePath } from "../files/replace-files";
import { columnTableOf, type TableLike } from "./arrow";
import {
  isTypedColumnTable,
  ownEntry,
  plainColumn,
  TableBuilder,
  typedColumns,
  uniqueWarnings,
  type ColumnKind,
  type ColumnTable,
  type TableWarning,
  type TypedColumnTable,
} from "../table/column-table";
import { toDataFrame } from "./frames";
import { ColumnarError, SqlError } from "./errors";
import { claimSpool, releaseSpool } from "./spool";
import { sizingOf, type DuckDBSizing } from "./duckdb-options";
import {
  parquetGlob,
  parquetScan,
  quoteIdent,
  quoteString,
  SqlSession,
  typedOption,
  type ParquetPathOptions,
  type ResultOptions,
} from "./sql";

export const PARQUET_META_KEY = "risk_portal_lab.meta";
export const PARQUET_PROVENANCE_KEY = "risk_portal_lab.provenance";

export interface WriteParquetOptions extends DuckDBSizing {
  /** Columns to partition by: a directory per value (`currency=USD/`), in this order. */
  partitionBy?: string | string[];
  /** Replace what is at `path` (default false: an existing file or non-empty directory is an error). */
  overwrite?: boolean;
  /** Parquet compression (default `zstd`). */
  compression?: "zstd" | "snappy" | "gzip" | "uncompressed";
}

export interface ParquetWritten {
  /** The file, or the dataset's directory. */
  path: string;
  rows: number;
  /** The Parquet files written (one for a single file). */
  files: string[];
}

/**
 * Writes the table (or DataFrame) as Parquet: one file at `path`, or with `partitionBy` a
 * hive-partitioned directory.
 *
 * @example
 * ```ts
 * await frames.writeParquet(trades, "data/trades", { partitionBy: ["portfolio", "currency"], overwrite: true });
 * ```
 */
export async function writeParquet(
  input: TableLike,
  target: string,
  options: WriteParquetOptions = {},
): Promise<ParquetWritten> {
  // A typed table goes to DuckDB as it is (its Float64Arrays copied in blocks), not made plain first.
  const table = isTypedColumnTable(input) ? input : columnTableOf(input, "frames.writeParquet");
  const partitionBy =
    options.partitionBy === undefined
      ? []
      : Array.isArray(options.partitionBy)
        ? options.partitionBy
        : [options.partitionBy];
  for (const c of partitionBy)
    if (!table.columns.includes(c))
      throw new ColumnarError(
        `frames.writeParquet: partitionBy names "${c}", which is not a column (columns: ${table.columns.join(", ")})`,
        "Parquet",
      );
  const compression = options.compression ?? "zstd";
  if (!["zstd", "snappy", "gzip", "uncompressed"].includes(compression))
    throw new ColumnarError(
      `frames.writeParquet: compression must be zstd, snappy, gzip or uncompressed; got ${JSON.stringify(compression)}`,
      "Parquet",
    );
  const out = path.resolve(target);
  const who = "frames.writeParquet";
  checkParquetTarget(out, partitionBy.length > 0, options.overwrite ?? false, who);
  mkdirSync(path.dirname(out), { recursive: true });
  const staging = claimSpool(out);
  const written = partitionBy.length ? path.join(staging, "dataset") : path.join(staging, path.basename(out));
  try {
    mkdirSync(partitionBy.length ? written : staging, { recursive: true });
    await copyToParquet(table, written, partitionBy, { compression, sizing: sizingOf(options) });
    if (partitionBy.length) replaceDataset(written, out, who);
    else replaceFile(written, out, who);
  } catch (error) {
    throw writeFailed(error, out, who);
  } finally {
    releaseSpool(staging);
  }
  return { path: out, rows: table.rowCount, files: partitionBy.length ? parquetFiles(out) : [out] };
}

/** `copy … to`: the table as Parquet at `to` (a directory of partitions with `partitionBy`). */
async function copyToParquet(
  table: ColumnTable | TypedColumnTable,
  to: string,
  partitionBy: string[],
  how: { compression: string; sizing: DuckDBSizing },
): Promise<void> {
  const { compression } = how;
  const session = await SqlSession.open(how.sizing, "frames.writeParquet");
  try {
    await session.register("t", table);
    const copyOptions = [
      "FORMAT parquet",
      `COMPRESSION ${compression}`,
      parquetKvOption(parquetMetaJson(table), table.meta.provenance),
    ];
    if (partitionBy.length) copyOptions.push(`PARTITION_BY (${partitionBy.map(quoteIdent).join(", ")})`);
    await session.run(
      `copy (select ${parquetSelectList(table.columns, table.kinds, partitionBy)} from t) to ${quoteString(to)} (${copyOptions.join(", ")})`,
    );
  } finally {
    await session.close();
  }
}

/**
 * The SELECT list that writes `columns` to Parquet: dates (DuckDB TIMESTAMPs, UTC instants) as TIMESTAMP
 * WITH TIME ZONE, which Parquet marks as adjusted to UTC; partition columns (`asIs`) as they are, so their
 * folder names stay `2026-11-20 00:00:00`.
 */
export function parquetSelectList(
  columns: readonly string[],
  kinds: Record<string, ColumnKind>,
  asIs: readonly string[] = [],
): string {
  return columns
    .map((c) =>
      kinds[c] === "date" && !asIs.includes(c)
        ? `timezone('UTC', ${quoteIdent(c)}) as ${quoteIdent(c)}`
        : quoteIdent(c),
    )
    .join(", ");
}

/** A fresh name beside a target (same directory, so the same file system: a rename moves it in place). */
export { besidePath };

/** A name in a dataset's directory that belongs to the dataset: a hive partition folder (`book=…`) or a Parquet file. */
export function isDatasetEntry(name: string): boolean {
  return !name.startsWith(".") && (name.includes("=") || name.endsWith(".parquet"));
}

/** Moves the complete new file at `written` over `out` (one rename: until then the previous file is untouched). */
export function replaceFile(written: string, out: string, who: string): void {
  try {
    renameSync(written, out);
  } catch (error) {
    throw new ColumnarError(
      `${who}: could not move the new file into ${out}: ${(error as Error).message}; the previous file is as it was`,
      "Parquet",
      error,
    );
  }
}

/**
 * Replaces the dataset in `dir` (its partition folders and Parquet files; anything else stays) by the
 * complete one written at `written`, by renames: the previous entries are set aside, the new ones moved
 * in, then the previous ones removed. On a failure, the previous entries are put back.
 */
export function replaceDataset(written: string, dir: string, who: string): void {
  mkdirSync(dir, { recursive: true });
  const aside = besidePath(dir, "previous");
  const moved: string[] = [];
  const placed: string[] = [];
  try {
    mkdirSync(aside);
    for (const name of readdirSync(dir).filter(isDatasetEntry)) {
      renameSync(path.join(dir, name), path.join(aside, name));
      moved.push(name);
    }
    for (const name of readdirSync(written)) {
      renameSync(path.join(written, name), path.join(dir, name));
      placed.push(name);
    }
  } catch (error) {
    const back = putBack(placed, dir, written) && putBack(moved, aside, dir);
    if (back) rmSync(aside, { recursive: true, force: true });
    const previous = back
      ? "the previous dataset is as it was"
      : `the previous dataset's files that could not be put back are in ${aside}`;
    throw new ColumnarError(
      `${who}: could not move the new dataset into ${dir}: ${(error as Error).message}; ${previous}`,
      "Parquet",
      error,
    );
  }
  rmSync(aside, { recursive: true, force: true });
}

/** Moves `names` from `from` back to `to`; false when one could not be moved (it stays in `from`). */
function putBack(names: readonly string[], from: string, to: string): boolean {
  let all = true;
  for (const name of names)
    try {
      renameSync(path.join(from, name), path.join(to, name));
    } catch {
      all = false;
    }
  return all;
}

/** A failed write as an error naming the target and DuckDB's reason (without the SQL), saying the previous data stays. */
export function writeFailed(error: unknown, out: string, who: string): unknown {
  if (!(error instanceof SqlError)) return error;
  const reason = error.cause instanceof Error ? error.cause.message.split("\n")[0] : error.message.split("\n")[0];
  return new ColumnarError(
    `${who}: could not write ${out}: ${reason}; nothing was replaced (what was there is as it was)`,
    "Parquet",
    error,
  );
}

/** What the files' `risk_portal_lab.meta` holds. */
export interface ParquetMeta {
  source: string;
  kinds: Record<string, ColumnKind>;
  categories: Record<string, string[]>;
  fields: Record<string, unknown>;
  /** Records (`TableWarning`); files written before warnings were records hold strings. */
  warnings: (TableWarning | string)[];
}

/** What a frame knows beyond its values, as the JSON written in a Parquet file's key-value metadata. */
export function parquetMetaJson(table: ColumnTable | TypedColumnTable): string {
  const meta: ParquetMeta = {
    source: table.meta.source,
    kinds: table.kinds,
    categories: table.meta.categories,
    fields: table.meta.fields,
    warnings: table.meta.warnings,
  };
  return JSON.stringify(meta);
}

/** The key-value metadata carrying the frame's facts and the responses its rows came from. */
export function parquetKeyValues(
  meta: ParquetMeta | string,
  provenance: readonly Provenance[],
): Record<string, string> {
  return {
    [PARQUET_META_KEY]: typeof meta === "string" ? meta : JSON.stringify(meta),
    [PARQUET_PROVENANCE_KEY]: JSON.stringify(provenance),
  };
}

/** DuckDB's `KV_METADATA {…}` copy option carrying {@link parquetKeyValues}. */
export function parquetKvOption(meta: ParquetMeta | string, provenance: readonly Provenance[]): string {
  const entries = Object.entries(parquetKeyValues(meta, provenance));
  return `KV_METADATA {${entries.map(([key, value]) => `${quoteString(key)}: ${quoteString(value)}`).join(", ")}}`;
}

/** Refuses to write over something unless asked (`who` names the caller in the error); a file target's directory must be a directory. */
export function checkParquetTarget(out: string, directory: boolean, overwrite: boolean, who: string): void {
  let stat;
  try {
    stat = statSync(out);
  } catch {
    return;
  }
  if (directory && !stat.isDirectory())
    throw new ColumnarError(`${who}: ${out} is a file; a partitioned dataset is a directory`, "Parquet");
  if (!directory && stat.isDirectory())
    throw new ColumnarError(`${who}: ${out} is a directory; without partitionBy the target is one file`, "Parquet");
  if (overwrite) return;
  if (!directory || readdirSync(out).length > 0)
    throw new ColumnarError(
      `${who}: ${out} exists; pass { overwrite: true } to replace it (nothing was written)`,
      "Parquet",
    );
}

/** Every `.parquet` file under `dir`, sorted. */
export function parquetFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".parquet")) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

/**
 * Reads a Parquet file or a dataset directory (hive partitions become columns) into a column table;
 * files written by {@link writeParquet} get their kinds, category levels and provenance back. The path
 * is taken as it is (`data[1]` is that directory); with `{ glob: true }` it is a glob
 * (`trades-2026-*.parquet`). `memoryLimit`, `tempDirectory`, `threads`: the size of the DuckDB session that
 * reads it (see {@link DuckDBSizing}). `typed: true`: a {@link TypedColumnTable}, its number and date
 * columns as `Float64Array`s (see {@link ResultOptions}).
 * @example
 * ```ts
 * const table = await frames.readParquetColumns("data/trades");
 * const typed = await frames.readParquetColumns("data/trades", { typed: true }); // typed.data.notional: a Float64Array
 * ```
 */
export async function readParquetColumns(
  source: string,
  options: ParquetPathOptions & DuckDBSizing & { typed: true },
): Promise<TypedColumnTable>;
/** A Parquet file or dataset as a column table: one JS value per cell. */
export async function readParquetColumns(
  source: string,
  options?: ParquetPathOptions & DuckDBSizing & { typed?: false },
): Promise<ColumnTable>;
/** A Parquet file or dataset as a column table, typed or not as `options.typed` says. */
export async function readParquetColumns(
  source: string,
  options?: ReadParquetColumnsOptions,
): Promise<ColumnTable | TypedColumnTable>;
export async function readParquetColumns(
  source: string,
  options: ReadParquetColumnsOptions = {},
): Promise<ColumnTable | TypedColumnTable> {
  const typed = typedOption(options, "frames.readParquetColumns");
  const from = parquetScan(source, options);
  const session = await SqlSession.open(sizingOf(options), "frames.readParquetColumns");
  try {
    const data = await session.queryColumns(`select * from ${from}`, { typed });
    const kv = await session.queryColumns(
      `select decode(key) as key, decode(value) as value from parquet_kv_metadata(${quoteString(parquetGlob(source, options))}) where decode(key) in (${quoteString(PARQUET_META_KEY)}, ${quoteString(PARQUET_PROVENANCE_KEY)})`,
    );
    const table = restore(data, kv, source);
    return typed ? typedColumns(table) : table;
  } finally {
    await session.close();
  }
}

/** The options of {@link readParquetColumns}: the path's, the session's size, and the result's (`typed`). */
export interface ReadParquetColumnsOptions extends ParquetPathOptions, DuckDBSizing, ResultOptions {}

/**
 * {@link readParquetColumns} as a danfo DataFrame (fresh 0..n-1 index).
 * @example
 * ```ts
 * await frames.writeParquet(await frames.fetchTransactionTableColumns(rp, { portfolio_name: "GLOBAL-MACRO" }), "data/trades", { partitionBy: ["currency"], overwrite: true });
 * const df = await frames.readParquet("data/trades"); // partitions come back as columns
 * ```
 */
export async function readParquet(source: string, options: ParquetPathOptions & DuckDBSizing = {}): Promise<DataFrame> {
  return toDataFrame(await readParquetColumns(source, options));
}

/**
 * The data with the kinds, levels, facts and provenance the files' metadata carries (first file's meta;
 * every file's provenance, once each). A typed column whose kind the metadata confirms is kept as it is.
 */
function restore(data: ColumnTable | TypedColumnTable, kv: ColumnTable, source: string): ColumnTable {
  const keys = kv.data.key as string[];
  const values = kv.data.value as string[];
  let meta: ParquetMeta | undefined;
  const provenance: Provenance[] = [];
  const seen = new Set<string>();
  keys.forEach((key, i) => {
    if (key === PARQUET_META_KEY && !meta) meta = JSON.parse(values[i]!) as ParquetMeta;
    if (key === PARQUET_PROVENANCE_KEY && !seen.has(values[i]!)) {
      seen.add(values[i]!);
      provenance.push(...(JSON.parse(values[i]!) as Provenance[]));
    }
  });
  const builder = new TableBuilder(
    data.rowCount,
    meta?.source ?? "Parquet",
    { ...(meta?.fields ?? {}), parquet: source },
    provenance,
  );
  // Hive partition columns come last from DuckDB: the frame's own column order first.
  const order = meta
    ? [
        ...Object.keys(meta.kinds).filter((c) => Object.hasOwn(data.data, c)),
        ...data.columns.filter((c) => !Object.hasOwn(meta!.kinds, c)),
      ]
    : data.columns;
  for (const c of order) {
    const kind = ownEntry(meta?.kinds, c);
    const values = data.data[c]!;
    if (values instanceof Float64Array && (kind === undefined || kind === data.kinds[c])) {
      builder.addFinished(c, {
        values: values as unknown as unknown[],
        kind: data.kinds[c]!,
        missing: data.meta.missing[c]!,
      });
      continue;
    }
    const hint =
      kind === "category"
        ? "category"
        : kind === "string"
          ? "string"
          : kind === "date"
            ? "date"
            : kind === "boolean"
              ? "boolean"
              : kind === "number"
                ? "number"
                : "auto";
    builder.add(c, plainColumn(data.kinds[c]!, values), {
      hint,
      owned: true,
      levels: ownEntry(meta?.categories, c),
      detectDates: false,
    });
  }
  const table = builder.build();
  table.meta.warnings = uniqueWarnings([...(meta?.warnings ?? []), ...data.meta.warnings, ...table.meta.warnings]);
  return table;
}
