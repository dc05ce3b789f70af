/**
 * A small RFC 4180 CSV reader for upload files (bond prices, vol curves): quoted fields with `""`
 * escapes and line breaks inside quotes, CRLF / LF / CR line ends, a UTF-8 byte-order mark, `,` `;` or
 * tab as delimiter (detected from the header line unless given). It keeps the physical line on which
 * every record starts, so a bad row is reported as `line 9` — the number an editor shows.
 *
 * Why not a dependency: upload files are small, the rules above are the whole job, and the line
 * numbers (which papaparse and csv-parse report differently for multi-line fields) are the point.
 */
import { CsvError } from "./errors";
import { readFileSync } from "node:fs";

export interface CsvOptions {
  /** Field delimiter; default: detected from the header line (`,`, `;` or tab; `,` on a tie). */
  delimiter?: string;
}

export interface CsvTable {
  /** Header cells, trimmed. */
  header: string[];
  /** Data records (cells as text, untrimmed); blank lines are skipped. */
  records: string[][];
  /** The 1-based line on which each record starts (the header is on line `headerLine`). */
  lines: number[];
  headerLine: number;
  delimiter: string;
}

function detectDelimiter(text: string): string {
  const counts: Record<string, number> = { ",": 0, ";": 0, "\t": 0 };
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') quoted = !quoted;
    else if (!quoted && (c === "\n" || c === "\r")) break;
    else if (!quoted && c in counts) counts[c]!++;
  }
  let best = ",";
  for (const d of [";", "\t"]) if (counts[d]! > counts[best]!) best = d;
  return best;
}

/**
 * Reads CSV text: header, records and the line of each record.
 * @example
 * ```ts
 * const { header, records, lines } = frames.parseCsv("date,code\n2026-11-20,DE0001102580\n");
 * ```
 */
export function parseCsv(text: string, options: CsvOptions = {}): CsvTable {
  const input = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const delimiter = options.delimiter ?? detectDelimiter(input);
  checkDelimiter(delimiter);
  const { rows, starts } = readRecords(input, delimiter);
  if (rows.length === 0) throw new CsvError("no header line: the file is empty", 1);
  const [header, ...records] = rows;
  const [headerLine, ...lines] = starts;
  return { header: header!.map((h) => h.trim()), records, lines, headerLine: headerLine!, delimiter };
}

/** Throws a RangeError unless the delimiter is one character other than a quote or a line break. */
function checkDelimiter(delimiter: string): void {
  if (delimiter.length !== 1 || delimiter === '"' || delimiter === "\n" || delimiter === "\r") {
    throw new RangeError(
      `delimiter must be one character other than a quote or a line break, got ${JSON.stringify(delimiter)}`,
    );
  }
}

/** A read position in the text: the index and the 1-based line it is on. */
interface CsvCursor {
  i: number;
  line: number;
}

/** Every record of the text (the header first, blank lines skipped) and the line on which each starts. */
function readRecords(input: string, delimiter: string): { rows: string[][]; starts: number[] } {
  const rows: string[][] = [];
  const starts: number[] = [];
  let row: string[] = [];
  let field = "";
  let line = 1;
  let rowStart = 1;
  let i = 0;
  const n = input.length;
  const cursor: CsvCursor = { i, line };
  // A record is kept unless it is one empty unquoted field (a blank line).
  let sawQuote = false;
  const endRecord = () => {
    row.push(field);
    if (row.length > 1 || row[0] !== "" || sawQuote) {
      rows.push(row);
      starts.push(rowStart);
    }
    row = [];
    field = "";
    sawQuote = false;
  };
  while (i < n) {
    const c = input[i]!;
    if (c === '"' && field === "") {
      // A quoted field. (A quote after other characters of a field is an ordinary character.)
      sawQuote = true;
      cursor.i = i;
      cursor.line = line;
      field = readQuotedField(input, delimiter, cursor);
      i = cursor.i;
      line = cursor.line;
      continue;
    }
    if (c === delimiter) {
      row.push(field);
      field = "";
      i++;
      continue;
    }
    if (c === "\n" || c === "\r") {
      endRecord();
      i += c === "\r" && input[i + 1] === "\n" ? 2 : 1;
      line++;
      rowStart = line;
      continue;
    }
    field += c;
    i++;
  }
  if (field !== "" || row.length > 0 || sawQuote) endRecord();
  return { rows, starts };
}

/**
 * The quoted field whose opening quote is at `at.i`: up to the closing quote; "" is a literal quote; line
 * breaks are data. Moves `at` past the field (to the delimiter or line end) and counts its line breaks.
 */
function readQuotedField(input: string, delimiter: string, at: CsvCursor): string {
  const n = input.length;
  let line = at.line;
  const openLine = line;
  let i = at.i + 1;
  let value = "";
  for (;;) {
    if (i >= n) throw new CsvError("a quoted field is never closed", openLine);
    const q = input[i]!;
    if (q === '"') {
      if (input[i + 1] === '"') {
        value += '"';
        i += 2;
        continue;
      }
      i++;
      break;
    }
    if (q === "\r") {
      line++;
      if (input[i + 1] === "\n") {
        value += "\r\n";
        i += 2;
        continue;
      }
    } else if (q === "\n") line++;
    value += q;
    i++;
  }
  let field = value;
  // Anything between the closing quote and the delimiter is kept as written (lenient).
  while (i < n && input[i] !== delimiter && input[i] !== "\n" && input[i] !== "\r") field += input[i++];
  at.i = i;
  at.line = line;
  return field;
}

/**
 * Reads a CSV file (UTF-8).
 * @example
 * ```ts
 * const { header, records } = frames.readCsvFile("prices.csv");
 * ```
 */
export function readCsvFile(path: string, options: CsvOptions = {}): CsvTable {
  return parseCsv(readFileSync(path, "utf8"), options);
}
