/**
 * Transaction tables across portfolios and months: one `GetTransactionTable` call per portfolio × month
 * (its trades between the month's first and last instant), with bounded concurrency, progress, and the
 * failed calls beside the result. Each table gets a `portfolio` and a `month` column.
 *
 * In memory (one long table), or with `parquet: dir` straight into a hive-partitioned Parquet dataset
 * (`dir/portfolio=…/month=…/part_….parquet`): each call's answer streams to disk as it arrives (see
 * transaction-stream.ts) and is appended to the dataset, so memory holds a batch of rows per call in
 * flight, never a table — a year of tables fits on a laptop.
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import type { CallOptions } from "../client/pipeline";
import type { RiskPortalClient } from "../client/client";
import { TableBuilder, type ColumnTable } from "./column-table";
import { concatColumns } from "./concat";
import { toDataFrame } from "./danfo";
import { ColumnarError } from "./errors";
import { describeFailure, throwReplayMiss } from "./failure";
import { parquetFiles, parquetKvOption, type ParquetMeta } from "./parquet";
import { checkConcurrency, settleBounded } from "./pool";
import { ProgressTracker, type ProgressOptions } from "./progress";
import { quoteIdent, quoteString, SqlSession } from "./sql";
import { labelColumns, partsScan, stageTransactionTable, type StagedTable } from "./transaction-stream";
import { fetchTransactionTableColumns } from "./transaction-table";
import type { BatchColumns, BatchFrame } from "./yield-curves";

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

/** What {@link fetchTransactionTablesColumns} wrote with `parquet`. */
export interface TransactionDataset {
  /** The dataset's directory (read it with `frames.readParquet(path)`, DuckDB or Spark). */
  path: string;
  rows: number;
  files: string[];
  failures: TransactionTablesFailure[];
}

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

/** `[first instant, last instant]` of a `YYYY-MM` month, as ISO date-times. */
function monthWindow(month: string): { start_date: string; end_date: string } {
  const m = MONTH.exec(month);
  if (!m) throw new ColumnarError(`months: expected YYYY-MM, e.g. "2026-01"; got ${JSON.stringify(month)}`, "Parquet");
  const y = Number(m[1]);
  const mo = Number(m[2]);
  return { start_date: new Date(Date.UTC(y, mo - 1, 1)).toISOString(), end_date: new Date(Date.UTC(y, mo, 1) - 1).toISOString() };
}

/** The table with `portfolio` and `month` columns first. */
function labelled(table: ColumnTable, portfolio: string, month: string | null): ColumnTable {
  const n = table.rowCount;
  const builder = new TableBuilder(n, table.meta.source, table.meta.fields, table.meta.provenance)
    .add("portfolio", new Array<string>(n).fill(portfolio), { hint: "category", owned: true })
    .add("month", new Array<string | null>(n).fill(month), { hint: month === null ? "auto" : "category", owned: true });
  for (const c of table.columns)
    if (c !== "portfolio" && c !== "month")
      builder.addFinished(c, { values: table.data[c]!, kind: table.kinds[c]!, missing: table.meta.missing[c] ?? 0, levels: table.meta.categories[c] });
  for (const w of table.meta.warnings) builder.warn(w);
  return builder.build();
}

/**
 * Every portfolio × month's transaction table, as one long column table (portfolios, then months, in
 * the order given), the failed calls beside it; or, with `parquet`, written into a dataset as each call
 * returns.
 *
 * ```ts
 * const months = ["2026-01", "2026-02", "2026-03"];
 * const { table, failures } = await frames.fetchTransactionTablesColumns(rp, { portfolios: ["GLOBAL-MACRO", "EM-CREDIT"], months });
 * const dataset = await frames.fetchTransactionTablesColumns(rp, { portfolios, months, parquet: "data/trades" });
 * ```
 */
export async function fetchTransactionTablesColumns(
  rp: RiskPortalClient,
  options: TransactionTablesOptions & { parquet: string; overwrite?: boolean },
): Promise<TransactionDataset>;
export async function fetchTransactionTablesColumns(rp: RiskPortalClient, options: TransactionTablesOptions): Promise<BatchColumns<TransactionTablesFailure>>;
export async function fetchTransactionTablesColumns(
  rp: RiskPortalClient,
  options: TransactionTablesOptions & { parquet?: string; overwrite?: boolean },
): Promise<BatchColumns<TransactionTablesFailure> | TransactionDataset> {
  const { portfolios, months } = options;
  if (!Array.isArray(portfolios) || portfolios.length === 0) throw new TypeError('portfolios must be a non-empty array, e.g. ["GLOBAL-MACRO"]');
  const windows = months === undefined ? [null] : months.map((m) => ({ month: m, ...monthWindow(m) }));
  if (windows.length === 0) throw new TypeError('months, when given, must be a non-empty array, e.g. ["2026-01", "2026-02"]');
  const limit = checkConcurrency(options.concurrency);
  const calls = portfolios.flatMap((portfolio) => windows.map((w) => ({ portfolio, window: w })));
  const sink = options.parquet === undefined ? undefined : await DatasetSink.open(options.parquet, options.overwrite ?? false);
  const tracker = new ProgressTracker("transaction tables", calls.length, options);
  try {
    const settled = await settleBounded(
      calls,
      limit,
      async ({ portfolio, window }) => {
        const item = `${portfolio}${window ? ` ${window.month}` : ""}`;
        try {
          const request = {
            portfolio_name: portfolio,
            ...(window ? { start_date: window.start_date, end_date: window.end_date } : {}),
            ...(options.counterparties ? { counterparties: [...options.counterparties] } : {}),
            ...(options.include_zero_quantities !== undefined ? { include_zero_quantities: options.include_zero_quantities } : {}),
          };
          const month = window?.month ?? null;
          let kept: ColumnTable | undefined;
          if (sink) {
            const workDir = sink.workDir();
            try {
              await sink.append(await stageTransactionTable(rp, request, workDir, { ...options.call, signal: options.signal }), portfolio, month);
            } finally {
              rmSync(workDir, { recursive: true, force: true });
            }
          } else kept = labelled(await fetchTransactionTableColumns(rp, request, { ...options.call, signal: options.signal }), portfolio, month);
          tracker.step(item, true);
          return kept;
        } catch (error) {
          tracker.step(item, false);
          throw error;
        }
      },
      options.signal,
    );
    throwReplayMiss(settled);
    const tables: ColumnTable[] = [];
    const failures: TransactionTablesFailure[] = [];
    settled.forEach((result, i) => {
      if (result.status === "fulfilled") {
        if (result.value) tables.push(result.value);
      } else failures.push({ portfolio: calls[i]!.portfolio, month: calls[i]!.window?.month ?? null, ...describeFailure(result.reason) });
    });
    if (sink) return { ...(await sink.close()), failures };
    return { table: concatColumns(tables, "GetTransactionTable"), failures };
  } finally {
    await sink?.close();
  }
}

/** {@link fetchTransactionTablesColumns} in memory, as one long danfo DataFrame (fresh 0..n-1 index), failures beside it. */
export async function fetchTransactionTables(rp: RiskPortalClient, options: TransactionTablesOptions): Promise<BatchFrame<TransactionTablesFailure>> {
  const { table, failures } = await fetchTransactionTablesColumns(rp, options);
  return { frame: toDataFrame(table), failures };
}

/** A dataset being written: one SQL session; each call's staged table appended as its own files under its partitions. */
class DatasetSink {
  #rows = 0;
  #calls = 0;
  #closed: Promise<{ path: string; rows: number; files: string[] }> | undefined;
  /** Where the calls in flight spool and stage their answers: beside the dataset, removed at the end. */
  readonly #staging: string;

  private constructor(
    readonly dir: string,
    readonly session: SqlSession,
  ) {
    this.#staging = `${dir}.partial-${randomUUID()}`;
  }

  static async open(target: string, overwrite: boolean): Promise<DatasetSink> {
    const dir = path.resolve(target);
    let exists = false;
    try {
      exists = statSync(dir).isDirectory() ? readdirSync(dir).length > 0 : true;
    } catch {
      exists = false;
    }
    if (exists && !overwrite)
      throw new ColumnarError(`parquet: ${dir} exists and is not an empty directory; pass overwrite: true to replace it (nothing was fetched)`, "Parquet");
    if (exists) rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    return new DatasetSink(dir, await SqlSession.open({ threads: 1 }));
  }

  /** A fresh staging directory for one call. */
  workDir(): string {
    return path.join(this.#staging, `call-${this.#calls++}`);
  }

  /** Appends a staged table's rows to the dataset, labelled with its portfolio and month. */
  async append(staged: StagedTable, portfolio: string, month: string | null): Promise<void> {
    if (staged.rows === 0) return;
    const own = staged.columns.filter((c) => c !== "portfolio" && c !== "month");
    const meta: ParquetMeta = {
      ...staged.meta,
      kinds: { portfolio: "category", month: month === null ? "empty" : "category", ...Object.fromEntries(own.map((c) => [c, staged.meta.kinds[c]!])) },
      categories: { ...staged.meta.categories, portfolio: [portfolio], ...(month === null ? {} : { month: [month] }) },
    };
    const select = `select ${labelColumns({ portfolio, month })}, ${own.map(quoteIdent).join(", ")} from ${partsScan(staged.parts)}`;
    const partitions = month === null ? '"portfolio"' : '"portfolio", "month"';
    // One session, one table at a time: the calls in flight queue here, in the order they return.
    const run = async (): Promise<void> => {
      await this.session.run(
        `copy (${select}) to ${quoteString(this.dir)} (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (${partitions}), APPEND true, FILENAME_PATTERN 'part_{uuid}', ${parquetKvOption(meta, staged.provenance)})`,
      );
      this.#rows += staged.rows;
    };
    this.#queue = this.#queue.then(run, run);
    return this.#queue;
  }

  #queue: Promise<void> = Promise.resolve();

  close(): Promise<{ path: string; rows: number; files: string[] }> {
    this.#closed ??= this.#queue
      .catch(() => undefined)
      .then(async () => {
        await this.session.close();
        rmSync(this.#staging, { recursive: true, force: true });
        return { path: this.dir, rows: this.#rows, files: parquetFiles(this.dir) };
      });
    return this.#closed;
  }
}
