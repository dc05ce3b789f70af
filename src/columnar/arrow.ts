/**
 * Frames as Apache Arrow tables and back, for tools that speak Arrow (DuckDB, Polars, pyarrow through a
 * file, Perspective, …). apache-arrow is loaded on first use, never by importing the package.
 *
 * Column kinds map so (and back, kept exactly; the kind is also written in each field's metadata):
 * - `number` → Float64, a missing value (`NaN`) as a null;
 * - `string` → Utf8; `category` → Dictionary<Utf8, Int32> whose dictionary is the level list, in order;
 * - `boolean` → Bool; `date` → Timestamp (milliseconds, time zone `UTC`); `empty` → Null;
 * - `mixed` (values of several types, kept as received) → Utf8 of each value as JSON text, flagged in
 *   the field's metadata; reading it back gives the values again.
 * The table's provenance (the responses its rows came from) and its other facts (source, response
 * fields, warnings) go in the schema's metadata under `risk_portal_lab.provenance` and
 * `risk_portal_lab.meta`, as JSON.
 */
import type { DataFrame } from "../../vendor/danfo";
import type * as arrow from "apache-arrow";
import {
  asColumnTable,
  columnRecord,
  ownEntry,
  TableBuilder,
  uniqueWarnings,
  type ColumnHint,
  type ColumnKind,
  type ColumnTable,
  type TableWarning,
  type TypedColumnTable,
} from "../table/column-table";
import { fromDataFrame, isDataFrame } from "./frames";
import { ColumnarError } from "./errors";
import type { ArrowTable } from "./arrow-table";
import { loadArrow } from "./load-arrow";

type Arrow = typeof import("apache-arrow");

/** Schema metadata keys. */
export const ARROW_PROVENANCE_KEY = "risk_portal_lab.provenance";
export const ARROW_META_KEY = "risk_portal_lab.meta";
/** Field metadata key: the column's kind. */
export const ARROW_KIND_KEY = "risk_portal_lab.kind";

/**
 * A column table (typed or not) or a danfo DataFrame (a DataFrame is read through `fromDataFrame`, a
 * typed table through `plainColumns` where a function needs a value per cell).
 */
export type TableLike = ColumnTable | TypedColumnTable | DataFrame;

/** The column table of a table (a typed one made plain) or DataFrame; throws naming `caller` for anything else. */
export function columnTableOf(input: unknown, caller: string): ColumnTable {
  const table = asColumnTable(input);
  if (table) return table;
  if (isDataFrame(input)) return fromDataFrame(input);
  throw new ColumnarError(
    `${caller} expects a frames column table or a danfo DataFrame; got ${describe(input)}`,
    "Arrow",
  );
}

/**
 * The table as an Apache Arrow `Table` (see the module comment for the types).
 *
 * @example
 * ```ts
 * const t = frames.toArrow(frames.transactionTableColumns(response));
 * t.schema.fields.map((f) => `${f.name}: ${f.type}`);
 * ```
 */
export function toArrow(input: TableLike): ArrowTable {
  const table = columnTableOf(input, "frames.toArrow");
  const A = loadArrow();
  const fields: arrow.Field[] = [];
  const vectors = columnRecord<arrow.Vector>();
  for (const name of table.columns) {
    const kind = table.kinds[name]!;
    const vector = arrowVector(A, kind, table.data[name]!, ownEntry(table.meta.categories, name) ?? []);
    vectors[name] = vector;
    fields.push(new A.Field(name, vector.type as arrow.DataType, true, new Map([[ARROW_KIND_KEY, kind]])));
  }
  const { provenance, categories: _categories, missing: _missing, ...rest } = table.meta;
  const metadata = new Map([
    [ARROW_PROVENANCE_KEY, JSON.stringify(provenance ?? [])],
    [ARROW_META_KEY, JSON.stringify(rest)],
  ]);
  const schema = new A.Schema(fields, metadata);
  if (table.columns.length === 0) return new A.Table(schema);
  const plain = new A.Table(vectors);
  return new A.Table(
    schema,
    plain.batches.map((b) => new A.RecordBatch(schema, b.data)),
  );
}

function arrowVector(A: Arrow, kind: ColumnKind, values: unknown[], levels: readonly string[]): arrow.Vector {
  const n = values.length;
  switch (kind) {
    case "number": {
      const out = new Array<number | null>(n);
      for (let i = 0; i < n; i++) {
        const v = values[i] as number;
        out[i] = v === v ? v : null;
      }
      return A.vectorFromArray(out, new A.Float64());
    }
    case "boolean":
      return A.vectorFromArray(values as (boolean | null)[], new A.Bool());
    case "date":
      return A.vectorFromArray(values as (Date | null)[], new A.TimestampMillisecond("UTC"));
    case "category":
      return dictionaryVector(A, values as (string | null)[], levels);
    case "empty":
      return A.vectorFromArray(values as null[], new A.Null());
    case "mixed":
      return A.vectorFromArray(
        values.map((v) => (v === null ? null : JSON.stringify(v instanceof Date ? v.toISOString() : v))),
        new A.Utf8(),
      );
    default:
      return A.vectorFromArray(values as (string | null)[], new A.Utf8());
  }
}

/** Indices into the level list (its order kept), nulls where missing. */
function dictionaryVector(A: Arrow, values: readonly (string | null)[], levels: readonly string[]): arrow.Vector {
  const index = new Map(levels.map((l, i) => [l, i]));
  const all = [...levels];
  const n = values.length;
  const indices = new Int32Array(n);
  const valid = new Uint8Array(Math.ceil(n / 8));
  let nulls = 0;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v === null || v === undefined) {
      nulls++;
      continue;
    }
    let k = index.get(v);
    if (k === undefined) {
      k = all.length;
      all.push(v);
      index.set(v, k);
    }
    indices[i] = k;
    valid[i >> 3]! |= 1 << (i & 7);
  }
  const type = new A.Dictionary(new A.Utf8(), new A.Int32());
  const dictionary = A.vectorFromArray(all, new A.Utf8());
  const data = A.makeData({
    type,
    length: n,
    nullCount: nulls,
    nullBitmap: nulls ? valid : null,
    data: indices,
    dictionary,
  });
  return A.makeVector(data);
}

/**
 * A column table from an Apache Arrow `Table`: the kinds written by {@link toArrow} come back as they
 * were; other tables are read by type (numbers, 64-bit integers within ±2^53 as numbers, text,
 * dictionaries as categories, booleans, dates and timestamps as `Date`s, anything else as JSON text, a
 * warning naming the column). Provenance and facts written by {@link toArrow} are restored.
 * @example
 * ```ts
 * const table = frames.fromArrow(frames.toArrow(frames.yieldCurveColumns(curve))); // kinds and levels come back
 * ```
 */
export function fromArrow(table: ArrowTable): ColumnTable {
  const A = loadArrow();
  if (!(table instanceof A.Table))
    throw new ColumnarError(`frames.fromArrow expects an apache-arrow Table; got ${describe(table)}`, "Arrow");
  const meta = readJson<{
    source?: string;
    fields?: Record<string, unknown>;
    warnings?: (TableWarning | string)[];
    shape?: ColumnTable["meta"]["shape"];
  }>(table.schema.metadata.get(ARROW_META_KEY), {});
  const provenance = readJson<ColumnTable["meta"]["provenance"]>(table.schema.metadata.get(ARROW_PROVENANCE_KEY), []);
  const builder = new TableBuilder(table.numRows, meta.source ?? "Arrow", meta.fields ?? {}, provenance);
  table.schema.fields.forEach((field, j) => {
    const vector = table.getChildAt(j)!;
    const read = readColumn(A, field, vector);
    if (read.warning) builder.warn(read.warning);
    builder.add(field.name, read.values, { hint: read.hint, owned: true, levels: read.levels, detectDates: false });
  });
  const built = builder.build();
  if (meta.shape) built.meta.shape = meta.shape;
  // The table's own warnings first; a mixed column's warning, said again on the way back, once.
  built.meta.warnings = uniqueWarnings([...(meta.warnings ?? []), ...built.meta.warnings]);
  return built;
}

export interface ReadColumn {
  values: unknown[];
  hint: ColumnHint;
  levels?: string[];
  warning?: TableWarning;
}

function readColumn(A: Arrow, field: arrow.Field, vector: arrow.Vector): ReadColumn {
  const kind = field.metadata.get(ARROW_KIND_KEY) as ColumnKind | undefined;
  const n = vector.length;
  const raw = new Array<unknown>(n);
  for (let i = 0; i < n; i++) raw[i] = vector.get(i);
  const type = field.type as arrow.DataType;
  if (kind === "mixed")
    return { values: raw.map((v) => (v === null ? null : (JSON.parse(v as string) as unknown))), hint: "auto" };
  if (A.DataType.isDictionary(type)) {
    const dictionary = (vector.data[0]?.dictionary?.toArray() ?? []) as string[];
    return {
      values: raw.map((v) => (v === null ? null : String(v))),
      hint: kind === "string" ? "string" : "category",
      levels: [...dictionary],
    };
  }
  if (A.DataType.isFloat(type) || A.DataType.isInt(type) || A.DataType.isDecimal(type))
    return exactNumbers(field.name, raw);
  if (A.DataType.isTimestamp(type) || A.DataType.isDate(type))
    return { values: raw.map((v) => (v === null ? null : v instanceof Date ? v : new Date(Number(v)))), hint: "date" };
  if (A.DataType.isBool(type)) return { values: raw, hint: "boolean" };
  if (A.DataType.isUtf8(type) || A.DataType.isLargeUtf8(type)) return { values: raw, hint: "string" };
  if (A.DataType.isNull(type)) return { values: raw, hint: "auto" };
  return {
    values: raw.map((v) =>
      v === null ? null : JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? x.toString() : x)),
    ),
    hint: "string",
    warning: { column: field.name, message: `column "${field.name}": Arrow type ${String(type)} is read as JSON text` },
  };
}

/**
 * Numbers (64-bit integers, as bigints, within ±2^53 too); a column with a bigint beyond that stays
 * exact as text, with a warning. Shared by the Arrow and the SQL readers.
 */
export function exactNumbers(name: string, raw: unknown[]): ReadColumn {
  let big = -1;
  const values = raw.map((v, i) => {
    if (typeof v !== "bigint") return v;
    if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) {
      if (big < 0) big = i;
      return v;
    }
    return Number(v);
  });
  if (big < 0) return { values, hint: "number" };
  return {
    values: values.map((v) => (typeof v === "bigint" ? v.toString() : v === null ? null : String(v))),
    hint: "string",
    warning: {
      row: big,
      column: name,
      message: `column "${name}": row ${big} holds ${String(raw[big])}, beyond what a double holds exactly (±2^53); the column is kept as text`,
    },
  };
}

function readJson<T>(text: string | undefined, fallback: T): T {
  if (text === undefined) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === "object") return `an object with keys ${Object.keys(value).slice(0, 6).join(", ") || "(none)"}`;
  return typeof value;
}
