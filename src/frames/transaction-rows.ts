/**
 * A table answer's rows spooled for DuckDB's own JSON reader: the body is scanned as it arrives (the
 * `{"data_table": …}` wrapper cut off, its other fields kept), the rows' bytes written to a spool file
 * as one bare JSON array and profiled ({@link RowsProfile}: strict JSON, UTF-8, the columns and the
 * kinds the adapter would give them). Nothing is parsed into JS objects on the way.
 */
import { closeSync, ftruncateSync, openSync, readSync, writeSync } from "node:fs";
import { ResponseValidationError } from "../client/errors";
import type { BodySink } from "../client/pipeline";
import { ColumnarError } from "../columnar/errors";
import { RowsProfile } from "../columnar/json-load";
import { JsonRowScanner, JsonScanError, type ScannedBody } from "../columnar/json-rows";

const SOURCE = "GetTransactionTable";
/** Bytes read from the spool at a time when the rows are read again. */
const SPOOL_READ_BYTES = 1 << 20;
const OPEN = new TextEncoder().encode("[");
const CLOSE = new TextEncoder().encode("]");
const COMMA = new TextEncoder().encode(",");

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

/** Receives a table answer's body: its rows to a spool file as one JSON array, profiled. A new attempt starts over. */
export class RowsSpoolSink implements BodySink {
  #fd: number | undefined;
  #written = 0;
  #batches = 0;
  #scanner!: JsonRowScanner;
  profile!: RowsProfile;

  constructor(
    readonly file: string,
    readonly options: { dates?: "parse" | "keep"; batchRows: number },
  ) {}

  reset(): void {
    if (this.#fd === undefined) this.#fd = openSync(this.file, "w+");
    else ftruncateSync(this.#fd, 0);
    this.#written = 0;
    this.#batches = 0;
    this.#scanner = new JsonRowScanner(this.options.batchRows, { raw: true });
    this.profile = new RowsProfile(this.options.dates !== "keep");
    this.#write(OPEN);
  }

  chunk(bytes: Uint8Array): void {
    scanning(() => this.#scanner.push(bytes));
    for (const rows of this.#scanner.takeRaw()) {
      scanning(() => this.profile.add(rows));
      if (this.#batches++ > 0) this.#write(COMMA);
      this.#write(rows);
    }
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
    return body;
  }

  /** The spooled rows again, parsed, in batches of `batchRows` (for the rows DuckDB's reader is not given). */
  *reread(): Generator<unknown[]> {
    const scanner = new JsonRowScanner(this.options.batchRows);
    yield* scanner.push(new TextEncoder().encode('{"data_table":'));
    for (let position = 0; ;) {
      const buffer = new Uint8Array(SPOOL_READ_BYTES);
      const read = readSync(this.#fd!, buffer, 0, SPOOL_READ_BYTES, position);
      if (read === 0) break;
      position += read;
      yield* scanner.push(buffer.subarray(0, read));
    }
    yield* scanner.push(new TextEncoder().encode("}"));
  }

  close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }

  #write(bytes: Uint8Array): void {
    try {
      for (let at = 0; at < bytes.length;) at += writeSync(this.#fd!, bytes, at, bytes.length - at, this.#written + at);
      this.#written += bytes.length;
    } catch (error) {
      throw new ColumnarError(
        `${SOURCE}: could not write the response to ${this.file}: ${(error as Error).message}`,
        "Parquet",
        error,
      );
    }
  }
}
