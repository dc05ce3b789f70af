/**
 * exceljs, loaded on first use. In a module of its own: its type is exceljs's whole module, which the
 * declarations of `readSheetCells` (reached from the package's root) would otherwise import, and a
 * kernel that type-checks each cell (tslab) would load with the package (test/lint/root-declarations.test.ts).
 * An optional dependency, as playwright-core is for PNGs: its 23 MB (with its own dependencies, 39 MB) would
 * take every install past the package's size budget for the quants who never open a workbook.
 */
import { RiskPortalError } from "../errors";

type ExcelJS = typeof import("exceljs");
let loaded: ExcelJS | undefined;

/** exceljs, loaded on first call and cached; `operation` (the function called) names what needs it when it is not installed. */
export function loadExcelJS(operation: string): ExcelJS {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    loaded ??= require("exceljs") as ExcelJS;
  } catch (error) {
    throw new RiskPortalError(
      `${operation} needs the npm package exceljs (it reads and writes .xlsx workbooks): \`npm install exceljs\` in the notebook's folder`,
      { operation, cause: error },
    );
  }
  return loaded;
}
