/**
 * A Parquet file's key-value metadata set after the file is written: for a file written while its rows
 * arrive (DuckDB's COPY reading a pipe), whose metadata — the response's fields after its rows, its
 * provenance — is known only at the end. The footer (the file's `FileMetaData`, Thrift's compact
 * protocol, at its end: footer, its length as 4 bytes little-endian, `PAR1`) is read, its
 * `key_value_metadata` (field 5) encoded again with the new values, and written in place of the old one.
 * Everything before the footer (the row groups, their pages and indexes, whose offsets are from the
 * file's start) is left as it is; every other field of the footer is copied byte for byte.
 */
import { closeSync, fstatSync, ftruncateSync, openSync, readSync, writeSync } from "node:fs";
import { ColumnarError } from "./errors";

const MAGIC = Buffer.from("PAR1");
/** `FileMetaData.key_value_metadata`. */
const KV_FIELD = 5;
/** Thrift compact protocol's type ids. */
const BOOL_TRUE = 1;
const BOOL_FALSE = 2;
const BYTE = 3;
const I16 = 4;
const I64 = 6;
const DOUBLE = 7;
const BINARY = 8;
const LIST = 9;
const SET = 10;
const MAP = 11;
const STRUCT = 12;

/** Reads (and skips) Thrift compact values in a buffer; throws a RangeError on anything malformed. */
class CompactReader {
  constructor(
    readonly buf: Buffer,
    public at = 0,
  ) {}

  byte(): number {
    if (this.at >= this.buf.length) throw new RangeError("the footer ends inside a value");
    return this.buf[this.at++]!;
  }

  varint(): number {
    let n = 0;
    for (let shift = 0; shift < 64; shift += 7) {
      const b = this.byte();
      n += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return n;
    }
    throw new RangeError("a varint longer than 10 bytes");
  }

  skip(n: number): void {
    if (n > this.buf.length - this.at) throw new RangeError("the footer ends inside a value");
    this.at += n;
  }

  binary(): Buffer {
    const n = this.varint();
    const start = this.at;
    this.skip(n);
    return this.buf.subarray(start, this.at);
  }

  /** A list's (or set's) header: its size and its elements' type. */
  listHeader(): { size: number; type: number } {
    const b = this.byte();
    return { size: b >> 4 === 15 ? this.varint() : b >> 4, type: b & 15 };
  }

  /** A struct's next field header (`undefined` at its stop byte); `last` is the id of the field before it. */
  field(last: number): { id: number; type: number } | undefined {
    const b = this.byte();
    if (b === 0) return undefined;
    const delta = b >> 4;
    if (delta !== 0) return { id: last + delta, type: b & 15 };
    const zigzag = this.varint();
    return { id: zigzag % 2 === 0 ? zigzag / 2 : -(zigzag + 1) / 2, type: b & 15 };
  }

  /** Skips a value of `type`; `inField`: a struct field's boolean, whose value is its type. */
  value(type: number, inField = false): void {
    if (type === BOOL_TRUE || type === BOOL_FALSE) return inField ? undefined : this.skip(1);
    if (type === BYTE) return this.skip(1);
    if (type >= I16 && type <= I64) return void this.varint();
    if (type === DOUBLE) return this.skip(8);
    if (type === BINARY) return void this.binary();
    if (type === LIST || type === SET) {
      const { size, type: element } = this.listHeader();
      for (let i = 0; i < size; i++) this.value(element);
      return;
    }
    if (type === MAP) return this.map();
    if (type === STRUCT) return this.struct();
    throw new RangeError(`an unknown Thrift type ${type}`);
  }

  map(): void {
    const size = this.varint();
    if (size === 0) return;
    const types = this.byte();
    for (let i = 0; i < size; i++) {
      this.value(types >> 4);
      this.value(types & 15);
    }
  }

  struct(): void {
    let last = 0;
    for (let f = this.field(last); f; f = this.field(last)) {
      this.value(f.type, true);
      last = f.id;
    }
  }
}

/** Where a top-level field's value lies in a struct's bytes (after its header). */
function fieldSpan(footer: Buffer, id: number): { start: number; end: number; type: number } {
  const reader = new CompactReader(footer);
  let last = 0;
  for (let f = reader.field(last); f; f = reader.field(last)) {
    const start = reader.at;
    reader.value(f.type, true);
    if (f.id === id) return { start, end: reader.at, type: f.type };
    last = f.id;
  }
  throw new RangeError("the footer has no key-value metadata to replace (the file was written without KV_METADATA)");
}

/** The `KeyValue` entries of a `list<KeyValue>` (a value absent: `undefined`). */
function readKeyValues(reader: CompactReader): [string, Buffer | undefined][] {
  const { size, type } = reader.listHeader();
  if (type !== STRUCT) throw new RangeError("key_value_metadata is not a list of structs");
  const entries: [string, Buffer | undefined][] = [];
  for (let i = 0; i < size; i++) {
    let key: string | undefined;
    let value: Buffer | undefined;
    let last = 0;
    for (let f = reader.field(last); f; f = reader.field(last)) {
      if (f.id === 1 && f.type === BINARY) key = reader.binary().toString("utf8");
      else if (f.id === 2 && f.type === BINARY) value = reader.binary();
      else reader.value(f.type, true);
      last = f.id;
    }
    if (key === undefined) throw new RangeError("a key-value entry without its key");
    entries.push([key, value]);
  }
  return entries;
}

function varintBytes(n: number): number[] {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  out.push(n);
  return out;
}

/** A `list<KeyValue>` in Thrift's compact protocol. */
function encodeKeyValues(entries: readonly [string, Buffer | undefined][]): Buffer {
  const parts: Buffer[] = [
    Buffer.from(
      entries.length < 15 ? [(entries.length << 4) | STRUCT] : [0xf0 | STRUCT, ...varintBytes(entries.length)],
    ),
  ];
  const binaryField = (bytes: Buffer) => [Buffer.from([(1 << 4) | BINARY, ...varintBytes(bytes.length)]), bytes];
  for (const [key, value] of entries) {
    parts.push(...binaryField(Buffer.from(key, "utf8")));
    if (value !== undefined) parts.push(...binaryField(value));
    parts.push(Buffer.from([0]));
  }
  return Buffer.concat(parts);
}

/** The footer of the file open at `fd`, and where it starts. */
function readFooter(fd: number): { footer: Buffer; start: number } {
  const size = fstatSync(fd).size;
  if (size < 12) throw new RangeError(`${size} bytes is too short for a Parquet file`);
  const tail = Buffer.alloc(8);
  readSync(fd, tail, 0, 8, size - 8);
  if (!tail.subarray(4).equals(MAGIC))
    throw new RangeError(
      `it does not end with PAR1 (${JSON.stringify(tail.subarray(4).toString("latin1"))}: not a plain Parquet file)`,
    );
  const length = tail.readUInt32LE(0);
  if (length > size - 12) throw new RangeError(`its footer length (${length}) is larger than the file`);
  const footer = Buffer.alloc(length);
  readSync(fd, footer, 0, length, size - 8 - length);
  return { footer, start: size - 8 - length };
}

/**
 * Sets the values of `entries`' keys in the key-value metadata of the Parquet file `file` (written with
 * `KV_METADATA`, so that the footer has the field); other entries are kept, in their order, and keys it
 * did not have are added. Throws a {@link ColumnarError} naming the file (and `who`) if the file is not
 * one whose footer can be read.
 */
export function setParquetKeyValues(file: string, entries: Record<string, string>, who: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(file, "r+");
    const { footer, start } = readFooter(fd);
    const whole = withKeyValues(footer, entries);
    for (let at = 0; at < whole.length;) at += writeSync(fd, whole, at, whole.length - at, start + at);
    ftruncateSync(fd, start + whole.length);
  } catch (error) {
    throw new ColumnarError(
      `${who}: could not set the key-value metadata of ${file}: ${(error as Error).message}`,
      "Parquet",
      error,
    );
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** `footer` with `entries` set in its key-value metadata, followed by its length and `PAR1`: the file's new end. */
function withKeyValues(footer: Buffer, entries: Record<string, string>): Buffer {
  const span = fieldSpan(footer, KV_FIELD);
  if (span.type !== LIST) throw new RangeError("its key_value_metadata is not a list");
  const kept = readKeyValues(new CompactReader(footer, span.start));
  const utf8 = (key: string) => Buffer.from(entries[key]!, "utf8");
  const replaced = kept.map(([key, value]): [string, Buffer | undefined] => [
    key,
    Object.hasOwn(entries, key) ? utf8(key) : value,
  ]);
  const added = Object.keys(entries)
    .filter((key) => !kept.some(([k]) => k === key))
    .map((key): [string, Buffer] => [key, utf8(key)]);
  const body = Buffer.concat([
    footer.subarray(0, span.start),
    encodeKeyValues([...replaced, ...added]),
    footer.subarray(span.end),
  ]);
  const tail = Buffer.alloc(8);
  tail.writeUInt32LE(body.length, 0);
  MAGIC.copy(tail, 4);
  return Buffer.concat([body, tail]);
}
