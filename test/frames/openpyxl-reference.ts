/** What test/frames/fixtures/openpyxl-reference.xlsx (scripts/reference/openpyxl-workbook.py) holds, as both runtimes must read it. */
import type { ColumnKind } from "../../src/table/column-table";

/** The kinds of its sheet Marks' columns. */
export const MARKS_KINDS: Record<string, ColumnKind> = {
  date: "date",
  code: "string",
  price: "number",
  qty: "number",
  active: "boolean",
  stamp: "date",
  note: "string",
  iso: "date",
  value: "empty",
  status: "string",
};
