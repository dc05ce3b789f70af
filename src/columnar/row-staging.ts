/**
 * A table answer's rows spooled for DuckDB's own JSON reader: the body is scanned as it arrives (the
 * `{"data_table": …}` wrapper cut off, its other fields kept), the rows' bytes read once, where they
 * arrived ({@link RowsProfile}: strict JSON, the columns and the kinds the adapter would give them),
 * and written to a spool file as one bare JSON array. Nothing is parsed into JS objects on the way
 * (the client has checked the body is UTF-8 before the sink has any of it).
 */
import { closeSync, ftruncateSync, openSync, readSync, writeSync } from "node:fs";
import path from "node:path";
import { ResponseValidationError } from "../client/errors";
import type { BodySink } from "../client/pipeline";
import { ColumnarError } from "./errors";
import { RowsProfile, type PlannedColumn } from "./json-load";
import { LivePipe } from "./live-pipe";
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
const OPEN = new TextEncoder().encode("[");
const CLOSE = new TextEncoder().encode("]");
const COMMA = new TextEncoder().encode(",");
const SPACE = new TextEncoder().encode(" ");

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

/** Receives a table answer's body: its rows to a spool file as one JSON array, profiled. A new attempt starts over. */
export class RowsSpoolSink implements BodySink, RowsReader {
  #fd: number | undefined;
  #written = 0;
  #scanner!: JsonRowScanner;
  /** Whether the rows array is being read (its bytes go to the spool as they come). */
  #inArray = false;
  /** A second rows array (a body with `data_table` twice): the rows before it, and where a comma may go. */
  #rowsBefore = 0;
  #commaAt = -1;
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

  reset(): void {
    if (this.live) {
      this.live.abandoned = true;
      this.live.pipe.break();
      this.#reader = undefined;
    }
    if (this.#fd === undefined) this.#fd = openSync(this.file, "w+");
    else ftruncateSync(this.#fd, 0);
    this.#written = 0;
    this.#inArray = false;
    this.#commaAt = -1;
    this.#scanner = new JsonRowScanner(this.options.batchRows, { rows: this });
    this.profile = new RowsProfile(this.options.dates !== "keep");
    this.#write(OPEN);
  }

  chunk(bytes: Uint8Array): void | Promise<void> {
    scanning(() => this.#scanner.push(bytes));
    const reader = this.#reader;
    if (reader && this.profile.rows >= reader.afterRows) return this.#goLive(reader);
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
    for (const bytes of spoolBytes(this.#fd!, this.#written)) pipe.write(bytes);
  }

  /** The rows array's bytes (see {@link RowsReader}): read by the profile, then written to the spool as they are. */
  scan(chunk: Uint8Array, from: number, offset: number): number {
    if (!this.#inArray) {
      this.#inArray = true;
      this.#rowsBefore = this.profile.rows;
      // Rows of a second array follow the first's: a comma between them, put in once the second has a row.
      if (this.#rowsBefore > 0) {
        this.#commaAt = this.#written;
        this.#write(SPACE);
      }
    }
    const end = this.profile.scan(chunk, from, offset);
    this.#write(chunk.subarray(from, end < 0 ? chunk.length : end - 1));
    if (end >= 0) {
      this.#inArray = false;
      if (this.#commaAt >= 0 && this.profile.rows > this.#rowsBefore) this.#write(COMMA, this.#commaAt);
      this.#commaAt = -1;
    }
    return end;
  }

  /** After the body: its fields (and a `data_table` of another layout, whole); the spool's array is closed. */
  finish(): ScannedBody {
    const body = scanning(() => this.#scanner.end());
    if (!body.hasDataTable)
      throw new ResponseValidationError(
        `${SOURCE}: the server's response does not fit the schema — expected an object with a data_table field (it has ${Object.keys(body.fields).join(", ") || "no fields"})`,
        { operation: SOURCE, body: body.fields },
        [],
      );
    this.#write(CLOSE);
    this.live?.pipe.end();
    return body;
  }

  /** The spooled rows again, parsed, in batches of `batchRows` (for the rows DuckDB's reader is not given). */
  *reread(): Generator<unknown[]> {
    const scanner = new JsonRowScanner(this.options.batchRows);
    // The spool holds the bare rows array: wrapped again as the scanner reads a body.
    yield* scanner.push(new TextEncoder().encode('{"data_table":'));
    yield* spoolBatches(this.#fd!, scanner);
    yield* scanner.push(new TextEncoder().encode("}"));
  }

  close(): void {
    this.live?.pipe.break();
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }

  /** Writes `bytes` at the spool's end, or over the bytes at `position`. */
  #write(bytes: Uint8Array, position = -1): void {
    try {
      const start = position < 0 ? this.#written : position;
      for (let at = 0; at < bytes.length;) at += writeSync(this.#fd!, bytes, at, bytes.length - at, start + at);
      if (position < 0) this.#written += bytes.length;
      // The pipe cannot go back: a live reader given a second rows array is not used.
      if (position < 0) this.live?.pipe.write(bytes);
      else this.live?.pipe.break();
    } catch (error) {
      throw new ColumnarError(
        `${SOURCE}: could not write the response to ${this.file}: ${(error as Error).message}`,
        "Parquet",
        error,
      );
    }
  }
}
