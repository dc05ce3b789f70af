/**
 * A DuckDB query result's columns as `readResultColumns` reads them, for sql.ts to make a column
 * table of. DuckDB-free on purpose: sql.ts's declarations reach this file, and the root's declarations (what
 * tslab checks every notebook's first cell against) must not reach DuckDB's (test/lint/root-declarations.test.ts).
 */

/** A result's columns: names, DuckDB types and values (NULL as `null`), `rows` long each. */
export interface ResultColumns {
  names: string[];
  /** Each column's `DuckDBType` (typed loosely here: see the module's comment). */
  types: unknown[];
  /** Each column's values; read `typed`, a `number` or `date` column's are a `Float64Array` (a date's epoch ms, NaN for NULL). */
  columns: (unknown[] | Float64Array)[];
  rows: number;
  /**
   * Per column, the kind its values already have when read from the vectors (numbers with NaN for
   * NULL; text, dates, booleans with `null`): no further conversion. Undefined: as `getColumnsJS()` gives them.
   */
  final?: (FinalKind | undefined)[];
  /** Per column, how many of its values are NULL, counted as read (undefined: count them). */
  missing?: number[];
}

/** The kinds a column read from the vectors may already have. */
export type FinalKind = "number" | "string" | "date" | "boolean";
