/**
 * SQL over frames, embedded: DuckDB (through `@duckdb/node-api`, whose prebuilt binaries come from the
 * npm registry), loaded on first use. Register column tables, DataFrames, Arrow tables or Parquet
 * datasets under names, query them, get frames back (fresh 0..n-1 index) carrying the SQL and where
 * their sources came from.
 *
 * Loading a table: one DuckDB table per name, created with a type per column kind (`number` → DOUBLE,
 * missing as NULL; `string` → VARCHAR; `category` → ENUM of its levels, in order; `boolean` → BOOLEAN;
 * `date` → TIMESTAMP, the UTC instant; `mixed` → VARCHAR of each value as text; `empty` → VARCHAR, all
 * NULL) and filled 2,048 rows at a time through DuckDB's appender. Results are read from DuckDB's vectors
 * (`readResultColumns`) and come back by type: integers (BIGINT counts) as numbers while they
 * fit a double exactly, DECIMAL as numbers, DATE and TIMESTAMP as `Date`s, ENUM as categories with their
 * levels, lists and structs as received (a `mixed` column). The session's time zone is UTC, whatever the
 * machine's.
 */
import type { DataFrame } from "../../vendor/danfo";
import type { Provenance } from "../client/provenance";
import { existsSync, statSync } from "node:fs";
import { columnTableOf, exactNumbers, fromArrow, type TableLike } from "./arrow";
import type { ArrowTable } from "./arrow-table";
import { loadArrow } from "./load-arrow";
import {
  isTypedColumnTable,
  levelsOf,
  ownEntry,
  TableBuilder,
  typedColumns,
  type ColumnHint,
  type ColumnTable,
  type FinishedColumn,
  type TableWarning,
  type TypedColumn,
  type TypedColumnTable,
} from "../table/column-table";
import { toDataFrame } from "./frames";
import { ColumnarError, SqlError } from "./errors";
import { duckdbConfig, openFailed, type DuckDBOptions } from "./duckdb-options";
import { readResultColumns } from "./result-vectors";
import type { FinalKind, ResultColumns } from "./result-columns";

type DuckDB = typeof import("@duckdb/node-api");
type Connection = import("@duckdb/node-api").DuckDBConnection;
type Instance = import("@duckdb/node-api").DuckDBInstance;
type DuckType = import("@duckdb/node-api").DuckDBType;

let loaded: DuckDB | undefined;

/**
 * `@duckdb/node-api`, loaded on first call and cached. Not exported: its type is DuckDB's whole module,
 * which a kernel that type-checks each cell (tslab) would load with the package (160 declaration files).
 */
function loadDuckDB(): DuckDB {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    loaded ??= require("@duckdb/node-api") as DuckDB;
  } catch (error) {
    throw new Error(
      `SQL over frames needs DuckDB: npm install @duckdb/node-api (${(error as Error).message.split("\n")[0]})`,
    );
  }
  return loaded;
}

/** What can be registered under a name: a column table (typed or not), a danfo DataFrame or an Arrow table. */
export type SqlSource = TableLike | ArrowTable;

/** How a query's rows come back as a column table. */
export interface ResultOptions {
  /**
   * `number` and `date` columns as `Float64Array`s, a date as its epoch milliseconds, NaN missing (a
   * {@link TypedColumnTable}): read from DuckDB's vectors without a JS value per cell, several times
   * faster than `Date`s for large results. Default false: one JS value per cell (a {@link ColumnTable}).
   */
  typed?: boolean;
}

/** The `typed` option, checked (`who`: the function called). */
export function typedOption(options: ResultOptions | undefined, who: string): boolean {
  const typed = options?.typed;
  if (typed === undefined || typeof typed === "boolean") return typed ?? false;
  throw new ColumnarError(`${who}: typed must be true or false; got ${JSON.stringify(typed)}`, "SQL");
}

/** One registered source, as a query's result describes it. */
export interface SqlSourceInfo {
  name: string;
  /** `RateAsset`, `GetTransactionTable`, `Parquet`, …: the source's own `meta.source`. */
  source: string;
  rows: number;
  /** For a Parquet dataset: the path or glob read. */
  path?: string;
}

/** Rows appended per DuckDB data chunk (DuckDB's vector size). */
const CHUNK = 2048;

/** A name a source can be registered under: an SQL identifier, so it needs no quoting in a query. */
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `"name"`, with any `"` doubled. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** `'text'`, with any `'` doubled. */
export function quoteString(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/**
 * A DuckDB database in memory, for many queries over the same data:
 *
 * ```ts
 * const db = await frames.duckdb();
 * await db.register("trades", await frames.fetchTransactionTableColumns(rp, { … }));
 * const exposure = await db.query("select counterparty, currency, sum(notional) as notional from trades group by all order by 3 desc");
 * await db.close();
 * ```
 */
export class SqlSession {
  readonly #instance: Instance;
  readonly #connection: Connection;
  readonly #sources = new Map<string, { info: SqlSourceInfo; provenance: Provenance[] }>();
  #closed = false;
  /** The end of the last operation called (see `#serial`). */
  #queue: Promise<unknown> = Promise.resolve();

  private constructor(instance: Instance, connection: Connection) {
    this.#instance = instance;
    this.#connection = connection;
  }

  /**
   * Opens a session: in memory unless `options.path` names a database file (see {@link DuckDBOptions}).
   * @example
   * ```ts
   * import { SqlSession } from "risk-portal-lab/frames";
   * const db = await SqlSession.open({ memoryLimit: "256MB" }); // what frames.duckdb(options) does
   * await db.close();
   * ```
   */
  static async open(options: DuckDBOptions = {}, who = "frames.duckdb"): Promise<SqlSession> {
    const { DuckDBInstance } = loadDuckDB();
    const { database, settings } = duckdbConfig(options, who);
    let instance: Instance;
    try {
      instance = await DuckDBInstance.create(database, settings);
    } catch (error) {
      throw openFailed(error, database, who);
    }
    const connection = await instance.connect();
    // Dates are UTC instants: TIMESTAMP WITH TIME ZONE values (Parquet files' dates) are truncated,
    // formatted and split into parts in UTC, not in the machine's zone.
    await connection.run("set TimeZone = 'UTC'");
    return new SqlSession(instance, connection);
  }

  /** The names registered so far. */
  get names(): string[] {
    return [...this.#sources.keys()];
  }

  /**
   * Loads `source` into the database as table `name` (replacing what had that name). Returns the
   * session, so registrations chain.
   * @example
   * ```ts
   * const db = await frames.duckdb();
   * await db.register("trades", await frames.fetchTransactionTableColumns(rp, { portfolio_name: "GLOBAL-MACRO" }));
   * await db.close();
   * ```
   */
  register(name: string, source: SqlSource): Promise<this> {
    return this.#serial(() => this.#register(name, source));
  }

  async #register(name: string, source: SqlSource): Promise<this> {
    this.#open();
    checkName(name);
    const table = isArrowTable(source)
      ? fromArrow(source)
      : isTypedColumnTable(source)
        ? source
        : columnTableOf(source, `register("${name}", …)`);
    await this.#drop(name);
    await loadTable(this.#connection, name, table);
    this.#sources.set(name, {
      info: { name, source: table.meta.source, rows: table.rowCount },
      provenance: [...table.meta.provenance],
    });
    return this;
  }

  /**
   * Loads the rows of an SQL `select` as table `name` (replacing what had that name), described as `rows`
   * rows from `source` with `provenance`: for loaders that hand DuckDB the data in its own terms (a spool
   * of JSON rows read by `read_json`). Returns the session.
   * @example
   * ```ts
   * const db = await frames.duckdb();
   * await db.registerSelect("days", "select * from range(3) t(day)", { source: "range(3)", rows: 3, provenance: [] });
   * await db.close();
   * ```
   */
  registerSelect(
    name: string,
    select: string,
    from: { source: string; rows: number; provenance: Provenance[] },
  ): Promise<this> {
    return this.#serial(() => this.#registerSelect(name, select, from));
  }

  async #registerSelect(
    name: string,
    select: string,
    from: { source: string; rows: number; provenance: Provenance[] },
  ): Promise<this> {
    this.#open();
    checkName(name);
    await this.#drop(name);
    await this.#run(`create table ${quoteIdent(name)} as ${select}`);
    this.#sources.set(name, {
      info: { name, source: from.source, rows: from.rows },
      provenance: [...from.provenance],
    });
    return this;
  }

  /**
   * Makes the session's table `table` (made by a statement of the caller's) the table `name`: renamed,
   * replacing what had that name, and listed with its source as {@link registerSelect} lists its tables.
   * @example
   * ```ts
   * const db = await frames.duckdb();
   * await db.run("create table staged as select 1 as x");
   * await db.adoptTable("ones", "staged", { source: "staged", rows: 1, provenance: [] });
   * await db.close();
   * ```
   */
  adoptTable(
    name: string,
    table: string,
    from: { source: string; rows: number; provenance: Provenance[] },
  ): Promise<this> {
    return this.#serial(async () => {
      this.#open();
      checkName(name);
      await this.#drop(name);
      await this.#run(`alter table ${quoteIdent(table)} rename to ${quoteIdent(name)}`);
      this.#sources.set(name, {
        info: { name, source: from.source, rows: from.rows },
        provenance: [...from.provenance],
      });
      return this;
    });
  }

  /**
   * Makes the Parquet file or directory (read with its hive partitions: `currency=USD/…`) at `path`
   * queryable as `name`, without loading it into memory (a view over `read_parquet`). The path is taken
   * as it is; with `{ glob: true }` it is a glob.
   * @example
   * ```ts
   * await frames.writeParquet(await frames.fetchTransactionTableColumns(rp, { portfolio_name: "GLOBAL-MACRO" }), "data/trades", { partitionBy: ["currency"], overwrite: true });
   * const db = await frames.duckdb();
   * await db.registerParquet("trades", "data/trades"); // queried where it lies, not loaded
   * await db.close();
   * ```
   */
  registerParquet(name: string, path: string, options: ParquetPathOptions = {}): Promise<this> {
    return this.#serial(() => this.#registerParquet(name, path, options));
  }

  async #registerParquet(name: string, path: string, options: ParquetPathOptions): Promise<this> {
    this.#open();
    checkName(name);
    const from = parquetScan(path, options);
    await this.#drop(name);
    await this.#connection.run(`create view ${quoteIdent(name)} as select * from ${from}`);
    const rows = await this.#connection.runAndReadAll(`select count(*) from ${quoteIdent(name)}`);
    this.#sources.set(name, {
      info: { name, source: "Parquet", rows: Number(rows.getColumnsJS()[0]?.[0] ?? 0), path },
      provenance: [],
    });
    return this;
  }

  /**
   * The result of `sql` as a danfo DataFrame (fresh 0..n-1 index), with the SQL and its sources in its info.
   * @example
   * ```ts
   * const db = await frames.duckdb();
   * await db.register("trades", await frames.fetchTransactionTableColumns(rp, { portfolio_name: "GLOBAL-MACRO" }));
   * const df = await db.query("select currency, count(*) as n from trades group by 1 order by 2 desc"); // a DataFrame
   * await db.close();
   * ```
   */
  async query(sql: string): Promise<DataFrame> {
    return toDataFrame(await this.queryColumns(sql));
  }

  /**
   * The result of `sql` as a column table (see {@link query}); with `{ typed: true }` as a
   * {@link TypedColumnTable}: `number` and `date` columns as `Float64Array`s (a date as its epoch
   * milliseconds, NaN missing), several times faster for large results (see {@link ResultOptions}).
   * @example
   * ```ts
   * const db = await frames.duckdb();
   * await db.register("trades", await frames.fetchTransactionTableColumns(rp, { portfolio_name: "GLOBAL-MACRO" }));
   * const table = await db.queryColumns("select counterparty, sum(notional) as notional from trades group by 1");
   * const big = await db.queryColumns("select * from trades where notional > 1e6", { typed: true });
   * big.data.notional; // a Float64Array; big.data.trade_date: epoch ms, kinds.trade_date is "date"
   * await db.close();
   * ```
   */
  queryColumns(sql: string, options: { typed: true }): Promise<TypedColumnTable>;
  /** The result of `sql` as a column table: one JS value per cell. */
  queryColumns(sql: string, options?: { typed?: false }): Promise<ColumnTable>;
  /** The result of `sql` as a column table, typed or not as `options.typed` says. */
  queryColumns(sql: string, options?: ResultOptions): Promise<ColumnTable | TypedColumnTable>;
  queryColumns(sql: string, options?: ResultOptions): Promise<ColumnTable | TypedColumnTable> {
    return this.#serial(() => this.#queryColumns(sql, typedOption(options, "queryColumns")));
  }

  async #queryColumns(sql: string, typed: boolean): Promise<ColumnTable | TypedColumnTable> {
    this.#open();
    if (typeof sql !== "string" || sql.trim() === "") throw new TypeError("query: sql must be a non-empty SQL text");
    const read = (await this.#streamed(sql, typed)) ?? (await this.#materialized(sql, typed));
    const used = [...this.#sources.values()].filter((s) => new RegExp(`\\b${s.info.name}\\b`, "i").test(sql));
    const table = resultTable(
      read,
      sql,
      used.map((s) => s.info),
      used.flatMap((s) => s.provenance),
    );
    return typed ? typedColumns(table) : table;
  }

  /** The result of `sql` read once DuckDB has it all (its error, as an {@link SqlError}, when it fails). */
  async #materialized(sql: string, typed: boolean): Promise<ResultColumns> {
    let result: Awaited<ReturnType<Connection["run"]>>;
    try {
      result = await this.#connection.run(sql);
    } catch (error) {
      throw new SqlError(sql, error, this.names);
    }
    return readResultColumns(loadDuckDB(), bindings(), result, typed);
  }

  /**
   * The result of `sql` read a chunk at a time as DuckDB makes it, so that DuckDB's copy of the rows is
   * not held beside ours: for one `select`, in a transaction of its own. A streamed query that fails
   * after its first rows just ends (DuckDB's node API does not say why): the transaction, aborted by the
   * failure, tells. Undefined when `sql` is not one `select`, when a transaction is already open, or when
   * the query failed: the caller runs it materialized, for its rows or its error.
   */
  async #streamed(sql: string, typed: boolean): Promise<ResultColumns | undefined> {
    const D = loadDuckDB();
    const connection = this.#connection;
    let prepared: Awaited<ReturnType<Awaited<ReturnType<Connection["extractStatements"]>>["prepare"]>>;
    try {
      const statements = await connection.extractStatements(sql);
      if (statements.count !== 1) return undefined;
      prepared = await statements.prepare(0);
    } catch {
      return undefined;
    }
    // A failed `begin` would abort the user's own transaction: look first.
    if (prepared.statementType !== D.StatementType.SELECT || (await this.#inTransaction())) return undefined;
    await connection.run("begin transaction");
    try {
      const read = await readResultColumns(D, bindings(), await prepared.stream(), typed);
      await connection.run("select 1"); // fails when the transaction was aborted by the query failing
      await connection.run("commit");
      return read;
    } catch {
      await connection.run("rollback").catch(() => undefined);
      return undefined;
    }
  }

  /**
   * Runs statements that return no table (`create view …`, `copy … to …`).
   * @example
   * ```ts
   * const db = await frames.duckdb();
   * await db.run("create table fx as select 'EUR' as currency, 1.08 as usd");
   * await db.close();
   * ```
   */
  run(sql: string): Promise<void> {
    return this.#serial(() => this.#run(sql));
  }

  async #run(sql: string): Promise<void> {
    this.#open();
    try {
      await this.#connection.run(sql);
    } catch (error) {
      throw new SqlError(sql, error, this.names);
    }
  }

  /**
   * Closes the database (its memory is freed); the session cannot be used afterwards.
   * @example
   * ```ts
   * const db = await frames.duckdb();
   * await db.close(); // a file-backed session keeps its tables for the next one
   * ```
   */
  close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      this.#connection.closeSync();
      this.#instance.closeSync();
    }
    return Promise.resolve();
  }

  /**
   * Runs the session's operations one at a time, in the order called: a streamed result ends, without
   * an error, when another statement runs on its connection (and a `begin` would meet the stream's own).
   */
  #serial<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.#queue.then(operation);
    this.#queue = result.catch(() => undefined);
    return result;
  }

  /** Whether a transaction (the user's) is open: two statements then share its id; each has its own otherwise. */
  async #inTransaction(): Promise<boolean> {
    const id = async () => (await this.#connection.runAndReadAll("select txid_current()")).getColumnsJS()[0]?.[0];
    return (await id()) === (await id());
  }

  async #drop(name: string): Promise<void> {
    await this.#connection.run(`drop view if exists ${quoteIdent(name)}`).catch(() => undefined);
    await this.#connection.run(`drop table if exists ${quoteIdent(name)}`).catch(() => undefined);
    this.#sources.delete(name);
  }

  #open(): void {
    if (this.#closed) throw new ColumnarError("this SQL session is closed: open another with frames.duckdb()", "SQL");
  }
}

/**
 * Opens an SQL session (see {@link SqlSession}): in memory by default, or on a DuckDB database file whose
 * tables stay for the next session, with a memory limit past which DuckDB spills to disk:
 *
 * @example
 * ```ts
 * const db = await frames.duckdb({ path: "trades.duckdb", memoryLimit: "4GB", tempDirectory: "/scratch/duckdb" });
 * ```
 */
export function duckdb(options: DuckDBOptions = {}): Promise<SqlSession> {
  return SqlSession.open(options, "frames.duckdb");
}

/**
 * One query over the given sources, registered under their keys for this query only:
 *
 * @example
 * ```ts
 * const top = await frames.query("select counterparty, sum(notional) as notional from trades group by 1 order by 2 desc limit 10", { trades });
 * ```
 */
export async function query(
  sql: string,
  sources: Record<string, SqlSource> = {},
  options: DuckDBOptions = {},
): Promise<DataFrame> {
  return toDataFrame(await queryColumns(sql, sources, options, "frames.query"));
}

/** The options of `frames.queryColumns`: the session's (see {@link DuckDBOptions}) and the result's (see {@link ResultOptions}). */
export interface QueryColumnsOptions extends DuckDBOptions, ResultOptions {}

/**
 * {@link query}, as a column table (no danfo). `options`: the session's (a database file, its size; see
 * {@link DuckDBOptions}), and `typed: true` for a {@link TypedColumnTable} (number and date columns as
 * `Float64Array`s: several times faster for large results; see {@link ResultOptions}).
 * @example
 * ```ts
 * const trades = await frames.fetchTransactionTableColumns(rp, { portfolio_name: "GLOBAL-MACRO" });
 * const byCurrency = await frames.queryColumns("select currency, sum(notional) as notional from trades group by 1", { trades });
 * const large = await frames.queryColumns("select * from trades where notional > 1e6", { trades }, { typed: true });
 * large.data.notional; // a Float64Array
 * ```
 */
export async function queryColumns(
  sql: string,
  sources: Record<string, SqlSource>,
  options: DuckDBOptions & { typed: true },
): Promise<TypedColumnTable>;
/** {@link query}, as a column table: one JS value per cell. */
export async function queryColumns(
  sql: string,
  sources?: Record<string, SqlSource>,
  options?: DuckDBOptions & { typed?: false },
  who?: string,
): Promise<ColumnTable>;
/** {@link query}, as a column table, typed or not as `options.typed` says. */
export async function queryColumns(
  sql: string,
  sources?: Record<string, SqlSource>,
  options?: QueryColumnsOptions,
  who?: string,
): Promise<ColumnTable | TypedColumnTable>;
export async function queryColumns(
  sql: string,
  sources: Record<string, SqlSource> = {},
  options: QueryColumnsOptions = {},
  who = "frames.queryColumns",
): Promise<ColumnTable | TypedColumnTable> {
  const typed = typedOption(options, who);
  let sessionOptions: DuckDBOptions = options;
  if (typeof options === "object" && options !== null && Object.hasOwn(options, "typed")) {
    const { typed: _typed, ...rest } = options;
    sessionOptions = rest;
  }
  const session = await SqlSession.open(sessionOptions, who);
  try {
    for (const [name, source] of Object.entries(sources)) await session.register(name, source);
    return await session.queryColumns(sql, { typed });
  } finally {
    await session.close();
  }
}

function checkName(name: string): void {
  if (typeof name !== "string" || !NAME.test(name))
    throw new ColumnarError(
      `register: name must be an SQL identifier (letters, digits, _; not starting with a digit); got ${JSON.stringify(name)}`,
      "SQL",
    );
}

function isArrowTable(value: unknown): value is ArrowTable {
  if (typeof value !== "object" || value === null || !("schema" in value) || !("batches" in value)) return false;
  return value instanceof loadArrow().Table;
}

/** How a Parquet path is read: as it is (the default), or as a glob. */
export interface ParquetPathOptions {
  /** The path is a glob (`*`, `?`, `[…]`, `**`): every Parquet file it matches. Default false: the path as it is, whatever it contains. */
  glob?: boolean;
}

/**
 * The glob DuckDB reads for a Parquet file or a directory (all its `.parquet` files): the path as it is,
 * its `*`, `?` and `[` escaped (`data[1]` is that directory, not `data1`); with `{ glob: true }`, the glob given.
 */
export function parquetGlob(path: string, options: ParquetPathOptions = {}): string {
  if (typeof path !== "string" || path === "") throw new TypeError("a Parquet path must be a non-empty string");
  if (options.glob) return path;
  if (!existsSync(path))
    throw new ColumnarError(
      `no Parquet file or directory at ${path}${/[*?[]/.test(path) ? " (for a glob, pass { glob: true })" : ""}`,
      "Parquet",
    );
  const literal = escapeGlob(path);
  return statSync(path).isDirectory() ? `${literal.replace(/[\\/]+$/, "")}/**/*.parquet` : literal;
}

/** A path as a DuckDB glob matching only itself: `*`, `?` and `[` each in brackets. */
export function escapeGlob(path: string): string {
  return path.replace(/[*?[]/g, (c) => `[${c}]`);
}

/** `read_parquet(…)` of {@link parquetGlob}'s glob, hive partitions read. */
export function parquetScan(path: string, options: ParquetPathOptions = {}): string {
  return `read_parquet(${quoteString(parquetGlob(path, options))}, hive_partitioning = true, union_by_name = true)`;
}

/**
 * How one column goes into DuckDB: its type in the `create table`, and a writer that fills a chunk's
 * vector for rows `start`..`end`. Numbers, dates and categories (and text with few distinct values)
 * are copied in one block per chunk from a typed array made once for the whole column, through
 * DuckDB's C API (`copy_data_to_vector`); other text and booleans go value by value.
 */
interface ColumnLoad {
  ddl: string;
  /**
   * The column's final type, set after the load (`%s` stands for the column in a `USING` expression):
   * text loaded as an ENUM of its distinct values is VARCHAR again, dates loaded as epoch milliseconds
   * become TIMESTAMPs.
   */
  after?: string;
  write(chunk: DataChunk, j: number, start: number, end: number): void;
}

type Bindings = typeof import("@duckdb/node-bindings");

/** `@duckdb/node-bindings` (loaded with `@duckdb/node-api`, which depends on it). */
function bindings(): Bindings {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require("@duckdb/node-bindings") as Bindings;
}
type DataChunk = InstanceType<DuckDB["DuckDBDataChunk"]>;

/** Text columns of at least this many rows with at most a quarter distinct values load as ENUMs. */
const ENUM_TEXT_MIN_ROWS = 10_000;
const ENUM_MAX_LEVELS = 65_535;

function columnLoad(B: Bindings, table: ColumnTable | TypedColumnTable, column: string): ColumnLoad {
  const kind = table.kinds[column]!;
  const values = table.data[column]!;
  const n = table.rowCount;
  if (kind === "number") {
    // One pass: the values (a typed column's are already a Float64Array) and, for NaN (missing), the validity bits.
    const given = values instanceof Float64Array ? values : undefined;
    const items = given ?? new Float64Array(n);
    const valid = new Validity(n);
    for (let i = 0; i < n; i++) {
      const v = values[i] as number;
      if (!given) items[i] = v;
      if (v !== v) valid.missing(i);
    }
    return { ddl: "DOUBLE", write: blockWriter(B, items, valid.mask) };
  }
  if (kind === "date") {
    // TIMESTAMP is a 64-bit count of microseconds: written as two 32-bit words per row (a block copy),
    // far cheaper than a BigInt per value.
    const valid = new Validity(n);
    const words = timestampWords(values as (Date | null)[] | Float64Array, n, valid);
    return { ddl: "TIMESTAMP", write: blockWriter(B, words, valid.mask, 8) };
  }
  if (kind === "string") {
    // Text of at most 12 UTF-8 bytes per value: DuckDB keeps it inside the 16-byte string record, so
    // the records are built here and copied in one block per chunk.
    const valid = new Validity(n);
    const inline = inlineText(values as (string | null)[], n, valid);
    if (inline) return { ddl: "VARCHAR", write: blockWriter(B, inline, valid.mask, 16) };
  }
  if (kind === "string" && n >= ENUM_TEXT_MIN_ROWS) {
    const coded = textCodes(values as (string | null)[], n, Math.min(ENUM_MAX_LEVELS, n / 4));
    if (coded)
      return {
        ddl: `ENUM(${coded.levels.map(quoteString).join(", ")})`,
        after: "VARCHAR",
        write: blockWriter(B, coded.items, coded.valid),
      };
  }
  if (kind === "category") {
    const levels = categoryLevels(table, column);
    if (levels && levels.length > 0 && levels.length <= ENUM_MAX_LEVELS) {
      const index = new Map(levels.map((l, i) => [l, i]));
      const items = levels.length <= 255 ? new Uint8Array(n) : new Uint16Array(n);
      const valid = validityOf(values as (string | null)[], (v) => v !== null, n);
      for (let i = 0; i < n; i++) {
        const v = values[i] as string | null;
        if (v !== null) items[i] = index.get(v)!;
      }
      return { ddl: `ENUM(${levels.map(quoteString).join(", ")})`, write: blockWriter(B, items, valid) };
    }
  }
  const text = (v: unknown): string | boolean | null =>
    v === null || typeof v === "string" || (kind === "boolean" && typeof v === "boolean")
      ? v
      : v instanceof Date
        ? v.toISOString()
        : JSON.stringify(v);
  return {
    ddl: kind === "boolean" ? "BOOLEAN" : "VARCHAR",
    write: (chunk, j, start, end) => {
      const out = new Array<string | boolean | null>(end - start);
      for (let i = start; i < end; i++) out[i - start] = kind === "empty" ? null : text(values[i]);
      chunk.setColumnValues(j, out);
    },
  };
}

/**
 * Text as an ENUM: its distinct non-missing values sorted (the levels), each row's level index and the
 * validity bits, in one hash lookup per value; undefined when there are more than `max` distinct values.
 */
function textCodes(
  values: readonly (string | null)[],
  n: number,
  max: number,
): { levels: string[]; items: Uint8Array | Uint16Array; valid?: Uint8Array } | undefined {
  // Codes in the order first seen, then renumbered in the levels' sorted order.
  const seen = new Map<string, number>();
  const first = new Uint16Array(n);
  const valid = new Validity(n);
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v === null || v === undefined) {
      valid.missing(i);
      continue;
    }
    let code = seen.get(v);
    if (code === undefined) {
      if (seen.size + 1 > max) return undefined;
      code = seen.size;
      seen.set(v, code);
    }
    first[i] = code;
  }
  if (seen.size === 0) return undefined;
  const levels = [...seen.keys()].sort();
  const rank = new Uint16Array(levels.length);
  levels.forEach((level, r) => (rank[seen.get(level)!] = r));
  const items = levels.length <= 255 ? new Uint8Array(n) : new Uint16Array(n);
  for (let i = 0; i < n; i++) items[i] = rank[first[i]!]!;
  return { levels, items, valid: valid.mask };
}

/** DuckDB's validity mask, made on the first missing row (bit i set = row i present, little-endian 64-bit words). */
class Validity {
  mask?: Uint8Array;
  constructor(readonly n: number) {}
  missing(i: number): void {
    this.mask ??= new Uint8Array(Math.ceil(this.n / 64) * 8).fill(0xff);
    this.mask[i >> 3]! &= ~(1 << (i & 7));
  }
}

/** DuckDB's validity mask (bit i set = row i present, little-endian 64-bit words), or undefined when every row is present. */
function validityOf(values: readonly unknown[], present: (v: unknown) => boolean, n: number): Uint8Array | undefined {
  const valid = new Validity(n);
  for (let i = 0; i < n; i++) if (!present(values[i])) valid.missing(i);
  return valid.mask;
}

/**
 * Dates as DuckDB's TIMESTAMP values: microseconds since the epoch as 64-bit integers, little-endian,
 * written as (low, high) 32-bit words; a date beyond ±2^53 µs (after the year 2255) goes through a BigInt.
 * A typed column's dates are epoch milliseconds (NaN missing).
 */
function timestampWords(values: readonly (Date | null)[] | Float64Array, n: number, valid: Validity): Int32Array {
  const words = new Int32Array(n * 2);
  let wide: BigInt64Array | undefined;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v === null || v === undefined || v !== v) {
      if (v !== undefined) valid.missing(i);
      continue;
    }
    const ms = typeof v === "number" ? v : v.getTime();
    const us = ms * 1000;
    if (us <= Number.MAX_SAFE_INTEGER && us >= -Number.MAX_SAFE_INTEGER) {
      const high = Math.floor(us / 4294967296);
      words[2 * i] = us - high * 4294967296; // 0 ≤ low < 2^32, stored as its 32 bits
      words[2 * i + 1] = high;
    } else {
      wide ??= new BigInt64Array(words.buffer);
      wide[i] = BigInt(Math.trunc(ms)) * 1000n; // a typed column's ms may be any double
    }
  }
  return words;
}

const utf8 = new TextEncoder();

/**
 * DuckDB's 16-byte string records for text whose every value fits inline (at most 12 UTF-8 bytes): a
 * 32-bit length, then the bytes, zero-padded (DuckDB compares inline records whole). `undefined` when a
 * value is longer.
 */
function inlineText(values: readonly (string | null)[], n: number, valid: Validity): Uint8Array | undefined {
  const records = new Uint8Array(n * 16);
  const lengths = new Uint32Array(records.buffer);
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v === null || v === undefined) {
      if (v === null) valid.missing(i);
      continue;
    }
    if (v.length > 12) return undefined;
    const at = i * 16 + 4;
    let k = 0;
    for (; k < v.length; k++) {
      const c = v.charCodeAt(k);
      if (c >= 0x80) break;
      records[at + k] = c;
    }
    if (k < v.length) {
      const { read, written } = utf8.encodeInto(v, records.subarray(at, at + 12));
      if (read < v.length) return undefined;
      k = written;
    }
    lengths[i * 4] = k;
  }
  return records;
}

/** Copies rows `start`..`end` of a typed array of `width` bytes per row (and their validity bits) into the chunk's vector `j`. */
function blockWriter(
  B: Bindings,
  items: Float64Array | Uint8Array | Uint16Array | Int32Array,
  valid: Uint8Array | undefined,
  width = items.BYTES_PER_ELEMENT,
) {
  return (chunk: DataChunk, j: number, start: number, end: number): void => {
    const vector = B.data_chunk_get_vector(chunk.chunk, j);
    B.copy_data_to_vector(
      vector,
      0,
      items.buffer as ArrayBuffer,
      items.byteOffset + start * width,
      (end - start) * width,
    );
    if (!valid) return;
    // Chunks start at multiples of 64 rows (2,048), so a chunk's bits start on a word boundary.
    const words = Math.ceil((end - start) / 64);
    B.vector_ensure_validity_writable(vector);
    B.copy_data_to_vector_validity(vector, 0, valid.buffer as ArrayBuffer, valid.byteOffset + start / 8, words * 8);
  };
}

/**
 * Creates table `name`, appends every row of `table`, a chunk at a time, then gives each column its
 * final type (text loaded as an ENUM is VARCHAR again, epoch milliseconds become TIMESTAMPs: one
 * column rewrite each, in DuckDB).
 */
async function loadTable(connection: Connection, name: string, table: ColumnTable | TypedColumnTable): Promise<void> {
  const D = loadDuckDB();
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const B = require("@duckdb/node-bindings") as Bindings;
  if (table.columns.length === 0) throw new ColumnarError(`register("${name}", …): the table has no columns`, "SQL");
  const loads = table.columns.map((c) => columnLoad(B, table, c));
  const columns = table.columns.map((c, j) => `${quoteIdent(c)} ${loads[j]!.ddl}`);
  await connection.run(`create table ${quoteIdent(name)} (${columns.join(", ")})`);
  if (table.rowCount > 0) {
    const appender = await connection.createAppender(name);
    try {
      // One chunk, reused: making a chunk makes its column types anew (an ENUM of 5,000 levels is 5,000
      // strings through the C API), and the appender copies what it is given.
      const chunk = D.DuckDBDataChunk.create(table.columns.map((_c, j) => appender.columnType(j)));
      for (let start = 0; start < table.rowCount; start += CHUNK) {
        const end = Math.min(table.rowCount, start + CHUNK);
        chunk.reset();
        chunk.rowCount = end - start;
        loads.forEach((load, j) => load.write(chunk, j, start, end));
        appender.appendDataChunk(chunk);
      }
      appender.flushSync();
    } finally {
      appender.closeSync();
    }
  }
  for (const [j, c] of table.columns.entries()) {
    const after = loads[j]!.after;
    if (after)
      await connection.run(
        `alter table ${quoteIdent(name)} alter ${quoteIdent(c)} set data type ${after.replace("%s", quoteIdent(c))}`,
      );
  }
}

/** A category's levels: the known ones, then any value the column holds that is not among them. */
function categoryLevels(table: ColumnTable | TypedColumnTable, column: string): string[] {
  return levelsOf(table.data[column] as (string | null)[], ownEntry(table.meta.categories, column) ?? []);
}

/** The query result's columns (see {@link readResultColumns}) as a column table. */
export function resultTable(
  { names, types, columns, rows, final, missing }: ResultColumns,
  sql: string,
  sources: SqlSourceInfo[],
  provenance: Provenance[],
): ColumnTable {
  const builder = new TableBuilder(rows, "SQL", { sql, sources }, provenance);
  const seen = new Set<string>();
  names.forEach((name, j) => {
    let column = name;
    for (let k = 2; seen.has(column); k++) column = `${name}_${k}`;
    seen.add(column);
    if (column !== name) builder.warn(`the result has two columns named "${name}": the second is "${column}"`);
    const kind = final?.[j];
    if (kind) {
      builder.addFinished(column, finished(columns[j]!, kind, missing?.[j]));
      return;
    }
    // Columns not read in their final form are arrays (only final number and date columns are typed).
    const read = readResult(name, types[j] as DuckType, (columns[j] ?? []) as unknown[]);
    if (read.warning) builder.warn(read.warning);
    builder.add(column, read.values, { hint: read.hint, levels: read.levels, owned: true, detectDates: false });
  });
  return builder.build();
}

/**
 * A column read in its final form (numbers with NaN for NULL, else `null`; a typed column's dates with
 * NaN): its missing values counted (unless the reader counted them: `counted`); a column of none but
 * missing values is `empty` (all `null`, in an array), as {@link TableBuilder.add} makes it. A typed
 * column goes in the table as it is (see `typedColumns`).
 */
function finished(values: TypedColumn, kind: FinalKind, counted?: number): FinishedColumn {
  let missing = counted ?? 0;
  if (counted === undefined)
    if (kind === "number" || values instanceof Float64Array) for (const v of values) missing += v !== v ? 1 : 0;
    else for (const v of values) missing += v === null ? 1 : 0;
  if (missing < values.length) return { values: values as unknown[], kind, missing };
  return { values: new Array<null>(values.length).fill(null), kind: "empty", missing };
}

function readResult(
  name: string,
  type: DuckType,
  values: unknown[],
): { values: unknown[]; hint: ColumnHint; levels?: string[]; warning?: TableWarning } {
  const { DuckDBTypeId } = loadDuckDB();
  switch (type.typeId) {
    case DuckDBTypeId.ENUM:
      return { values, hint: "category", levels: [...(type as unknown as { values: string[] }).values] };
    case DuckDBTypeId.DATE:
    case DuckDBTypeId.TIMESTAMP:
    case DuckDBTypeId.TIMESTAMP_S:
    case DuckDBTypeId.TIMESTAMP_MS:
    case DuckDBTypeId.TIMESTAMP_NS:
    case DuckDBTypeId.TIMESTAMP_TZ:
      return { values, hint: "date" };
    case DuckDBTypeId.BOOLEAN:
      return { values, hint: "boolean" };
    case DuckDBTypeId.VARCHAR:
      return { values, hint: "string" };
    default:
      break;
  }
  const read = exactNumbers(name, values);
  return read.warning ? read : { values: read.values, hint: "auto" };
}
