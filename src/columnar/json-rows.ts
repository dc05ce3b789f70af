/**
 * Reads a `{"data_table": [row, row, …], other: …}` response as it arrives, in byte chunks, handing out
 * the rows in batches and never holding the whole body: a byte scanner finds where each row ends (it
 * tracks nesting, strings and escapes — every byte JSON gives structure to is ASCII, so a UTF-8
 * character split across two chunks is never cut inside a batch), and each batch is parsed at once by
 * the engine's own `JSON.parse`. The response's other top-level fields are small: they are kept as
 * parsed values.
 *
 * Only the rows-of-objects layout (wire-assumptions A13, what the simulator and the public pages give)
 * streams. A `data_table` in another layout (`{columns, rows}`, column-major, `null`) is kept whole and
 * handed out by {@link JsonRowScanner.end}, to be read the way a response held in memory is.
 */

/**
 * The deepest a row may nest objects and arrays, the row itself counted: a deeper row is refused, naming
 * it (a value 200,000 deep would overflow the stack wherever it is shown or written).
 */
export const MAX_ROW_DEPTH = 1_000;

/** What the body held besides the streamed rows. */
export interface ScannedBody {
  /** The top-level fields other than `data_table`, parsed. */
  fields: Record<string, unknown>;
  /** Whether the body had a `data_table` field at all. */
  hasDataTable: boolean;
  /** A `data_table` that is not an array of rows, parsed whole (`undefined` when the rows streamed). */
  dataTable?: unknown;
  /** Rows handed out in batches. */
  rows: number;
  /** Bytes read. */
  bytes: number;
}

/**
 * Reads the bytes of a rows array itself (see {@link JsonRowScanner}'s `rows` option), chunk by chunk as
 * they arrive: for a reader that parses them its own way (DuckDB's, behind a byte-level check).
 */
export interface RowsReader {
  /**
   * Reads from `chunk[from]` on, just after the array's opening bracket or where the last chunk left it
   * (`offset`: the body's byte of `chunk[0]`); returns the index just past the array's closing bracket, or
   * -1 when the array goes on in the next chunk. Throws {@link JsonScanError} for bytes that are not JSON.
   */
  scan(chunk: Uint8Array, from: number, offset: number): number;
}

/** The body is not the JSON the scanner expects; says where. */
export class JsonScanError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
    this.name = "JsonScanError";
  }
}

const enum S {
  Start,
  KeyOrEnd,
  Key,
  KeyString,
  Colon,
  Value,
  Capture,
  Rows,
  CommaOrEnd,
  Done,
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** What a byte is to the row scanner outside strings (a table: one load instead of a chain of comparisons). */
const C_OTHER = 0;
const C_SPACE = 1;
const C_QUOTE = 2;
const C_OPEN = 3;
const C_CLOSE = 4;
const C_COMMA = 5;
const BYTE_CLASS = new Uint8Array(256);
for (const b of [0x20, 0x0a, 0x0d, 0x09]) BYTE_CLASS[b] = C_SPACE;
BYTE_CLASS[QUOTE] = C_QUOTE;
BYTE_CLASS[OPEN_BRACE] = C_OPEN;
BYTE_CLASS[OPEN_BRACKET] = C_OPEN;
BYTE_CLASS[CLOSE_BRACE] = C_CLOSE;
BYTE_CLASS[CLOSE_BRACKET] = C_CLOSE;
BYTE_CLASS[COMMA] = C_COMMA;

function isSpace(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

/** Byte pieces of one text that spans chunks, decoded once complete. */
class Pieces {
  #parts: Uint8Array[] = [];
  #length = 0;

  add(chunk: Uint8Array, start: number, end: number): void {
    if (end > start) {
      this.#parts.push(chunk.subarray(start, end));
      this.#length += end - start;
    }
  }

  get length(): number {
    return this.#length;
  }

  /** The pieces plus `chunk[start, end)`, as text; the pieces are emptied. */
  take(decoder: { decode(bytes: Uint8Array): string }, chunk?: Uint8Array, start = 0, end = 0): string {
    return decoder.decode(this.takeBytes(chunk, start, end));
  }

  /** The pieces plus `chunk[start, end)`, as one byte array (a view of the chunk when it is all); the pieces are emptied. */
  takeBytes(chunk?: Uint8Array, start = 0, end = 0): Uint8Array {
    if (chunk) this.add(chunk, start, end);
    const parts = this.#parts;
    this.#parts = [];
    const length = this.#length;
    this.#length = 0;
    if (parts.length === 1) return parts[0]!;
    const all = new Uint8Array(length);
    let at = 0;
    for (const p of parts) {
      all.set(p, at);
      at += p.length;
    }
    return all;
  }
}

/**
 * Feed it the body's chunks with {@link push} (each call returns the batches of rows completed by that
 * chunk, `batchRows` rows each but the last), then call {@link end}. Chunks are kept by reference until
 * their rows are parsed: do not reuse a chunk's buffer after pushing it.
 */
export class JsonRowScanner {
  #state = S.Start;
  #offset = 0;
  readonly #utf8 = new TextDecoder("utf-8", { fatal: true });
  readonly #decoder = {
    decode: (bytes: Uint8Array): string => {
      try {
        return this.#utf8.decode(bytes);
      } catch {
        throw new JsonScanError("the body is not valid UTF-8", this.#offset);
      }
    },
  };
  readonly #fields: Record<string, unknown> = {};
  #hasDataTable = false;
  #dataTable: unknown;
  #rows = 0;
  #key = "";
  #pieces = new Pieces();
  // Nesting inside the value being captured, or inside the current row.
  #depth = 0;
  #inString = false;
  #escape = false;
  /** Capture: a scalar (number, true, false, null) that ends at a delimiter. */
  #scalar = false;
  /** Rows: commas seen at the array's own level since the batch began (rows completed before them). */
  #commas = 0;
  /** Rows: whether anything but white space was seen since the batch began. */
  #content = false;

  /**
   * `rows`: the rows array's bytes go to this reader as they arrive, neither cut into batches nor parsed
   * here (no batches are handed out; the reader finds where the array ends).
   */
  constructor(
    readonly batchRows = 20_000,
    readonly options: { rows?: RowsReader } = {},
  ) {
    if (!(Number.isInteger(batchRows) && batchRows > 0))
      throw new RangeError(`batchRows must be a whole number > 0, got ${batchRows}`);
  }

  /** Scans one chunk; returns the row batches it completed. */
  push(chunk: Uint8Array): unknown[][] {
    const batches: unknown[][] = [];
    const n = chunk.length;
    let i = 0;
    // Where the bytes being collected (a key, a captured value, the current batch of rows) began in this chunk.
    let from = 0;
    if (this.#offset === 0 && n >= 3 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) i = 3; // a BOM
    while (i < n) {
      switch (this.#state) {
        case S.Start:
        case S.KeyOrEnd:
        case S.Key:
        case S.Colon:
        case S.CommaOrEnd:
        case S.Done: {
          const b = chunk[i]!;
          if (isSpace(b)) {
            i++;
            break;
          }
          this.#structural(b, i);
          i++;
          from = i;
          if ((this.#state as S) === S.KeyString) from = i - 1; // keep the opening quote: the key is parsed as JSON text
          break;
        }
        case S.KeyString: {
          const end = this.#scanString(chunk, i);
          if (end < 0) {
            i = n;
            break;
          }
          this.#key = JSON.parse(this.#pieces.take(this.#decoder, chunk, from, end + 1)) as string;
          this.#state = S.Colon;
          i = end + 1;
          break;
        }
        case S.Value: {
          const r = this.#startValue(chunk, i, from);
          i = r.i;
          from = r.from;
          break;
        }
        case S.Capture:
          i = this.#capture(chunk, i, from);
          break;
        case S.Rows: {
          if (this.options.rows) {
            i = this.#readRows(this.options.rows, chunk, i);
            break;
          }
          const r = this.#scanRows(chunk, i, from, batches);
          i = r.i;
          from = r.from;
          break;
        }
      }
    }
    if (this.#state === S.Rows && !this.options.rows) this.#pieces.add(chunk, from, n);
    else if (this.#state === S.KeyString) this.#pieces.add(chunk, from, n);
    this.#offset += n;
    return batches;
  }

  /** A field's value begins (white space skipped): the rows of `data_table`, or a value to capture whole. */
  #startValue(chunk: Uint8Array, i: number, from: number): { i: number; from: number } {
    const b = chunk[i]!;
    if (isSpace(b)) return { i: i + 1, from };
    if (this.#key === "data_table") this.#hasDataTable = true;
    if (this.#key === "data_table" && b === OPEN_BRACKET) {
      this.#state = S.Rows;
      this.#depth = 0;
      this.#commas = 0;
      this.#content = false;
      return { i: i + 1, from: i + 1 };
    }
    this.#state = S.Capture;
    this.#depth = 0;
    this.#scalar = !(b === OPEN_BRACE || b === OPEN_BRACKET || b === QUOTE);
    return { i, from: i };
  }

  /** The rows array's bytes to the reader: where scanning goes on (the chunk's end while the array goes on). */
  #readRows(reader: RowsReader, chunk: Uint8Array, i: number): number {
    const end = reader.scan(chunk, i, this.#offset);
    if (end < 0) return chunk.length;
    this.#state = S.CommaOrEnd;
    return end;
  }

  /** A captured value: parsed and kept when it ends in this chunk, else collected for the next; returns where scanning goes on. */
  #capture(chunk: Uint8Array, i: number, from: number): number {
    const end = this.#scanValue(chunk, i);
    if (end < 0) {
      this.#pieces.add(chunk, from, chunk.length);
      return chunk.length;
    }
    const text = this.#pieces.take(this.#decoder, chunk, from, end);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new JsonScanError(
        `the value of "${this.#key}" is not JSON: ${(error as Error).message}`,
        this.#offset + end,
      );
    }
    if (this.#key === "data_table") this.#dataTable = value;
    // Defined, not assigned: a field named `__proto__` is a field, as JSON.parse keeps it.
    else
      Object.defineProperty(this.#fields, this.#key, { value, enumerable: true, writable: true, configurable: true });
    this.#state = S.CommaOrEnd;
    return end;
  }

  /** The body is complete: what it held besides the rows. Throws when it ended early. */
  end(): ScannedBody {
    if (this.#state !== S.Done) {
      if (this.#state === S.Start)
        throw new JsonScanError(
          this.#offset === 0 ? "the body is empty" : "the body holds no JSON value",
          this.#offset,
        );
      throw new JsonScanError(
        `the body ended before its JSON was complete (after ${this.#offset} bytes)`,
        this.#offset,
      );
    }
    return {
      fields: this.#fields,
      hasDataTable: this.#hasDataTable,
      ...(this.#dataTable === undefined ? {} : { dataTable: this.#dataTable }),
      rows: this.#rows,
      bytes: this.#offset,
    };
  }

  /** A structural byte outside any value. */
  #structural(b: number, i: number): void {
    const at = this.#offset + i;
    switch (this.#state) {
      case S.Start:
        if (b !== OPEN_BRACE) throw new JsonScanError(`expected a JSON object, found ${describe(b)}`, at);
        this.#state = S.KeyOrEnd;
        return;
      case S.KeyOrEnd:
      case S.Key:
        if (b === CLOSE_BRACE && this.#state === S.KeyOrEnd) {
          this.#state = S.Done;
          return;
        }
        if (b !== QUOTE) throw new JsonScanError(`expected a field name, found ${describe(b)}`, at);
        this.#state = S.KeyString;
        this.#inString = true;
        this.#escape = false;
        return;
      case S.Colon:
        if (b !== COLON) throw new JsonScanError(`expected ":" after "${this.#key}", found ${describe(b)}`, at);
        this.#state = S.Value;
        return;
      case S.CommaOrEnd:
        if (b === COMMA) this.#state = S.Key;
        else if (b === CLOSE_BRACE) this.#state = S.Done;
        else throw new JsonScanError(`expected "," or "}" after the value of "${this.#key}", found ${describe(b)}`, at);
        return;
      case S.Done:
        throw new JsonScanError(`unexpected ${describe(b)} after the end of the JSON object`, at);
    }
  }

  /** Inside a string: the index of its closing quote in this chunk, or -1 (the string goes on). */
  #scanString(chunk: Uint8Array, i: number): number {
    const n = chunk.length;
    let escape = this.#escape;
    for (; i < n; i++) {
      const b = chunk[i]!;
      if (escape) escape = false;
      else if (b === BACKSLASH) escape = true;
      else if (b === QUOTE) {
        this.#escape = false;
        this.#inString = false;
        return i;
      }
    }
    this.#escape = escape;
    return -1;
  }

  /** A captured value: the index just past its end in this chunk, or -1 (it goes on). */
  #scanValue(chunk: Uint8Array, i: number): number {
    const n = chunk.length;
    let depth = this.#depth;
    let inString = this.#inString;
    let escape = this.#escape;
    for (; i < n; i++) {
      const b = chunk[i]!;
      if (inString) {
        if (escape) escape = false;
        else if (b === BACKSLASH) escape = true;
        else if (b === QUOTE) {
          inString = false;
          if (depth === 0) return this.#ended(i + 1);
        }
        continue;
      }
      if (this.#scalar) {
        if (isSpace(b) || b === COMMA || b === CLOSE_BRACE) return this.#ended(i);
        continue;
      }
      if (b === QUOTE) inString = true;
      else if (b === OPEN_BRACE || b === OPEN_BRACKET) depth++;
      else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
        depth--;
        if (depth === 0) return this.#ended(i + 1);
      }
    }
    this.#depth = depth;
    this.#inString = inString;
    this.#escape = escape;
    return -1;
  }

  #ended(end: number): number {
    this.#depth = 0;
    this.#inString = false;
    this.#escape = false;
    return end;
  }

  /**
   * Inside the rows array: counts the rows (commas at the array's level) and cuts a batch every
   * `batchRows` rows; at the closing bracket the last batch is cut and the object goes on.
   */
  #scanRows(chunk: Uint8Array, i: number, from: number, batches: unknown[][]): { i: number; from: number } {
    const n = chunk.length;
    let depth = this.#depth;
    let inString = this.#inString;
    let escape = this.#escape;
    let content = this.#content;
    while (i < n) {
      if (inString) {
        // Most of a row is text: a tight loop to the string's closing quote (a backslash skips the byte after it).
        if (escape) {
          escape = false;
          i++;
        }
        // The engine's own search for the next quote; one preceded by an odd run of backslashes is escaped.
        const start = i;
        let q = chunk.indexOf(QUOTE, i);
        while (q >= 0 && oddBackslashesBefore(chunk, q, start)) q = chunk.indexOf(QUOTE, q + 1);
        if (q < 0) {
          escape = oddBackslashesBefore(chunk, n, start);
          i = n;
          break;
        }
        i = q;
        inString = false;
        i++;
        continue;
      }
      const b = chunk[i]!;
      const c = BYTE_CLASS[b]!;
      if (c === C_OTHER) content = true;
      else if (c === C_QUOTE) {
        inString = true;
        content = true;
      } else if (c === C_OPEN) {
        if (++depth > MAX_ROW_DEPTH) throw this.#tooDeep(this.#offset + i);
        content = true;
      } else if (c === C_CLOSE) {
        if (depth === 0) {
          if (b !== CLOSE_BRACKET) throw new JsonScanError(`unexpected "}" in data_table`, this.#offset + i);
          if (content) batches.push(this.#batch(chunk, from, i));
          else if (this.#commas > 0) throw new JsonScanError("data_table ends with a comma", this.#offset + i);
          this.#state = S.CommaOrEnd;
          this.#depth = 0;
          this.#inString = false;
          this.#escape = false;
          return { i: i + 1, from: i + 1 };
        }
        depth--;
      } else if (c === C_COMMA) {
        if (depth === 0 && ++this.#commas >= this.batchRows) {
          batches.push(this.#batch(chunk, from, i));
          from = i + 1;
          content = false;
        }
      }
      i++;
    }
    this.#depth = depth;
    this.#inString = inString;
    this.#escape = escape;
    this.#content = content;
    return { i: n, from };
  }

  /** The row being read nests deeper than {@link MAX_ROW_DEPTH}: its index is the rows before it. */
  #tooDeep(offset: number): JsonScanError {
    return new JsonScanError(
      `data_table row ${this.#rows + this.#commas} is nested too deep: more than ${MAX_ROW_DEPTH} levels of objects and arrays`,
      offset,
    );
  }

  /** The rows collected so far plus `chunk[from, end)`, parsed. */
  #batch(chunk: Uint8Array, from: number, end: number): unknown[] {
    const text = this.#pieces.take(this.#decoder, chunk, from, end);
    this.#commas = 0;
    this.#content = false;
    let rows: unknown;
    try {
      rows = JSON.parse(`[${text}]`);
    } catch (error) {
      throw new JsonScanError(
        `data_table rows ${this.#rows}… are not JSON: ${(error as Error).message}`,
        this.#offset + end,
      );
    }
    this.#rows += (rows as unknown[]).length;
    return rows as unknown[];
  }
}

/** Whether the bytes just before `end`, back to `start`, are an odd run of backslashes (the byte at `end` is escaped). */
function oddBackslashesBefore(chunk: Uint8Array, end: number, start: number): boolean {
  let k = end - 1;
  while (k >= start && chunk[k] === BACKSLASH) k--;
  return (end - 1 - k) % 2 === 1;
}

function describe(b: number): string {
  return b >= 0x20 && b < 0x7f ? JSON.stringify(String.fromCharCode(b)) : `byte 0x${b.toString(16).padStart(2, "0")}`;
}
