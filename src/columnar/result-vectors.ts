/**
 * A DuckDB query result read into JS arrays a column at a time, from the bytes of DuckDB's vectors
 * (`@duckdb/node-bindings`): fixed-width values through typed-array views, NULLs from the validity
 * mask, text from its 16-byte string records, ENUMs through their dictionary. The values are those
 * `getColumnsJS()` of `@duckdb/node-api` gives (numbers, bigints, `Date`s, strings), without building a
 * value object per row; types this reader does not know go through `getColumnsJS()`'s own converter,
 * so every result reads as before.
 */
type DuckDB = typeof import("@duckdb/node-api");
type Bindings = typeof import("@duckdb/node-bindings");
type DuckType = import("@duckdb/node-api").DuckDBType;
type Result = import("@duckdb/node-api").DuckDBResult;
type Chunk = import("@duckdb/node-api").DuckDBDataChunk;
type Vector = import("@duckdb/node-bindings").Vector;

/** A result's columns: names, DuckDB types and values (NULL as `null`), `rows` long each. */
export interface ResultColumns {
  names: string[];
  types: DuckType[];
  columns: unknown[][];
  rows: number;
}

/** Reads one chunk's rows of one column, appending them to `out`. */
type ColumnReader = (chunk: Chunk, j: number, n: number, out: unknown[]) => void;

/** Where JS `Date`s end (±8.64e15 ms): a DuckDB date or timestamp beyond is an error, as in `getColumnsJS()`. */
const MAX_DATE_MS = 8_640_000_000_000_000;
const MAX_DATE_DAYS = 100_000_000;
const DAY_MS = 86_400_000;
const TWO_32 = 4294967296;

/**
 * Reads every chunk of `result` (fetching them in turn: each chunk's memory is DuckDB's only while it is
 * read) into one array per column.
 */
export async function readResultColumns(D: DuckDB, B: Bindings, result: Result): Promise<ResultColumns> {
  const names = result.columnNames();
  const types = result.columnTypes();
  const readers = types.map((type) => columnReader(D, B, type));
  const columns = types.map((): unknown[] => []);
  let rows = 0;
  for (;;) {
    const chunk = await result.fetchChunk();
    if (!chunk || chunk.rowCount === 0) break;
    const n = chunk.rowCount;
    for (let j = 0; j < readers.length; j++) readers[j]!(chunk, j, n, columns[j]!);
    rows += n;
  }
  return { names, types, columns, rows };
}

/** The reader for one column's type: from the vector's bytes where the type allows, else value by value. */
function columnReader(D: DuckDB, B: Bindings, type: DuckType): ColumnReader {
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
      return booleans(B);
    case T.BIGINT:
    case T.UBIGINT:
      return bigints(B, type.typeId === T.UBIGINT);
    case T.DATE:
      return dates(B);
    case T.TIMESTAMP:
    case T.TIMESTAMP_TZ:
      return timestamps(B, 1000, type.typeId === T.TIMESTAMP ? "TIMESTAMP" : "TIMESTAMPTZ", "micros");
    case T.TIMESTAMP_MS:
      return timestamps(B, 1, "TIMESTAMP_MS", "millis");
    case T.TIMESTAMP_NS:
      return timestamps(B, 1_000_000, "TIMESTAMP_NS", "nanos");
    case T.TIMESTAMP_S:
      return timestamps(B, 1 / 1000, "TIMESTAMP_S", "seconds");
    case T.VARCHAR:
      return text(B);
    case T.ENUM:
      return enums(B, (type as unknown as { values: readonly string[] }).values);
    case T.DECIMAL:
      return decimals(D, B, type as unknown as { width: number; scale: number });
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
  return B.vector_get_validity(vector, Math.ceil(n / 64) * 8) as Uint8Array | null;
}

/** Numbers of a fixed width: a typed-array view over the vector's data, NULL as `null`. */
function fixed(
  B: Bindings,
  width: number,
  view: (bytes: Uint8Array, n: number) => ArrayLike<number>,
): ColumnReader {
  return (chunk, j, n, out) => {
    const vector = B.data_chunk_get_vector(chunk.chunk, j);
    const values = view(aligned(B.vector_get_data(vector, n * width), width), n);
    const mask = validity(B, vector, n);
    if (mask === null) for (let i = 0; i < n; i++) out.push(values[i]);
    else for (let i = 0; i < n; i++) out.push(isValid(mask, i) ? values[i] : null);
  };
}

/** The bytes, copied when they do not start on a multiple of `width` (a typed array needs that). */
function aligned(bytes: Uint8Array, width: number): Uint8Array {
  return bytes.byteOffset % width === 0 ? bytes : bytes.slice();
}

function booleans(B: Bindings): ColumnReader {
  return (chunk, j, n, out) => {
    const vector = B.data_chunk_get_vector(chunk.chunk, j);
    const values = B.vector_get_data(vector, n);
    const mask = validity(B, vector, n);
    for (let i = 0; i < n; i++) out.push(isValid(mask, i) ? values[i] !== 0 : null);
  };
}

/**
 * 64-bit integers: a number while within ±2^53 (the column is read as numbers when all are, see
 * `exactNumbers`), the exact bigint beyond, as `getColumnsJS()` gives every value.
 */
function bigints(B: Bindings, unsigned: boolean): ColumnReader {
  return (chunk, j, n, out) => {
    const vector = B.data_chunk_get_vector(chunk.chunk, j);
    const bytes = aligned(B.vector_get_data(vector, n * 8), 8);
    const words = new Int32Array(bytes.buffer, bytes.byteOffset, n * 2);
    const mask = validity(B, vector, n);
    for (let i = 0; i < n; i++) {
      if (!isValid(mask, i)) {
        out.push(null);
        continue;
      }
      const low = words[2 * i]! >>> 0;
      const high = words[2 * i + 1]!;
      const safe = unsigned
        ? high >= 0 && high < 0x200000
        : (high > -0x200000 && high < 0x200000) || (high === -0x200000 && low > 0);
      if (safe) out.push(high * TWO_32 + low);
      else
        out.push(
          unsigned
            ? new BigUint64Array(bytes.buffer, bytes.byteOffset + i * 8, 1)[0]!
            : new BigInt64Array(bytes.buffer, bytes.byteOffset + i * 8, 1)[0]!,
        );
    }
  };
}

function dates(B: Bindings): ColumnReader {
  return (chunk, j, n, out) => {
    const vector = B.data_chunk_get_vector(chunk.chunk, j);
    const bytes = aligned(B.vector_get_data(vector, n * 4), 4);
    const days = new Int32Array(bytes.buffer, bytes.byteOffset, n);
    const mask = validity(B, vector, n);
    for (let i = 0; i < n; i++) {
      if (!isValid(mask, i)) {
        out.push(null);
        continue;
      }
      const d = days[i]!;
      if (d < -MAX_DATE_DAYS || d > MAX_DATE_DAYS) throw new Error(`DATE value out of range for JS Date: ${d} days`);
      out.push(new Date(d * DAY_MS));
    }
  };
}

/**
 * Timestamps of `perMs` units per millisecond, as `Date`s of the whole milliseconds (truncated toward
 * zero, as `getColumnsJS()` divides); beyond a JS `Date`, the error it throws (`what`, `unit` name the type).
 */
function timestamps(B: Bindings, perMs: number, what: string, unit: string): ColumnReader {
  return (chunk, j, n, out) => {
    const vector = B.data_chunk_get_vector(chunk.chunk, j);
    const bytes = aligned(B.vector_get_data(vector, n * 8), 8);
    const words = new Int32Array(bytes.buffer, bytes.byteOffset, n * 2);
    const mask = validity(B, vector, n);
    for (let i = 0; i < n; i++) {
      if (!isValid(mask, i)) {
        out.push(null);
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
      out.push(new Date(ms));
    }
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
  return (chunk, j, n, out) => {
    const vector = B.data_chunk_get_vector(chunk.chunk, j);
    const bytes = aligned(B.vector_get_data(vector, n * width), width);
    const codes =
      width === 1
        ? bytes
        : width === 2
          ? new Uint16Array(bytes.buffer, bytes.byteOffset, n)
          : new Uint32Array(bytes.buffer, bytes.byteOffset, n);
    const mask = validity(B, vector, n);
    for (let i = 0; i < n; i++) out.push(isValid(mask, i) ? levels[codes[i]!]! : null);
  };
}

/**
 * DECIMAL as the double DuckDB casts it to (the integer ÷ 10^scale), from 2-, 4- or 8-byte integers;
 * 16-byte ones (width > 18) value by value.
 */
function decimals(D: DuckDB, B: Bindings, type: { width: number; scale: number }): ColumnReader {
  if (type.width > 18) return valueByValue(D);
  const width = type.width <= 4 ? 2 : type.width <= 9 ? 4 : 8;
  const divisor = Number(`1e${type.scale}`);
  return (chunk, j, n, out) => {
    const vector = B.data_chunk_get_vector(chunk.chunk, j);
    const bytes = aligned(B.vector_get_data(vector, n * width), width);
    const mask = validity(B, vector, n);
    if (width === 8) {
      const big = new BigInt64Array(bytes.buffer, bytes.byteOffset, n);
      for (let i = 0; i < n; i++) out.push(isValid(mask, i) ? Number(big[i]!) / divisor : null);
      return;
    }
    const ints =
      width === 2 ? new Int16Array(bytes.buffer, bytes.byteOffset, n) : new Int32Array(bytes.buffer, bytes.byteOffset, n);
    for (let i = 0; i < n; i++) out.push(isValid(mask, i) ? ints[i]! / divisor : null);
  };
}

/** Any other type: `getColumnsJS()`'s own conversion, value by value. */
function valueByValue(D: DuckDB): ColumnReader {
  return (chunk, j, _n, out) => {
    for (const v of chunk.convertColumnValues(j, D.JSDuckDBValueConverter)) out.push(v);
  };
}

const utf8 = new TextDecoder();

/**
 * Text from DuckDB's 16-byte string records (a 32-bit length, then the bytes when at most 12, else a
 * 4-byte prefix and a pointer). The longer strings' bytes are read in one block per chunk when they lie
 * one after another in memory (as they do in a materialized result), else one by one. ASCII text is cut
 * from a one-byte-per-character reading of the bytes; other text is decoded as UTF-8. Each column's
 * values are shared while it has few distinct ones (one string per distinct value, as a dictionary).
 */
function text(B: Bindings): ColumnReader {
  const shared = new Map<string, string>();
  return (chunk, j, n, out) => {
    const vector = B.data_chunk_get_vector(chunk.chunk, j);
    const records = aligned(B.vector_get_data(vector, n * 16), 8);
    const words = new Uint32Array(records.buffer, records.byteOffset, n * 4);
    const mask = validity(B, vector, n);
    const inline = Buffer.from(records.buffer, records.byteOffset, n * 16);
    const block = longStrings(B, words, mask, n);
    for (let i = 0; i < n; i++) {
      if (!isValid(mask, i)) {
        out.push(null);
        continue;
      }
      const length = words[4 * i]!;
      let value: string;
      if (length <= 12) value = cut(inline, i * 16 + 4, length);
      else if (block) value = cut(block.bytes, block.at[i]!, length);
      else {
        const bytes = B.get_data_from_pointer(records.buffer as ArrayBuffer, records.byteOffset + i * 16 + 8, length);
        value = utf8.decode(bytes);
      }
      if (shared.size < SHARED_MAX) {
        const known = shared.get(value);
        if (known === undefined) shared.set(value, value);
        else value = known;
      }
      out.push(value);
    }
  };
}

/** Distinct values a text column shares (beyond, new values are kept as they are read). */
const SHARED_MAX = 65_536;

/** The text of `length` bytes at `at`: cut from a latin1 reading when every byte is ASCII, else UTF-8. */
function cut(bytes: Buffer, at: number, length: number): string {
  for (let k = at; k < at + length; k++) if (bytes[k]! >= 0x80) return bytes.toString("utf8", at, at + length);
  return bytes.toString("latin1", at, at + length);
}

/** Bytes between two strings of a block that may be read over: less than a memory page, so never unmapped. */
const MAX_GAP = 4095;
/** The largest block read at once. */
const MAX_BLOCK = 64 << 20;

/**
 * The chunk's strings longer than 12 bytes as one block of memory and each one's offset in it, when
 * they lie in increasing order with gaps of less than a page (so the block is all readable memory);
 * undefined otherwise.
 */
function longStrings(
  B: Bindings,
  words: Uint32Array,
  mask: Uint8Array | null,
  n: number,
): { bytes: Buffer; at: Float64Array } | undefined {
  let first = -1;
  let end = 0;
  const at = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const length = words[4 * i]!;
    if (length <= 12 || !isValid(mask, i)) continue;
    const pointer = words[4 * i + 3]! * TWO_32 + words[4 * i + 2]!;
    if (first < 0) first = pointer;
    else if (pointer < end || pointer - end > MAX_GAP) return undefined;
    at[i] = pointer - first;
    end = pointer + length;
    if (end - first > MAX_BLOCK) return undefined;
  }
  if (first < 0) return undefined;
  // get_data_from_pointer reads the address from a buffer: the block's start, written in one.
  const address = new Uint32Array([first % TWO_32, Math.floor(first / TWO_32)]);
  const bytes = B.get_data_from_pointer(address.buffer, 0, end - first);
  return { bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), at };
}
