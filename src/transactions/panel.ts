/**
 * Transaction tables across portfolios and months: one `GetTransactionTable` call per portfolio × month
 * (its trades between the month's first and last instant), with bounded concurrency, progress, and the
 * failed calls beside the result. Each table gets a `portfolio` and a `month` column.
 *
 * In memory (one long table, `fetchTransactionTablesColumns`), or straight into a hive-partitioned Parquet dataset (`fetchTransactionTablesToParquet`,
 * `dir/portfolio=…/month=…/part_….parquet`): each call's answer streams to disk as it arrives (see
 * {@link fetchTransactionTableToParquet}) and is appended to the dataset, so memory holds a batch of rows per call in
 * flight, never a table — a year of tables fits on a laptop. The dataset is written beside the target and
 * moved in at the end; with `overwrite`, a previous dataset (its partition folders, not other files) is
 * replaced only when every call succeeded.
 */
import { mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import type { CallOptions } from "../client/pipeline";
import type { RiskPortalClient } from "../client/client";
import { TableBuilder, type ColumnTable } from "../table/column-table";
import { concatColumns } from "../table/concat";
import { ColumnarError } from "../columnar/errors";
import {
  besidePath,
  isDatasetEntry,
  parquetFiles,
  parquetKvOption,
  parquetSelectList,
  replaceDataset,
  writeFailed,
  type ParquetMeta,
} from "../columnar/parquet";
import { checkConcurrency } from "../batch/pool";
import type { ProgressOptions } from "../batch/progress";
import { runBatch, type BatchColumns } from "../batch/run";
import { claimSpool, releaseSpool } from "../columnar/spool";
import { quoteString, SqlSession } from "../columnar/sql";
import { duckdbConfig, sizingOf, type DuckDBSizing } from "../columnar/duckdb-options";
import { labelColumns, stageTransactionTable, stagedScan, type StagedTable } from "./stream";
import { fetchTransactionTableColumns, refuseParquetOption } from "./fetch";

export interface TransactionTablesOptions extends ProgressOptions {
  portfolios: readonly string[];
  /** Months, `YYYY-MM`: one call per portfolio and month. Absent: one call per portfolio, its whole history (`month` is null). */
  months?: readonly string[];
  counterparties?: readonly string[];
  include_zero_quantities?: boolean;
  /** Calls in flight at once. Default 4. */
  concurrency?: number;
  signal?: AbortSignal;
  /** Per-call options (`timeoutMs`, `retry`, `headers`). */
  call?: Omit<CallOptions, "signal" | "throwOnFailure">;
}

/** A call that failed, and why. */
export interface TransactionTablesFailure {
  portfolio: string;
  month: string | null;
  error: string;
  status?: number;
}

/** What {@link fetchTransactionTablesToParquet} wrote. */
export interface TransactionDataset {
  /** The dataset's directory (read it with `frames.readParquet(path)`, DuckDB or Spark); see `replaced`. */
  path: string;
  rows: number;
  files: string[];
  failures: TransactionTablesFailure[];
  /**
   * Whether the dataset at the target is the new one. With `overwrite`, a previous dataset is replaced
   * only when every call succeeded; otherwise it stays as it was and `path` is where the new rows are.
   */
  replaced: boolean;
  /** What did not go as asked: a previous dataset kept, and where the new rows are. */
  warnings: string[];
}

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

/** `[first instant, last instant]` of a `YYYY-MM` month, as ISO date-times. */
function monthWindow(month: string): { start_date: string; end_date: string } {
  const m = MONTH.exec(month);
  if (!m) throw new ColumnarError(`months: expected YYYY-MM, e.g. "2026-01"; got ${JSON.stringify(month)}`, "Parquet");
  const y = Number(m[1]);
  const mo = Number(m[2]);
  return {
    start_date: new Date(Date.UTC(y, mo - 1, 1)).toISOString(),
    end_date: new Date(Date.UTC(y, mo, 1) - 1).toISOString(),
  };
}

/** The table with `portfolio` and `month` columns first. */
function labelled(table: ColumnTable, portfolio: string, month: string | null): ColumnTable {
  const n = table.rowCount;
  const builder = new TableBuilder(n, table.meta.source, table.meta.fields, table.meta.provenance)
    .add("portfolio", new Array<string>(n).fill(portfolio), { hint: "category", owned: true })
    .add("month", new Array<string | null>(n).fill(month), { hint: month === null ? "auto" : "category", owned: true });
  for (const c of table.columns)
    if (c !== "portfolio" && c !== "month")
      builder.addFinished(c, {
        values: table.data[c]!,
        kind: table.kinds[c]!,
        missing: table.meta.missing[c] ?? 0,
        levels: table.meta.categories[c],
      });
  for (const w of table.meta.warnings) builder.warn(w);
  return builder.build();
}

/**
 * Every portfolio × month's transaction table, as one long column table (portfolios, then months, in
 * the order given), the failed calls beside it. For tables larger than memory, write them into a
 * dataset instead: {@link fetchTransactionTablesToParquet}.
 *
 * @example
 * ```ts
 * const months = ["2026-01", "2026-02", "2026-03"];
 * const { table, failures } = await frames.fetchTransactionTablesColumns(rp, { portfolios: ["GLOBAL-MACRO", "EM-CREDIT"], months });
 * ```
 */
export async function fetchTransactionTablesColumns(
  rp: RiskPortalClient,
  options: TransactionTablesOptions,
): Promise<BatchColumns<TransactionTablesFailure>> {
  refuseParquetOption(
    options,
    "frames.fetchTransactionTablesColumns",
    'frames.fetchTransactionTablesToParquet(rp, { portfolios, months }, "data/trades")',
  );
  const calls = planCalls(options);
  const { tables, failures } = await fetchCalls(rp, options, calls, undefined);
  return { table: concatColumns(tables, "GetTransactionTable"), failures };
}

/**
 * Every portfolio × month's transaction table written into a hive-partitioned Parquet dataset at `dir`
 * (`dir/portfolio=…/month=…/part_….parquet`) as each call's answer arrives, never held whole; the failed
 * calls beside what was written. Refuses a `dir` that holds anything unless `overwrite: true`, and then
 * replaces it only when every call succeeded (see {@link TransactionDataset}`.replaced`). The dataset's
 * DuckDB session is sized as {@link DuckDBSizing} says (default: DuckDB's memory limit, one thread).
 *
 * @example
 * ```ts
 * const dataset = await frames.fetchTransactionTablesToParquet(rp, { portfolios: ["GLOBAL-MACRO"], months: ["2026-10"], overwrite: true }, "data/trades");
 * const trades = await frames.readParquet(dataset.path);
 * ```
 */
export async function fetchTransactionTablesToParquet(
  rp: RiskPortalClient,
  options: TransactionTablesOptions & DuckDBSizing & { overwrite?: boolean },
  dir: string,
): Promise<TransactionDataset> {
  if (typeof dir !== "string" || dir === "") throw new TypeError('dir must be a directory path, e.g. "data/trades"');
  const calls = planCalls(options);
  const sizing = sizingOf(options);
  duckdbConfig(sizing, "frames.fetchTransactionTablesToParquet", true); // said before anything is fetched
  const sink = await DatasetSink.open(dir, options.overwrite ?? false, sizing);
  try {
    const { failures } = await fetchCalls(rp, options, calls, sink);
    return { ...(await sink.finish(failures.length, calls.length)), failures };
  } finally {
    await sink.close();
    sink.discard();
  }
}

interface PanelCall {
  portfolio: string;
  window: { month: string; start_date: string; end_date: string } | null;
}

/** One call per portfolio and month (or per portfolio), after checking the options (nothing is fetched when they are wrong). */
function planCalls(options: TransactionTablesOptions): PanelCall[] {
  const { portfolios, months } = options;
  if (!Array.isArray(portfolios) || portfolios.length === 0)
    throw new TypeError('portfolios must be a non-empty array, e.g. ["GLOBAL-MACRO"]');
  const windows = months === undefined ? [null] : months.map((m) => ({ month: m, ...monthWindow(m) }));
  if (windows.length === 0)
    throw new TypeError('months, when given, must be a non-empty array, e.g. ["2026-01", "2026-02"]');
  checkConcurrency(options.concurrency);
  return portfolios.flatMap((portfolio) => windows.map((w) => ({ portfolio, window: w })));
}

/** Runs the calls (bounded, with progress): each table kept in memory, or appended to `sink`; the failures beside. */
async function fetchCalls(
  rp: RiskPortalClient,
  options: TransactionTablesOptions,
  calls: PanelCall[],
  sink: DatasetSink | undefined,
): Promise<{ tables: ColumnTable[]; failures: TransactionTablesFailure[] }> {
  const { results, failures } = await runBatch(
    {
      what: "transaction tables",
      jobs: calls,
      label: ({ portfolio, window }) => `${portfolio}${window ? ` ${window.month}` : ""}`,
      run: (call) => fetchCall(rp, options, call, sink),
      failure: ({ portfolio, window }, reason): TransactionTablesFailure => ({
        portfolio,
        month: window?.month ?? null,
        ...reason,
      }),
    },
    options,
  );
  return { tables: results.filter((t): t is ColumnTable => t !== undefined), failures };
}

/** One portfolio (and month): its table labelled in memory, or streamed into the dataset (undefined then). */
async function fetchCall(
  rp: RiskPortalClient,
  options: TransactionTablesOptions,
  call: PanelCall,
  sink: DatasetSink | undefined,
): Promise<ColumnTable | undefined> {
  const { portfolio, window } = call;
  const request = {
    portfolio_name: portfolio,
    ...(window ? { start_date: window.start_date, end_date: window.end_date } : {}),
    ...(options.counterparties ? { counterparties: [...options.counterparties] } : {}),
    ...(options.include_zero_quantities !== undefined
      ? { include_zero_quantities: options.include_zero_quantities }
      : {}),
  };
  const month = window?.month ?? null;
  if (!sink)
    return labelled(
      await fetchTransactionTableColumns(rp, request, { ...options.call, signal: options.signal }),
      portfolio,
      month,
    );
  const workDir = sink.workDir();
  try {
    await sink.append(
      await stageTransactionTable(rp, request, workDir, { ...options.call, signal: options.signal }),
      portfolio,
      month,
    );
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
  return undefined;
}

/** A dataset being written: one SQL session; each call's staged table appended as its own files under its partitions, beside the target until the end. */
class DatasetSink {
  #rows = 0;
  #calls = 0;
  #closed: Promise<void> | undefined;
  /** Where the calls in flight spool and stage their answers, and the new dataset is written: beside the target, removed at the end. */
  readonly #staging: string;
  readonly #written: string;

  private constructor(
    readonly dir: string,
    readonly hadDataset: boolean,
    readonly session: SqlSession,
  ) {
    this.#staging = claimSpool(dir);
    this.#written = path.join(this.#staging, "dataset");
    mkdirSync(this.#written, { recursive: true });
  }

  static async open(target: string, overwrite: boolean, sizing: DuckDBSizing): Promise<DatasetSink> {
    const dir = path.resolve(target);
    let entries: string[] | undefined;
    try {
      entries = statSync(dir).isDirectory() ? readdirSync(dir) : undefined;
      if (entries === undefined)
        throw new ColumnarError(
          `parquet: ${dir} exists and is a file; a dataset is a directory (nothing was fetched)`,
          "Parquet",
        );
      if (entries.length > 0 && !overwrite)
        throw new ColumnarError(
          `parquet: ${dir} exists and is not an empty directory; pass overwrite: true to replace it (nothing was fetched)`,
          "Parquet",
        );
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    return new DatasetSink(
      dir,
      (entries ?? []).some(isDatasetEntry),
      await SqlSession.open({ threads: 1, ...sizing }, "frames.fetchTransactionTablesToParquet"),
    );
  }

  /** A fresh staging directory for one call. */
  workDir(): string {
    return path.join(this.#staging, `call-${this.#calls++}`);
  }

  /** Appends a staged table's rows to the new dataset, labelled with its portfolio and month. */
  async append(staged: StagedTable, portfolio: string, month: string | null): Promise<void> {
    if (staged.rows === 0) return;
    const own = staged.columns.filter((c) => c !== "portfolio" && c !== "month");
    const meta: ParquetMeta = {
      ...staged.meta,
      kinds: {
        portfolio: "category",
        month: month === null ? "empty" : "category",
        ...Object.fromEntries(own.map((c) => [c, staged.meta.kinds[c]!])),
      },
      categories: { ...staged.meta.categories, portfolio: [portfolio], ...(month === null ? {} : { month: [month] }) },
    };
    const select = `select ${labelColumns({ portfolio, month })}, ${parquetSelectList(own, staged.meta.kinds)} from ${stagedScan(staged)}`;
    const partitions = month === null ? '"portfolio"' : '"portfolio", "month"';
    // One session, one table at a time: the calls in flight queue here, in the order they return.
    const run = async (): Promise<void> => {
      try {
        await this.session.run(
          `copy (${select}) to ${quoteString(this.#written)} (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (${partitions}), APPEND true, FILENAME_PATTERN 'part_{uuid}', ${parquetKvOption(meta, staged.provenance)})`,
        );
      } catch (error) {
        throw writeFailed(error, this.dir, "frames.fetchTransactionTablesColumns");
      }
      this.#rows += staged.rows;
    };
    this.#queue = this.#queue.then(run, run);
    return this.#queue;
  }

  #queue: Promise<void> = Promise.resolve();

  /**
   * The new dataset in place of the previous one, once every call has settled. A previous dataset is
   * replaced only when every call succeeded; otherwise it stays as it was, and the new rows (if any)
   * stay beside it, in a directory the result names.
   */
  async finish(failures: number, calls: number): Promise<Omit<TransactionDataset, "failures">> {
    await this.close();
    const who = "frames.fetchTransactionTablesColumns";
    if (failures === 0 || !this.hadDataset) {
      replaceDataset(this.#written, this.dir, who);
      return { path: this.dir, rows: this.#rows, files: parquetFiles(this.dir), replaced: true, warnings: [] };
    }
    const kept = `the dataset at ${this.dir} was kept as it was`;
    if (this.#rows === 0)
      return {
        path: this.dir,
        rows: 0,
        files: [],
        replaced: false,
        warnings: [`every call failed: ${kept} (nothing was replaced)`],
      };
    const beside = besidePath(this.dir, "incomplete");
    renameSync(this.#written, beside);
    const ok = calls - failures;
    return {
      path: beside,
      rows: this.#rows,
      files: parquetFiles(beside),
      replaced: false,
      warnings: [
        `${failures} of ${calls} calls failed: ${kept}; the rows of the ${ok} call${ok === 1 ? "" : "s"} that succeeded are in ${beside} (read it with frames.readParquet, move it in place, or delete it)`,
      ],
    };
  }

  /** Closes the session, once the appends queued have ended. */
  close(): Promise<void> {
    this.#closed ??= this.#queue.catch(() => undefined).then(() => this.session.close());
    return this.#closed;
  }

  /** Removes the staging area: the calls' spools and parts, and the new dataset unless {@link finish} moved it. */
  discard(): void {
    releaseSpool(this.#staging);
  }
}
