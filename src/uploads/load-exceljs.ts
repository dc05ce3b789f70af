/**
 * exceljs, loaded on first use. In a module of its own: its type is exceljs's whole module, which the
 * declarations of src/uploads/xlsx.ts (reached from the package's root) would otherwise import, and a
 * kernel that type-checks each cell (tslab) would load with the package (test/lint/root-declarations.test.ts).
 */
type ExcelJS = typeof import("exceljs");
let loaded: ExcelJS | undefined;

/** exceljs, loaded on first call and cached. */
export function loadExcelJS(): ExcelJS {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= require("exceljs") as ExcelJS;
  return loaded;
}
