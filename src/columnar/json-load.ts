/**
 * Rows of JSON objects straight into DuckDB: the rows' bytes (a table answer's `data_table`, its wrapper
 * cut off by {@link JsonRowScanner}, which hands the array's bytes to a {@link RowsProfile} as they
 * arrive) go to a spool file as newline-delimited JSON (a row a line), and DuckDB's own reader (`read_json`) parses and
 * loads them — no `JSON.parse`, no column table, no appender.
 *
 * DuckDB is told each column's type (`columns={…}`), never left to guess: one byte-level pass over the
 * rows as they stream ({@link RowsProfile}) finds where the array ends, checks the JSON strictly (DuckDB's
 * reader accepts `NaN` and trailing commas, `JSON.parse` does not), and learns the columns in the order
 * first seen and the kind the column-table adapter would give each (number, text, ISO 8601 dates,
 * boolean, empty). Whatever the adapter would warn about — a row that is not an object, a column of mixed
 * kinds or nested values, a text column whose dates stop, a number too large for a double — is a
 * {@link RowsProfile.detour}: those rows take the column table's route, which says so as it always has.
 */
import type { ColumnKind } from "../table/column-table";
import { parseIsoDate } from "../table/iso-date";
import { daysInMonth } from "../api/date-text";
import { JsonScanError, MAX_ROW_DEPTH, type RowsReader } from "./json-rows";
import { quoteIdent, quoteString } from "./sql";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const MINUS = 0x2d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
/** DuckDB's default `maximum_object_size` (16 MiB): a row larger than this raises it. */
const DUCKDB_OBJECT_BYTES = 16 * 1024 * 1024;

/** The JSON types a column's values have had, as bits (setting one twice is harmless: a cut row is read again). */
const NUMBER = 1;
const STRING = 2;
const BOOLEAN = 4;
const NESTED = 8;

/** Where the pass is in the rows array between rows. */
const FIRST = 0; // after "[": a row or "]"
const NEXT = 1; // after ",": a row
const AFTER = 2; // after a row: "," or "]"
const CLOSED = 3; // after "]"

/** Thrown when a row runs past the bytes at hand: it is read again, whole, once more bytes have come. */
const CUT = Object.freeze({ cut: true });
/**
 * A row cut at a chunk's end is read again with the next chunk; one longer than this (64 KiB) only once
 * a chunk holds its end, as a scan of its nesting finds it: a huge row is read twice, not once a chunk.
 */
const LONG_ROW = 1 << 16;

/** A column's JSON types so far, and whether its text has all been ISO 8601 dates. */
interface ColumnStats {
  /** NUMBER | STRING | BOOLEAN | NESTED bits of the values seen (nulls are none). */
  types: number;
  /** 0: no text yet; 1: every text value so far a date; 2: text that is not dates. */
  dates: 0 | 1 | 2;
  /** Dates in forms DuckDB's cast does not read as they are (`t`/`z`, a decimal comma, no seconds). */
  oddDates: boolean;
  /** Dates with digits past the milliseconds (the adapter drops them; DuckDB keeps them). */
  fineDates: boolean;
  /** The last row read with this key (a key twice in one row is a detour). */
  lastRow: number;
  /**
   * The last date text read (its bytes, quotes included, `lastDate[0, lastDateLength)`; 0: none): dates
   * repeat, and a repeat needs no second look.
   */
  lastDate: Uint8Array;
  lastDateView: DataView;
  lastDateLength: number;
}

/** What DuckDB is told of one column, and the kind the adapter would give it. */
export interface PlannedColumn {
  name: string;
  kind: ColumnKind;
  /** A date column with values in forms DuckDB's cast needs put in its own first. */
  oddDates?: boolean;
  /**
   * A date column DuckDB's JSON reader reads as `TIMESTAMPTZ` itself: every value in a form its cast reads
   * as the adapter does (seconds given, at most milliseconds), so no text is converted in SQL.
   */
  direct?: boolean;
}

const utf8 = new TextDecoder();

/**
 * One pass over the bytes of a rows array as they stream ({@link scan}, chunk by chunk; see
 * {@link RowsReader}): checks the JSON strictly and learns the columns in the order first seen and each
 * one's kind. Throws {@link JsonScanError} for bytes that are not JSON. (UTF-8 is the caller's check:
 * the client refuses a body that is not UTF-8 before any of it is read.)
 */
export class RowsProfile implements RowsReader {
  readonly names: string[] = [];
  readonly #index = new Map<string, number>();
  readonly #keys: Uint8Array[] = [];
  readonly #stats: ColumnStats[] = [];
  /** The column of the k-th key of the last row: rows from one serialiser repeat their keys in order. */
  readonly #order: number[] = [];
  readonly #lower = new Set<string>();
  rows = 0;
  /**
   * Where the commas between rows are (their bytes in the body), in order, since the reader last emptied
   * this list: the spool puts a newline there (see {@link readJsonRows}).
   */
  readonly separators: number[] = [];
  /** The largest row, in bytes. */
  maxRowBytes = 0;
  /** Why these rows cannot take this route (the first reason found), or undefined. */
  detour: string | undefined;
  #state = FIRST;
  /** Rows read so far, cut ones read again included: the mark of a field seen in the row being read. */
  #reads = 0;
  /** A row cut at the end of the last chunk: its bytes so far (`#carry[0, #carryLength)`), from its first byte. */
  #carry = new Uint8Array(0);
  #carryLength = 0;
  /** The body's byte of the carry's first. */
  #carryOffset = -1;
  /** Where a long cut row's nesting stands (see {@link LONG_ROW}). */
  #shape = new RowShape();
  /** The bytes being read and the body's byte of their first. */
  #b: Uint8Array = new Uint8Array(0);
  #base = 0;
  #rowStart = 0;
  /** Whether the last string read held escapes. */
  #escaped = false;
  /** The bytes between the values of the last row read field by field, and the columns of its values. */
  #template: Uint8Array[] = [];
  #templateColumns: number[] = [];
  /** The template's bytes as little-endian 32-bit words (the last 0–3 bytes left out). */
  #templateWords: Uint32Array[] = [];
  /** The bytes being read, as a DataView. */
  #view: DataView<ArrayBufferLike> = new DataView(new ArrayBuffer(0));

  /** `detectDates` false: text stays text (`dates: "keep"`). */
  constructor(readonly detectDates = true) {}

  /**
   * Reads the array from `chunk[from]` on (`offset`: the body's byte of `chunk[0]`); returns the index just
   * past its closing bracket, or -1 when the array goes on in the next chunk. Throws {@link JsonScanError}.
   */
  scan(chunk: Uint8Array, from: number, offset: number): number {
    if (this.#state === CLOSED) this.#state = FIRST; // a second rows array: its rows follow the first's
    while (this.#carryLength > 0 && from < chunk.length) {
      const rest = chunk.length - from;
      // The cut row most likely ends early in this chunk: it is joined with the chunk's first bytes, not all.
      let take = Math.min(rest, Math.max(this.#carryLength, 4096));
      if (this.#carryLength > LONG_ROW) {
        // A long row is read again only once its end has come, not at every chunk.
        const closes = this.#shape.closes(this.#carry.subarray(0, this.#carryLength), chunk, from);
        if (closes < 0) {
          this.#append(chunk.subarray(from));
          return -1;
        }
        take = Math.min(rest, closes - from + 4096);
      }
      const base = this.#carryOffset;
      const joined = this.#join(chunk.subarray(from, from + take));
      const carried = joined.length - take;
      const end = this.#run(joined, 0, base);
      if (end >= 0) return from + end - carried;
      if (this.#carryLength > 0 && this.#carryOffset === base) {
        from += take; // still cut: the carry is all of `joined`
        continue;
      }
      // The cut row is whole: the rest of the chunk (a row cut in it included) is read where it is.
      const at = this.#carryLength > 0 ? this.#carryOffset - base - carried : take;
      this.#carryLength = 0;
      return this.#run(chunk, from + at, offset);
    }
    return this.#carryLength > 0 ? -1 : this.#run(chunk, from, offset);
  }

  /** The columns and the kinds the adapter would give them (once every row is in). */
  plan(): PlannedColumn[] {
    return this.names.map((name, j) => {
      const s = this.#stats[j]!;
      const t = s.types;
      let kind: ColumnKind = "mixed";
      if (t === 0) kind = "empty";
      else if (t === NUMBER) kind = "number";
      else if (t === BOOLEAN) kind = "boolean";
      else if (t === STRING) kind = s.dates === 1 && this.detectDates ? "date" : "string";
      if (kind === "mixed") this.detour ??= `column "${name}" holds values of more than one kind, or nested ones`;
      if (kind !== "date") return { name, kind };
      return s.oddDates ? { name, kind, oddDates: true } : s.fineDates ? { name, kind } : { name, kind, direct: true };
    });
  }

  /** The carry and `bytes` as one new array; the carry is emptied. */
  #join(bytes: Uint8Array): Uint8Array {
    const joined = new Uint8Array(this.#carryLength + bytes.length);
    joined.set(this.#carry.subarray(0, this.#carryLength));
    joined.set(bytes, this.#carryLength);
    this.#carryLength = 0;
    return joined;
  }

  /** `bytes` added to the carry (its room doubled as needed: a huge row is copied a few times, not once a chunk). */
  #append(bytes: Uint8Array): void {
    const need = this.#carryLength + bytes.length;
    if (need > this.#carry.length) {
      const grown = new Uint8Array(Math.max(need, 2 * this.#carry.length));
      grown.set(this.#carry.subarray(0, this.#carryLength));
      this.#carry = grown;
    }
    this.#carry.set(bytes, this.#carryLength);
    this.#carryLength = need;
  }

  /**
   * Reads rows from `b[p]` on (`base`: the body's byte of `b[0]`): the index past the array's closing
   * bracket, or -1 at the end of `b` (a row cut there is kept, to be read again with the next bytes).
   */
  #run(b: Uint8Array, p: number, base: number): number {
    this.#b = b;
    this.#view = new DataView(b.buffer, b.byteOffset, b.byteLength);
    this.#base = base;
    const n = b.length;
    let reading = false;
    try {
      for (;;) {
        while (p < n && SPACE[b[p]!] === 1) p++;
        if (p === n) return -1;
        const c = b[p]!;
        if (this.#state === AFTER) {
          if (c === COMMA) {
            this.#state = NEXT;
            this.separators.push(base + p);
            p++;
            continue;
          }
          if (c === CLOSE_BRACKET) return this.#close(p);
          if (c === CLOSE_BRACE) throw new JsonScanError(`unexpected "}" in data_table`, base + p);
          this.#fail(p, `expected "," after a row`);
        }
        if (c === CLOSE_BRACKET) {
          // As the passes before the one pass said it (the comma before the bracket promised a row).
          if (this.#state === NEXT)
            throw new JsonScanError(
              `data_table rows ${this.rows}… are not JSON: expected a row, found the end of the rows`,
              base + p,
            );
          return this.#close(p);
        }
        if (c === CLOSE_BRACE) throw new JsonScanError(`unexpected "}" in data_table`, base + p);
        const start = (this.#rowStart = p);
        this.#reads++;
        reading = true;
        const fast = this.#template.length > 0 ? this.#rowAsLast(p) : -1;
        p = fast >= 0 ? fast : this.#row(p);
        if (p >= n) throw CUT; // a number may go on in the next chunk: a row ends where the next byte says
        reading = false;
        if (p - start > this.maxRowBytes) this.maxRowBytes = p - start;
        this.rows++;
        this.#state = AFTER;
      }
    } catch (error) {
      // A row that is not JSON: said as before the one pass, when the nesting is wrong too (see nestingError).
      let failure = error;
      if (reading && error instanceof JsonScanError)
        failure = nestingError(b, this.#rowStart, base, this.rows) ?? error;
      if (failure !== CUT) throw failure;
      // The row from #rowStart runs past these bytes: kept, and read again once the carry has doubled.
      if (base + this.#rowStart !== this.#carryOffset) this.#shape = new RowShape();
      this.#carry = b.slice(this.#rowStart);
      this.#carryLength = this.#carry.length;
      this.#carryOffset = base + this.#rowStart;
      return -1;
    }
  }

  /** Whether the bytes at `p` are `bytes` (`words`: theirs, from {@link words}), compared four at a time; all must be at hand. */
  #same(p: number, bytes: Uint8Array, words: Uint32Array): boolean {
    const view = this.#view;
    for (let i = 0; i < words.length; i++) if (view.getUint32(p + 4 * i, true) !== words[i]) return false;
    const b = this.#b;
    for (let i = words.length << 2; i < bytes.length; i++) if (b[p + i] !== bytes[i]) return false;
    return true;
  }

  /** Whether the bytes at `p` are the column's last date text (all at hand), compared four at a time. */
  #sameDate(p: number, s: ColumnStats): boolean {
    const view = this.#view;
    const last = s.lastDateView;
    const length = s.lastDateLength;
    let i = 0;
    for (; i + 4 <= length; i += 4) if (view.getUint32(p + i, true) !== last.getUint32(i, true)) return false;
    const b = this.#b;
    for (; i < length; i++) if (b[p + i] !== s.lastDate[i]) return false;
    return true;
  }

  #close(p: number): number {
    this.#state = CLOSED;
    return p + 1;
  }

  /** Bytes that are not JSON at `p` (past the bytes at hand: the row is cut, not wrong). */
  #fail(p: number, what: string): never {
    const b = this.#b;
    if (p >= b.length) throw CUT;
    throw new JsonScanError(
      `data_table rows ${this.rows}… are not JSON: ${what}, found ${describe(b[p]!)}`,
      this.#base + p,
    );
  }

  #ws(p: number): number {
    const b = this.#b;
    while (p < b.length && SPACE[b[p]!] === 1) p++;
    return p;
  }

  /**
   * A row written as the last one read by {@link #row} was, byte for byte between its values (the same
   * keys in the same order, the same spacing): its values read against that template. Returns the index
   * past it, or -1 where it differs (it is then read again by {@link #row}: what was noted of its values
   * so far is noted again, to the same effect).
   */
  #rowAsLast(p: number): number {
    const b = this.#b;
    const template = this.#template;
    const columns = this.#templateColumns;
    const n = b.length;
    for (let k = 0; k < template.length; k++) {
      const between = template[k]!;
      const m = between.length;
      if (p + m > n || !this.#same(p, between, this.#templateWords[k]!)) return -1; // #row tells a cut row from another
      p += m;
      if (k < columns.length) p = this.#cell(p, this.#stats[columns[k]!]!);
    }
    return p;
  }

  /** One row; returns the index past it. A row of fields is kept as the template of the next (see {@link #rowAsLast}). */
  #row(p: number): number {
    const b = this.#b;
    if (b[p] !== OPEN_BRACE) {
      this.detour ??= `row ${this.rows} is not an object`;
      return this.#value(p, 0);
    }
    const template: Uint8Array[] = [];
    const columns: number[] = [];
    let from = p;
    p = this.#ws(p + 1);
    if (b[p] === CLOSE_BRACE) return p + 1;
    for (let k = 0; ; k++) {
      if (b[p] !== QUOTE) this.#fail(p, "expected a field name");
      const end = this.#string(p);
      const j = this.#column(p + 1, end - 1, k);
      p = this.#ws(end);
      if (b[p] !== COLON) this.#fail(p, 'expected ":"');
      p = this.#ws(p + 1);
      template.push(b.slice(from, p));
      columns.push(j);
      from = this.#cell(p, this.#stats[j]!);
      p = this.#ws(from);
      if (b[p] === COMMA) p = this.#ws(p + 1);
      else if (b[p] === CLOSE_BRACE) {
        template.push(b.slice(from, p + 1));
        this.#template = template;
        this.#templateColumns = columns;
        this.#templateWords = template.map(words);
        return p + 1;
      } else this.#fail(p, 'expected "," or "}" in a row');
    }
  }

  /** The column of the key at `[from, to)`, the row's `k`-th; new columns are added in the order first seen. */
  #column(from: number, to: number, k: number): number {
    const b = this.#b;
    const guess = this.#order[k];
    let j = -1;
    if (guess !== undefined) {
      const key = this.#keys[guess]!;
      if (key.length === to - from) {
        j = guess;
        for (let i = 0; i < key.length; i++)
          if (key[i] !== b[from + i]) {
            j = -1;
            break;
          }
      }
    }
    if (j < 0) {
      const name = JSON.parse(utf8.decode(b.subarray(from - 1, to + 1))) as string;
      j = this.#index.get(name) ?? this.#addColumn(name, b.slice(from, to));
      this.#order[k] = j;
    }
    const stats = this.#stats[j]!;
    if (stats.lastRow === this.#reads) this.detour ??= `row ${this.rows} has the field "${this.names[j]}" twice`;
    stats.lastRow = this.#reads;
    return j;
  }

  #addColumn(name: string, key: Uint8Array): number {
    const j = this.names.length;
    // A JS object lists integer-like keys first: the adapter's column order would differ. DuckDB's names ignore case.
    if (name === "" || /^(0|[1-9]\d{0,9})$/.test(name)) this.detour ??= `a field is named ${JSON.stringify(name)}`;
    const lower = name.toLowerCase();
    if (this.#lower.has(lower)) this.detour ??= `two fields differ only in case (${JSON.stringify(name)})`;
    this.#lower.add(lower);
    this.names.push(name);
    this.#index.set(name, j);
    this.#keys.push(key);
    const lastDate = new Uint8Array(LAST_DATE_BYTES);
    const lastDateView = new DataView(lastDate.buffer);
    this.#stats.push({
      types: 0,
      dates: 0,
      oddDates: false,
      fineDates: false,
      lastRow: -1,
      lastDate,
      lastDateView,
      lastDateLength: 0,
    });
    return j;
  }

  /** A row's value for a column: its JSON type noted; returns the index past it. */
  #cell(p: number, s: ColumnStats): number {
    const c = this.#b[p];
    if (c === QUOTE) {
      const end = this.#string(p);
      s.types |= STRING;
      if (s.dates !== 2 && this.detectDates) this.#dateText(p, end, s);
      return end;
    }
    if (c === MINUS || (c !== undefined && c >= 0x30 && c <= 0x39)) {
      s.types |= NUMBER;
      return this.#number(p);
    }
    if (c === 0x74 || c === 0x66) s.types |= BOOLEAN;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) s.types |= NESTED;
    return this.#value(p, 1);
  }

  /** Whether a text cell keeps its column a date column (the adapter: the first text decides, the rest must follow). */
  #dateText(p: number, end: number, s: ColumnStats): void {
    const b = this.#b;
    if (s.lastDateLength === end - p && s.dates === 1 && this.#sameDate(p, s)) return;
    // Escapes are read as JSON.parse reads them; plain text byte by byte.
    const facts = this.#escaped
      ? textDateFacts(JSON.parse(utf8.decode(b.subarray(p, end))) as string)
      : dateFacts(b, p + 1, end - 1);
    const date = (facts & IS_DATE) !== 0;
    // DuckDB rounds past microseconds where the adapter truncates at milliseconds.
    if (facts & LONG_FRACTION)
      this.detour ??= `a date has more than 6 decimals (${utf8.decode(b.subarray(p + 1, end - 1))})`;
    if (facts & ODD_DATE) s.oddDates = true;
    if (facts & FINE_FRACTION) s.fineDates = true;
    if (date && !this.#escaped && end - p <= LAST_DATE_BYTES) {
      for (let i = p; i < end; i++) s.lastDate[i - p] = b[i]!;
      s.lastDateLength = end - p;
    }
    if (s.dates === 0) s.dates = date ? 1 : 2;
    else if (!date) {
      s.dates = 2;
      this.detour ??= "a column's dates stop";
    }
  }

  /** A string from its opening quote; returns the index past its closing quote (notes whether it holds escapes). */
  #string(p: number): number {
    const b = this.#b;
    const n = b.length;
    this.#escaped = false;
    const view = this.#view;
    for (let i = p + 1; ;) {
      // Most bytes are plain ASCII text: four at a time while none is a quote, a backslash, a control
      // character or past ASCII, then one table look-up each until a quote, a backslash or a control character.
      while (i + 4 <= n && plainAscii(view.getUint32(i, true))) i += 4;
      while (i < n && PLAIN[b[i]!] === 1) i++;
      if (i >= n) return this.#fail(i, "a string without its closing quote");
      const c = b[i]!;
      if (c === QUOTE) return i + 1;
      if (c < 0x20) this.#fail(i, "a control character in a string");
      this.#escaped = true;
      const e = b[++i];
      if (e === 0x75) {
        for (let h = 1; h <= 4; h++) if (!isHex(b[i + h])) this.#fail(i + h, "expected 4 hex digits after \\u");
        // A lone surrogate is text to JSON.parse, not UTF-8 to DuckDB.
        const high = (hex(b[i + 1]!) << 4) + hex(b[i + 2]!);
        if (high >= 0xd8 && high <= 0xdf) this.detour ??= "a string holds a \\u surrogate escape";
        i += 5;
      } else if (e === undefined || ESCAPES[e] !== 1) this.#fail(i, "an invalid escape in a string");
      else i++;
    }
  }

  /** A number, checked against JSON's grammar; returns the index past it. */
  #number(p: number): number {
    const b = this.#b;
    const start = p;
    let c = b[p];
    if (c === MINUS) c = b[++p];
    if (c === 0x30) c = b[++p];
    else if (c !== undefined && c > 0x30 && c <= 0x39) {
      do c = b[++p];
      while (c !== undefined && c >= 0x30 && c <= 0x39);
    } else this.#fail(p, "expected a digit");
    let exact = p - start <= 15;
    if (c === 0x2e) {
      c = b[++p];
      if (c === undefined || c < 0x30 || c > 0x39) this.#fail(p, "expected a digit after the decimal point");
      do c = b[++p];
      while (c !== undefined && c >= 0x30 && c <= 0x39);
    }
    if (c === 0x65 || c === 0x45) {
      exact = false;
      p++;
      if (b[p] === 0x2b || b[p] === MINUS) p++;
      if (!isDigit(b[p])) this.#fail(p, "expected a digit in the exponent");
      while (isDigit(b[p])) p++;
    }
    // JSON.parse reads 1e400 as Infinity; DuckDB reads it as NULL.
    if (!exact && !Number.isFinite(Number(utf8.decode(b.subarray(start, p)))))
      this.detour ??= "a number is too large for a double";
    return p;
  }

  /** Any JSON value (nested ones checked whole) inside `depth` levels; returns the index past it. */
  #value(p: number, depth: number): number {
    const b = this.#b;
    const c = b[p];
    if (c === QUOTE) return this.#string(p);
    if (c === MINUS || isDigit(c)) return this.#number(p);
    if (c === OPEN_BRACE || c === OPEN_BRACKET) return this.#container(p, depth + 1);
    const word = c === 0x74 ? TRUE : c === 0x66 ? FALSE : c === 0x6e ? NULL : undefined;
    if (word === undefined) return this.#fail(p, "expected a JSON value");
    for (let i = 1; i < word.length; i++) {
      if (p + i >= b.length) this.#fail(p + i, "expected a JSON value");
      if (b[p + i] !== word[i]) this.#fail(p, "expected a JSON value");
    }
    return p + word.length;
  }

  /** An object or array, the `depth`-th level of its row; returns the index past it. */
  #container(p: number, depth: number): number {
    if (depth > MAX_ROW_DEPTH)
      throw new JsonScanError(
        `data_table row ${this.rows} is nested too deep: more than ${MAX_ROW_DEPTH} levels of objects and arrays`,
        this.#base + p,
      );
    const b = this.#b;
    const close = b[p] === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET;
    p = this.#ws(p + 1);
    if (b[p] === close) return p + 1;
    for (;;) {
      if (close === CLOSE_BRACE) {
        if (b[p] !== QUOTE) this.#fail(p, "expected a field name");
        p = this.#ws(this.#string(p));
        if (b[p] !== COLON) this.#fail(p, 'expected ":"');
        p = this.#ws(p + 1);
      }
      p = this.#ws(this.#value(p, depth));
      if (b[p] === close) return p + 1;
      if (b[p] !== COMMA) this.#fail(p, `expected "," or "${String.fromCharCode(close)}"`);
      p = this.#ws(p + 1);
    }
  }
}

/**
 * For a row that is not JSON, from `b[from]` (row `row`): the error of its nesting, which the passes
 * before the one pass (the nesting of the rows checked before their JSON) said first — a `}` outside any
 * row, or a row nested too deep — so that `{"a": 2]}` is an unexpected "}", as it always was. Undefined
 * when the nesting is right up to where the row may end (a `,` or `]` outside it); {@link CUT} when
 * that is past these bytes (the row is read again with more).
 */
function nestingError(b: Uint8Array, from: number, base: number, row: number): JsonScanError | typeof CUT | undefined {
  let depth = 0;
  let inString = false;
  let escape = false;
  for (let i = from; i < b.length; i++) {
    const c = b[i]!;
    if (inString) {
      if (escape) escape = false;
      else if (c === BACKSLASH) escape = true;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > MAX_ROW_DEPTH)
        return new JsonScanError(
          `data_table row ${row} is nested too deep: more than ${MAX_ROW_DEPTH} levels of objects and arrays`,
          base + i,
        );
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (depth === 0)
        return c === CLOSE_BRACE ? new JsonScanError(`unexpected "}" in data_table`, base + i) : undefined;
      depth--;
    } else if (c === COMMA && depth === 0) return undefined;
  }
  return CUT;
}

/**
 * Where a row's nesting stands, its bytes scanned as they come (strings and escapes followed, brackets
 * counted): enough to tell where it may end, not to check it.
 */
class RowShape {
  #depth = 0;
  #inString = false;
  #escape = false;
  /** The row's bytes scanned so far. */
  #scanned = 0;

  /**
   * The index in `chunk` just past where the row (its first bytes in `carry`, the rest from `chunk[from]`)
   * may end, or -1; the carry's bytes not yet scanned are scanned first (a row ending in them: `from`).
   */
  closes(carry: Uint8Array, chunk: Uint8Array, from: number): number {
    if (this.#scanned < carry.length && this.#scan(carry, this.#scanned) >= 0) return from;
    const end = this.#scan(chunk, from);
    return end;
  }

  /** Scans `b` from `i`: the index just past a point where the row may end, or -1. */
  #scan(b: Uint8Array, i: number): number {
    const n = b.length;
    const first = i;
    for (; i < n; i++) {
      const c = b[i]!;
      if (this.#inString) {
        if (this.#escape) this.#escape = false;
        else if (c === BACKSLASH) this.#escape = true;
        else if (c === QUOTE) this.#inString = false;
        else continue;
        if (this.#inString || this.#depth > 0) continue;
        return this.#ended(b, first, i + 1);
      }
      if (c === QUOTE) this.#inString = true;
      else if (c === OPEN_BRACE || c === OPEN_BRACKET) this.#depth++;
      else if (c === CLOSE_BRACE || c === CLOSE_BRACKET || c === COMMA) {
        if (c !== COMMA) this.#depth--;
        if (this.#depth <= 0) return this.#ended(b, first, i + 1);
      }
    }
    this.#scanned += n - first;
    return -1;
  }

  #ended(b: Uint8Array, first: number, end: number): number {
    this.#scanned += end - first;
    return end;
  }
}

/** The longest date text (quotes included) kept to be told again at a glance. */
const LAST_DATE_BYTES = 64;

/** The bytes as little-endian 32-bit words (the last 0–3 bytes left out), for {@link RowsProfile}'s comparisons. */
function words(bytes: Uint8Array): Uint32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return Uint32Array.from({ length: bytes.length >> 2 }, (_, i) => view.getUint32(4 * i, true));
}
/**
 * Whether the four bytes of `w` are all printable ASCII other than a quote and a backslash (bit tricks on
 * the word: a byte below 0x20, a byte equal to 0x22 or 0x5c, a byte from 0x80 each set a high bit).
 */
function plainAscii(w: number): boolean {
  const control = (w - 0x20202020) & ~w;
  const q = w ^ 0x22222222;
  const s = w ^ 0x5c5c5c5c;
  return ((control | ((q - 0x01010101) & ~q) | ((s - 0x01010101) & ~s) | w) & 0x80808080) === 0;
}
/** 1 for the bytes a JSON string holds as they are (not a quote, a backslash or a control character). */
const PLAIN = new Uint8Array(256).fill(1);
for (let c = 0; c < 0x20; c++) PLAIN[c] = 0;
PLAIN[QUOTE] = 0;
PLAIN[BACKSLASH] = 0;
/** 1 for JSON's white space. */
const SPACE = new Uint8Array(256);
for (const c of [0x20, 0x0a, 0x0d, 0x09]) SPACE[c] = 1;
/** 1 for the bytes that may follow a backslash (`u` aside). */
const ESCAPES = new Uint8Array(256);
for (const c of [0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]) ESCAPES[c] = 1;
const [TRUE, FALSE, NULL] = ["true", "false", "null"].map((w) => Uint8Array.from(w, (ch) => ch.charCodeAt(0)));

function isDigit(b: number | undefined): boolean {
  return b !== undefined && b >= 0x30 && b <= 0x39;
}

function isHex(b: number | undefined): boolean {
  return b !== undefined && (isDigit(b) || (b >= 0x61 && b <= 0x66) || (b >= 0x41 && b <= 0x46));
}

function hex(b: number): number {
  return isDigit(b) ? b - 0x30 : (b | 0x20) - 0x61 + 10;
}

function describe(b: number): string {
  return b >= 0x20 && b < 0x7f ? JSON.stringify(String.fromCharCode(b)) : `byte 0x${b.toString(16).padStart(2, "0")}`;
}

/** What a text value is as a date: {@link IS_DATE}, and when it is, {@link ODD_DATE}, {@link LONG_FRACTION} and {@link FINE_FRACTION}. */
const IS_DATE = 1;
/** A form DuckDB's cast does not read as it is (`t`/`z`, a decimal comma, no seconds). */
const ODD_DATE = 2;
/** More than 6 decimals: DuckDB rounds past microseconds where the adapter truncates at milliseconds. */
const LONG_FRACTION = 4;
/** More than 3 decimals: past the milliseconds the adapter keeps. */
const FINE_FRACTION = 8;

/** The decimal value of the digits `b[from, to)`, or -1 when one is not a digit. */
function digitsAt(b: Uint8Array, from: number, to: number): number {
  let value = 0;
  for (let i = from; i < to; i++) {
    const d = b[i]! - 0x30;
    if (!(d >= 0 && d <= 9)) return -1;
    value = value * 10 + d;
  }
  return value;
}

/**
 * Whether the text `b[from, to)` (no escapes in it) is an ISO 8601 date or date-time as `parseIsoDate`
 * reads it, checked byte by byte (no string made), and how DuckDB would read it.
 */
export function dateFacts(b: Uint8Array, from: number, to: number): number {
  const len = to - from;
  if (len < 10 || b[from + 4] !== MINUS || b[from + 7] !== MINUS) return 0;
  const year = digitsAt(b, from, from + 4);
  const month = digitsAt(b, from + 5, from + 7);
  const day = digitsAt(b, from + 8, from + 10);
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return 0;
  if (len === 10) return IS_DATE;
  const sep = b[from + 10];
  if ((sep !== 0x54 && sep !== 0x74) || len < 16 || b[from + 13] !== COLON) return 0;
  const hour = digitsAt(b, from + 11, from + 13);
  const minute = digitsAt(b, from + 14, from + 16);
  let pos = from + 16;
  let second = 0;
  let facts = IS_DATE;
  if (pos < to && b[pos] === COLON) {
    if (len < 19 || (second = digitsAt(b, from + 17, from + 19)) < 0) return 0;
    pos = from + 19;
    if (pos < to && (b[pos] === 0x2e || b[pos] === COMMA)) {
      let end = pos + 1;
      while (end < to && isDigit(b[end])) end++;
      if (end === pos + 1) return 0;
      if (end - pos > 4) facts |= FINE_FRACTION;
      if (end - pos > 7) facts |= LONG_FRACTION;
      pos = end;
    }
  } else facts |= ODD_DATE; // no seconds
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second > 59) return 0;
  if (pos < to && !offsetAt(b, pos, to)) return 0;
  for (let i = from + 10; i < to; i++) if (b[i] === 0x74 || b[i] === 0x7a || b[i] === COMMA) facts |= ODD_DATE;
  return facts;
}

/** Whether `b[pos, to)` is a time zone as `parseIsoDate` reads it: `Z`, `±hh:mm` or `±hhmm`. */
function offsetAt(b: Uint8Array, pos: number, to: number): boolean {
  const sign = b[pos];
  if (sign === 0x5a || sign === 0x7a) return pos + 1 === to;
  if (sign !== 0x2b && sign !== MINUS) return false;
  const colon = b[pos + 3] === COLON;
  if (to !== pos + (colon ? 6 : 5)) return false;
  const oh = digitsAt(b, pos + 1, pos + 3);
  const om = digitsAt(b, colon ? pos + 4 : pos + 3, to);
  return oh >= 0 && oh <= 23 && om >= 0 && om <= 59;
}

/** {@link dateFacts} of a text (one written with escapes, read as JSON.parse reads it). */
export function textDateFacts(text: string): number {
  if (Number.isNaN(parseIsoDate(text))) return 0;
  let facts = IS_DATE;
  if (/[.,]\d{4}/.test(text)) facts |= FINE_FRACTION;
  if (/[.,]\d{7}/.test(text)) facts |= LONG_FRACTION;
  if (text.length > 10 && (text.charCodeAt(16) !== 0x3a || /[tz,]/.test(text))) facts |= ODD_DATE;
  return facts;
}

/** The DuckDB type `read_json` is given for a column (dates not {@link PlannedColumn.direct} are read as text, converted by {@link rowsSelectList}). */
function readType({ kind, direct }: PlannedColumn): string {
  if (kind === "date" && direct) return "TIMESTAMPTZ";
  return kind === "number" ? "DOUBLE" : kind === "boolean" ? "BOOLEAN" : "VARCHAR";
}

/**
 * `read_json(…)` of a spool file holding the rows as newline-delimited JSON, each column given its type:
 * the rows array's bytes as they came, the commas between rows made newlines and the newlines between a
 * row's tokens made spaces (a JSON string holds none). DuckDB's reader parses that form with a fifth less
 * CPU than the same rows as one array (970k rows on one thread: 1.6–1.9 s against 2.1–2.4 s).
 * `maxRowBytes`: the largest row (DuckDB refuses larger objects than its limit).
 */
export function readJsonRows(file: string, columns: readonly PlannedColumn[], maxRowBytes: number): string {
  const types = columns.map((c) => `${quoteString(c.name)}: ${quoteString(readType(c))}`).join(", ");
  const objectBytes = Math.max(DUCKDB_OBJECT_BYTES, maxRowBytes + 1024);
  return `read_json(${quoteString(file)}, format = 'newline_delimited', records = true, columns = {${types}}, maximum_object_size = ${objectBytes})`;
}

/**
 * The SELECT list that gives each column of {@link readJsonRows} the type a registered column table has:
 * number DOUBLE, text VARCHAR, boolean BOOLEAN, empty VARCHAR, dates TIMESTAMP of the UTC instant at
 * milliseconds (digits past them dropped, as the adapter does; the session's time zone must be UTC).
 * `zoned`: dates as TIMESTAMPTZ instead (the same instants, as a Parquet file keeps them).
 */
export function rowsSelectList(columns: readonly PlannedColumn[], zoned = false): string {
  return columns
    .map(({ name, kind, oddDates, direct }) => {
      const c = quoteIdent(name);
      if (kind !== "date") return c;
      // Read as TIMESTAMPTZ already: the same microseconds, without a zone.
      if (direct) return zoned ? c : `make_timestamp(epoch_us(${c})) as ${c}`;
      // `2026-01-02t03:04,5z` → `2026-01-02T03:04:00.5Z`: seconds where there are none, a decimal point, capitals.
      const text = oddDates ? `regexp_replace(replace(upper(${c}), ',', '.'), '^(.{16})([^:]|$)', '\\1:00\\2')` : c;
      const instant = `cast(${text} as timestamptz)`;
      const at = `make_timestamp(cast(floor(epoch_us(${instant}) / 1000) as bigint) * 1000)`;
      return `${zoned ? `timezone('UTC', ${at})` : at} as ${c}`;
    })
    .join(", ");
}
