/**
 * A transaction table straight into Parquet, never held whole in JS: the response's body is read as it
 * arrives (the pipeline's streaming call), written to a spool file beside the target, and scanned to
 * learn each column's kind over the whole table — the same kinds the in-memory reader gives, since a
 * column's kind depends on all its values. With the `duckdb` loader DuckDB reads the rows while they
 * arrive, typed as the first rows are, straight into the Parquet file (whose key-value metadata is set
 * once the body is in, see {@link setParquetKeyValues}) or into a table of the caller's session; the
 * spool is read again when the whole table's kinds say otherwise. With the `js`
 * loader a second pass over the spool builds each batch with those kinds and appends it to the Parquet
 * output. A million-row table streams in a few hundred MB.
 *
 * A `data_table` in a layout other than rows of objects (`{columns, rows}`, column-major) does not
 * stream: it is read whole, as in memory. With a cassette the body is held too (recording keeps it).
 */
import { closeSync, mkdirSync, openSync, rmSync, writeSync, ftruncateSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import path from "node:path";
import { isRecord } from "../api/operation";
import { getTransactionTable, type TransactionTableRequest } from "../api/position";
import type { RiskPortalClient } from "../client/client";
import { ResponseValidationError } from "../client/errors";
import type { BodySink, CallOptions } from "../client/pipeline";
import type { Provenance } from "../client/provenance";
import {
  columnRecord,
  finishColumn,
  formatWarning,
  mixedWarning,
  notADateWarning,
  TableBuilder,
  type ColumnKind,
  type ColumnTable,
  type TableWarning,
} from "../table/column-table";
import { ColumnarError } from "../columnar/errors";
import { readJsonRows, rowsSelectList, type PlannedColumn } from "../columnar/json-load";
import { JsonRowScanner, type ScannedBody } from "../columnar/json-rows";
import {
  checkParquetTarget,
  parquetKeyValues,
  parquetKvOption,
  parquetSelectList,
  replaceFile,
  writeFailed,
  type ParquetMeta,
} from "../columnar/parquet";
import { setParquetKeyValues } from "../columnar/parquet-footer";
import { duckdbConfig, sizingOf, type DuckDBSizing } from "../columnar/duckdb-options";
import { claimSpool, releaseSpool } from "../columnar/spool";
import { quoteIdent, quoteString, SqlSession } from "../columnar/sql";
import { parseIsoDate } from "../table/iso-date";
import {
  buildTransactionTable,
  notObjectsWarning,
  transactionTableColumns,
  type TransactionTableOptions,
} from "./table";
import { RowsSpoolSink, scanning, spoolBatches, type LiveRead, type LiveReader } from "../columnar/row-staging";

const SOURCE = "GetTransactionTable";
/** Rows parsed and converted at a time. */
export const STREAM_BATCH_ROWS = 20_000;

/** What `frames.fetchTransactionTableToParquet` wrote. */
export interface TransactionTableWritten {
  /** The Parquet file (read it with `frames.readParquet(path)`, DuckDB or Spark). */
  path: string;
  rows: number;
  /** The file written; empty when the table had no rows (nothing is written then). */
  files: string[];
  columns: string[];
  kinds: Record<string, ColumnKind>;
  /** Everything that was kept as received instead of converted, and why (`formatWarning` of the table's warnings). */
  warnings: string[];
  /** The response's fields that are not rows (`$type`, …). */
  fields: Record<string, unknown>;
  provenance: Provenance[];
  /** Bytes of the response body. */
  bytes: number;
}

export interface StreamOptions extends TransactionTableOptions, CallOptions {
  /** Rows per batch (default 20,000): what memory holds at a time. */
  batchRows?: number;
  /**
   * Who parses the rows. `duckdb` (default): DuckDB's own JSON reader, from a spool file of the rows, each
   * column given the kind the adapter would give it; rows the adapter would warn about (mixed kinds, a row
   * that is not an object, …) are read as `js` does. `js`: parsed and converted in JS, batch by batch.
   */
  loader?: "duckdb" | "js";
}

/** A table that has streamed into a staging area: its kinds over all rows, and Parquet parts in row order. */
export interface StagedTable {
  meta: ParquetMeta;
  columns: string[];
  rows: number;
  bytes: number;
  provenance: Provenance[];
  /** The staged Parquet parts, in row order (none for an empty table, nor when {@link scan} reads the rows). */
  parts: string[];
  /** The rows as an SQL source, when DuckDB reads them straight from the spool (valid until the work directory goes). */
  scan?: string;
  /** {@link scan} with its dates as TIMESTAMPTZ (the same instants, as Parquet keeps them). */
  zonedScan?: string;
  /** Whether the live reader (see {@link LiveReader}) read every row as they arrived: then what it made (a table, a file) is the result. */
  readLive?: boolean;
}

/** The SQL source of a staged table's rows: its spool read by DuckDB, or its Parquet parts. */
export function stagedScan(staged: StagedTable): string {
  return staged.scan ?? partsScan(staged.parts);
}

/**
 * Streams one `GetTransactionTable` answer into Parquet parts under `workDir` (created; the caller
 * removes it). Same request, retries, auth and errors as `rp.position.transactionTable`.
 */
export async function stageTransactionTable(
  rp: RiskPortalClient,
  request: TransactionTableRequest,
  workDir: string,
  options: StreamOptions = {},
  live?: LiveReader,
): Promise<StagedTable> {
  const { loader = "duckdb", ...rest } = options;
  if (loader !== "duckdb" && loader !== "js")
    throw new TypeError(`loader must be "duckdb" or "js"; got ${JSON.stringify(loader)}`);
  return loader === "duckdb"
    ? stageForDuckDB(rp, request, workDir, rest, live)
    : stageInBatches(rp, request, workDir, rest);
}

/**
 * The rows spooled for DuckDB's JSON reader (see {@link RowsSpoolSink}): the staged table is the spool's
 * `read_json`, each column typed as the adapter would type it. Rows the adapter would warn about, and
 * other layouts, are staged as Parquet parts from the spool, batch by batch, as {@link stageInBatches} does.
 */
async function stageForDuckDB(
  rp: RiskPortalClient,
  request: TransactionTableRequest,
  workDir: string,
  options: StreamOptions,
  live?: LiveReader,
): Promise<StagedTable> {
  const { dates, batchRows = STREAM_BATCH_ROWS, ...callOptions } = options;
  mkdirSync(workDir, { recursive: true });
  const sink = new RowsSpoolSink(path.join(workDir, "rows.json"), { dates, batchRows, live });
  try {
    const { provenance } = await rp.requestStream(getTransactionTable, request, sink, callOptions);
    const body = await sink.finish();
    const { profile } = sink;
    const columns = profile.plan();
    if (body.dataTable === undefined && profile.detour === undefined && profile.rows > 0) {
      const kinds = Object.fromEntries(columns.map((c) => [c.name, c.kind]));
      const read = (zoned: boolean): string =>
        `(select ${rowsSelectList(columns, zoned)} from ${readJsonRows(sink.file, columns, profile.maxRowBytes)})`;
      return {
        meta: { source: SOURCE, kinds, categories: columnRecord(), fields: body.fields, warnings: [] },
        columns: profile.names,
        rows: profile.rows,
        bytes: body.bytes,
        provenance: [provenance],
        parts: [],
        scan: read(false),
        zonedScan: read(true),
        readLive: await readWhole(sink.live, columns, profile.maxRowBytes),
      };
    }
    return await stageSpooled(sink, body, provenance, workDir, dates);
  } finally {
    await sink.close();
    // Its statement is over before the work directory (its pipe in it) goes, whatever happened.
    await sink.live?.done;
  }
}

/**
 * Whether the live reader read every row, as the spool would be read: its statement succeeded, it had
 * every byte and the body was this attempt's, and it was started with the columns and types all the
 * rows have (a kind that changed after the first rows, a larger row than it allowed: the spool is read).
 */
async function readWhole(live: LiveRead | undefined, columns: PlannedColumn[], maxRowBytes: number): Promise<boolean> {
  if (!live || live.abandoned || !(await live.done) || !live.pipe.complete) return false;
  const same = (a: PlannedColumn[], bytes: number): string => readJsonRows("", a, bytes) + rowsSelectList(a);
  return same(live.columns, 0) === same(columns, maxRowBytes);
}

/** Spooled rows DuckDB's reader is not given: staged as Parquet parts, each batch with the kinds of the whole table. */
async function stageSpooled(
  sink: RowsSpoolSink,
  body: ScannedBody,
  provenance: Provenance,
  workDir: string,
  dates: TransactionTableOptions["dates"],
): Promise<StagedTable> {
  const stager = new Stager(workDir);
  try {
    let meta: ParquetMeta;
    let columns: string[];
    let rows: number;
    if (body.dataTable !== undefined) {
      const whole = transactionTableColumns({ ...body.fields, data_table: body.dataTable }, { dates });
      meta = {
        source: SOURCE,
        kinds: whole.kinds,
        categories: whole.meta.categories,
        fields: body.fields,
        warnings: whole.meta.warnings,
      };
      [columns, rows] = [whole.columns, whole.rowCount];
      if (rows > 0) await stager.stage(whole);
    } else {
      const schema = new Schema(dates);
      for (const batch of sink.reread()) schema.observe(batch);
      for (const batch of sink.reread()) await stager.stage(schema.conform(batch));
      meta = {
        source: SOURCE,
        kinds: schema.kinds(),
        categories: columnRecord(),
        fields: body.fields,
        warnings: schema.warnings,
      };
      [columns, rows] = [[...schema.names], schema.rows];
    }
    await stager.settle();
    return { meta, columns, rows, bytes: body.bytes, provenance: [provenance], parts: [...stager.parts] };
  } finally {
    await stager.close();
  }
}

/** The body parsed in JS batch by batch as it arrives, each batch staged as a Parquet part (the `js` loader). */
async function stageInBatches(
  rp: RiskPortalClient,
  request: TransactionTableRequest,
  workDir: string,
  options: StreamOptions,
): Promise<StagedTable> {
  const { dates, batchRows = STREAM_BATCH_ROWS, ...callOptions } = options;
  mkdirSync(workDir, { recursive: true });
  const stager = new Stager(workDir);
  const sink = new SpoolSink(path.join(workDir, "body.json"), { dates, batchRows }, stager);
  try {
    const { provenance } = await rp.requestStream(getTransactionTable, request, sink, callOptions);
    const scanned = sink.scanned(provenance);
    if (scanned.whole) {
      if (scanned.whole.rowCount > 0) await stager.stage(scanned.whole);
    } else if (!sink.stagedAsRead) {
      // A batch's kinds differed from the first's: what was staged as it arrived is redone with the kinds of the whole table.
      await stager.discard();
      for (const batch of sink.reread()) await stager.stage(sink.schema.conform(batch));
    }
    await stager.settle();
    return {
      meta: scanned.meta,
      columns: scanned.columns,
      rows: scanned.rows,
      bytes: scanned.bytes,
      provenance: [provenance],
      parts: [...stager.parts],
    };
  } finally {
    sink.close();
    await stager.close();
  }
}

/**
 * Writes batches as Parquet parts under a work directory, in order, through one DuckDB session opened on
 * first use. A part is written (by DuckDB, off the main thread) while the next batch is read: one at a time.
 */
class Stager {
  readonly parts: string[] = [];
  #session?: Promise<SqlSession>;
  /** The part being written, if any. */
  #pending?: Promise<void>;

  constructor(readonly workDir: string) {}

  /** Starts writing `table` as the next part, once the part before it is written (throws what writing that one threw). */
  async stage(table: ColumnTable): Promise<void> {
    await this.settle();
    const pending = this.#write(table);
    // Observed by settle(), discard() or close(); until then its failure is not unhandled.
    pending.catch(() => undefined);
    this.#pending = pending;
  }

  /** Waits for the part being written; throws what writing it threw. */
  async settle(): Promise<void> {
    const pending = this.#pending;
    this.#pending = undefined;
    if (pending) await pending;
  }

  async #write(table: ColumnTable): Promise<void> {
    const session = await (this.#session ??= SqlSession.open({ threads: 1 }));
    const part = path.join(this.workDir, `part_${String(this.parts.length).padStart(6, "0")}.parquet`);
    await session.register("batch", table);
    await session.run(`copy batch to ${quoteString(part)} (FORMAT parquet, COMPRESSION snappy)`);
    await session.run("drop table batch");
    this.parts.push(part);
  }

  /** Forgets (and removes) the parts staged so far, once the one being written is done (whatever became of it). */
  async discard(): Promise<void> {
    await this.settle().catch(() => undefined);
    for (const part of this.parts) rmSync(part, { force: true });
    this.parts.length = 0;
  }

  async close(): Promise<void> {
    await this.settle().catch(() => undefined);
    const session = this.#session;
    this.#session = undefined;
    if (session) await (await session.catch(() => undefined))?.close();
  }
}

/**
 * Fetches a transaction table into one Parquet file at `target`, streaming (see the module's note): for
 * tables larger than memory; what was written is returned. Refuses to write over an existing file unless
 * `overwrite`; with it, the previous file stays until the new one is complete (written beside it, then
 * renamed over it), and stays on any failure. DuckDB's session is sized as {@link DuckDBSizing} says
 * (default: DuckDB's memory limit, all cores, what does not fit spilled beside the target).
 *
 * @example
 * ```ts
 * const file = await frames.fetchTransactionTableToParquet(rp, { portfolio_name: "GLOBAL-MACRO" }, "data/trades.parquet");
 * const trades = await frames.readParquet(file.path);
 * ```
 */
export async function fetchTransactionTableToParquet(
  rp: RiskPortalClient,
  request: TransactionTableRequest,
  target: string,
  options: StreamOptions & DuckDBSizing & { overwrite?: boolean } = {},
): Promise<TransactionTableWritten> {
  const who = "frames.fetchTransactionTableToParquet";
  if (typeof target !== "string" || target === "")
    throw new TypeError('target must be a file path, e.g. "data/trades.parquet"');
  const { overwrite = false, memoryLimit, tempDirectory, threads, ...rest } = options;
  const sizing = sizingOf({ memoryLimit, tempDirectory, threads });
  duckdbConfig(sizing, who, true); // a wrong size is said before anything is fetched
  const out = path.resolve(target);
  checkParquetTarget(out, false, overwrite, who);
  mkdirSync(path.dirname(out), { recursive: true });
  // Named after this process, removed on SIGINT/SIGTERM too; what dead processes left beside the target is swept.
  const workDir = claimSpool(out);
  // All cores unless told, as frames.writeParquet; opened while the body streams (a session takes a while to start).
  const opening = SqlSession.open(sizing, who);
  opening.catch(() => undefined); // a failure to open is thrown where the session is awaited
  // The final file is written beside the target, then moved over it: the previous file stays until the new one is whole.
  const final = path.join(workDir, path.basename(out));
  // DuckDB writes the file from the rows while they arrive (what it holds past its memory goes to the spool
  // folder), its key-value metadata a placeholder until the body's fields and provenance are known.
  const live: LiveReader = {
    afterRows: rest.batchRows ?? STREAM_BATCH_ROWS,
    start: async (pipe, columns) => {
      const session = await opening;
      if (tempDirectory === undefined)
        await session.run(`set temp_directory = ${quoteString(path.join(workDir, "duckdb"))}`);
      // A COPY from one scan keeps the rows in order.
      await session.run(
        `copy (select ${rowsSelectList(columns, true)} from ${readJsonRows(pipe, columns, 0)}) to ${quoteString(final)} (FORMAT parquet, COMPRESSION zstd, ${parquetKvOption("", [])})`,
      );
    },
  };
  try {
    const staged = await stageTransactionTable(rp, request, workDir, rest, live);
    const written = {
      path: out,
      rows: staged.rows,
      columns: staged.columns,
      kinds: staged.meta.kinds,
      fields: staged.meta.fields,
      provenance: staged.provenance,
      bytes: staged.bytes,
    };
    if (staged.rows === 0)
      return {
        ...written,
        files: [],
        warnings: [...staged.meta.warnings.map(formatWarning), "the table has no rows: no file was written"],
      };
    // Written live: its metadata is set. Otherwise a COPY from one scan keeps the rows in order (the parts' order).
    if (staged.readLive) setParquetKeyValues(final, parquetKeyValues(staged.meta, staged.provenance), who);
    else await copyStaged(await opening, staged, final, who, out);
    replaceFile(final, out, who);
    return { ...written, files: [out], warnings: staged.meta.warnings.map(formatWarning) };
  } finally {
    await (await opening.catch(() => undefined))?.close();
    releaseSpool(workDir);
  }
}

/** Writes a staged table (its spool or its parts) into the Parquet file `final`, with its metadata. */
async function copyStaged(session: SqlSession, staged: StagedTable, final: string, who: string, out: string) {
  // The rows read from the spool have their dates as TIMESTAMPTZ already.
  const zoned = staged.zonedScan !== undefined ? staged.columns : [];
  const select = parquetSelectList(staged.columns, staged.meta.kinds, zoned);
  const from = staged.zonedScan ?? stagedScan(staged);
  rmSync(final, { force: true }); // what a live read that was not used wrote (its statement is over)
  try {
    await session.run(
      `copy (select ${select} from ${from}) to ${quoteString(final)} (FORMAT parquet, COMPRESSION zstd, ${parquetKvOption(staged.meta, staged.provenance)})`,
    );
  } catch (error) {
    throw writeFailed(error, out, who);
  }
}

/** What `frames.fetchTransactionTableToDuckDB` loaded: what a Parquet write reports, in a session's table. */
export interface TransactionTableLoaded extends Omit<TransactionTableWritten, "path" | "files"> {
  /** The table's name in the session. */
  name: string;
}

/**
 * Fetches a transaction table into an SQL session as table `name` (replacing what had that name), the
 * rows read by DuckDB's own JSON reader from a spool file in the system's temporary directory (removed
 * at the end): no JS objects, no column table. The table's columns have the types
 * `db.register(name, await frames.fetchTransactionTableColumns(rp, request))` gives them (number DOUBLE,
 * text VARCHAR, dates TIMESTAMP in UTC, …), and the same rows. An empty table is refused, as `register` refuses it.
 *
 * ```ts
 * const db = await frames.duckdb();
 * await frames.fetchTransactionTableToDuckDB(rp, { portfolio_name: "GLOBAL-MACRO" }, db, "trades");
 * const exposure = await db.query("select counterparty, currency, sum(notional) from trades group by all");
 * ```
 * @example
 * ```ts
 * import { fetchTransactionTableToDuckDB } from "risk-portal-lab/frames";
 * const db = await frames.duckdb();
 * await fetchTransactionTableToDuckDB(rp, { portfolio_name: "GLOBAL-MACRO" }, db, "trades"); // rows parsed by DuckDB
 * const byCurrency = await db.queryColumns("select currency, count(*) as n from trades group by 1");
 * await db.close();
 * ```
 */
export async function fetchTransactionTableToDuckDB(
  rp: RiskPortalClient,
  request: TransactionTableRequest,
  db: SqlSession,
  name: string,
  options: StreamOptions = {},
): Promise<TransactionTableLoaded> {
  if (!(db instanceof SqlSession)) throw new TypeError("db must be an SQL session: const db = await frames.duckdb()");
  const workDir = claimSpool(path.join(tmpdir(), "risk-portal-lab-load"));
  // DuckDB reads the rows into a table of its own name while they arrive; it becomes `name` once all is well.
  const loading = `rows_loading_${randomBytes(6).toString("hex")}`;
  const live: LiveReader = {
    afterRows: options.batchRows ?? STREAM_BATCH_ROWS,
    start: (pipe, columns) =>
      db.run(
        `create table ${quoteIdent(loading)} as select ${rowsSelectList(columns)} from ${readJsonRows(pipe, columns, 0)}`,
      ),
  };
  try {
    const staged = await stageTransactionTable(rp, request, workDir, options, live);
    if (staged.columns.length === 0) throw new ColumnarError(`register("${name}", …): the table has no columns`, "SQL");
    const from = { source: SOURCE, rows: staged.rows, provenance: staged.provenance };
    if (staged.readLive) await db.adoptTable(name, loading, from);
    else await db.registerSelect(name, `select * from ${stagedScan(staged)}`, from);
    return {
      name,
      rows: staged.rows,
      columns: staged.columns,
      kinds: staged.meta.kinds,
      warnings: staged.meta.warnings.map(formatWarning),
      fields: staged.meta.fields,
      provenance: staged.provenance,
      bytes: staged.bytes,
    };
  } finally {
    // What the live reader made, when it was not adopted (a closed session has nothing left to drop).
    await db.run(`drop table if exists ${quoteIdent(loading)}`).catch(() => undefined);
    releaseSpool(workDir);
  }
}

/** `read_parquet([…])` over staged parts, in their order (DuckDB keeps a single scan's insertion order, whatever its threads). */
export function partsScan(parts: readonly string[]): string {
  return `read_parquet([${parts.map(quoteString).join(", ")}])`;
}

/** The SELECT list that puts constant label columns before a staged table's own columns. */
export function labelColumns(labels: Record<string, string | null>): string {
  return Object.entries(labels)
    .map(([name, value]) => `${value === null ? "null" : quoteString(value)}::VARCHAR as ${quoteIdent(name)}`)
    .join(", ");
}

/**
 * Receives the body: writes it to the spool and scans it (first pass), learning the columns and their
 * kinds over all rows. A new attempt (a retry after the body broke off) starts over.
 */
class SpoolSink implements BodySink {
  #fd: number | undefined;
  #written = 0;
  #scanner!: JsonRowScanner;
  schema!: Schema;
  /**
   * Whether no batch after the first changed the table's columns or kinds: then each was staged as it
   * arrived, built exactly as the second pass would build it, and the second pass is not needed.
   */
  stagedAsRead = true;

  constructor(
    readonly file: string,
    readonly options: { dates?: TransactionTableOptions["dates"]; batchRows: number },
    readonly stager: Stager,
  ) {}

  async reset(): Promise<void> {
    await this.stager.discard();
    if (this.#fd === undefined) this.#fd = openSync(this.file, "w+");
    else ftruncateSync(this.#fd, 0);
    this.#written = 0;
    this.#scanner = new JsonRowScanner(this.options.batchRows);
    this.schema = new Schema(this.options.dates);
    this.stagedAsRead = true;
  }

  async chunk(bytes: Uint8Array): Promise<void> {
    try {
      for (let at = 0; at < bytes.length;) at += writeSync(this.#fd!, bytes, at, bytes.length - at, this.#written + at);
      this.#written += bytes.length;
    } catch (error) {
      throw new ColumnarError(
        `GetTransactionTable: could not write the response to ${this.file}: ${(error as Error).message}`,
        "Parquet",
        error,
      );
    }
    for (const batch of scanning(() => this.#scanner.push(bytes))) {
      const table = this.schema.observe(batch);
      if (!this.stagedAsRead) continue;
      if (!this.schema.changed) await this.stager.stage(this.schema.conform(batch, table));
      else {
        this.stagedAsRead = false;
        await this.stager.discard();
      }
    }
  }

  /** After the body: its fields, and the table read whole when its layout does not stream. */
  scanned(provenance: Provenance): {
    meta: ParquetMeta;
    columns: string[];
    rows: number;
    bytes: number;
    whole?: ColumnTable;
  } {
    const body = scanning(() => this.#scanner.end());
    if (!body.hasDataTable)
      throw new ResponseValidationError(
        `${SOURCE}: the server's response does not fit the schema — expected an object with a data_table field (it has ${Object.keys(body.fields).join(", ") || "no fields"})`,
        { operation: SOURCE, body: body.fields },
        [],
      );
    if (body.dataTable !== undefined) {
      const whole = transactionTableColumns(
        { ...body.fields, data_table: body.dataTable },
        { dates: this.options.dates },
      );
      const meta: ParquetMeta = {
        source: SOURCE,
        kinds: whole.kinds,
        categories: whole.meta.categories,
        fields: body.fields,
        warnings: whole.meta.warnings,
      };
      whole.meta.provenance = [provenance];
      return { meta, columns: whole.columns, rows: whole.rowCount, bytes: body.bytes, whole };
    }
    const meta: ParquetMeta = {
      source: SOURCE,
      kinds: this.schema.kinds(),
      categories: columnRecord(),
      fields: body.fields,
      warnings: this.schema.warnings,
    };
    return { meta, columns: [...this.schema.names], rows: this.schema.rows, bytes: body.bytes };
  }

  /** Second pass: the spooled rows again, batch by batch. */
  *reread(): Generator<unknown[]> {
    yield* spoolBatches(this.#fd!, new JsonRowScanner(this.options.batchRows));
  }

  close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }
}

/**
 * The columns of a table seen batch by batch, in the order first seen, each with its kind over every row
 * and what the in-memory reader would say of it: the kinds and warnings are those of the whole table
 * read at once (see {@link ColumnTally}), whatever batch a column or a kind first appears in.
 */
class Schema {
  readonly names: string[] = [];
  readonly #tallies = new Map<string, ColumnTally>();
  /** The kinds as they were before the last batch (what its predecessors were built with). */
  #kinds = new Map<string, ColumnKind>();
  /** Rows that are not objects: how many, the first one's number and value. */
  #notObjects = { count: 0, row: -1, first: undefined as unknown };
  rows = 0;
  /**
   * Whether the last batch changed what the batches before it were built with (a column first seen, a
   * kind that is no longer what it was: numbers to mixed, empty to numbers, dates to text …): their
   * parts no longer fit, and even a batch built with the kinds now known must not be staged as it is.
   */
  changed = false;

  constructor(readonly dates: TransactionTableOptions["dates"]) {}

  kinds(): Record<string, ColumnKind> {
    return Object.fromEntries(this.names.map((n) => [n, this.#tallies.get(n)!.kind()]));
  }

  /** What the in-memory reader says of the whole table: rows that are not objects, then each column, in order. */
  get warnings(): TableWarning[] {
    const { count, row, first } = this.#notObjects;
    const warnings = count > 0 ? [notObjectsWarning(count, row, first)] : [];
    for (const name of this.names) {
      const warning = this.#tallies.get(name)!.warning(name);
      if (warning) warnings.push(warning);
    }
    return warnings;
  }

  /** Learns the kinds of one batch; returns the batch's own table (its rows numbered from where the batch starts). */
  observe(rows: unknown[]): ColumnTable {
    const offset = this.rows;
    const table = buildTransactionTable(rows, { dates: this.dates }, false, offset);
    const n = rows.length;
    for (let i = 0; i < n; i++) {
      const row = rows[i];
      if (row !== null && typeof row === "object" && !Array.isArray(row)) continue;
      if (this.#notObjects.count++ === 0) this.#notObjects = { count: 1, row: offset + i, first: row };
    }
    const detectDates = this.dates !== "keep";
    for (const name of table.columns) {
      let tally = this.#tallies.get(name);
      if (!tally) {
        this.names.push(name);
        this.#tallies.set(name, (tally = new ColumnTally()));
      }
      tally.add(table, name, rows, offset, detectDates);
    }
    const kinds = new Map(this.names.map((name) => [name, this.#tallies.get(name)!.kind()]));
    this.changed = offset > 0 && [...kinds].some(([name, kind]) => this.#kinds.get(name) !== kind);
    this.#kinds = kinds;
    this.rows += table.rowCount;
    return table;
  }

  /** One batch built with the kinds of the whole table (`table`: the batch's own, when already built). */
  conform(rows: unknown[], table = transactionTableColumns(rows, { dates: this.dates })): ColumnTable {
    const n = table.rowCount;
    const builder = new TableBuilder(n, SOURCE, {}, []);
    for (const name of this.names) {
      const want = this.#tallies.get(name)!.kind();
      const have = table.kinds[name];
      if (have === want) {
        builder.addFinished(name, { values: table.data[name]!, kind: want, missing: table.meta.missing[name] ?? 0 });
      } else if (have === undefined || have === "empty") {
        builder.addFinished(name, {
          values: new Array(n).fill(want === "number" ? NaN : null),
          kind: want,
          missing: n,
        });
      } else {
        const raw = rows.map((r) => (isRecord(r) ? r[name] : undefined));
        if (want === "string") {
          builder.addFinished(name, finishColumn(name, raw, { hint: "string", owned: true, detectDates: false }));
        } else {
          let missing = 0;
          for (let i = 0; i < n; i++)
            if (raw[i] === undefined || raw[i] === null) {
              raw[i] = null;
              missing++;
            }
          builder.addFinished(name, { values: raw, kind: "mixed", missing });
        }
      }
    }
    return builder.build();
  }
}

/**
 * One column's values over every batch so far, counted as the in-memory reader counts a whole column
 * (see `finishColumn`): its kind, and its warning with the rows and values it names, are the whole
 * column's. Counted from each batch's own finished column (a loop over the values only for a batch that
 * is mixed, or while a column's text has been dates so far).
 */
class ColumnTally {
  present = 0;
  numbers = 0;
  strings = 0;
  booleans = 0;
  others = 0;
  firstNumber = -1;
  firstString = -1;
  firstOther = -1;
  /** The values as received at the rows a warning may quote (the first of each kind, the first not a date). */
  readonly #at: Record<number, unknown> = {};
  /** Whether the text so far is all ISO dates, its first value one (undefined: no text yet). */
  #dates: boolean | undefined;
  /** The first text that is not a date, when the column's first text is one (-1: none). */
  #notADate = -1;

  /** The column's kind over the rows counted so far, as the in-memory reader would give it. */
  kind(): ColumnKind {
    if (this.present === 0) return "empty";
    if (this.numbers === this.present) return "number";
    if (this.booleans === this.present) return "boolean";
    if (this.strings === this.present) return this.#dates ? "date" : "string";
    return "mixed";
  }

  /** What the in-memory reader would say of the column. */
  warning(name: string): TableWarning | undefined {
    const kind = this.kind();
    if (kind === "string" && this.#notADate >= 0)
      return notADateWarning(name, this.#notADate, this.#at[this.#notADate], "auto");
    if (kind !== "mixed") return undefined;
    const { numbers, strings, booleans, others, firstString, firstNumber, firstOther } = this;
    const counts = { numbers, strings, booleans, dates: 0, others };
    return mixedWarning(name, "auto", counts, { firstString, firstNumber, firstOther }, this.#at, 0);
  }

  /** Counts column `name` of a batch's own `table` (built from `rows`, the first of them row `offset` of the whole). */
  add(table: ColumnTable, name: string, rows: unknown[], offset: number, detectDates: boolean): void {
    const kind = table.kinds[name]!;
    const values = table.data[name]!;
    const present = table.rowCount - (table.meta.missing[name] ?? 0);
    const raw = (i: number): unknown => {
      const row = rows[i];
      return isRecord(row) ? row[name] : undefined;
    };
    this.present += present;
    if (present === 0) return;
    if (kind === "number") {
      this.numbers += present;
      if (this.firstNumber < 0) this.firstNumber = this.#note(offset + firstPresent(values), values, offset);
    } else if (kind === "boolean") this.booleans += present;
    else if (kind === "string" || kind === "date") this.#addText(kind, values, raw, present, offset, detectDates);
    else this.#addMixed(values, offset);
  }

  /** A batch's text column (`date`: all its text is dates, read as `Date`s). */
  #addText(
    kind: ColumnKind,
    values: unknown[],
    raw: (i: number) => unknown,
    present: number,
    offset: number,
    detectDates: boolean,
  ): void {
    this.strings += present;
    const first = firstPresent(values);
    if (this.firstString < 0) {
      this.firstString = offset + first;
      this.#at[this.firstString] = raw(first);
    }
    if (this.#dates === undefined) this.#dates = kind === "date" || (detectDates && isDateText(raw(first)));
    if (kind === "date" || !this.#dates) return;
    // The text so far was all dates: the first value of this batch that is not one is the column's.
    const n = values.length;
    for (let i = first; i < n; i++) {
      const v = values[i];
      if (typeof v === "string" && Number.isNaN(parseIsoDate(v))) {
        this.#dates = false;
        this.#notADate = offset + i;
        this.#at[this.#notADate] = v;
        return;
      }
    }
  }

  /** A batch's column kept as received: each value counted by its kind. */
  #addMixed(values: unknown[], offset: number): void {
    const n = values.length;
    for (let i = 0; i < n; i++) {
      const v = values[i];
      const t = typeof v;
      if (v === null || v === undefined) continue;
      if (t === "number") {
        this.numbers++;
        if (this.firstNumber < 0) this.firstNumber = this.#note(offset + i, values, offset);
      } else if (t === "string") {
        this.strings++;
        // Text in a column that is mixed: whether it reads as dates no longer matters.
        this.#dates = false;
        if (this.firstString < 0) this.firstString = this.#note(offset + i, values, offset);
      } else if (t === "boolean") this.booleans++;
      else {
        this.others++;
        if (this.firstOther < 0) this.firstOther = this.#note(offset + i, values, offset);
      }
    }
  }

  /** Keeps the value at row `row` of the whole (`values` starting at row `offset`); returns `row`. */
  #note(row: number, values: unknown[], offset: number): number {
    this.#at[row] = values[row - offset];
    return row;
  }
}

/** The index of the first value that is not missing (null, undefined or NaN); -1 when none is. */
function firstPresent(values: unknown[]): number {
  const n = values.length;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v !== null && v !== undefined && v === v) return i;
  }
  return -1;
}

/** Whether a value is text that reads as an ISO 8601 date. */
function isDateText(value: unknown): boolean {
  return typeof value === "string" && !Number.isNaN(parseIsoDate(value));
}
