/**
 * Rows of JSON objects straight into DuckDB: the rows' bytes (a table answer's `data_table`, its wrapper
 * cut off by {@link JsonRowScanner} in raw mode) go to a spool file as one bare JSON array, and DuckDB's
 * own reader (`read_json`) parses and loads them — no `JSON.parse`, no column table, no appender.
 *
 * DuckDB is told each column's type (`columns={…}`), never left to guess: a byte-level pass over the rows
 * ({@link RowsProfile}, as they arrive) checks the JSON strictly (DuckDB's reader accepts `NaN` and
 * trailing commas, `JSON.parse` does not), and learns the columns in the order first seen and the kind the
 * column-table adapter would give each (number, text, ISO 8601 dates, boolean, empty). Whatever the adapter
 * would warn about — a row that is not an object, a column of mixed kinds or nested values, a text column
 * whose dates stop, a number too large for a double — is a {@link RowsProfile.detour}: those rows take the
 * column table's route, which says so as it always has.
 */
import { isUtf8 } from "node:buffer";
import type { ColumnKind } from "../table/column-table";
import { parseIsoDate } from "../table/iso-date";
import { JsonScanError } from "./json-rows";
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

/** A column's present values by JSON type, and whether its text has all been ISO 8601 dates so far. */
interface ColumnStats {
  numbers: number;
  strings: number;
  booleans: number;
  nested: number;
  /** 0: no text yet; 1: every text value so far a date; 2: text that is not dates. */
  dates: 0 | 1 | 2;
  /** Dates in forms DuckDB's cast does not read as they are (`t`/`z`, a decimal comma, no seconds). */
  oddDates: boolean;
  /** The last row with this key (a key twice in one row is a detour). */
  lastRow: number;
  /** The last date text read (its bytes, quotes included): dates repeat, and a repeat needs no second look. */
  lastDate: Uint8Array;
}

/** What DuckDB is told of one column, and the kind the adapter would give it. */
export interface PlannedColumn {
  name: string;
  kind: ColumnKind;
  /** A date column with values in forms DuckDB's cast needs put in its own first. */
  oddDates?: boolean;
}

function isSpace(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

function isDigit(b: number): boolean {
  return b >= 0x30 && b <= 0x39;
}

const utf8 = new TextDecoder();

/**
 * Learns, from the bytes of row batches (rows separated by commas, as {@link JsonRowScanner} cuts them),
 * the columns in the order first seen and each one's kind, checking the JSON strictly. Throws
 * {@link JsonScanError} for bytes that are not JSON (or not UTF-8).
 */
export class RowsProfile {
  readonly names: string[] = [];
  readonly #index = new Map<string, number>();
  readonly #keys: Uint8Array[] = [];
  readonly #stats: ColumnStats[] = [];
  /** The column of the k-th key of the last row: rows from one serialiser repeat their keys in order. */
  readonly #order: number[] = [];
  readonly #lower = new Set<string>();
  rows = 0;
  /** The largest row, in bytes. */
  maxRowBytes = 0;
  /** Why these rows cannot take this route (the first reason found), or undefined. */
  detour: string | undefined;
  /** Bytes of rows seen before the current batch (for error offsets). */
  #seen = 0;
  #b: Uint8Array = new Uint8Array(0);

  /** `detectDates` false: text stays text (`dates: "keep"`). */
  constructor(readonly detectDates = true) {}

  /** Profiles one batch of rows; throws {@link JsonScanError} when it is not JSON. */
  add(batch: Uint8Array): void {
    if (!isUtf8(batch)) throw new JsonScanError("the body is not valid UTF-8", this.#seen);
    const b = (this.#b = batch);
    const n = b.length;
    let p = this.#ws(0);
    while (p < n) {
      const start = p;
      p = this.#ws(this.#row(p));
      this.maxRowBytes = Math.max(this.maxRowBytes, p - start);
      this.rows++;
      if (p === n) break;
      if (b[p] !== COMMA) this.#fail(p, `expected "," after a row`);
      p = this.#ws(p + 1);
      if (p === n) this.#fail(p, "expected a row");
    }
    this.#seen += n;
  }

  /** The columns and the kinds the adapter would give them (once every batch is in). */
  plan(): PlannedColumn[] {
    return this.names.map((name, j) => {
      const s = this.#stats[j]!;
      const present = s.numbers + s.strings + s.booleans + s.nested;
      let kind: ColumnKind = "mixed";
      if (present === 0) kind = "empty";
      else if (s.numbers === present) kind = "number";
      else if (s.booleans === present) kind = "boolean";
      else if (s.strings === present) kind = s.dates === 1 && this.detectDates ? "date" : "string";
      if (kind === "mixed") this.detour ??= `column "${name}" holds values of more than one kind, or nested ones`;
      return kind === "date" && s.oddDates ? { name, kind, oddDates: true } : { name, kind };
    });
  }

  #fail(p: number, what: string): never {
    const b = this.#b[p];
    const found = b === undefined ? "the end of the rows" : describe(b);
    throw new JsonScanError(`data_table rows ${this.rows}… are not JSON: ${what}, found ${found}`, this.#seen + p);
  }

  #ws(p: number): number {
    const b = this.#b;
    while (p < b.length && isSpace(b[p]!)) p++;
    return p;
  }

  /** One row; returns the index past it. */
  #row(p: number): number {
    const b = this.#b;
    if (b[p] !== OPEN_BRACE) {
      this.detour ??= `row ${this.rows} is not an object`;
      return this.#value(p);
    }
    p = this.#ws(p + 1);
    if (b[p] === CLOSE_BRACE) return p + 1;
    for (let k = 0; ; k++) {
      if (b[p] !== QUOTE) this.#fail(p, "expected a field name");
      const end = this.#string(p);
      const column = this.#column(p + 1, end - 1, k);
      p = this.#ws(end);
      if (b[p] !== COLON) this.#fail(p, 'expected ":"');
      p = this.#ws(this.#cell(this.#ws(p + 1), column));
      if (b[p] === COMMA) p = this.#ws(p + 1);
      else if (b[p] === CLOSE_BRACE) return p + 1;
      else this.#fail(p, 'expected "," or "}" in a row');
    }
  }

  /** The column of the key at `[from, to)`, the row's `k`-th; new columns are added in the order first seen. */
  #column(from: number, to: number, k: number): ColumnStats {
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
    if (stats.lastRow === this.rows) this.detour ??= `row ${this.rows} has the field "${this.names[j]}" twice`;
    stats.lastRow = this.rows;
    return stats;
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
    this.#stats.push({
      numbers: 0,
      strings: 0,
      booleans: 0,
      nested: 0,
      dates: 0,
      oddDates: false,
      lastRow: -1,
      lastDate: NO_BYTES,
    });
    return j;
  }

  /** A row's value for a column: counted by type; returns the index past it. */
  #cell(p: number, s: ColumnStats): number {
    const b = this.#b;
    const c = b[p];
    if (c === QUOTE) {
      const end = this.#string(p);
      s.strings++;
      if (s.dates !== 2 && this.detectDates) this.#dateText(p, end, s);
      return end;
    }
    if (c === MINUS || (c !== undefined && isDigit(c))) {
      s.numbers++;
      return this.#number(p);
    }
    if (c === 0x74 || c === 0x66) s.booleans++;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) s.nested++;
    return this.#value(p);
  }

  /** Whether a text cell keeps its column a date column (the adapter: the first text decides, the rest must follow). */
  #dateText(p: number, end: number, s: ColumnStats): void {
    const b = this.#b;
    const last = s.lastDate;
    if (last.length === end - p && s.dates === 1) {
      let i = 0;
      while (i < last.length && last[i] === b[p + i]) i++;
      if (i === last.length) return;
    }
    let date = false;
    // An ISO date begins with four digits and "-"; escapes and long fractions are left to the adapter.
    if (end - p >= 12 && b[p + 5] === MINUS && isDigit(b[p + 1]!)) {
      const text = latin1(b, p + 1, end - 1);
      date = !Number.isNaN(parseIsoDate(text));
      // DuckDB rounds past microseconds where the adapter truncates at milliseconds.
      if (date && /[.,]\d{7}/.test(text)) this.detour ??= `a date has more than 6 decimals (${text})`;
      if (date && !s.oddDates && text.length > 10 && (text.charCodeAt(16) !== 0x3a || /[tz,]/.test(text)))
        s.oddDates = true;
    }
    if (date) s.lastDate = b.slice(p, end);
    if (s.dates === 0) s.dates = date ? 1 : 2;
    else if (!date) {
      s.dates = 2;
      this.detour ??= "a column's dates stop";
    }
  }

  /** A string from its opening quote; returns the index past its closing quote. */
  #string(p: number): number {
    const b = this.#b;
    const n = b.length;
    for (let i = p + 1; i < n; i++) {
      // Most bytes are plain text: one table look-up each until a quote, a backslash or a control character.
      while (i < n && PLAIN[b[i]!] === 1) i++;
      if (i >= n) break;
      const c = b[i]!;
      if (c === QUOTE) return i + 1;
      if (c < 0x20) this.#fail(i, "a control character in a string");
      if (c === BACKSLASH) {
        const e = b[++i];
        if (e === 0x75) {
          for (let h = 1; h <= 4; h++) if (!isHex(b[i + h])) this.#fail(i + h, "expected 4 hex digits after \\u");
          // A lone surrogate is text to JSON.parse, not UTF-8 to DuckDB.
          if ((hex(b[i + 1]!) << 4) + hex(b[i + 2]!) >= 0xd8 && (hex(b[i + 1]!) << 4) + hex(b[i + 2]!) <= 0xdf)
            this.detour ??= "a string holds a \\u surrogate escape";
          i += 4;
        } else if (e === undefined || !ESCAPES.has(e)) this.#fail(i, "an invalid escape in a string");
      }
    }
    return this.#fail(n, "a string without its closing quote");
  }

  /** A number, checked against JSON's grammar; returns the index past it. */
  #number(p: number): number {
    const b = this.#b;
    const start = p;
    if (b[p] === MINUS) p++;
    if (b[p] === 0x30) p++;
    else if (isDigit(b[p] ?? 0)) while (isDigit(b[p] ?? 0)) p++;
    else this.#fail(p, "expected a digit");
    let exact = p - start <= 15;
    if (b[p] === 0x2e) {
      if (!isDigit(b[++p] ?? 0)) this.#fail(p, "expected a digit after the decimal point");
      while (isDigit(b[p] ?? 0)) p++;
    }
    if (b[p] === 0x65 || b[p] === 0x45) {
      exact = false;
      p++;
      if (b[p] === 0x2b || b[p] === MINUS) p++;
      if (!isDigit(b[p] ?? 0)) this.#fail(p, "expected a digit in the exponent");
      while (isDigit(b[p] ?? 0)) p++;
    }
    // JSON.parse reads 1e400 as Infinity; DuckDB reads it as NULL.
    if (!exact && !Number.isFinite(Number(utf8.decode(b.subarray(start, p)))))
      this.detour ??= "a number is too large for a double";
    return p;
  }

  /** Any JSON value (nested ones checked whole); returns the index past it. */
  #value(p: number): number {
    const b = this.#b;
    const c = b[p];
    if (c === QUOTE) return this.#string(p);
    if (c === MINUS || (c !== undefined && isDigit(c))) return this.#number(p);
    if (c === OPEN_BRACE || c === OPEN_BRACKET) return this.#container(p);
    for (const word of WORDS)
      if (c === word[0] && word.every((w, i) => b[p + i] === w)) {
        return p + word.length;
      }
    return this.#fail(p, "expected a JSON value");
  }

  /** An object or array; returns the index past it. */
  #container(p: number): number {
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
      p = this.#ws(this.#value(p));
      if (b[p] === close) return p + 1;
      if (b[p] !== COMMA) this.#fail(p, `expected "," or "${String.fromCharCode(close)}"`);
      p = this.#ws(p + 1);
    }
  }
}

const NO_BYTES = new Uint8Array(0);
/** 1 for the bytes a JSON string holds as they are (not a quote, a backslash or a control character). */
const PLAIN = new Uint8Array(256).fill(1);
for (let c = 0; c < 0x20; c++) PLAIN[c] = 0;
PLAIN[QUOTE] = 0;
PLAIN[BACKSLASH] = 0;

/** ASCII bytes `[from, to)` as text; a byte past ASCII makes text that is no date, as it should. */
function latin1(b: Uint8Array, from: number, to: number): string {
  let text = "";
  for (let i = from; i < to; i++) text += String.fromCharCode(b[i]!);
  return text;
}

const ESCAPES = new Set([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);
const WORDS = ["true", "false", "null"].map((w) => [...w].map((ch) => ch.charCodeAt(0)));

function isHex(b: number | undefined): boolean {
  return b !== undefined && (isDigit(b) || (b >= 0x61 && b <= 0x66) || (b >= 0x41 && b <= 0x46));
}

function hex(b: number): number {
  return isDigit(b) ? b - 0x30 : (b | 0x20) - 0x61 + 10;
}

function describe(b: number): string {
  return b >= 0x20 && b < 0x7f ? JSON.stringify(String.fromCharCode(b)) : `byte 0x${b.toString(16).padStart(2, "0")}`;
}

/** The DuckDB type `read_json` is given for a kind (dates are read as text, converted by {@link rowsSelectList}). */
function readType(kind: ColumnKind): string {
  return kind === "number" ? "DOUBLE" : kind === "boolean" ? "BOOLEAN" : "VARCHAR";
}

/**
 * `read_json(…)` of a spool file holding the rows as one JSON array, each column given its type.
 * `maxRowBytes`: the largest row (DuckDB refuses larger objects than its limit).
 */
export function readJsonRows(file: string, columns: readonly PlannedColumn[], maxRowBytes: number): string {
  const types = columns.map((c) => `${quoteString(c.name)}: ${quoteString(readType(c.kind))}`).join(", ");
  const objectBytes = Math.max(DUCKDB_OBJECT_BYTES, maxRowBytes + 1024);
  return `read_json(${quoteString(file)}, format = 'array', records = true, columns = {${types}}, maximum_object_size = ${objectBytes})`;
}

/**
 * The SELECT list that gives each column of {@link readJsonRows} the type a registered column table has:
 * number DOUBLE, text VARCHAR, boolean BOOLEAN, empty VARCHAR, dates TIMESTAMP of the UTC instant at
 * milliseconds (digits past them dropped, as the adapter does; the session's time zone must be UTC).
 */
export function rowsSelectList(columns: readonly PlannedColumn[]): string {
  return columns
    .map(({ name, kind, oddDates }) => {
      const c = quoteIdent(name);
      if (kind !== "date") return c;
      // `2026-01-02t03:04,5z` → `2026-01-02T03:04:00.5Z`: seconds where there are none, a decimal point, capitals.
      const text = oddDates ? `regexp_replace(replace(upper(${c}), ',', '.'), '^(.{16})([^:]|$)', '\\1:00\\2')` : c;
      const instant = `cast(${text} as timestamptz)`;
      return `make_timestamp(cast(floor(epoch_us(${instant}) / 1000) as bigint) * 1000) as ${c}`;
    })
    .join(", ");
}
