/**
 * Transaction tables (operation 12) as column tables. The wire shape is not published (wire-assumptions A13),
 * so the layout is inferred: rows of objects (the expected one), `{columns, rows}`, `{columns, data}`,
 * or column-major `{col: [...]}`. Columns are the union over all rows, in the order first seen; ISO
 * dates become `Date`, numbers stay numbers, nulls stay missing, anything that does not fit is kept as
 * received (with a warning). An empty table is an empty frame.
 *
 * Built for size: one pass over the rows fills one scratch array per column, then each column is
 * finished in one scan (plus one conversion pass for date columns).
 */
import { TableShapeError } from "./errors";
import { isRecord } from "../api/operation";
import {
  emptyTable,
  finishColumn,
  preview,
  TableBuilder,
  type ColumnTable,
  type FinishedColumn,
  type TableShape,
  type TableWarning,
} from "../table/column-table";
import { parseIsoDate } from "../table/iso-date";
import { MAX_ROW_DEPTH } from "../columnar/json-rows";
import { provenanceFrom } from "../client/provenance";

export interface TransactionTableOptions {
  /**
   * `parse` (default): a text column whose values are all ISO 8601 dates becomes `Date`s (a date-time
   * without offset is read as UTC). `keep`: dates stay text (faster on very large tables).
   */
  dates?: "parse" | "keep";
}

const SOURCE = "GetTransactionTable";
/** Names a `{columns: [...]}` entry may carry its column name under (.NET DataTable serialisers differ). */
const COLUMN_NAME_KEYS = ["name", "ColumnName", "column_name", "columnName", "field", "id"] as const;
const SHAPES_HELP = "rows of objects [{col: value}], {columns, rows}, {columns, data}, or column-major {col: [values]}";

/** One collected column: raw values still to be finished, or already finished (dates read directly). */
interface CollectedColumn {
  name: string;
  raw?: unknown[];
  done?: FinishedColumn;
}

/** What a collector found: the columns in first-seen order, and what it had to say. */
interface Collected {
  columns: CollectedColumn[];
  warnings: TableWarning[];
}

/**
 * The transaction table as a column table (no danfo). Takes the `GetTransactionTable` response or its
 * `data_table`; the response's other fields go to `meta.fields`, its provenance to `meta.provenance`.
 * @example
 * ```ts
 * const table = frames.transactionTableColumns(await rp.position.transactionTable({ portfolio_name: "GLOBAL-MACRO" }));
 * ```
 */
export function transactionTableColumns(input: unknown, options: TransactionTableOptions = {}): ColumnTable {
  return buildTransactionTable(input, options, false);
}

/**
 * The layout of a `data_table` (A13); throws {@link TableShapeError} when it is none of the known ones.
 * @example
 * ```ts
 * import { detectTableShape } from "risk-portal-lab/frames";
 * detectTableShape([{ trade_id: "T1" }]);          // "rows"
 * detectTableShape({ columns: ["a"], rows: [[1]] }); // "columns+rows"
 * ```
 */
export function detectTableShape(dataTable: unknown): TableShape {
  if (dataTable === null || dataTable === undefined) return "empty";
  if (Array.isArray(dataTable)) return dataTable.length === 0 ? "empty" : "rows";
  if (!isRecord(dataTable)) throw new TableShapeError(`data_table is ${typeof dataTable}; expected ${SHAPES_HELP}`);
  const keys = Object.keys(dataTable);
  if (keys.length === 0) return "empty";
  const columns = pick(dataTable, "columns");
  if (Array.isArray(columns)) {
    if (Array.isArray(pick(dataTable, "rows"))) return "columns+rows";
    if (Array.isArray(pick(dataTable, "data"))) return "columns+data";
  }
  const notArray = keys.find((k) => !k.startsWith("$") && !Array.isArray(dataTable[k]));
  if (notArray !== undefined) {
    throw new TableShapeError(
      `data_table is an object whose field "${notArray}" is not an array (${preview(dataTable[notArray])}); expected ${SHAPES_HELP}`,
    );
  }
  return "column-major";
}

/** `rows`, `Rows` or `ROWS`: .NET serialisers capitalise. */
function pick(obj: Record<string, unknown>, key: string): unknown {
  if (key in obj) return obj[key];
  const capital = key[0]!.toUpperCase() + key.slice(1);
  if (capital in obj) return obj[capital];
  return obj[key.toUpperCase()];
}

/**
 * The table of a response or its `data_table`. `consume`: the rows may be released as they are read (the
 * fetch path); `firstRow`: the number of the first row in what the warnings and errors say (a streamed
 * batch's place in the whole table).
 */
export function buildTransactionTable(
  input: unknown,
  options: TransactionTableOptions,
  consume: boolean,
  firstRow = 0,
): ColumnTable {
  let dataTable: unknown = input;
  let fields: Record<string, unknown> = {};
  const provenance = provenanceFrom(input);
  if (isRecord(input) && "data_table" in input) {
    const { data_table, ...rest } = input;
    dataTable = data_table;
    fields = rest;
  }
  const shape = detectTableShape(dataTable);
  if (shape === "empty") {
    const empty = emptyTable(SOURCE, [], fields, provenance);
    empty.meta.shape = shape;
    return empty;
  }

  const detectDates = options.dates !== "keep";
  let collected: Collected;
  let rowCount: number;
  let rows: unknown[] | undefined;
  if (shape === "rows") {
    rows = dataTable as unknown[];
    rowCount = rows.length;
    collected = collectObjectRows(rows, [], detectDates, firstRow);
  } else if (shape === "column-major") {
    const record = dataTable as Record<string, unknown>;
    const names = Object.keys(record).filter((k) => Array.isArray(record[k]));
    rowCount = Math.max(0, ...names.map((k) => (record[k] as unknown[]).length));
    const warnings: TableWarning[] = [];
    const columns = names.map((name): CollectedColumn => {
      const values = record[name] as unknown[];
      if (values.length === rowCount) return { name, raw: values };
      const message = `column "${name}" has ${values.length} values, others have ${rowCount}; the rest are missing`;
      warnings.push({ column: name, message });
      const padded = values.slice();
      padded.length = rowCount;
      return { name, raw: padded };
    });
    collected = { columns, warnings };
  } else {
    const record = dataTable as Record<string, unknown>;
    const declared = columnNames(pick(record, "columns") as unknown[]);
    rows = pick(record, shape === "columns+rows" ? "rows" : "data") as unknown[];
    rowCount = rows.length;
    collected =
      rows.length > 0 && rows.every((r) => Array.isArray(r))
        ? collectArrayRows(rows as unknown[][], declared)
        : collectObjectRows(rows, declared, detectDates, firstRow);
  }
  // The rows are no longer needed once their cells are in columns: when the caller hands them over
  // (the fetch path), release them before anything else is allocated.
  if (consume && rows) {
    rows.length = 0;
    if (isRecord(input) && "data_table" in input) input.data_table = undefined;
  }

  // Column-major input arrays belong to the caller: finishColumn copies them before changing anything.
  const owned = shape !== "column-major";
  const builder = new TableBuilder(rowCount, SOURCE, fields, provenance);
  for (const w of collected.warnings) builder.warn(w);
  for (const column of collected.columns) {
    const done = column.done ?? finishColumn(column.name, column.raw!, { owned, detectDates, firstRow });
    // Only a column holding objects or arrays is `mixed`: the one place a cell can nest.
    if (done.kind === "mixed") refuseDeepCells(column.name, done.values, firstRow);
    column.raw = undefined; // let the scratch array go as soon as its column is finished
    builder.addFinished(column.name, done);
  }
  const table = builder.build();
  table.meta.shape = shape;
  return table;
}

/** A cell may nest one level less than a row (the row counts as one): see {@link MAX_ROW_DEPTH}. */
function refuseDeepCells(name: string, values: unknown[], firstRow: number): void {
  const n = values.length;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (typeof v === "object" && v !== null && !(v instanceof Date) && nestsDeeperThan(v, MAX_ROW_DEPTH - 1))
      throw tooDeep(firstRow + i, `its "${name}"`);
  }
}

const NEST_STACK: object[] = [];
const NEST_DEPTHS: number[] = [];

/** Whether a value nests more than `max` levels of objects and arrays, itself counted (iterative: any depth). */
function nestsDeeperThan(value: object, max: number): boolean {
  // Shared scratch stacks: a column of small objects costs no allocation per cell.
  const stack = NEST_STACK;
  const depths = NEST_DEPTHS;
  stack.length = depths.length = 0;
  stack.push(value);
  depths.push(1);
  while (stack.length > 0) {
    const v = stack.pop()!;
    const depth = depths.pop()!;
    if (depth > max) {
      stack.length = depths.length = 0;
      return true;
    }
    for (const key in v) {
      const child = (v as Record<string, unknown>)[key];
      if (typeof child === "object" && child !== null && !(child instanceof Date)) {
        stack.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

/** A row nested deeper than {@link MAX_ROW_DEPTH}, as the error that names it. */
function tooDeep(row: number, what: string): TableShapeError {
  return new TableShapeError(
    `data_table row ${row}: ${what} is nested too deep (more than ${MAX_ROW_DEPTH} levels of objects and arrays, the row counted); refused: a value this deep cannot be shown or written`,
  );
}

/** Column names from `{columns: [...]}`: strings, or objects naming the column (`{name}`, `{ColumnName}`, …). */
function columnNames(columns: unknown[]): string[] {
  return columns.map((c, j) => {
    if (typeof c === "string") return c;
    if (isRecord(c)) {
      for (const key of COLUMN_NAME_KEYS) if (typeof c[key] === "string") return c[key];
    }
    throw new TableShapeError(
      `data_table.columns[${j}] is ${preview(c)}; expected a column name or an object with one of ${COLUMN_NAME_KEYS.join(", ")}`,
    );
  });
}

/**
 * Rows of objects, read column by column: for rows from one serialiser (same keys, same order) a
 * column loop does one monomorphic property load per cell, about twice as fast as walking each row's
 * keys. A first pass counts each row's keys (cheap: V8 caches an object's key list); a row whose count
 * differs from the first row's — or that lacks a key it should have — is "irregular" and its keys are
 * walked afterwards, so fields that only some rows carry still get their column (the union, in the
 * order first seen). A text column whose first value is an ISO date is converted while it is read.
 */
function collectObjectRows(rows: unknown[], declared: string[], detectDates: boolean, firstRow: number): Collected {
  const warnings: TableWarning[] = [];
  const view = objectRowView(rows, warnings, firstRow);
  const names: string[] = [];
  const index = new Map<string, number>();
  for (const name of declared) addColumnName(names, index, name);
  let expected = 0;
  for (const key in firstRowWithFields(view)) {
    addColumnName(names, index, key);
    expected++;
  }
  const irregular = markIrregularRows(view, expected);
  const columns = readRegularColumns(view, names, irregular, detectDates);
  for (const [name, raw] of collectExtraFields(view, irregular, names, index)) columns.push({ name, raw });
  return { columns, warnings };
}

/** The rows as objects: non-object rows (null, numbers, arrays) read as rows without fields, with a warning. */
function objectRowView(rows: unknown[], warnings: TableWarning[], firstRow: number): Record<string, unknown>[] {
  const n = rows.length;
  let notObjects = 0;
  let firstNotObject = -1;
  for (let i = 0; i < n; i++) {
    const row = rows[i];
    if (row === null || typeof row !== "object" || Array.isArray(row)) {
      if (firstNotObject < 0) firstNotObject = i;
      notObjects++;
      if (Array.isArray(row) && nestsDeeperThan(row, MAX_ROW_DEPTH)) throw tooDeep(firstRow + i, "the row");
    }
  }
  if (notObjects === 0) return rows as Record<string, unknown>[];
  warnings.push(notObjectsWarning(notObjects, firstRow + firstNotObject, rows[firstNotObject]));
  return rows.map((r) =>
    r === null || typeof r !== "object" || Array.isArray(r) ? {} : (r as Record<string, unknown>),
  );
}

/** What a table says of its `count` rows that are not objects, the first at `row` (its value `first`). */
export function notObjectsWarning(count: number, row: number, first: unknown): TableWarning {
  return {
    row,
    message: `${count} row${count > 1 ? "s are" : " is"} not an object (first: row ${row}, ${preview(first)}); their cells are missing`,
  };
}

/** Adds a column name unless it is already there (the first occurrence keeps its place). */
function addColumnName(names: string[], index: Map<string, number>, key: string): void {
  if (!index.has(key)) {
    index.set(key, names.length);
    names.push(key);
  }
}

/** The reference row: the first with any field (an empty object when none has one). */
function firstRowWithFields(view: Record<string, unknown>[]): Record<string, unknown> {
  const n = view.length;
  for (let i = 0; i < n; i++) {
    let any = false;
    for (const _key in view[i]) {
      any = true;
      break;
    }
    if (any) return view[i]!;
  }
  return {};
}

/** Flags (1) each row whose key count differs from the reference row's `expected`. */
function markIrregularRows(view: Record<string, unknown>[], expected: number): Uint8Array {
  const n = view.length;
  const irregular = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    let count = 0;
    for (const _key in view[i]) count++;
    if (count !== expected) irregular[i] = 1;
  }
  return irregular;
}

/** The columns named so far, read column by column (date columns straight into Dates when `detectDates`). */
function readRegularColumns(
  view: Record<string, unknown>[],
  names: string[],
  irregular: Uint8Array,
  detectDates: boolean,
): CollectedColumn[] {
  const n = view.length;
  const columns: CollectedColumn[] = [];
  const regularNames = names.length;
  for (let j = 0; j < regularNames; j++) {
    const key = names[j]!;
    const dates = detectDates ? readDateColumn(view, key, irregular) : undefined;
    columns.push(
      dates
        ? {
            name: key,
            done: { values: dates.values, kind: dates.present > 0 ? "date" : "empty", missing: n - dates.present },
          }
        : { name: key, raw: readColumn(view, key, irregular) },
    );
  }
  return columns;
}

/** Irregular rows: walks their keys for fields the reference row did not have, one raw column each (in the order first seen). */
function collectExtraFields(
  view: Record<string, unknown>[],
  irregular: Uint8Array,
  names: string[],
  index: Map<string, number>,
): Map<string, unknown[]> {
  const n = view.length;
  const regularNames = names.length;
  const extra = new Map<string, unknown[]>();
  for (let i = 0; i < n; i++) {
    if (!irregular[i]) continue;
    const row = view[i]!;
    for (const key in row) {
      if (index.has(key) && index.get(key)! < regularNames) continue;
      let raw = extra.get(key);
      if (!raw) {
        raw = new Array(n);
        extra.set(key, raw);
        addColumnName(names, index, key);
      }
      raw[i] = row[key];
    }
  }
  return extra;
}

/**
 * A row's own field: a row without a `constructor` or `toString` field has it missing, not
 * Object.prototype's function (the row-reading loops take this path only for such names).
 */
function ownField(row: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(row, key) ? row[key] : undefined;
}

/**
 * One column's raw values. A missing key in a row that has as many keys as the first row means it has
 * some other key instead: that row is marked irregular so its keys get walked.
 */
function readColumn(rows: Record<string, unknown>[], key: string, irregular: Uint8Array): unknown[] {
  const n = rows.length;
  const out = new Array<unknown>(n);
  const inherited = key in Object.prototype;
  for (let i = 0; i < n; i++) {
    const row = rows[i]!;
    const v = inherited ? ownField(row, key) : row[key];
    if (v === undefined && !irregular[i] && !Object.hasOwn(row, key)) irregular[i] = 1;
    out[i] = v;
  }
  return out;
}

/**
 * One column read straight into Dates, when its first present value is an ISO date string; `undefined`
 * (nothing kept) as soon as a value is not one — the column is then read as it is and finished
 * normally, which reports the value that broke the pattern.
 */
function readDateColumn(
  rows: Record<string, unknown>[],
  key: string,
  irregular: Uint8Array,
): { values: (Date | null)[]; present: number } | undefined {
  const n = rows.length;
  const inherited = key in Object.prototype;
  const field = (row: Record<string, unknown>) => (inherited ? ownField(row, key) : row[key]);
  let start = 0;
  while (start < n && (field(rows[start]!) === null || field(rows[start]!) === undefined)) start++;
  const probe = start < n ? field(rows[start]!) : undefined;
  if (typeof probe !== "string" || Number.isNaN(parseIsoDate(probe))) return undefined;
  const out = new Array<Date | null>(n);
  let present = 0;
  for (let i = 0; i < n; i++) {
    const row = rows[i]!;
    const v = inherited ? ownField(row, key) : row[key];
    if (typeof v === "string") {
      const ms = parseIsoDate(v);
      if (ms !== ms) return undefined; // NaN: not a date
      out[i] = new Date(ms);
      present++;
    } else if (v === null || v === undefined) {
      if (v === undefined && !irregular[i] && !Object.hasOwn(row, key)) irregular[i] = 1;
      out[i] = null;
    } else {
      return undefined;
    }
  }
  return { values: out, present };
}

/** Positional rows (`{columns, rows: [[…], …]}`), read column by column; cells beyond the declared columns are reported. */
function collectArrayRows(rows: unknown[][], declared: string[]): Collected {
  const n = rows.length;
  const width = declared.length;
  let longer = 0;
  for (let i = 0; i < n; i++) if (rows[i]!.length > width) longer++;
  const columns = declared.map((name, j): CollectedColumn => {
    const raw = new Array<unknown>(n);
    for (let i = 0; i < n; i++) raw[i] = rows[i]![j];
    return { name, raw };
  });
  const warnings =
    longer > 0
      ? [
          {
            message: `${longer} row${longer > 1 ? "s have" : " has"} more cells than the ${width} declared columns; the extra cells are dropped`,
          },
        ]
      : [];
  return { columns, warnings };
}
