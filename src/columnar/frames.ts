/**
 * How the columnar room hands out and takes danfo DataFrames without importing frames/ (which imports it):
 * The frames room's danfo module, the one door to danfo, registers its conversions here when it loads. The
 * columnar room's own forms are column tables (`queryColumns`, `readParquetColumns`, …).
 */
import type { DataFrame } from "../../vendor/danfo";
import type { ColumnTable, TypedColumnTable } from "../table/column-table";

export interface FrameConversions {
  isDataFrame(value: unknown): value is DataFrame;
  fromDataFrame(df: DataFrame): ColumnTable;
  toDataFrame(table: ColumnTable | TypedColumnTable): DataFrame;
}

let registered: FrameConversions | undefined;

/** Registers danfo's conversions (the frames room's danfo module does, when it loads). */
export function setFrameConversions(conversions: FrameConversions): void {
  registered = conversions;
}

/** True for a danfo DataFrame (false while frames/danfo.ts is not loaded: no DataFrame was made through it). */
export function isDataFrame(value: unknown): value is DataFrame {
  return registered?.isDataFrame(value) ?? false;
}

export function fromDataFrame(df: DataFrame): ColumnTable {
  return conversions().fromDataFrame(df);
}

export function toDataFrame(table: ColumnTable | TypedColumnTable): DataFrame {
  return conversions().toDataFrame(table);
}

function conversions(): FrameConversions {
  if (registered === undefined)
    throw new Error("danfo DataFrames come through risk-portal-lab's frames (its danfo module is not loaded)");
  return registered;
}
