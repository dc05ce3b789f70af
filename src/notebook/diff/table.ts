/**
 * Tables in notebook outputs, compared by key. A table reaches a notebook as `plot.show` renders it
 * (`tableHtml`): an HTML preview, the richest form its outputs carry, with the shape, the
 * column names and types, and the rows shown (the first and last few). Those are read back here and
 * compared with `frames.diff` on a key column chosen from what is shown; the row counts and the
 * columns are compared whole.
 */
import { TableBuilder, type ColumnTable } from "../../table/column-table";
import { diff as diffFrames, type FrameDiff } from "../../frames/diff";
import { notIn } from "../../table/diff";
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
const unescape = (s: string) => (s.includes("&") ? s.replace(/&(?:amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e]!) : s);

/** Whether an output's HTML is a table preview of this package. */
export function isTableHtml(html: string): boolean {
  return html.includes('<div class="rpl-table">');
}

/** Reads a table preview back (see `tableHtml`); undefined when it is not one. */
export function parseTableHtml(html: string): ShownTable | undefined {
  if (!isTableHtml(html)) return undefined;
  const caption =
    /<p class="rpl-caption"><b>([^<]*)<\/b> · ([\d,]+) rows? × \d+ columns?(?: <span class="rpl-muted">· from ([^<]*)<\/span>)?/.exec(
      html,
    );
  const head = elements(html, "thead")[0]?.inner;
  const body = elements(html, "tbody")[0]?.inner;
  if (!caption || head === undefined || body === undefined) return undefined;
  const headRows = elements(head, "tr").map((tr) => cellsOf(tr.inner, "th").slice(1));
  const index: string[] = [];
  const cells: string[][] = [];
  for (const tr of elements(body, "tr")) {
    if (tr.attributes.includes("rpl-gap")) continue;
    const row = cellsOf(tr.inner, "td");
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

/** An element as {@link elements} reads it: what its start tag holds after the name, and its inner HTML. */
interface Element {
  attributes: string;
  inner: string;
}

/**
 * The `<tag …>…</tag>` elements of `html` in order (not nested in each other), as the regex
 * `<tag([^>]*)>(.*?)</tag>` would find them, in one scan: a start tag without its end ends the list
 * (the regex would try every later start tag to the end of the text: quadratic in the text's length).
 */
function elements(html: string, tag: string): Element[] {
  const open = `<${tag}`;
  const close = `</${tag}>`;
  const out: Element[] = [];
  for (let at = 0; ;) {
    const start = html.indexOf(open, at);
    const gt = start < 0 ? -1 : html.indexOf(">", start + open.length);
    const end = gt < 0 ? -1 : html.indexOf(close, gt + 1);
    if (end < 0) return out;
    out.push({ attributes: html.slice(start + open.length, gt), inner: html.slice(gt + 1, end) });
    at = end + close.length;
  }
}

/** `html` without its tags (`<…>`), in one scan: a `<` with no `>` after it stays, with the rest. */
function withoutTags(html: string): string {
  if (!html.includes("<")) return html;
  let out = "";
  let at = 0;
  for (;;) {
    const lt = html.indexOf("<", at);
    const gt = lt < 0 ? -1 : html.indexOf(">", lt + 1);
    if (gt < 0) return out + html.slice(at);
    out += html.slice(at, lt);
    at = gt + 1;
  }
}

/** `data-x="…"` in a start tag: the exact value of a number the preview shows rounded (`tableHtml`). */
const EXACT = /\sdata-x="([^"]*)"/;

/** The cells of a row as text: a rounded number's exact value when its cell carries one, else what it shows. */
function cellsOf(rowHtml: string, tag: "td" | "th"): string[] {
  return elements(rowHtml, tag).map((cell) => EXACT.exec(cell.attributes)?.[1] ?? unescape(withoutTags(cell.inner)));
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
  const inB = new Set(b.columns);
  const columns = a.columns.filter((c) => c !== ROW_COLUMN && inB.has(c));
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
  const inB = new Set(b.columns);
  const compared = a.columns.filter((c) => c !== key && c !== ROW_COLUMN && inB.has(c));
  const rows = diffFrames(a, b, { key, tolerance, columns: compared });
  const columnsAdded = notIn(after.columns, before.columns);
  const columnsRemoved = notIn(before.columns, after.columns);
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
