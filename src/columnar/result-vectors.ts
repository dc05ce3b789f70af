/**
 * A DuckDB query result read into JS arrays a column at a time, from the bytes of DuckDB's vectors
 * (`@duckdb/node-bindings`): fixed-width values through typed-array views, NULLs from the validity
 * mask, text from its 16-byte string records, ENUMs through their dictionary. The values are those
 * `getColumnsJS()` of `@duckdb/node-api` gives (numbers, bigints, `Date`s, strings), without building a
 * value object per row (a date column's rows of one instant share one `Date`: see {@link DateShare});
 * types this reader does not know go through `getColumnsJS()`'s own converter, so every result reads
 * as before.
 */
import type { FinalKind, ResultColumns } from "./result-columns";
export type { FinalKind, ResultColumns } from "./result-columns";

type DuckDB = typeof import("@duckdb/node-api");
type Bindings = typeof import("@duckdb/node-bindings");
type DuckType = import("@duckdb/node-api").DuckDBType;
type Result = import("@duckdb/node-api").DuckDBResult;
type Chunk = import("@duckdb/node-api").DuckDBDataChunk;
type Vector = import("@duckdb/node-bindings").Vector;

/** Where a reader writes a column's values: an array, or a `Float64Array` for a typed number or date column. */
type Slots = { [i: number]: unknown };

/** Reads one chunk's rows of one column into `out`, from row `o`; returns how many of them are NULL. */
type ColumnReader = (chunk: Chunk, j: number, n: number, out: Slots, o: number) => number;

/** Where JS `Date`s end (±8.64e15 ms): a DuckDB date or timestamp beyond is an error, as in `getColumnsJS()`. */
const MAX_DATE_MS = 8_640_000_000_000_000;
const MAX_DATE_DAYS = 100_000_000;
const DAY_MS = 86_400_000;
const TWO_32 = 4294967296;

/**
 * Reads every chunk of `result` into one array per column (a materialized result's chunks taken in
 * turn, a streaming result's fetched and dropped once read). A streamed result whose query fails after
 * its first chunks just ends: the caller of a streamed result must find out whether its query failed
 * (`SqlSession` runs it in a transaction of its own, which the failure aborts). `typed`: numbers and
 * dates into `Float64Array`s, a date as its epoch milliseconds (see {@link ResultColumns.columns}).
 */
export async function readResultColumns(D: DuckDB, B: Bindings, result: Result, typed = false): Promise<ResultColumns> {
  const names = result.columnNames();
  const types = result.columnTypes();
  const readers = types.map((type) => columnReader(D, B, type, typed));
  const final = readers.map((reader) => FINAL.get(reader));
  // A materialized result's chunks are there to take, without a round trip through the thread pool each,
  // and its arrays are made at their full length (no copy as they grow).
  const materialized = result instanceof D.DuckDBMaterializedResult ? result : undefined;
  const count = materialized?.chunkCount ?? Infinity;
  const columns = final.map((kind) =>
    typed && (kind === "number" || kind === "date")
      ? new FloatSegments(materialized?.rowCount)
      : new Segments(materialized?.rowCount),
  );
  const missing = readers.map(() => 0);
  let rows = 0;
  // A streamed result's next chunk is asked for before this one is read: DuckDB makes it meanwhile.
  let next = materialized ? undefined : result.fetchChunk();
  try {
    for (let k = 0; k < count; k++) {
      const chunk = materialized ? materialized.getChunk(k) : await next;
      if (!chunk || chunk.rowCount === 0) break;
      if (!materialized) next = result.fetchChunk();
      const n = chunk.rowCount;
      for (let j = 0; j < readers.length; j++) {
        const [out, o] = columns[j]!.room(n);
        missing[j]! += readers[j]!(chunk, j, n, out, o);
      }
      rows += n;
    }
  } finally {
    // A reader that throws leaves a fetch under way: the connection is not to be used before it ends.
    await next?.catch(() => undefined);
  }
  return { names, types, columns: columns.map((column) => column.values()), rows, final, missing };
}

/**
 * A column's values as they are read, in arrays of growing size (each twice the one before), made one
 * array at the end: each value is copied once, where an array grown a value at a time copies them all
 * at every growth. Made at its full length when the row count is known (`rows`).
 */
class Segments {
  readonly #done: unknown[][] = [];
  #current: unknown[];
  #used = 0;

  constructor(rows?: number) {
    this.#current = rows === undefined ? [] : new Array<unknown>(rows);
  }

  /** The array and the offset in it at which to write the next `n` values. */
  room(n: number): [unknown[], number] {
    if (this.#used + n > this.#current.length) {
      if (this.#used > 0) {
        this.#current.length = this.#used;
        this.#done.push(this.#current);
      }
      this.#current = new Array<unknown>(Math.max(n, 2 * this.#used, MIN_SEGMENT));
      this.#used = 0;
    }
    const at = this.#used;
    this.#used += n;
    return [this.#current, at];
  }

  /** The values read, in one array. */
  values(): unknown[] {
    this.#current.length = this.#used;
    if (this.#done.length === 0) return this.#current;
    return this.#done.shift()!.concat(...this.#done, this.#current);
  }
}

/** The first array of a streamed column (see {@link Segments}): two chunks of DuckDB's. */
const MIN_SEGMENT = 4096;

/**
 * {@link Segments} of a typed column: a `Float64Array` made at the full length when the row count is
 * known; else grown by doubling (each value copied once more at each growth, a block copy) and cut to
 * the rows read at the end.
 */
class FloatSegments {
  #current: Float64Array;
  #used = 0;

  constructor(rows?: number) {
    this.#current = new Float64Array(rows ?? MIN_SEGMENT);
  }

  room(n: number): [Float64Array, number] {
    if (this.#used + n > this.#current.length) {
      const grown = new Float64Array(Math.max(this.#used + n, 2 * this.#current.length));
      grown.set(this.#current.subarray(0, this.#used));
      this.#current = grown;
    }
    const at = this.#used;
    this.#used += n;
    return [this.#current, at];
  }

  values(): Float64Array {
    return this.#used === this.#current.length ? this.#current : this.#current.slice(0, this.#used);
  }
}

/** The readers whose values are final, and their kind (see {@link ResultColumns.final}). */
const FINAL = new WeakMap<ColumnReader, FinalKind>();

function final(kind: FinalKind, reader: ColumnReader): ColumnReader {
  FINAL.set(reader, kind);
  return reader;
}

/**
 * The reader for one column's type: from the vector's bytes where the type allows, else value by value.
 * `typed`: a date reader writes epoch milliseconds (NaN for NULL), not `Date`s.
 */
function columnReader(D: DuckDB, B: Bindings, type: DuckType, typed: boolean): ColumnReader {
  const T = D.DuckDBTypeId;
  switch (type.typeId) {
    case T.DOUBLE:
      return fixed(B, 8, (bytes, n) => new Float64Array(bytes.buffer, bytes.byteOffset, n));
    case T.FLOAT:
      return fixed(B, 4, (bytes, n) => new Float32Array(bytes.buffer, bytes.byteOffset, n));
    case T.INTEGER:
      return fixed(B, 4, (bytes, n) => new Int32Array(bytes.buffer, bytes.byteOffset, n));
    case T.UINTEGER:
      return fixed(B, 4, (bytes, n) => new Uint32Array(bytes.buffer, bytes.byteOffset, n));
    case T.SMALLINT:
      return fixed(B, 2, (bytes, n) => new Int16Array(bytes.buffer, bytes.byteOffset, n));
    case T.USMALLINT:
      return fixed(B, 2, (bytes, n) => new Uint16Array(bytes.buffer, bytes.byteOffset, n));
    case T.TINYINT:
      return fixed(B, 1, (bytes, n) => new Int8Array(bytes.buffer, bytes.byteOffset, n));
    case T.UTINYINT:
      return fixed(B, 1, (bytes) => bytes);
    case T.BOOLEAN:
      return final("boolean", booleans(B));
    case T.BIGINT:
    case T.UBIGINT:
      return bigints(B, type.typeId === T.UBIGINT);
    case T.DATE:
      return final("date", dates(B, typed));
    case T.TIMESTAMP:
    case T.TIMESTAMP_TZ: {
      const what = type.typeId === T.TIMESTAMP ? "TIMESTAMP" : "TIMESTAMPTZ";
      return final("date", timestamps(B, 1000, { what, unit: "micros", typed }));
    }
    case T.TIMESTAMP_MS:
      return final("date", timestamps(B, 1, { what: "TIMESTAMP_MS", unit: "millis", typed }));
    case T.TIMESTAMP_NS:
      return final("date", timestamps(B, 1_000_000, { what: "TIMESTAMP_NS", unit: "nanos", typed }));
    case T.TIMESTAMP_S:
      return final("date", timestamps(B, 1 / 1000, { what: "TIMESTAMP_S", unit: "seconds", typed }));
    case T.VARCHAR:
      return final("string", text(B));
    case T.ENUM:
      return enums(B, (type as unknown as { values: readonly string[] }).values);
    case T.DECIMAL:
      return decimals(D, B, type);
    default:
      return valueByValue(D);
  }
}

/** Row `i`'s validity bit in a mask of 64-bit words, as bytes (`null`: every row valid). */
function isValid(mask: Uint8Array | null, i: number): boolean {
  return mask === null || (mask[i >> 3]! & (1 << (i & 7))) !== 0;
}

/** The validity mask of a chunk's vector (`null` when DuckDB has none: every row valid). */
function validity(B: Bindings, vector: Vector, n: number): Uint8Array | null {
  return B.vector_get_validity(vector, Math.ceil(n / 64) * 8);
}

/**
 * Numbers of a fixed width: a typed-array view over the vector's data, NULL as `NaN` (what a missing
 * number is in a column table; `null` would make the array hold every number boxed). Counts as missing
 * NULLs and NaN values both, as a column table does.
 */
function fixed(B: Bindings, width: number, view: (bytes: Uint8Array, n: number) => ArrayLike<number>): ColumnReader {
  return final("number", (chunk, j, n, out, o) => {
    const vector = B.data_chunk_get_vector(chunk.chunk, j);
    const values = view(aligned(B.vector_get_data(vector, n * width), width), n);
    const mask = validity(B, vector, n);
    let missing = 0;
    for (let i = 0; i < n; i++) {
      const v = isValid(mask, i) ? values[i]! : NaN;
      out[o + i] = v;
      if (v !== v) missing++;
    }
    return missing;
  });
}

/** The bytes, copied when they do not start on a multiple of `width` (a typed array needs that). */
function aligned(bytes: Uint8Array, width: number): Uint8Array {
  return bytes.byteOffset % width === 0 ? bytes : bytes.slice();
}

function booleans(B: Bindings): ColumnReader {
  return (chunk, j, n, out, o) => {
    const vector = B.data_chunk_get_vector(chunk.chunk, j);
    const values = B.vector_get_data(vector, n);
    const mask = validity(B, vector, n);
    let missing = 0;
    for (let i = 0; i < n; i++)
      if (isValid(mask, i)) out[o + i] = values[i] !== 0;
      else {
        out[o + i] = null;
        missing++;
      }
    return missing;
  };
}

/**
 * 64-bit integers: a number while within ±2^53 (the column is read as numbers when all are, see
 * `exactNumbers`), the exact bigint beyond, as `getColumnsJS()` gives every value.
 */
function bigints(B: Bindings, unsigned: boolean): ColumnReader {
  return (chunk, j, n, out, o) => {
    const vector = B.data_chunk_get_vector(chunk.chunk, j);
    const bytes = aligned(B.vector_get_data(vector, n * 8), 8);
    const words = new Int32Array(bytes.buffer, bytes.byteOffset, n * 2);
    const mask = validity(B, vector, n);
    let missing = 0;
    for (let i = 0; i < n; i++) {
      if (!isValid(mask, i)) {
        out[o + i] = null;
        missing++;
        continue;
      }
      const low = words[2 * i]! >>> 0;
      const high = words[2 * i + 1]!;
      const safe = unsigned
        ? high >= 0 && high < 0x200000
        : (high > -0x200000 && high < 0x200000) || (high === -0x200000 && low > 0);
      if (safe) out[o + i] = high * TWO_32 + low;
      else
        out[o + i] = unsigned
          ? new BigUint64Array(bytes.buffer, bytes.byteOffset + i * 8, 1)[0]!
          : new BigInt64Array(bytes.buffer, bytes.byteOffset + i * 8, 1)[0]!;
    }
    return missing;
  };
}

/** DATE values as `Date`s (`typed`: as epoch milliseconds, NaN for NULL). */
function dates(B: Bindings, typed: boolean): ColumnReader {
  const share = new DateShare();
  const none = typed ? NaN : null;
  return (chunk, j, n, out, o) => {
    const vector = B.data_chunk_get_vector(chunk.chunk, j);
    const bytes = aligned(B.vector_get_data(vector, n * 4), 4);
    const days = new Int32Array(bytes.buffer, bytes.byteOffset, n);
    const mask = validity(B, vector, n);
    let missing = 0;
    for (let i = 0; i < n; i++) {
      if (!isValid(mask, i)) {
        out[o + i] = none;
        missing++;
        continue;
      }
      const d = days[i]!;
      if (d < -MAX_DATE_DAYS || d > MAX_DATE_DAYS) throw new Error(`DATE value out of range for JS Date: ${d} days`);
      out[o + i] = typed ? d * DAY_MS : share.date(d * DAY_MS);
    }
    return missing;
  };
}

/**
 * Timestamps of `perMs` units per millisecond, as `Date`s of the whole milliseconds (truncated toward
 * zero, as `getColumnsJS()` divides); beyond a JS `Date`, the error it throws (`what`, `unit` name the
 * type). `typed`: the milliseconds themselves, NaN for NULL.
 */
function timestamps(B: Bindings, perMs: number, how: { what: string; unit: string; typed: boolean }): ColumnReader {
  const share = new DateShare();
  const { what, unit, typed } = how;
  const none = typed ? NaN : null;
  return (chunk, j, n, out, o) => {
    const vector = B.data_chunk_get_vector(chunk.chunk, j);
    const bytes = aligned(B.vector_get_data(vector, n * 8), 8);
    const words = new Int32Array(bytes.buffer, bytes.byteOffset, n * 2);
    const mask = validity(B, vector, n);
    let missing = 0;
    for (let i = 0; i < n; i++) {
      if (!isValid(mask, i)) {
        out[o + i] = none;
        missing++;
        continue;
      }
      const high = words[2 * i + 1]!;
      let ms: number;
      if (high > -0x200000 && high < 0x200000) {
        const units = high * TWO_32 + (words[2 * i]! >>> 0);
        ms = perMs >= 1 ? truncDiv(units, perMs) : units * 1000;
      } else {
        const units = new BigInt64Array(bytes.buffer, bytes.byteOffset + i * 8, 1)[0]!;
        ms = Number(perMs >= 1 ? units / BigInt(perMs) : units * 1000n);
      }
      if (!(ms >= -MAX_DATE_MS && ms <= MAX_DATE_MS)) throw outOfRange(what, bytes, i, unit);
      out[o + i] = typed ? ms + 0 : share.date(ms); // + 0: -0 (truncated from before 1970) is 0, as a Date's time
    }
    return missing;
  };
}

/** `a / b` truncated toward zero, exact for integers within ±2^53. */
function truncDiv(a: number, b: number): number {
  let q = Math.trunc(a / b);
  const r = a - q * b;
  if (a >= 0 ? r < 0 : r > 0) q += a >= 0 ? -1 : 1;
  else if (a >= 0 ? r >= b : r <= -b) q += a >= 0 ? 1 : -1;
  return q;
}

function outOfRange(what: string, bytes: Uint8Array, i: number, unit: string): Error {
  const value = new BigInt64Array(bytes.buffer, bytes.byteOffset + i * 8, 1)[0]!;
  return new Error(`${what} value out of range for JS Date: ${value} ${unit}`);
}

/** ENUM values: each row's index into the type's dictionary (1, 2 or 4 bytes, by its size). */
function enums(B: Bindings, levels: readonly string[]): ColumnReader {
  const width = levels.length <= 0xff ? 1 : levels.length <= 0xffff ? 2 : 4;
  return (chunk, j, n, out, o) => {
    const vector = B.data_chunk_get_vector(chunk.chunk, j);
    const bytes = aligned(B.vector_get_data(vector, n * width), width);
    const codes =
      width === 1
        ? bytes
        : width === 2
          ? new Uint16Array(bytes.buffer, bytes.byteOffset, n)
          : new Uint32Array(bytes.buffer, bytes.byteOffset, n);
    const mask = validity(B, vector, n);
    let missing = 0;
    for (let i = 0; i < n; i++)
      if (isValid(mask, i)) out[o + i] = levels[codes[i]!]!;
      else {
        out[o + i] = null;
        missing++;
      }
    return missing;
  };
}

/**
 * DECIMAL as the double DuckDB casts it to (the integer ÷ 10^scale), from 2-, 4- or 8-byte integers,
 * NULL as `NaN`; 16-byte ones (width > 18) value by value.
 */
function decimals(D: DuckDB, B: Bindings, type: { width: number; scale: number }): ColumnReader {
  if (type.width > 18) return valueByValue(D);
  const width = type.width <= 4 ? 2 : type.width <= 9 ? 4 : 8;
  const divisor = Number(`1e${type.scale}`);
  return final("number", (chunk, j, n, out, o) => {
    const vector = B.data_chunk_get_vector(chunk.chunk, j);
    const bytes = aligned(B.vector_get_data(vector, n * width), width);
    const mask = validity(B, vector, n);
    let missing = 0;
    if (width === 8) {
      const big = new BigInt64Array(bytes.buffer, bytes.byteOffset, n);
      for (let i = 0; i < n; i++)
        if (isValid(mask, i)) out[o + i] = Number(big[i]!) / divisor;
        else {
          out[o + i] = NaN;
          missing++;
        }
      return missing;
    }
    const ints =
      width === 2
        ? new Int16Array(bytes.buffer, bytes.byteOffset, n)
        : new Int32Array(bytes.buffer, bytes.byteOffset, n);
    for (let i = 0; i < n; i++)
      if (isValid(mask, i)) out[o + i] = ints[i]! / divisor;
      else {
        out[o + i] = NaN;
        missing++;
      }
    return missing;
  });
}

/** Any other type: `getColumnsJS()`'s own conversion, value by value. */
function valueByValue(D: DuckDB): ColumnReader {
  return (chunk, j, _n, out, o) => {
    let missing = 0;
    chunk.convertColumnValues(j, D.JSDuckDBValueConverter).forEach((v, i) => {
      out[o + i] = v;
      if (v === null) missing++;
    });
    return missing;
  };
}

/**
 * Text from DuckDB's 16-byte string records (a 32-bit length, then the bytes, zero-padded, when at most
 * 12; else a 4-byte prefix and a pointer). Short text is looked up by its whole record in a table of the
 * column's distinct values, so a repeated value is one string, decoded once, while the column repeats
 * its values (DuckDB's C API gives no dictionary for text: it hands out flat vectors). Longer strings' bytes are read a run of memory at a
 * time (in a materialized result, strings lie one after another) and looked up by their bytes. A value
 * that repeats the row before is that row's string, before any lookup (see {@link LastText}). ASCII text
 * is cut from a one-byte-per-character reading of the bytes, other text decoded as UTF-8.
 */
function text(B: Bindings): ColumnReader {
  const short = new RecordTable();
  const long = new TextTable();
  const scratch = new LongScratch();
  const last = new LastText();
  return (chunk, j, n, out, o) => {
    const vector = B.data_chunk_get_vector(chunk.chunk, j);
    const records = aligned(B.vector_get_data(vector, n * 16), 8);
    const words = new Uint32Array(records.buffer, records.byteOffset, n * 4);
    const mask = validity(B, vector, n);
    const bytes = Buffer.from(records.buffer, records.byteOffset, n * 16);
    let latin1: string | undefined;
    const block = longStrings(B, words, mask, n, scratch);
    let missing = 0;
    for (let i = 0; i < n; i++) {
      if (!isValid(mask, i)) {
        out[o + i] = null;
        missing++;
        continue;
      }
      const length = words[4 * i]!;
      if (length <= 12) {
        let value = last.short(words, 4 * i);
        if (value === undefined) {
          value = short.on ? short.get(words, 4 * i) : undefined;
          if (value === undefined) {
            const at = i * 16 + 4;
            const ascii = ((words[4 * i + 1]! | words[4 * i + 2]! | words[4 * i + 3]!) & 0x80808080) === 0;
            if (ascii) value = (latin1 ??= bytes.toString("latin1", 0, n * 16)).substring(at, at + length);
            else value = bytes.toString("utf8", at, at + length);
            if (short.on) short.set(words, 4 * i, value);
          }
          last.setShort(words, 4 * i, value);
        }
        out[o + i] = value;
        continue;
      }
      const r = block.run[i]!;
      const at = block.at[i]!;
      const view = block.views[r]!;
      let value = last.long(view, at, length, words[4 * i + 1]!);
      if (value === undefined) {
        const run = block.bytes[r]!;
        value = long.on ? long.get(run, at, length, view) : undefined;
        if (value === undefined) {
          value = isAscii(run, at, length)
            ? (block.latin1[r] ??= run.toString("latin1")).substring(at, at + length)
            : run.toString("utf8", at, at + length);
          if (long.on) long.set(run, at, length, value);
        }
        last.setLong(view, at, length, words[4 * i + 1]!, value);
      }
      out[o + i] = value;
    }
    return missing;
  };
}

/**
 * The string of a text column's last value read (NULLs apart, across chunks) and its bytes: a value
 * that repeats the one before (a sorted column's runs, a constant column) is that string, found without
 * a table lookup.
 */
class LastText {
  /** The last value's record words: its length, then its first 12 bytes (short text) or its prefix. */
  #length = -1;
  #w1 = 0;
  #w2 = 0;
  #w3 = 0;
  /** A long last value's bytes: where they are (a run of a chunk, kept while they are the last value's). */
  #view: DataView | undefined;
  #at = 0;
  #value: string | undefined;

  /** The last value, when the short text at `words[k..k+3]` is the same. */
  short(words: Uint32Array, k: number): string | undefined {
    return words[k] === this.#length &&
      words[k + 1] === this.#w1 &&
      words[k + 2] === this.#w2 &&
      words[k + 3] === this.#w3
      ? this.#value
      : undefined;
  }

  setShort(words: Uint32Array, k: number, value: string): void {
    this.#length = words[k]!;
    this.#w1 = words[k + 1]!;
    this.#w2 = words[k + 2]!;
    this.#w3 = words[k + 3]!;
    this.#view = undefined;
    this.#value = value;
  }

  /** The last value, when the `length` bytes at `at` of `view` (whose first four are `prefix`) are the same. */
  long(view: DataView, at: number, length: number, prefix: number): string | undefined {
    const last = this.#view;
    return length === this.#length &&
      prefix === this.#w1 &&
      last !== undefined &&
      sameBytes(view, at, last, this.#at, length)
      ? this.#value
      : undefined;
  }

  setLong(view: DataView, at: number, length: number, prefix: number, value: string): void {
    this.#length = length;
    this.#w1 = prefix;
    this.#view = view;
    this.#at = at;
    this.#value = value;
  }
}

/** Distinct values a text column's table holds (beyond, values not yet held are decoded as they come). */
const SHARED_MAX = 65_536;
/** Lookups per window: a table whose window found fewer than a quarter of its values held stops. */
const WINDOW = 16_384;

/**
 * Whether a column's table of distinct values pays: it stops after a window of lookups in which fewer
 * than a quarter of the values were already held (a column of mostly distinct values, where a lookup
 * costs more than it saves).
 */
class SharePolicy {
  #lookups = 0;
  #hits = 0;
  /** False once the column shows mostly distinct values. */
  on = true;

  /** Counts a lookup (`hit`: the value was held). */
  count(hit: boolean): void {
    if (hit) this.#hits++;
    if (++this.#lookups < WINDOW) return;
    if (this.#hits * 4 < WINDOW) this.on = false;
    this.#lookups = this.#hits = 0;
  }
}

/**
 * What the rows that share a `Date` (see {@link DateShare}) inherit from: `Date.prototype`, with every
 * setter throwing instead of changing the instant of every row that holds it. `constructor` is `Date`,
 * so such a Date shows as any other.
 */
const SHARED_DATE: object = Object.create(Date.prototype, {
  constructor: { value: Date, writable: true, configurable: true },
  ...Object.fromEntries(
    Object.getOwnPropertyNames(Date.prototype)
      .filter((name) => name.startsWith("set"))
      .map((name) => [name, { value: sharedDateSetter(name), writable: true, configurable: true }]),
  ),
});

function sharedDateSetter(name: string): (this: Date) => never {
  return function (this: Date) {
    const at = Number.isNaN(this.getTime()) ? "Invalid Date" : this.toISOString();
    throw new TypeError(
      `${name}: this Date (${at}) is the value of every row of the query result at that instant (one Date for all of them): change a copy, new Date(date)`,
    );
  };
}

/**
 * A date column's `Date`s, one per distinct instant: a row whose instant an earlier row of the column
 * has gets that row's `Date` (2M `Date`s cost about a second and their memory; a date column repeats its
 * days). A `Date` held by two rows or more cannot be changed (see {@link SHARED_DATE}): a change would
 * reach every row of that instant. Up to {@link SHARED_MAX} instants; stops as {@link RecordTable} does
 * on a column of mostly distinct instants (each row then has its own `Date`). Midnights UTC (a date
 * column's usual instants) are found by their day number, other instants through a map. Exported for its tests.
 */
export class DateShare {
  readonly #dates = new Map<number, Date>();
  /** Dates at midnight UTC by their day (from `#firstDay`), and whether each is shared: a cheaper lookup than the map. */
  #byDay: (Date | undefined)[] | undefined;
  #dayShared = new Uint8Array(0);
  #firstDay = 0;
  #size = 0;
  #lastMs = NaN;
  #last: Date | undefined;
  /** The last `Date`'s day slot (-1: not held by day), and whether it is shared yet. */
  #lastSlot = -1;
  #lastShared = false;
  readonly #policy = new SharePolicy();

  /** The `Date` of `ms` (an integer within a JS `Date`'s range). */
  date(ms: number): Date {
    if (ms === this.#lastMs) {
      if (!this.#lastShared) this.#share(this.#last!, this.#lastSlot);
      return this.#last!;
    }
    const slot = this.#slot(ms);
    let date: Date | undefined;
    if (this.#policy.on) {
      date = slot >= 0 ? this.#byDay![slot] : this.#dates.get(ms);
      this.#policy.count(date !== undefined);
    }
    if (date === undefined) {
      date = new Date(ms);
      this.#lastShared = false;
      if (this.#policy.on && this.#size < SHARED_MAX) {
        if (slot >= 0) this.#byDay![slot] = date;
        else this.#dates.set(ms, date);
        this.#size++;
      }
    } else if (slot >= 0 ? this.#dayShared[slot] === 0 : Object.getPrototypeOf(date) !== SHARED_DATE)
      this.#share(date, slot);
    else this.#lastShared = true;
    this.#lastMs = ms;
    this.#last = date;
    this.#lastSlot = slot;
    return date;
  }

  /** Makes `date` (held by day at `slot`, unless -1) the shared one of its instant (see {@link SHARED_DATE}). */
  #share(date: Date, slot: number): void {
    Object.setPrototypeOf(date, SHARED_DATE);
    if (slot >= 0) this.#dayShared[slot] = 1;
    this.#lastShared = true;
  }

  /** The day slot of `ms` when it is a midnight UTC within {@link DAY_SLOTS} days around the first one seen; else -1. */
  #slot(ms: number): number {
    const day = ms / DAY_MS;
    if (day !== Math.floor(day)) return -1;
    if (this.#byDay === undefined) {
      this.#byDay = new Array<Date | undefined>(DAY_SLOTS);
      this.#dayShared = new Uint8Array(DAY_SLOTS);
      this.#firstDay = day - DAY_SLOTS / 2;
    }
    const slot = day - this.#firstDay;
    return slot >= 0 && slot < DAY_SLOTS ? slot : -1;
  }
}

/** The days a {@link DateShare} holds by day number (about 22 years; instants beyond go through its map). */
const DAY_SLOTS = 8192;

/**
 * A column's short strings by their 16-byte record (length and bytes): open addressing over the four
 * 32-bit words, up to {@link SHARED_MAX} values. Exported for its tests.
 */
export class RecordTable {
  #keys = new Uint32Array(1024 * 4);
  #values: (string | undefined)[] = new Array<string | undefined>(1024);
  #size = 0;
  readonly #policy = new SharePolicy();

  /** False once the column shows mostly distinct values (see {@link SharePolicy}). */
  get on(): boolean {
    return this.#policy.on;
  }

  /** The string of the record at `words[k..k+3]`, when held. */
  get(words: Uint32Array, k: number): string | undefined {
    const keys = this.#keys;
    const mask = this.#values.length - 1;
    for (let slot = hash(words, k) & mask; ; slot = (slot + 1) & mask) {
      const value = this.#values[slot];
      if (value === undefined) {
        this.#policy.count(false);
        return undefined;
      }
      const at = slot * 4;
      if (
        keys[at] === words[k] &&
        keys[at + 1] === words[k + 1] &&
        keys[at + 2] === words[k + 2] &&
        keys[at + 3] === words[k + 3]
      ) {
        this.#policy.count(true);
        return value;
      }
    }
  }

  /** Holds `value` as the string of the record at `words[k..k+3]` (unless the table is full). */
  set(words: Uint32Array, k: number, value: string): void {
    if (this.#size >= SHARED_MAX) return;
    if (2 * (this.#size + 1) > this.#values.length) this.#grow();
    this.#put(words, k, value);
    this.#size++;
  }

  #put(words: Uint32Array, k: number, value: string): void {
    const mask = this.#values.length - 1;
    let slot = hash(words, k) & mask;
    while (this.#values[slot] !== undefined) slot = (slot + 1) & mask;
    this.#keys.set(words.subarray(k, k + 4), slot * 4);
    this.#values[slot] = value;
  }

  #grow(): void {
    const [keys, values] = [this.#keys, this.#values];
    this.#keys = new Uint32Array(keys.length * 2);
    this.#values = new Array<string | undefined>(values.length * 2);
    for (let slot = 0; slot < values.length; slot++)
      if (values[slot] !== undefined) this.#put(keys, slot * 4, values[slot]!);
  }
}

/** The bytes a {@link TextTable} keeps of its values (beyond, it takes no new ones). */
const SHARED_BYTES_MAX = 16 << 20;

/**
 * A column's long strings by their bytes (hashed where they lie, in a chunk's run of memory): a
 * repeated value is one string, decoded once. Holds up to {@link SHARED_MAX} values of
 * {@link SHARED_BYTES_MAX} bytes in all; stops as {@link RecordTable} does. Exported for its tests.
 */
export class TextTable {
  #hashes = new Int32Array(1024);
  /** Each held value's bytes: where they start in `#pool` (-1: an empty slot), and how many. */
  #starts = new Int32Array(1024).fill(-1);
  #lengths = new Int32Array(1024);
  #values: (string | undefined)[] = new Array<string | undefined>(1024);
  #pool = new Uint8Array(64 << 10);
  #poolView = new DataView(this.#pool.buffer);
  #used = 0;
  #size = 0;
  /** The hash and the slot of the last {@link get} that missed, for {@link set}. */
  #missed = { hash: 0, slot: 0 };
  readonly #policy = new SharePolicy();

  /** False once the column shows mostly distinct values (see {@link SharePolicy}). */
  get on(): boolean {
    return this.#policy.on;
  }

  /** The distinct values held. */
  get size(): number {
    return this.#size;
  }

  /** The string of the `length` bytes at `at` in `bytes` (`view`: a view of the same bytes), when held. */
  get(bytes: Uint8Array, at: number, length: number, view = viewOf(bytes)): string | undefined {
    const h = hashBytes(view, at, length);
    const mask = this.#starts.length - 1;
    let slot = (h ^ (h >>> 15)) & mask;
    for (let start = this.#starts[slot]!; start >= 0; start = this.#starts[slot]!) {
      if (
        this.#hashes[slot] === h &&
        this.#lengths[slot] === length &&
        sameBytes(this.#poolView, start, view, at, length)
      ) {
        this.#policy.count(true);
        return this.#values[slot];
      }
      slot = (slot + 1) & mask;
    }
    this.#policy.count(false);
    this.#missed.hash = h;
    this.#missed.slot = slot;
    return undefined;
  }

  /** Holds `value` as the string of the bytes a {@link get} just missed (unless the table is full). */
  set(bytes: Uint8Array, at: number, length: number, value: string): void {
    if (this.#size >= SHARED_MAX || this.#used + length > SHARED_BYTES_MAX) return;
    if (this.#used + length > this.#pool.length) {
      const pool = new Uint8Array(Math.max(this.#pool.length * 2, this.#used + length));
      pool.set(this.#pool.subarray(0, this.#used));
      this.#pool = pool;
      this.#poolView = new DataView(pool.buffer);
    }
    this.#pool.set(bytes.subarray(at, at + length), this.#used);
    let slot = this.#missed.slot;
    if (2 * (this.#size + 1) > this.#starts.length) slot = this.#grow(this.#missed.hash);
    this.#put(slot, this.#missed.hash, this.#used, length, value);
    this.#used += length;
    this.#size++;
  }

  #put(slot: number, h: number, start: number, length: number, value: string): void {
    this.#hashes[slot] = h;
    this.#starts[slot] = start;
    this.#lengths[slot] = length;
    this.#values[slot] = value;
  }

  /** Doubles the slots; returns the free slot for hash `h` in the new ones. */
  #grow(h: number): number {
    const [hashes, starts, lengths, values] = [this.#hashes, this.#starts, this.#lengths, this.#values];
    this.#hashes = new Int32Array(hashes.length * 2);
    this.#starts = new Int32Array(starts.length * 2).fill(-1);
    this.#lengths = new Int32Array(lengths.length * 2);
    this.#values = new Array<string | undefined>(values.length * 2);
    for (let slot = 0; slot < starts.length; slot++)
      if (starts[slot]! >= 0)
        this.#put(this.#free(hashes[slot]!), hashes[slot]!, starts[slot]!, lengths[slot]!, values[slot]!);
    return this.#free(h);
  }

  #free(h: number): number {
    const mask = this.#starts.length - 1;
    let slot = (h ^ (h >>> 15)) & mask;
    while (this.#starts[slot]! >= 0) slot = (slot + 1) & mask;
    return slot;
  }
}

/** The `length` bytes of `a` at `i` equal those of `b` at `j` (compared four at a time). */
function sameBytes(a: DataView, i: number, b: DataView, j: number, length: number): boolean {
  let k = 0;
  for (; k + 4 <= length; k += 4) if (a.getInt32(i + k, true) !== b.getInt32(j + k, true)) return false;
  for (; k < length; k++) if (a.getUint8(i + k) !== b.getUint8(j + k)) return false;
  return true;
}

/** A hash of the `length` bytes at `at` of `view` (read four at a time). */
function hashBytes(view: DataView, at: number, length: number): number {
  let h = Math.imul(length ^ 0x811c9dc5, 0x01000193);
  let k = 0;
  for (; k + 4 <= length; k += 4) h = Math.imul(h ^ view.getInt32(at + k, true) ^ (h >>> 13), 0x5bd1e995);
  for (; k < length; k++) h = Math.imul(h ^ view.getUint8(at + k), 0x01000193);
  return h ^ (h >>> 15);
}

/** A view of `bytes`, for reading them several at a time. */
function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** A hash of the four words at `k`. */
function hash(words: Uint32Array, k: number): number {
  let h = Math.imul(words[k]! ^ 0x9e3779b9, 0x85ebca6b);
  h = Math.imul(h ^ words[k + 1]!, 0xc2b2ae35);
  h = Math.imul(h ^ words[k + 2]!, 0x85ebca6b);
  h = Math.imul(h ^ words[k + 3]!, 0xc2b2ae35);
  return h ^ (h >>> 15);
}

/** Bytes between two strings of a block that may be read over: less than a memory page, so never unmapped. */
const MAX_GAP = 4095;
/** The largest block read at once. */
const MAX_BLOCK = 64 << 20;

/** Where a chunk's long strings are: runs of memory each read at once. */
interface Blocks {
  /** Each run's bytes. */
  bytes: Buffer[];
  /** Each run's bytes as a view (read several at a time). */
  views: DataView[];
  /** Each run's bytes read one per character, once a value is cut from them (ASCII text is cut from these). */
  latin1: (string | undefined)[];
  /** Each row's run (set for the rows of long strings only: the arrays serve every chunk in turn). */
  run: Int32Array;
  /** Each row's offset in its run (as {@link run}). */
  at: Int32Array;
}

/** A text column's arrays for {@link Blocks.run} and {@link Blocks.at}, made once and reused by every chunk. */
class LongScratch {
  run = new Int32Array(0);
  at = new Int32Array(0);

  /** The arrays, at least `n` long. */
  take(n: number): this {
    if (this.run.length < n) [this.run, this.at] = [new Int32Array(n), new Int32Array(n)];
    return this;
  }
}

/**
 * The chunk's strings longer than 12 bytes read as runs of memory: strings that lie one after another,
 * with gaps of less than a page (so each run is all readable memory), are read in one call; a string
 * before the previous one's end starts a new run.
 */
function longStrings(
  B: Bindings,
  words: Uint32Array,
  mask: Uint8Array | null,
  n: number,
  scratch: LongScratch,
): Blocks {
  const { run, at } = scratch.take(n);
  const starts: number[] = [];
  const ends: number[] = [];
  let first = -1;
  let end = 0;
  for (let i = 0; i < n; i++) {
    const length = words[4 * i]!;
    if (length <= 12 || !isValid(mask, i)) continue;
    const pointer = words[4 * i + 3]! * TWO_32 + words[4 * i + 2]!;
    if (first < 0 || pointer < end || pointer - end > MAX_GAP || pointer + length - first > MAX_BLOCK) {
      if (first >= 0) ends.push(end);
      starts.push((first = pointer));
    }
    run[i] = starts.length - 1;
    at[i] = pointer - first;
    end = pointer + length;
  }
  if (first >= 0) ends.push(end);
  const bytes: Buffer[] = [];
  const views: DataView[] = [];
  // get_data_from_pointer reads the address from a buffer: each run's start, written in one.
  const address = new Uint32Array(2);
  starts.forEach((start, r) => {
    address[0] = start % TWO_32;
    address[1] = Math.floor(start / TWO_32);
    const read = B.get_data_from_pointer(address.buffer, 0, ends[r]! - start);
    bytes.push(Buffer.from(read.buffer, read.byteOffset, read.byteLength));
    views.push(viewOf(read));
  });
  return { bytes, views, latin1: new Array<string | undefined>(bytes.length), run, at };
}

/** The `length` bytes at `at` are all ASCII (then one per character is their text). */
function isAscii(bytes: Uint8Array, at: number, length: number): boolean {
  for (let k = at; k < at + length; k++) if (bytes[k]! >= 0x80) return false;
  return true;
}
