/**
 * What changed between two tables of the same rows (yesterday's and
 * today's curve, positions, a report) — rows added, rows removed, and rows whose values changed, with
 * before, after and delta columns, the largest moves first.
 */
import {
  displayable,
  TableBuilder,
  preview,
  type ColumnKind,
  type ColumnTable,
  type TableProvenance,
} from "./column-table";
import { FrameDiffError } from "./errors";

/** Default {@link DiffOptions.tolerance}. */
export const DEFAULT_DIFF_TOLERANCE = 1e-9;

export interface DiffOptions {
  /** The column (or columns) that identify a row in both tables; each key must be unique in each table. */
  key: string | readonly string[];
  /**
   * Two numbers are the same when |after − before| ≤ tolerance × max(1, |before|, |after|): absolute
   * below 1, relative above (NaN equals NaN; dates compare by instant). Default 1e-9.
   */
  tolerance?: number;
  /** Value columns to compare (default: every non-key column the two tables share). */
  columns?: readonly string[];
}

/** One value that changed in a row. */
export interface CellChange {
  column: string;
  before: unknown;
  after: unknown;
  /** after − before, for numbers (else undefined). */
  delta?: number;
}

/** A row whose values changed: its key, the changes, and its largest absolute numeric move. */
export interface RowChange {
  key: unknown[];
  changes: CellChange[];
  /** The largest |delta| among its changes (0 when only text, dates or kinds changed). */
  move: number;
}

/**
 * The differences between two tables. `changed` has the key columns then, for each value column that
 * changed somewhere, `<col>_before`, `<col>_after` and (numbers) `<col>_delta`, largest moves first;
 * `added` and `removed` are the rows (all their columns) only in `after` or only in `before`. `table`
 * is all of them with a `status` column (`changed`, `added`, `removed`): what `plot.show(diff)` shows.
 */
export interface FrameDiff {
  key: string[];
  /** The value columns compared. */
  compared: string[];
  /** Columns only in `after` / only in `before` (not compared). */
  columnsAdded: string[];
  columnsRemoved: string[];
  tolerance: number;
  added: ColumnTable;
  removed: ColumnTable;
  changed: ColumnTable;
  /** The changed rows, largest move first, as records. */
  rows: RowChange[];
  unchanged: number;
  table: ColumnTable;
  /** `3 rows changed, 1 added, 0 removed, 14 unchanged (key currency, tenor)`. */
  summary: string;
}

/**
 * Compares two column tables row by row on `key` (`frames.diff` takes danfo DataFrames too, see
 * `frames.diff`): rows only in `b` are added, rows only in `a` removed, and rows in both whose
 * values differ (numbers beyond the tolerance) changed. Throws FrameDiffError naming the column when a
 * key column is missing, a key is repeated or missing in a table.
 */
export function diffTables(a: ColumnTable, b: ColumnTable, options: DiffOptions): FrameDiff {
  const key = keyColumns(options, a, b);
  const tolerance = options.tolerance ?? DEFAULT_DIFF_TOLERANCE;
  if (typeof tolerance !== "number" || !(tolerance >= 0))
    throw new FrameDiffError(`tolerance must be a number >= 0, got ${preview(tolerance)}`);
  const compared = valueColumns(options, a, b, key);
  const beforeRows = keyIndex(a, key, "before");
  const afterRows = keyIndex(b, key, "after");
  const rows: RowChange[] = [];
  const changedAt: { i: number; j: number }[] = [];
  const removed: number[] = [];
  for (const [k, i] of beforeRows) {
    const j = afterRows.get(k);
    if (j === undefined) {
      removed.push(i);
      continue;
    }
    const changes = rowChanges(a, b, i, j, compared, tolerance);
    if (changes.length === 0) continue;
    rows.push({
      key: key.map((c) => a.data[c]![i]),
      changes,
      move: Math.max(0, ...changes.map((c) => Math.abs(c.delta ?? 0))),
    });
    changedAt.push({ i, j });
  }
  const added = [...afterRows].filter(([k]) => !beforeRows.has(k)).map(([, j]) => j);
  const order = rows.map((_, n) => n).sort((x, y) => rows[y]!.move - rows[x]!.move || x - y);
  const sortedRows = order.map((n) => rows[n]!);
  const sortedAt = order.map((n) => changedAt[n]!);
  const unchanged = beforeRows.size - removed.length - rows.length;
  const result: FrameDiff = {
    key,
    compared,
    columnsAdded: notIn(b.columns, a.columns),
    columnsRemoved: notIn(a.columns, b.columns),
    tolerance,
    added: pick(b, added, "frames.diff: added rows"),
    removed: pick(a, removed, "frames.diff: removed rows"),
    changed: changedTable(a, b, key, sortedAt, sortedRows),
    rows: sortedRows,
    unchanged,
    table: undefined as unknown as ColumnTable,
    summary: "",
  };
  result.summary = summaryOf(result);
  result.table = statusTable(a, b, result, sortedAt, removed, added);
  // In Deno's kernel a bare `d` as a cell's last expression displays as plot.show(d) does (its `table`).
  return displayable(result);
}

/** `3 rows changed, 1 added, 0 removed, 14 unchanged (key currency, tenor)`. */
function summaryOf(d: FrameDiff): string {
  const n = (x: number, what: string) => `${x} ${what}${x === 1 ? "" : "s"}`;
  const cols = [
    d.columnsAdded.length ? `; columns added: ${d.columnsAdded.join(", ")}` : "",
    d.columnsRemoved.length ? `; columns removed: ${d.columnsRemoved.join(", ")}` : "",
  ].join("");
  return `${n(d.rows.length, "row")} changed, ${d.added.rowCount} added, ${d.removed.rowCount} removed, ${d.unchanged} unchanged (key ${d.key.join(", ")})${cols}`;
}

function keyColumns(options: DiffOptions, a: ColumnTable, b: ColumnTable): string[] {
  const raw = options?.key;
  const key = typeof raw === "string" ? [raw] : Array.isArray(raw) ? [...(raw as string[])] : [];
  if (key.length === 0 || key.some((k) => typeof k !== "string" || k === ""))
    throw new FrameDiffError(
      `options.key must name the column (or columns) identifying a row, e.g. { key: "id" }; got ${preview(raw)}`,
    );
  for (const [t, which] of [
    [a, "before"],
    [b, "after"],
  ] as const) {
    const missing = key.find((k) => !t.columns.includes(k));
    if (missing !== undefined)
      throw new FrameDiffError(
        `key column "${missing}" is not in ${which}; its columns are ${t.columns.map((c) => `"${c}"`).join(", ") || "none"}`,
      );
  }
  return key;
}

/** The names of `names` that are not in `other`, in order (a Set: a table may have thousands of columns). */
export function notIn(names: readonly string[], other: readonly string[]): string[] {
  const set = new Set(other);
  return names.filter((c) => !set.has(c));
}

function valueColumns(options: DiffOptions, a: ColumnTable, b: ColumnTable, key: readonly string[]): string[] {
  const inA = new Set(a.columns);
  const inB = new Set(b.columns);
  if (options.columns === undefined) return a.columns.filter((c) => !key.includes(c) && inB.has(c));
  for (const c of options.columns) {
    if (!inA.has(c)) throw new FrameDiffError(`column "${c}" (options.columns) is not in before`);
    if (!inB.has(c)) throw new FrameDiffError(`column "${c}" (options.columns) is not in after`);
  }
  return options.columns.filter((c) => !key.includes(c));
}

/** A key value as text that tells types apart (`n:1`, `s:1`, `d:2026-11-20T00:00:00.000Z`). */
function keyPart(v: unknown): string | undefined {
  if (v === null || v === undefined || (typeof v === "number" && Number.isNaN(v))) return undefined;
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? undefined : `d:${v.toISOString()}`;
  if (typeof v === "number") return `n:${Object.is(v, -0) ? 0 : v}`;
  if (typeof v === "string") return `s:${v}`;
  return `${typeof v}:${JSON.stringify(v)}`;
}

/** Each row's key → its position; throws on a missing or repeated key, naming the column(s) and rows. */
function keyIndex(t: ColumnTable, key: readonly string[], which: string): Map<string, number> {
  const index = new Map<string, number>();
  for (let i = 0; i < t.rowCount; i++) {
    const parts: string[] = [];
    for (const c of key) {
      const part = keyPart(t.data[c]![i]);
      if (part === undefined)
        throw new FrameDiffError(`key column "${c}" is missing a value in ${which}, row ${i}: every row needs a key`);
      parts.push(part);
    }
    const k = parts.join("\u0000");
    const seen = index.get(k);
    if (seen !== undefined) {
      const shown = key.map((c) => preview(t.data[c]![i])).join(", ");
      const cols = key.map((c) => `"${c}"`).join(", ");
      throw new FrameDiffError(
        `key ${cols} is not unique in ${which}: ${shown} is on rows ${seen} and ${i}; choose a key that names one row`,
      );
    }
    index.set(k, i);
  }
  return index;
}

/** Whether two numbers are the same within the tolerance (relative above 1, absolute below; NaN = NaN). */
export function sameNumber(x: number, y: number, tolerance: number): boolean {
  if (Number.isNaN(x) || Number.isNaN(y)) return Number.isNaN(x) && Number.isNaN(y);
  if (x === y) return true;
  if (!Number.isFinite(x) || !Number.isFinite(y)) return false;
  return Math.abs(y - x) <= tolerance * Math.max(1, Math.abs(x), Math.abs(y));
}

function isMissing(v: unknown): boolean {
  return v === null || v === undefined || (typeof v === "number" && Number.isNaN(v));
}

/** Compares one value: undefined when the same, else the change. */
export function compareValues(column: string, x: unknown, y: unknown, tolerance: number): CellChange | undefined {
  if (isMissing(x) && isMissing(y)) return undefined;
  if (typeof x === "number" && typeof y === "number")
    return sameNumber(x, y, tolerance) ? undefined : { column, before: x, after: y, delta: y - x };
  if (x instanceof Date && y instanceof Date)
    return x.getTime() === y.getTime() ? undefined : { column, before: x, after: y };
  if (x === y) return undefined;
  if (
    typeof x === "object" &&
    x !== null &&
    typeof y === "object" &&
    y !== null &&
    JSON.stringify(x) === JSON.stringify(y)
  )
    return undefined;
  return { column, before: x, after: y };
}

function rowChanges(
  a: ColumnTable,
  b: ColumnTable,
  i: number,
  j: number,
  columns: readonly string[],
  tolerance: number,
): CellChange[] {
  const out: CellChange[] = [];
  for (const c of columns) {
    const change = compareValues(c, a.data[c]![i], b.data[c]![j], tolerance);
    if (change) out.push(change);
  }
  return out;
}

/** Where a table's rows came from (its responses), so that a diff's tables say it too: before's, then after's. */
function sourcesOf(t: ColumnTable): TableProvenance[] {
  return Array.isArray(t.meta?.provenance) ? t.meta.provenance : [];
}

/** The rows at `positions` of `t`, every column. */
function pick(t: ColumnTable, positions: readonly number[], source: string): ColumnTable {
  const builder = new TableBuilder(positions.length, source, {}, sourcesOf(t));
  for (const c of t.columns)
    builder.add(
      c,
      positions.map((p) => t.data[c]![p]),
      { hint: hintOf(t.kinds[c]), detectDates: false },
    );
  return builder.build();
}

function hintOf(kind: ColumnKind | undefined): "auto" | "number" | "string" | "boolean" | "date" | "category" {
  return kind === "number" || kind === "string" || kind === "boolean" || kind === "date" || kind === "category"
    ? kind
    : "auto";
}

/** The value columns that changed somewhere, in `before`'s order. */
function changedColumns(rows: readonly RowChange[], compared: readonly string[]): string[] {
  const seen = new Set(rows.flatMap((r) => r.changes.map((c) => c.column)));
  return compared.filter((c) => seen.has(c));
}

function isNumeric(a: ColumnTable, b: ColumnTable, c: string): boolean {
  return (a.kinds[c] === "number" || a.kinds[c] === "empty") && (b.kinds[c] === "number" || b.kinds[c] === "empty");
}

function changedTable(
  a: ColumnTable,
  b: ColumnTable,
  key: readonly string[],
  at: readonly { i: number; j: number }[],
  rows: readonly RowChange[],
): ColumnTable {
  const builder = new TableBuilder(at.length, "frames.diff: changed rows", {}, [...sourcesOf(a), ...sourcesOf(b)]);
  for (const c of key)
    builder.add(
      c,
      at.map(({ i }) => a.data[c]![i]),
      { hint: hintOf(a.kinds[c]), detectDates: false },
    );
  for (const c of changedColumns(rows, a.columns)) addBeforeAfter(builder, a, b, c, at);
  return builder.build();
}

/** `<c>_before`, `<c>_after` and, for numbers, `<c>_delta`; `i`/`j` undefined: the row is not in that table. */
function addBeforeAfter(
  builder: TableBuilder,
  a: ColumnTable,
  b: ColumnTable,
  c: string,
  at: readonly { i?: number; j?: number }[],
): void {
  const hint = hintOf(a.kinds[c] === "empty" ? b.kinds[c] : a.kinds[c]);
  const x = at.map(({ i }) => (i === undefined ? null : a.data[c]![i]));
  const y = at.map(({ j }) => (j === undefined ? null : b.data[c]![j]));
  const numeric = isNumeric(a, b, c);
  const none = (v: unknown) => (numeric && v === null ? NaN : v);
  builder.add(`${c}_before`, x.map(none), { hint: numeric ? "number" : hint, detectDates: false });
  builder.add(`${c}_after`, y.map(none), { hint: numeric ? "number" : hint, detectDates: false });
  if (numeric)
    builder.add(
      `${c}_delta`,
      x.map((v, n) => (typeof v === "number" && typeof y[n] === "number" ? y[n] - v : NaN)),
      { hint: "number" },
    );
}

/** Every change in one table, with a `status` column: changed (largest move first), then added, then removed. */
function statusTable(
  a: ColumnTable,
  b: ColumnTable,
  d: FrameDiff,
  at: readonly { i: number; j: number }[],
  removed: number[],
  added: number[],
): ColumnTable {
  const rows: { status: string; i?: number; j?: number }[] = [
    ...at.map(({ i, j }) => ({ status: "changed", i, j })),
    ...added.map((j) => ({ status: "added", j })),
    ...removed.map((i) => ({ status: "removed", i })),
  ];
  const builder = new TableBuilder(rows.length, `frames.diff · ${d.summary}`, {}, [...sourcesOf(a), ...sourcesOf(b)]);
  // "status" says what happened to the row, unless a key column has that name.
  builder.add(
    d.key.includes("status") ? "diff_status" : "status",
    rows.map((r) => r.status),
    { hint: "string" },
  );
  for (const c of d.key)
    builder.add(
      c,
      rows.map((r) => (r.i !== undefined ? a.data[c]![r.i] : b.data[c]![r.j!])),
      { hint: hintOf(a.kinds[c]), detectDates: false },
    );
  const columns = added.length || removed.length ? d.compared : changedColumns(d.rows, d.compared);
  for (const c of columns) addBeforeAfter(builder, a, b, c, rows);
  return builder.build();
}
