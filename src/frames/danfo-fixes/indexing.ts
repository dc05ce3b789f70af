/**
 * iloc, loc and query by position. danfo 1.2's `_iloc` takes, for each `true` in a boolean mask, the index
 * LABEL at that position and reads it as a position: on a frame whose index is not 0..n-1 in order (after
 * sortValues, on a query's result, with labels of your own) a mask selects the wrong rows. Its `_loc` finds
 * every label with `indexOf` (quadratic). Here a mask selects the rows at its `true` positions, labels are
 * found through one Map, and the result is built from columns (build.ts). Errors keep danfo's wording.
 */
import { take, takeFrame } from "./build";
import { isFrame, rowCount, type DanfoClasses, type Frame } from "./types";

type RowSpec = unknown[] | Frame | undefined;

function asArray(spec: RowSpec, cls: DanfoClasses | undefined, what: "rows" | "columns"): unknown[] | undefined {
  if (spec !== undefined && cls && isFrame(spec, cls.Series)) return spec.values;
  if (spec !== undefined && !Array.isArray(spec))
    throw new Error(
      what === "rows"
        ? `${what} parameter must be an Array. For example: rows: [1,2] or rows: ["0:10"]`
        : `${what} parameter must be an Array. For example: columns: [1,2] or columns: ["0:10"]`,
    );
  return spec;
}

/** The positions of `"start:end"` (end exclusive) in 0..n, as danfo parses it. */
function slicePositions(spec: string, n: number, axis: "row" | "column"): number[] {
  const parts = spec.split(":");
  if (parts.length !== 2)
    throw new Error(
      `Invalid ${axis} split parameter: If using ${axis} split string, it must be of the form; ${axis}s: ["start:end"]`,
    );
  for (const p of parts)
    if (Number.isNaN(parseInt(p)) && p !== "")
      throw new Error(`Invalid ${axis} split parameter. Split parameter must be a number`);
  const start = parts[0] === "" ? 0 : parseInt(parts[0]!);
  const end = parts[1] === "" ? n : parseInt(parts[1]!);
  if (start < 0) throw new Error(`${axis} slice [start] index cannot be less than 0`);
  if (end > n) throw new Error(`${axis} slice [end] index cannot be bigger than ${n}`);
  const out: number[] = [];
  for (let i = start; i < end; i++) out.push(i);
  return out;
}

/** The positions of the `true`s of a boolean mask, which must have one value per row. */
export function maskPositions(mask: readonly unknown[], n: number, method: string): number[] {
  if (mask.length !== n)
    throw new Error(`${method}: a boolean mask must have one value per row (${n} rows); it has ${mask.length}`);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const v = mask[i];
    if (v === true) out.push(i);
    else if (v !== false)
      throw new Error(`${method}: a boolean mask holds only true and false; position ${i} holds ${String(v)}`);
  }
  return out;
}

function isMask(rows: readonly unknown[]): boolean {
  return rows.length > 0 && rows.some((v) => typeof v === "boolean");
}

/** Distinct positions or danfo's duplicate-index error (an index must stay unique). */
function distinct(positions: number[]): number[] {
  if (new Set(positions).size !== positions.length) throw new Error("IndexError: Row index must contain unique values");
  return positions;
}

/** Row positions for iloc: undefined (all), ["a:b"], integer positions, or a boolean mask (array or Series). */
export function ilocRows(frame: Frame, spec: RowSpec, cls: DanfoClasses, method = "iloc"): number[] | null {
  const rows = asArray(spec, cls, "rows");
  const n = rowCount(frame);
  if (!rows) return null;
  if (rows.length === 1 && typeof rows[0] === "string") return slicePositions(rows[0], n, "row");
  if (isMask(rows)) return maskPositions(rows, n, method);
  for (const r of rows) {
    if (typeof r !== "number")
      throw new Error(`Invalid row parameter: row index ${String(r)} must be a number or boolean`);
    if (!Number.isInteger(r) || r < 0 || r >= n)
      throw new Error(`Invalid row parameter: row position ${r} is not an integer in 0..${n - 1}`);
  }
  return distinct(rows as number[]);
}

/** Column positions for iloc: undefined (all), ["a:b"], or integer positions. */
function ilocColumns(frame: Frame, spec: unknown[] | undefined): number[] | null {
  const columns = asArray(spec, undefined, "columns");
  const m = frame.$columns.length;
  if (!columns) return null;
  if (columns.length === 1 && typeof columns[0] === "string") return slicePositions(columns[0], m, "column");
  for (const c of columns) {
    if (typeof c !== "number") throw new Error(`Invalid column parameter: column index ${String(c)} must be a number`);
    if (!Number.isInteger(c) || c < 0 || c >= m)
      throw new Error(`Invalid column parameter: column position ${c} is not an integer in 0..${m - 1}`);
  }
  return columns as number[];
}

const unquote = (s: string): string => s.replace(/['"`]/g, "");
const quoted = (s: string): boolean => s.startsWith('"') || s.startsWith("'") || s.startsWith("`");

/** Position of one label written as loc's string form (`"5"` is the number 5, `'"a"'` the string a). */
function labelPosition(index: readonly unknown[], text: string, quotedForm: boolean): number {
  return index.indexOf(quotedForm ? unquote(text) : Number(text));
}

/** loc's one-string forms, as danfo reads them: `["5"]`, `['"a"']`, `["1:4"]` (end label excluded). */
function locStringRows(index: readonly unknown[], spec: string): number[] {
  if (!spec.includes(":")) {
    const at = labelPosition(index, spec, quoted(spec));
    if (at === -1) throw new Error(`IndexError: Specified index (${spec}) not found`);
    return [at];
  }
  const parts = spec.split(":");
  if (parts.length !== 2)
    throw new Error(
      `Invalid row split parameter: If using row split string, it must be of the form; rows: ["start:end"]`,
    );
  const start = parts[0] === "" ? 0 : labelPosition(index, parts[0]!, quoted(parts[0]!));
  const end = parts[1] === "" ? index.length : labelPosition(index, parts[1]!, quoted(parts[0]!));
  if (start === -1) throw new Error("IndexError: Specified start index not found");
  if (end === -1) throw new Error("IndexError: Specified end index not found");
  const out: number[] = [];
  for (let i = start; i < end; i++) out.push(i);
  return out;
}

/** Row positions for loc: undefined (all), a string form, labels, or a boolean mask (array or Series). */
export function locRows(frame: Frame, spec: RowSpec, cls: DanfoClasses): number[] | null {
  const rows = asArray(spec, cls, "rows");
  if (!rows) return null;
  const index = frame.$index;
  if (rows.length === 1 && typeof rows[0] === "string") return locStringRows(index, rows[0]);
  if (isMask(rows)) return maskPositions(rows, index.length, "loc");
  const at = new Map<unknown, number>();
  for (let i = index.length - 1; i >= 0; i--) at.set(index[i], i);
  return distinct(
    rows.map((label) => {
      const p = at.get(label);
      if (p === undefined) throw new Error(`IndexError: Specified index (${String(label)}) not found`);
      return p;
    }),
  );
}

/** Column positions for loc: undefined (all), `["a"]`, `["a:c"]` (c excluded, as danfo does), or names. */
function locColumns(frame: Frame, spec: unknown[] | undefined): number[] | null {
  const columns = asArray(spec, undefined, "columns");
  const names = frame.$columns;
  if (!columns) return null;
  if (columns.length === 1) {
    const only = columns[0];
    if (typeof only !== "string")
      throw new Error(
        'ColumnIndexError: columns parameter must be an array of a string name. For example: columns: ["b"]',
      );
    if (!only.includes(":")) {
      const j = names.indexOf(only);
      if (j === -1) throw new Error(`ColumnIndexError: Specified column (${only}) not found`);
      return [j];
    }
    const parts = only.split(":");
    if (parts.length !== 2)
      throw new Error(
        'ColumnIndexError: Invalid row split parameter. If using row split string, it must be of the form; rows: ["start:end"]',
      );
    const start = parts[0] === "" ? 0 : names.indexOf(parts[0]!);
    const end = parts[1] === "" ? names.length - 1 : names.indexOf(parts[1]!);
    if (start === -1) throw new Error("ColumnIndexError: Specified start index not found");
    if (end === -1) throw new Error("ColumnIndexError: Specified end index not found");
    const out: number[] = [];
    for (let j = start; j < end; j++) out.push(j);
    return out;
  }
  return columns.map((c) => {
    const j = names.indexOf(c as string);
    if (j === -1) throw new Error(`ColumnIndexError: Specified column (${String(c)}) not found`);
    return j;
  });
}

/** A Series of `series`' values at `positions` (null: all). */
function takeSeries(cls: DanfoClasses, series: Frame, positions: number[] | null): Frame {
  const values = positions ? take(series.$data, positions) : series.$data.slice();
  const index = positions ? take(series.$index, positions) : series.$index.slice();
  return new cls.Series(values, { index, columns: series.$columns, dtypes: series.$dtypes, config: series.config });
}

/** Installs the corrected iloc, loc and query on the base DataFrame and Series prototypes. */
export function installIndexing(cls: DanfoClasses, patch: (target: object, key: string, value: unknown) => void): void {
  patch(cls.frame, "iloc", function iloc(this: Frame, spec: { rows?: RowSpec; columns?: unknown[] } = {}) {
    return takeFrame(cls.DataFrame, this, ilocRows(this, spec.rows, cls), ilocColumns(this, spec.columns));
  });
  patch(cls.frame, "loc", function loc(this: Frame, spec: { rows?: RowSpec; columns?: unknown[] } = {}) {
    return takeFrame(cls.DataFrame, this, locRows(this, spec.rows, cls), locColumns(this, spec.columns));
  });
  patch(cls.frame, "query", function query(this: Frame, condition: RowSpec, options?: { inplace?: boolean }) {
    if (!condition) throw new Error("ParamError: condition must be specified");
    const result = takeFrame(cls.DataFrame, this, ilocRows(this, condition, cls, "query"), null);
    if (!options?.inplace) return result;
    this.$data = result.$data;
    this.$dataIncolumnFormat = result.$dataIncolumnFormat;
    this.$index = result.$index;
    return undefined;
  });
  patch(cls.series, "iloc", function iloc(this: Frame, rows: RowSpec) {
    return takeSeries(cls, this, ilocRows(this, rows, cls));
  });
  patch(cls.series, "loc", function loc(this: Frame, rows: RowSpec) {
    return takeSeries(cls, this, locRows(this, rows, cls));
  });
}
