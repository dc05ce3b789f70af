/**
 * The Apache Arrow table as the package's declarations name it: the part of apache-arrow's `Table` a
 * notebook reads (rows, columns, schema, a column by name or index), declared here so that the package's
 * types do not import apache-arrow's. A kernel that type-checks every cell (tslab) loads every declaration
 * file the package's root reaches, and apache-arrow's are 124 files (with flatbuffers'), a fifth of what
 * the root reached (bench/tslab-cost.mjs). The value is apache-arrow's own `Table`, and any apache-arrow
 * `Table` is an `ArrowTable` (test/columnar/columnar.test.ts assigns one); for the rest of its API, write
 * `table as unknown as import("apache-arrow").Table` in a cell.
 */

/** A column of an Arrow table (apache-arrow's `Vector`, as far as a notebook reads it). */
export interface ArrowVector {
  /** Number of values. */
  readonly length: number;
  /** Number of null values. */
  readonly nullCount: number;
  /** The value at `index` (null where the column is null). */
  get(index: number): unknown;
  /** The values as an array (a typed array for numbers). */
  toArray(): unknown;
}

/** A field of an Arrow schema: a column's name, type, nullability and metadata. */
export interface ArrowField {
  readonly name: string;
  /** apache-arrow's `DataType` of the column. */
  readonly type: unknown;
  readonly nullable: boolean;
  readonly metadata: Map<string, string>;
}

/** An Arrow schema: the fields in column order, and the table's metadata. */
export interface ArrowSchema {
  readonly fields: readonly ArrowField[];
  readonly metadata: Map<string, string>;
}

/** An Apache Arrow table (apache-arrow's `Table`), as `frames.toArrow` returns it and `frames.fromArrow` reads it. */
export interface ArrowTable {
  /** Number of rows. */
  readonly numRows: number;
  /** Number of columns. */
  readonly numCols: number;
  readonly schema: ArrowSchema;
  /** The column named `name`, or null. */
  getChild(name: string): ArrowVector | null;
  /** The column at `index` (0-based), or null. */
  getChildAt(index: number): ArrowVector | null;
  /** The rows as objects. */
  toArray(): unknown[];
  toString(): string;
}
