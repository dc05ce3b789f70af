/**
 * Tables for notebook display: an HTML table (shape, column types, first and last rows, and a footer
 * line saying where the rows came from) and the same as plain text. Reads only the rows it shows: a
 * DataFrame's row array is sliced, never copied whole.
 */
import type { DataFrame } from "../../vendor/danfo";
import { formatProvenance } from "../client/provenance";
import {
  formatWarning,
  isTypedColumnTable,
  ownEntry,
  plainValue,
  type ColumnKind,
  type ColumnTable,
  type TypedColumnTable,
} from "../table/column-table";
import { frameInfo, KIND_OF_DTYPE } from "../frames/danfo";
import { provenance } from "../frames/provenance";
import { isColumnTable, isDataFrame, isSeries, plotDate, type SeriesLike } from "./input";
import { escapeHtml } from "./labels";
import { checkDigits, columnNumberText, digitsFor, type Digits } from "./number-text";

/** Rows shown from the top and from the bottom by default. */
export const DEFAULT_TABLE_ROWS = 5;

interface Preview {
  what: "DataFrame" | "ColumnTable" | "TypedColumnTable" | "Series";
  rows: number;
  columns: string[];
  types: string[];
  /** Row numbers and cells of the rows shown; `gap` is where the elided rows are (head/tail split). */
  shown: { index: unknown; cells: unknown[] }[];
  gap: number | undefined;
  source?: string;
  warnings: string[];
  /** The provenance line (`formatProvenance`), empty when the table carries none. */
  origin: string;
}

/** The rows to show: all when there are at most `2 × n`, else the first `n` and the last `n`. */
function pickRows(total: number, n: number): { take: number[]; gap: number | undefined } {
  if (total <= 2 * n) return { take: [...Array(total).keys()], gap: undefined };
  return { take: [...[...Array(n).keys()], ...[...Array(n).keys()].map((i) => total - n + i)], gap: n };
}

/** What the table views show: a column table (typed or not), a DataFrame, or a Series (as a one-column table with its index). */
export type TableLike = ColumnTable | TypedColumnTable | DataFrame | SeriesLike;

function preview(input: TableLike, n: number): Preview {
  if (isSeries(input)) return seriesPreview(input, n);
  const origin = formatProvenance(provenance(input));
  if (isColumnTable(input) || isTypedColumnTable(input)) {
    const { take, gap } = pickRows(input.rowCount, n);
    // A typed table's dates are epoch ms: shown as the Dates a plain table holds (only the rows shown are read).
    const cell = (c: string, i: number) => plainValue(ownEntry(input.kinds, c), ownEntry(input.data, c), i);
    return {
      what: isTypedColumnTable(input) ? "TypedColumnTable" : "ColumnTable",
      rows: input.rowCount,
      columns: input.columns,
      types: input.columns.map((c) => typeLabel(ownEntry(input.kinds, c))),
      shown: take.map((i) => ({ index: i, cells: input.columns.map((c) => cell(c, i)) })),
      gap,
      source: input.meta?.source,
      warnings: (input.meta?.warnings ?? []).map(formatWarning),
      origin,
    };
  }
  const df = input as unknown as {
    shape: number[];
    columns: string[];
    dtypes: string[];
    values: unknown[];
    index: unknown[];
  };
  const info = frameInfo(input);
  const total = df.shape[0] ?? 0;
  const { take, gap } = pickRows(total, n);
  const values = df.values;
  const index = df.index;
  return {
    what: "DataFrame",
    rows: total,
    columns: df.columns,
    // The adapter's kind when known (a danfo `string` may be a category), else danfo's dtype named as
    // what the values are: danfo says float32 or int32 for columns of JavaScript doubles.
    types: df.columns.map((c, j) => {
      const kind = info?.kinds[c];
      return kind && kind !== "empty" ? typeLabel(kind) : dtypeLabel(df.dtypes[j]);
    }),
    shown: take.map((i) => {
      const row = values[i];
      return { index: index?.[i] ?? i, cells: Array.isArray(row) ? row : [row] };
    }),
    gap,
    source: info?.source,
    warnings: info?.warnings ?? [],
    origin,
  };
}

/** A Series: its index and its values, the name as the column, danfo's dtype as what its values are; only the rows shown are read. */
function seriesPreview(series: SeriesLike, n: number): Preview {
  const total = series.values.length;
  const { take, gap } = pickRows(total, n);
  return {
    what: "Series",
    rows: total,
    columns: [String(series.columns[0] ?? "")],
    types: [dtypeLabel(series.dtype)],
    shown: take.map((i) => ({ index: series.index[i] ?? i, cells: [series.values[i]] })),
    gap,
    warnings: [],
    origin: "",
  };
}

function typeLabel(kind: ColumnKind | undefined): string {
  return kind ?? "?";
}

/** danfo's dtype as what its values are (`float32` and `int32` columns hold JavaScript doubles: `number`). */
function dtypeLabel(dtype: string | undefined): string {
  return (dtype && KIND_OF_DTYPE[dtype]) ?? dtype ?? "?";
}

/** A number exactly as it is (the shortest text that reads back as the same double), its integer digits grouped. */
export function exactNumber(v: number): string {
  if (Object.is(v, -0)) return "-0";
  const text = String(v);
  if (!Number.isFinite(v) || text.includes("e")) return text;
  const sign = text.startsWith("-") ? "-" : "";
  const [whole, fraction] = text.slice(sign.length).split(".");
  const grouped = whole!.replace(/\B(?=(\d{3})+$)/g, ",");
  return `${sign}${grouped}${fraction === undefined ? "" : `.${fraction}`}`;
}

/** A cell as text: dates as `YYYY-MM-DD` (or with the time), numbers exactly with grouped digits, missing as `NaN`/`null`. */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (v instanceof Date) return plotDate(v.getTime()) ?? "Invalid Date";
  if (typeof v === "number") return Number.isNaN(v) ? "NaN" : exactNumber(v);
  if (typeof v === "object") {
    try {
      return JSON.stringify(v);
    } catch {
      return String(v);
    }
  }
  return String(v);
}

/**
 * How a table view is drawn: the rows shown from the top and from the bottom (default
 * `DEFAULT_TABLE_ROWS`), and the decimal places of its numbers. Without `digits` each number column
 * shows up to 10 significant digits (more, up to 15, where the values shown would otherwise read alike),
 * trailing zeros dropped, whole numbers whole: never binary float noise. `digits: 4` writes every column
 * that holds a fraction to 4 places; `digits: { rate: 6 }` writes `rate` to 6 places, whole or not. Only
 * the display rounds: the table keeps every digit.
 */
export interface TableViewOptions {
  rows?: number;
  digits?: Digits;
}

function viewOptions(options: number | TableViewOptions): { rows: number; digits?: Digits } {
  return typeof options === "number"
    ? { rows: options }
    : { rows: options.rows ?? DEFAULT_TABLE_ROWS, digits: options.digits };
}

/** One writer per column for the cells shown: numbers as {@link TableViewOptions} says, the rest as {@link cellText}. */
function cellWriters(p: Preview, digits: Digits | undefined, caller: string): ((v: unknown) => string)[] {
  const checked = checkDigits(digits, p.columns, caller);
  return p.columns.map((name, j) => {
    const number = columnNumberText(
      p.shown.map((r) => r.cells[j]),
      digitsFor(checked, name),
    );
    return (v) => (typeof v === "number" && !Number.isNaN(v) ? number(v) : cellText(v));
  });
}

/**
 * ` data-x="<exact>"` for a number its cell shows rounded (`0.3` for 0.30000000000000004, `0.25` for
 * 0.2487 with `digits: 2`), else nothing: `diff` of two runs reads the exact value (the notebook diff's
 * table reader), so a change the display rounds away is still a change. Only rounded cells carry it.
 */
function exactAttribute(v: unknown, text: string): string {
  if (typeof v !== "number" || !Number.isFinite(v) || Number(text.replace(/,/g, "")) === v) return "";
  return ` data-x="${String(v)}"`;
}

function isMissing(v: unknown): boolean {
  return v === null || v === undefined || (typeof v === "number" && Number.isNaN(v));
}

const CSS = [
  ".rpl-table{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;color:#2a3442}",
  ".rpl-table .rpl-caption{font:13px/1.5 system-ui,sans-serif;margin:0 0 6px}",
  ".rpl-table .rpl-caption b{font-weight:600}",
  ".rpl-table .rpl-muted{color:#6b7685}",
  ".rpl-table .rpl-provenance{font:11px/1.4 system-ui,sans-serif;margin:4px 0 0}",
  ".rpl-table table{border-collapse:collapse}",
  ".rpl-table th,.rpl-table td{padding:3px 10px;border-bottom:1px solid #e6e9ef;text-align:right;white-space:nowrap;max-width:28em;overflow:hidden;text-overflow:ellipsis}",
  ".rpl-table thead th{border-bottom:1px solid #9aa3ad;position:sticky;top:0;background:#fff}",
  ".rpl-table thead tr.rpl-types th{font-weight:normal;color:#6b7685;font-style:italic}",
  ".rpl-table td.rpl-text{text-align:left}",
  ".rpl-table td.rpl-na{color:#b0b7c1}",
  ".rpl-table tr.rpl-gap td{text-align:center;color:#6b7685}",
  ".rpl-table th.rpl-index,.rpl-table td.rpl-index{color:#6b7685;text-align:right}",
].join("");

/** `4,859 rows × 13 columns`; a Series: `291 rows`. */
function shapeText(p: Preview): string {
  const rows = `${p.rows.toLocaleString("en-US")} row${p.rows === 1 ? "" : "s"}`;
  return p.what === "Series" ? rows : `${rows} × ${p.columns.length} column${p.columns.length === 1 ? "" : "s"}`;
}

/**
 * A table as HTML: a caption (`DataFrame · 4,859 rows × 13 columns · from GetTransactionTable`), then
 * the column names with their types, the first `rows` and last `rows` rows, one line saying where the
 * rows came from (operation, request, source, server, time received; when the table has provenance),
 * and the number of warnings the adapter recorded. Self-contained (inline styles scoped to `.rpl-table`).
 * `options`: the rows shown (a number, as before) or {@link TableViewOptions} (`{ rows: 3, digits: 4 }`).
 * @example
 * ```ts
 * const html = plot.tableHtml(frames.yieldCurveColumns(curve), { rows: 5, digits: 4 });
 * ```
 */
export function tableHtml(input: TableLike, options: number | TableViewOptions = DEFAULT_TABLE_ROWS): string {
  const { rows, digits } = viewOptions(options);
  const p = preview(input, rows);
  const write = cellWriters(p, digits, "tableHtml");
  const shape = shapeText(p);
  const from = p.source ? ` <span class="rpl-muted">· from ${escapeHtml(p.source)}</span>` : "";
  const shownNote = p.gap !== undefined ? ` <span class="rpl-muted">· first ${rows} and last ${rows} rows</span>` : "";
  const head = `<tr><th class="rpl-index"></th>${p.columns.map((c) => `<th>${escapeHtml(c)}</th>`).join("")}</tr>`;
  const types = `<tr class="rpl-types"><th class="rpl-index"></th>${p.types.map((t) => `<th>${escapeHtml(t)}</th>`).join("")}</tr>`;
  const body: string[] = [];
  p.shown.forEach((r, k) => {
    if (p.gap !== undefined && k === p.gap)
      body.push(`<tr class="rpl-gap"><td class="rpl-index">⋮</td>${p.columns.map(() => "<td>⋮</td>").join("")}</tr>`);
    const cells = p.columns.map((_, j) => {
      const v = r.cells[j];
      const cls = isMissing(v) ? "rpl-na" : typeof v === "number" ? "" : "rpl-text";
      const text = write[j]!(v);
      return `<td${cls ? ` class="${cls}"` : ""}${exactAttribute(v, text)}>${escapeHtml(text)}</td>`;
    });
    body.push(`<tr><td class="rpl-index">${escapeHtml(cellText(r.index))}</td>${cells.join("")}</tr>`);
  });
  const warnings = p.warnings.length
    ? `<details class="rpl-muted"><summary>${p.warnings.length} warning${p.warnings.length === 1 ? "" : "s"}</summary><ul>${p.warnings.map((w) => `<li>${escapeHtml(w)}</li>`).join("")}</ul></details>`
    : "";
  return [
    `<div class="rpl-table"><style>${CSS}</style>`,
    `<p class="rpl-caption"><b>${p.what}</b> · ${shape}${from}${shownNote}</p>`,
    `<div style="overflow-x:auto"><table><thead>${head}${types}</thead><tbody>${body.join("")}</tbody></table></div>`,
    p.origin ? `<p class="rpl-provenance rpl-muted">${escapeHtml(p.origin)}</p>` : "",
    warnings,
    "</div>",
  ].join("");
}

/**
 * The same preview as plain text (aligned columns), for consoles and the `text/plain` part of a bundle;
 * the last line is `source: …` when the table has provenance. `options` as for {@link tableHtml}.
 * @example
 * ```ts
 * console.log(plot.tableText(frames.yieldCurveColumns(curve), 5));
 * ```
 */
export function tableText(input: TableLike, options: number | TableViewOptions = DEFAULT_TABLE_ROWS): string {
  const { rows, digits } = viewOptions(options);
  const p = preview(input, rows);
  const write = cellWriters(p, digits, "tableText");
  const header = ["", ...p.columns];
  const types = ["", ...p.types];
  const lines: string[][] = [];
  p.shown.forEach((r, k) => {
    if (p.gap !== undefined && k === p.gap) lines.push(["…", ...p.columns.map(() => "…")]);
    lines.push([cellText(r.index), ...p.columns.map((_, j) => clip(write[j]!(r.cells[j])))]);
  });
  const widths = header.map((h, j) => Math.max(h.length, types[j]!.length, ...lines.map((l) => l[j]!.length)));
  const fmt = (cells: string[]) =>
    cells
      .map((c, j) => c.padStart(widths[j]!))
      .join("  ")
      .trimEnd();
  const from = p.source ? ` · from ${p.source}` : "";
  const footer = p.origin ? [`source: ${p.origin}`] : [];
  return [
    `${p.what} · ${p.what === "Series" ? shapeText(p) : `${p.rows.toLocaleString("en-US")} rows × ${p.columns.length} columns`}${from}`,
    fmt(header),
    fmt(types),
    ...lines.map(fmt),
    ...footer,
  ].join("\n");
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

/** True for what `tableHtml` shows: a column table, a danfo DataFrame or a danfo Series. */
export function isTable(value: unknown): value is TableLike {
  return isColumnTable(value) || isTypedColumnTable(value) || isDataFrame(value) || isSeries(value);
}
