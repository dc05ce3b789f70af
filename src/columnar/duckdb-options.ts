/**
 * The options a DuckDB session is opened with, checked before DuckDB sees them: DuckDB answers a size it
 * cannot read with "Failed to set config" and an unknown key is ignored, neither of which says what to fix.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { ColumnarError } from "./errors";

/** How much of the machine a DuckDB session may use, and where it spills what does not fit. */
export interface DuckDBSizing {
  /**
   * DuckDB's memory limit: bytes (a number), or a size such as `"256MB"`, `"4GiB"` (B, KB, MB, GB, TB and
   * KiB, MiB, GiB, TiB; KB is 1000 bytes). Past it, joins, group-bys and sorts spill to `tempDirectory`, so a
   * table larger than memory still goes through. Default DuckDB's: 80% of the machine's memory.
   */
  memoryLimit?: number | string;
  /**
   * Where DuckDB spills what does not fit in `memoryLimit` (created when needed, emptied at close). Default
   * DuckDB's: `.tmp` in the current directory, or `<path>.tmp` beside a database file.
   */
  tempDirectory?: string;
  /** DuckDB's worker threads. Default: one per core. */
  threads?: number;
}

/** A DuckDB session: in memory (the default) or a database file, and its size. */
export interface DuckDBOptions extends DuckDBSizing {
  /**
   * A DuckDB database file: the tables registered or created in the session stay in it for the next one
   * (another notebook, another process). Created when absent, unless `readOnly`. Default `":memory:"`: the
   * session's tables go with it.
   */
  path?: string;
  /**
   * Opens `path` for reading only: several processes may read one file at once, while no process has it
   * open for writing (DuckDB lets one process write a file). Default false.
   */
  readOnly?: boolean;
}

const SIZING_KEYS = ["memoryLimit", "tempDirectory", "threads"] as const;
const OPTION_KEYS = [...SIZING_KEYS, "path", "readOnly"] as const;
const SIZE = /^(\d+(?:\.\d+)?)\s*(b|bytes|kb|mb|gb|tb|kib|mib|gib|tib)$/i;

/** What {@link duckdbConfig} gives DuckDB: the database (a file or `:memory:`) and its settings. */
export interface DuckDBConfig {
  database: string;
  settings: Record<string, string>;
}

/**
 * The database and DuckDB settings for `options`, checked: an unknown option, a size DuckDB cannot read,
 * `readOnly` without a file or of a file that is not there, each throw a {@link ColumnarError} naming the
 * option (`who` is the function the user called). `sizingOnly`: the call takes no database file.
 */
export function duckdbConfig(options: DuckDBOptions | undefined, who: string, sizingOnly = false): DuckDBConfig {
  const given = options ?? {};
  if (typeof given !== "object" || given === null || Array.isArray(given))
    throw new ColumnarError(`${who}: options must be an object; got ${JSON.stringify(given)}`, "SQL");
  const known: readonly string[] = sizingOnly ? SIZING_KEYS : OPTION_KEYS;
  for (const key of Object.keys(given))
    if (!known.includes(key))
      throw new ColumnarError(`${who}: unknown option ${JSON.stringify(key)} (known: ${known.join(", ")})`, "SQL");
  const settings: Record<string, string> = {};
  if (given.threads !== undefined) settings.threads = String(threadCount(given.threads, who));
  if (given.memoryLimit !== undefined) settings.memory_limit = memoryLimit(given.memoryLimit, who);
  if (given.tempDirectory !== undefined) settings.temp_directory = directory(given.tempDirectory, who);
  return { database: database(given, who, settings), settings };
}

function threadCount(threads: unknown, who: string): number {
  if (typeof threads === "number" && Number.isInteger(threads) && threads > 0) return threads;
  throw new ColumnarError(`${who}: threads must be a whole number > 0; got ${JSON.stringify(threads)}`, "SQL");
}

function memoryLimit(limit: unknown, who: string): string {
  if (typeof limit === "number" && Number.isSafeInteger(limit) && limit > 0) return `${limit}B`;
  if (typeof limit === "string" && SIZE.test(limit.trim()) && Number(SIZE.exec(limit.trim())![1]) > 0)
    return limit.trim();
  throw new ColumnarError(
    `${who}: memoryLimit must be bytes (a whole number > 0) or a size such as "256MB" or "4GiB"; got ${JSON.stringify(limit)}`,
    "SQL",
  );
}

function directory(dir: unknown, who: string): string {
  if (typeof dir === "string" && dir.trim() !== "") return path.resolve(dir);
  throw new ColumnarError(`${who}: tempDirectory must be a folder's path; got ${JSON.stringify(dir)}`, "SQL");
}

function database(options: DuckDBOptions, who: string, settings: Record<string, string>): string {
  const file = options.path;
  if (file !== undefined && (typeof file !== "string" || file.trim() === ""))
    throw new ColumnarError(
      `${who}: path must be a database file's path (or ":memory:"); got ${JSON.stringify(file)}`,
      "SQL",
    );
  const inMemory = file === undefined || file === ":memory:";
  if (options.readOnly !== undefined && typeof options.readOnly !== "boolean")
    throw new ColumnarError(`${who}: readOnly must be true or false; got ${JSON.stringify(options.readOnly)}`, "SQL");
  if (options.readOnly) {
    if (inMemory) throw new ColumnarError(`${who}: readOnly needs a database file (path)`, "SQL");
    if (!existsSync(file))
      throw new ColumnarError(`${who}: no database file at ${path.resolve(file)} to open read-only`, "SQL");
    settings.access_mode = "READ_ONLY";
  }
  return inMemory ? ":memory:" : path.resolve(file);
}

/**
 * DuckDB's error when it cannot open `database`, said as what happened: a file another process holds
 * (DuckDB's lock), or DuckDB's own message.
 */
export function openFailed(error: unknown, database: string, who: string): ColumnarError {
  const message = error instanceof Error ? error.message : String(error);
  const first = message.split("\n")[0]!;
  if (database !== ":memory:" && /could not set lock|conflicting lock/i.test(message))
    return new ColumnarError(
      `${who}: the database file ${database} is open in another process (DuckDB lets one process write a file; several may read it with { readOnly: true } while none writes it): ${first}`,
      "SQL",
      error,
    );
  return new ColumnarError(
    `${who}: DuckDB could not open ${database === ":memory:" ? "an in-memory database" : `the database file ${database}`}: ${first}`,
    "SQL",
    error,
  );
}

/** The sizing options among a call's options (a Parquet verb's, say), for {@link duckdbConfig}. */
export function sizingOf(options: DuckDBSizing): DuckDBSizing {
  const sizing: DuckDBSizing = {};
  for (const key of SIZING_KEYS) if (options[key] !== undefined) Object.assign(sizing, { [key]: options[key] });
  return sizing;
}
