/**
 * A table answer's rows spooled for DuckDB's own JSON reader: the body is scanned as it arrives (the
 * `{"data_table": …}` wrapper cut off, its other fields kept), the rows' bytes read once, where they
 * arrived ({@link RowsProfile}: strict JSON, the columns and the kinds the adapter would give them),
 * and written to a spool file as newline-delimited JSON. Nothing is parsed into JS objects on the way
 * (the client has checked the body is UTF-8 before the sink has any of it).
 */
import { closeSync, ftruncateSync, openSync, readSync } from "node:fs";
import path from "node:path";
import { ResponseValidationError } from "../client/errors";
import type { BodySink } from "../client/pipeline";
import { ColumnarError } from "./errors";
import { RowsProfile, type PlannedColumn } from "./json-load";
import { LivePipe } from "./live-pipe";
import { SpoolOut } from "./spool-out";
import { JsonRowScanner, JsonScanError, type RowsReader, type ScannedBody } from "./json-rows";

const SOURCE = "GetTransactionTable";
/** Bytes read from the spool at a time when the rows are read again. */
const SPOOL_READ_BYTES = 1 << 20;

/** The batches `scanner` makes of a spool file's bytes, read from its start a buffer at a time. */
export function* spoolBatches(fd: number, scanner: JsonRowScanner): Generator<unknown[]> {
  for (let position = 0; ;) {
    const buffer = new Uint8Array(SPOOL_READ_BYTES);
    const read = readSync(fd, buffer, 0, SPOOL_READ_BYTES, position);
    if (read === 0) return;
    position += read;
    yield* scanner.push(buffer.subarray(0, read));
  }
}
/** The first `length` bytes of a spool file, a buffer at a time. */
function* spoolBytes(fd: number, length: number): Generator<Uint8Array> {
  for (let position = 0; position < length;) {
    const buffer = new Uint8Array(Math.min(SPOOL_READ_BYTES, length - position));
    const read = readSync(fd, buffer, 0, buffer.length, position);
    if (read === 0) return;
    position += read;
    yield buffer.subarray(0, read);
  }
}

/** The scanner's complaints are the response's fault: said as the client says a response does not fit. */
export function scanning<T>(step: () => T): T {
  try {
    return step();
  } catch (error) {
    if (!(error instanceof JsonScanError)) throw error;
    throw new ResponseValidationError(
      `${SOURCE}: the server's response is not the JSON expected: ${error.message} (byte ${error.offset})`,
      { operation: SOURCE },
      [],
    );
  }
}

/**
 * A statement that reads the rows while they arrive: started once the profile has read `afterRows` rows,
 * given a pipe to read as the spool file (see {@link LivePipe}) and the columns planned from those rows.
 */
export interface LiveReader {
  afterRows: number;
  /** Starts the statement reading `pipe` as a JSON array with `columns`; returns its promise (not awaited here). */
  start(pipe: string, columns: PlannedColumn[]): Promise<unknown>;
}

/** What a {@link LiveReader}'s statement was given, for the caller to judge once the body is in. */
export interface LiveRead {
  pipe: LivePipe;
  /** The columns its statement was started with. */
  columns: PlannedColumn[];
  /** Its statement: true when it succeeded (it never rejects). */
  done: Promise<boolean>;
  /** A new attempt began after it started: what it read is not this attempt's body. */
  abandoned: boolean;
}

/**
 * Receives a table answer's body: its rows to a spool file as newline-delimited JSON (a row a line, see
 * {@link readJsonRows}), profiled. A new attempt starts over.
 */
export class RowsSpoolSink implements BodySink, RowsReader {
  #fd: number | undefined;
  #out: SpoolOut | undefined;
  #scanner!: JsonRowScanner;
  /** Whether the rows array is being read (its bytes go to the spool as they come). */
  #inArray = false;
  profile!: RowsProfile;
  /** The statement that read the rows as they came, if one was started. */
  live: LiveRead | undefined;
  /** What starts it (once: not again after a new attempt). */
  #reader: LiveReader | undefined;

  constructor(
    readonly file: string,
    readonly options: { dates?: "parse" | "keep"; batchRows: number; live?: LiveReader },
  ) {
    this.#reader = options.live;
  }

  async reset(): Promise<void> {
    if (this.live) {
      this.live.abandoned = true;
      this.live.pipe.break();
      this.#reader = undefined;
    }
    // The last attempt's writes are done (or failed: this attempt starts over) before the file is emptied.
    await this.#out?.settled().catch(() => undefined);
    if (this.#fd === undefined) this.#fd = openSync(this.file, "w+");
    else ftruncateSync(this.#fd, 0);
    this.#out = new SpoolOut(this.#fd);
    this.#inArray = false;
    this.#scanner = new JsonRowScanner(this.options.batchRows, { rows: this });
    this.profile = new RowsProfile(this.options.dates !== "keep");
  }

  chunk(bytes: Uint8Array): void | Promise<void> {
    scanning(() => this.#scanner.push(bytes));
    const reader = this.#reader;
    if (reader && this.profile.rows >= reader.afterRows) return this.#goLive(reader);
    // The body is read no faster than the file and the live reader take the rows.
    const waits = [this.#out!.drained(), this.live?.pipe.drained()].filter((w) => w !== undefined);
    if (waits.length > 0) return Promise.all(waits).then(() => undefined);
  }

  /**
   * Starts the live reader with the columns the rows so far have (none when they take another route),
   * then gives it the rows spooled so far; the rest it is given as they are written.
   */
  async #goLive(reader: LiveReader): Promise<void> {
    this.#reader = undefined;
    const columns = this.profile.plan();
    if (this.profile.detour !== undefined || columns.some((c) => c.kind === "mixed")) return;
    const pipe = LivePipe.create(path.dirname(this.file), "rows.pipe");
    if (!pipe) return;
    const reading = reader.start(pipe.path, columns);
    const done = reading.then(
      () => true,
      () => false,
    );
    this.live = { pipe, columns, done, abandoned: false };
    if (!(await pipe.open(reading))) return;
    const out = this.#out!;
    await this.#written(out);
    for (const bytes of spoolBytes(this.#fd!, out.flushed)) pipe.write(bytes);
    out.follow(pipe);
  }

  /** The rows array's bytes (see {@link RowsReader}): read by the profile, then written to the spool as they are. */
  scan(chunk: Uint8Array, from: number, offset: number): number {
    const out = this.#out!;
    if (!this.#inArray) {
      this.#inArray = true;
      // Rows of a second array follow the first's, on a line of their own.
      if (this.profile.rows > 0) out.newline();
    }
    const end = this.profile.scan(chunk, from, offset);
    const separators = this.profile.separators;
    try {
      out.put(chunk, from, end < 0 ? chunk.length : end - 1, offset, separators);
    } catch (error) {
      throw this.#writeFailed(error);
    } finally {
      separators.length = 0;
    }
    if (end >= 0) this.#inArray = false;
    return end;
  }

  /** After the body: its fields (and a `data_table` of another layout, whole), once every row is in the spool file. */
  async finish(): Promise<ScannedBody> {
    const body = scanning(() => this.#scanner.end());
    if (!body.hasDataTable)
      throw new ResponseValidationError(
        `${SOURCE}: the server's response does not fit the schema — expected an object with a data_table field (it has ${Object.keys(body.fields).join(", ") || "no fields"})`,
        { operation: SOURCE, body: body.fields },
        [],
      );
    const out = this.#out!;
    out.flush();
    this.live?.pipe.end();
    await this.#written(out);
    return body;
  }

  /** The spooled rows again, parsed, in batches of `batchRows` (for the rows DuckDB's reader is not given). */
  *reread(): Generator<unknown[]> {
    const scanner = new JsonRowScanner(this.options.batchRows);
    // The spool holds the rows a line each: an array again, wrapped as the scanner reads a body.
    yield* scanner.push(new TextEncoder().encode('{"data_table":['));
    const commas = new LinesToArray();
    for (const bytes of spoolBytes(this.#fd!, this.#out!.length)) yield* scanner.push(commas.convert(bytes));
    yield* scanner.push(new TextEncoder().encode("]}"));
  }

  /** Lets the live reader go and closes the spool, once its writes are done. */
  async close(): Promise<void> {
    this.live?.pipe.break();
    await this.#out?.settled().catch(() => undefined);
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }

  /** Waits for the spool's writes; a failed one is said as the sink's. */
  async #written(out: SpoolOut): Promise<void> {
    try {
      await out.settled();
    } catch (error) {
      throw this.#writeFailed(error);
    }
  }

  #writeFailed(error: unknown): unknown {
    if (error instanceof JsonScanError || error instanceof ResponseValidationError) return error;
    return new ColumnarError(
      `${SOURCE}: could not write the response to ${this.file}: ${(error as Error).message}`,
      "Parquet",
      error,
    );
  }
}

/**
 * Newline-delimited rows (as the spool holds them) back into the inside of a JSON array, buffer by
 * buffer. A newline comes only after a row (the spool's other newlines were made spaces): each is a
 * comma, put before the next row, so that an empty line (a second rows array without rows) makes none.
 */
class LinesToArray {
  /** A newline came after a row: a comma is owed before the next row. */
  #owed = false;

  convert(bytes: Uint8Array): Uint8Array {
    // A comma takes its newline's place; the one owed by the last buffer is the one byte more.
    const out = new Uint8Array(bytes.length + 1);
    let n = 0;
    for (let i = 0; i < bytes.length; i++) {
      const c = bytes[i]!;
      if (c === 0x0a) this.#owed = true;
      else {
        if (this.#owed && c !== 0x20 && c !== 0x09 && c !== 0x0d) {
          out[n++] = 0x2c;
          this.#owed = false;
        }
        out[n++] = c;
      }
    }
    return out.subarray(0, n);
  }
}
