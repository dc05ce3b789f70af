/**
 * Tables in notebook outputs, compared by key. A table reaches a notebook as `plot.show` renders it
 * (src/plot/table-view.ts): an HTML preview, the richest form its outputs carry, with the shape, the
 * column names and types, and the rows shown (the first and last few). Those are read back here and
 * compared with `frames.diff` on a key column chosen from what is shown; the row counts and the
 * columns are compared whole.
 */
import { TableBuilder, type ColumnTable } from "../../table/column-table";
import { diff as diffFrames, type FrameDiff } from "../../frames/diff";
import { normalizeVolatile } from "./text";

/** A table as a notebook output shows it. */
export interface ShownTable {
  /** `DataFrame` or `ColumnTable`. */
  what: string;
  /** All rows of the table (the caption's count), and where it came from (`RateAsset`). */
  rows: number;
  source?: string;
  columns: string[];
  types: string[];
  /** The row numbers shown, and their cells as text. */
  index: string[];
  cells: string[][];
}

const ENTITIES: Record<string, string> = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'" };
const unescape = (s: string) => s.replace(/&(?:amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e]!);

/** Whether an output's HTML is a table preview of this package. */
export function isTableHtml(html: string): boolean {
  return html.includes('<div class="rpl-table">');
}

/** Reads a table preview back (see src/plot/table-view.ts `tableHtml`); undefined when it is not one. */
export function parseTableHtml(html: string): ShownTable | undefined {
  if (!isTableHtml(html)) return undefined;
  const caption =
    /<p class="rpl-caption"><b>([^<]*)<\/b> · ([\d,]+) rows? × \d+ columns?(?: <span class="rpl-muted">· from ([^<]*)<\/span>)?/.exec(
      html,
    );
  const head = /<thead>(.*?)<\/thead>/s.exec(html)?.[1];
  const body = /<tbody>(.*?)<\/tbody>/s.exec(html)?.[1];
  if (!caption || head === undefined || body === undefined) return undefined;
  const headRows = [...head.matchAll(/<tr[^>]*>(.*?)<\/tr>/gs)].map((m) => cellsOf(m[1]!, "th").slice(1));
  const index: string[] = [];
  const cells: string[][] = [];
  for (const m of body.matchAll(/<tr([^>]*)>(.*?)<\/tr>/gs)) {
    if (m[1]!.includes("rpl-gap")) continue;
    const row = cellsOf(m[2]!, "td");
    index.push(row[0] ?? "");
    cells.push(row.slice(1));
  }
  return {
    what: caption[1]!,
    rows: Number(caption[2]!.replace(/,/g, "")),
    ...(caption[3] ? { source: unescape(caption[3]) } : {}),
    columns: headRows[0] ?? [],
    types: headRows[1] ?? [],
    index,
    cells,
  };
}

function cellsOf(rowHtml: string, tag: "td" | "th"): string[] {
  return [...rowHtml.matchAll(new RegExp(`<${tag}[^>]*>(.*?)</${tag}>`, "gs"))].map((m) =>
    unescape(m[1]!.replace(/<[^>]*>/g, "")),
  );
}

/** The column a preview row's number goes in. */
export const ROW_COLUMN = "(row)";

/** A cell's text as the value it shows: numbers (`1,234.5`, `NaN`) as numbers, `null` as missing, the rest as text. */
function cellValue(text: string, type: string | undefined): unknown {
  if (text === "null") return null;
  if (type === "number" || type === "?" || type === undefined) {
    if (text === "NaN") return NaN;
    const n = Number(text.replace(/,/g, ""));
    if (text.trim() !== "" && /^[-+]?[\d,]*\.?\d+(?:e[-+]?\d+)?$|^-?Infinity$/i.test(text) && !Number.isNaN(n))
      return n;
  }
  // A time of day in a cell (when a report ran) is what every run changes, as in printed text.
  return normalizeVolatile(text);
}

/** The rows a preview shows, as a column table (the row number in `(row)`). */
export function shownRows(t: ShownTable): ColumnTable {
  const builder = new TableBuilder(t.cells.length, t.source ?? t.what);
  // A DataFrame's index may be text or repeat itself: then the position in the preview stands in.
  const numbers = t.index.map((i) => Number(i.replace(/,/g, "")));
  const usable = numbers.every((n) => Number.isFinite(n)) && new Set(numbers).size === numbers.length;
  builder.add(ROW_COLUMN, usable ? numbers : t.index.map((_, k) => k), { hint: "number" });
  t.columns.forEach((c, j) => {
    if (c === ROW_COLUMN || builder.has(c)) return;
    builder.add(
      c,
      t.cells.map((row) => cellValue(row[j] ?? "", t.types[j])),
      { hint: "auto", detectDates: false },
    );
  });
  return builder.build();
}

/**
 * The key to pair shown rows on: the first column (left to right) whose shown values are all present and
 * unique in both previews and that is text or a date, or is the first column (`days`, `trade_id`); else
 * the row number.
 */
export function chooseKey(a: ColumnTable, b: ColumnTable): string {
  const unique = (t: ColumnTable, c: string) => {
    const values = t.data[c];
    if (!values) return false;
    const seen = new Set(values.map((v) => (typeof v === "number" ? `n${v}` : `s${String(v)}`)));
    return seen.size === values.length && !values.some((v) => v === null || (typeof v === "number" && Number.isNaN(v)));
  };
  const columns = a.columns.filter((c) => c !== ROW_COLUMN && b.columns.includes(c));
  for (const c of columns) {
    const first = c === columns[0];
    const textual = a.kinds[c] !== "number" && b.kinds[c] !== "number";
    if ((first || textual) && unique(a, c) && unique(b, c)) return c;
  }
  return ROW_COLUMN;
}

/** What changed in one table output. */
export interface TableChange {
  /** `DataFrame · from SQL` (the preview's caption without its shape). */
  title: string;
  rowsBefore: number;
  rowsAfter: number;
  columnsAdded: string[];
  columnsRemoved: string[];
  /** The shown rows compared on `key` (frames.diff over the rows both previews show). */
  key: string;
  rows: FrameDiff;
  /** How many rows each preview showed. */
  shownBefore: number;
  shownAfter: number;
}

/** Compares two table previews; undefined when nothing differs within the tolerance. */
export function diffTables(before: ShownTable, after: ShownTable, tolerance: number): TableChange | undefined {
  const a = shownRows(before);
  const b = shownRows(after);
  const key = chooseKey(a, b);
  // The row number is the key, or it only says where a row was: then it is not compared.
  const compared = a.columns.filter((c) => c !== key && c !== ROW_COLUMN && b.columns.includes(c));
  const rows = diffFrames(a, b, { key, tolerance, columns: compared });
  const columnsAdded = after.columns.filter((c) => !before.columns.includes(c));
  const columnsRemoved = before.columns.filter((c) => !after.columns.includes(c));
  const same =
    before.rows === after.rows &&
    !columnsAdded.length &&
    !columnsRemoved.length &&
    !rows.rows.length &&
    !rows.added.rowCount &&
    !rows.removed.rowCount;
  if (same) return undefined;
  return {
    title: `${after.what}${after.source ? ` · from ${after.source}` : ""}`,
    rowsBefore: before.rows,
    rowsAfter: after.rows,
    columnsAdded,
    columnsRemoved,
    key,
    rows,
    shownBefore: before.cells.length,
    shownAfter: after.cells.length,
  };
}
