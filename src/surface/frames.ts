/**
 * `frames` as the package root exports it: what a notebook writes. The response adapters in their
 * DataFrame form (the one door to danfo: `loadDanfo`, `toDataFrame`, `fromDataFrame`), the verbs that
 * call the service (`fetch…`, `upload…`), the table verbs, Arrow/SQL/Parquet, and the errors a cell
 * catches, and each adapter's column-table form (`yieldCurveColumns`, …: the same tables without danfo).
 * Everything else of the folder — the constants, the progress renderers, the cell helpers — is in `risk-portal-lab/frames`,
 * which holds the whole folder. Every type of the folder is here too.
 */
import * as folder from "../frames";
import { guardAnswers } from "../await-guard";
import { followReports as followReportsImpl } from "../notebook/follow-reports";

export type * from "../frames";
export type { FollowReportsOptions, ReportRun, ReportFollowTimeout } from "../notebook/follow-reports";
export {
  ColumnarError,
  CsvError,
  FrameDiffError,
  PivotError,
  RowValidationError,
  SqlError,
  TableShapeError,
} from "../frames";
// Each function behind the one guard ({@link guardAnswers}): a Promise where an answer belongs is an
// error naming the function. Same function, name, length and type; the error classes above are the folder's own.
// response → DataFrame
export const yieldCurve = guardAnswers("frames.yieldCurve", folder.yieldCurve);
export const curveTenors = guardAnswers("frames.curveTenors", folder.curveTenors);
export const pivotCurves = guardAnswers("frames.pivotCurves", folder.pivotCurves);
export const volGrid = guardAnswers("frames.volGrid", folder.volGrid);
export const volGridWide = guardAnswers("frames.volGridWide", folder.volGridWide);
export const volResults = guardAnswers("frames.volResults", folder.volResults);
export const volResultsWide = guardAnswers("frames.volResultsWide", folder.volResultsWide);
export const positionEffects = guardAnswers("frames.positionEffects", folder.positionEffects);
export const reportInfos = guardAnswers("frames.reportInfos", folder.reportInfos);
export const reportList = guardAnswers("frames.reportList", folder.reportList);
export const lookBacks = guardAnswers("frames.lookBacks", folder.lookBacks);
export const transactionTable = guardAnswers("frames.transactionTable", folder.transactionTable);
export const apiKeys = guardAnswers("frames.apiKeys", folder.apiKeys);
export const operationOutcome = guardAnswers("frames.operationOutcome", folder.operationOutcome);
// response → column table (the same adapters without danfo: for Arrow, SQL, Parquet and big tables)
export const yieldCurveColumns = guardAnswers("frames.yieldCurveColumns", folder.yieldCurveColumns);
export const curveTenorsColumns = guardAnswers("frames.curveTenorsColumns", folder.curveTenorsColumns);
export const pivotCurvesColumns = guardAnswers("frames.pivotCurvesColumns", folder.pivotCurvesColumns);
export const volGridColumns = guardAnswers("frames.volGridColumns", folder.volGridColumns);
export const volGridWideColumns = guardAnswers("frames.volGridWideColumns", folder.volGridWideColumns);
export const volResultsColumns = guardAnswers("frames.volResultsColumns", folder.volResultsColumns);
export const volResultsWideColumns = guardAnswers("frames.volResultsWideColumns", folder.volResultsWideColumns);
export const positionEffectsColumns = guardAnswers("frames.positionEffectsColumns", folder.positionEffectsColumns);
export const reportInfosColumns = guardAnswers("frames.reportInfosColumns", folder.reportInfosColumns);
export const reportListColumns = guardAnswers("frames.reportListColumns", folder.reportListColumns);
export const lookBacksColumns = guardAnswers("frames.lookBacksColumns", folder.lookBacksColumns);
export const transactionTableColumns = guardAnswers("frames.transactionTableColumns", folder.transactionTableColumns);
export const apiKeysColumns = guardAnswers("frames.apiKeysColumns", folder.apiKeysColumns);
export const operationOutcomeColumns = guardAnswers("frames.operationOutcomeColumns", folder.operationOutcomeColumns);
export const fetchYieldCurvesColumns = guardAnswers("frames.fetchYieldCurvesColumns", folder.fetchYieldCurvesColumns);
export const fetchReportInfosByDateColumns = guardAnswers(
  "frames.fetchReportInfosByDateColumns",
  folder.fetchReportInfosByDateColumns,
);
export const fetchTransactionTableColumns = guardAnswers(
  "frames.fetchTransactionTableColumns",
  folder.fetchTransactionTableColumns,
);
export const fetchTransactionTablesColumns = guardAnswers(
  "frames.fetchTransactionTablesColumns",
  folder.fetchTransactionTablesColumns,
);
export const pivotColumns = guardAnswers("frames.pivotColumns", folder.pivotColumns);
export const queryColumns = guardAnswers("frames.queryColumns", folder.queryColumns);
export const readParquetColumns = guardAnswers("frames.readParquetColumns", folder.readParquetColumns);
// the service, in batches and streams
export const fetchYieldCurves = guardAnswers("frames.fetchYieldCurves", folder.fetchYieldCurves);
export const fetchReportInfosByDate = guardAnswers("frames.fetchReportInfosByDate", folder.fetchReportInfosByDate);
export const fetchTransactionTable = guardAnswers("frames.fetchTransactionTable", folder.fetchTransactionTable);
export const fetchTransactionTables = guardAnswers("frames.fetchTransactionTables", folder.fetchTransactionTables);
export const fetchTransactionTableToParquet = guardAnswers(
  "frames.fetchTransactionTableToParquet",
  folder.fetchTransactionTableToParquet,
);
export const fetchTransactionTablesToParquet = guardAnswers(
  "frames.fetchTransactionTablesToParquet",
  folder.fetchTransactionTablesToParquet,
);
// uploads
export const uploadBondPrices = guardAnswers("frames.uploadBondPrices", folder.uploadBondPrices);
export const uploadEquityVolCurves = guardAnswers("frames.uploadEquityVolCurves", folder.uploadEquityVolCurves);
export const bondPriceRecords = guardAnswers("frames.bondPriceRecords", folder.bondPriceRecords);
export const equityVolCurveRecords = guardAnswers("frames.equityVolCurveRecords", folder.equityVolCurveRecords);
export const readCsvFile = guardAnswers("frames.readCsvFile", folder.readCsvFile);
export const parseCsv = guardAnswers("frames.parseCsv", folder.parseCsv);
export const formatRowError = guardAnswers("frames.formatRowError", folder.formatRowError);
// tables, and the door to danfo
export const diff = guardAnswers("frames.diff", folder.diff);
export const pivot = guardAnswers("frames.pivot", folder.pivot);
export const provenance = guardAnswers("frames.provenance", folder.provenance);
export const loadDanfo = guardAnswers("frames.loadDanfo", folder.loadDanfo);
export const toDataFrame = guardAnswers("frames.toDataFrame", folder.toDataFrame);
export const fromDataFrame = guardAnswers("frames.fromDataFrame", folder.fromDataFrame);
export const frameInfo = guardAnswers("frames.frameInfo", folder.frameInfo);
export const plainColumns = guardAnswers("frames.plainColumns", folder.plainColumns);
// Arrow, SQL (DuckDB), Parquet
export const toArrow = guardAnswers("frames.toArrow", folder.toArrow);
export const fromArrow = guardAnswers("frames.fromArrow", folder.fromArrow);
export const duckdb = guardAnswers("frames.duckdb", folder.duckdb);
export const query = guardAnswers("frames.query", folder.query);
export const readParquet = guardAnswers("frames.readParquet", folder.readParquet);
export const writeParquet = guardAnswers("frames.writeParquet", folder.writeParquet);
// Excel workbooks
export const readExcel = guardAnswers("frames.readExcel", folder.readExcel);
export const readExcelColumns = guardAnswers("frames.readExcelColumns", folder.readExcelColumns);
export const toExcel = guardAnswers("frames.toExcel", folder.toExcel);
// following launched report runs to their end (a status chart redrawn in place in a notebook)
export const followReports = guardAnswers("frames.followReports", followReportsImpl);
// errors
