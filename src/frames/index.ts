/**
 * frames: every response as a danfo DataFrame (danfo is loaded on first use, never by importing the
 * package), the same as plain column tables (`…Columns`, no danfo), batch helpers over many dates and
 * currencies, and the other direction — DataFrames, arrays or CSV files to validated upload records.
 */
export { loadDanfo, toDataFrame, fromDataFrame, frameInfo, DTYPE_OF_KIND, type FrameInfo } from "./danfo";
export {
  numbersOf,
  valuesOf,
  emptyTable,
  plainColumns,
  type TypedColumnTable,
  type TypedColumn,
  type ColumnTable,
  type ColumnKind,
  type ColumnHint,
  type TableMeta,
  type TableShape,
  type TableWarning,
} from "../table/column-table";
export { parseIsoDate, toDate } from "../table/iso-date";
export { provenance, type Provenance, type ProvenanceSource } from "./provenance";

// Responses → frames
export { yieldCurve, yieldCurveColumns, YIELD_CURVE_COLUMNS, type YieldCurveOptions } from "./yield-curve";
export {
  discountFactor,
  forwardRate,
  curveMeasures,
  DEFAULT_COMPOUNDING,
  type Compounding,
  type CurveMeasures,
} from "../curves/compounding";
export {
  curveTenors,
  curveTenorsColumns,
  CURVE_TENOR_COLUMNS,
  type CurveSource,
  type CurveTenorsOptions,
} from "./curve-tenors";
export {
  volResults,
  volResultsColumns,
  volResultsWide,
  volResultsWideColumns,
  volGrid,
  volGridColumns,
  volGridWide,
  volGridWideColumns,
  type VolGrid,
  type GetVolResult,
} from "./vol";
export { transactionTableColumns, detectTableShape, type TransactionTableOptions } from "../transactions/table";
export { transactionTable, fetchTransactionTable, fetchTransactionTables } from "./transactions";
export { fetchTransactionTableColumns } from "../transactions/fetch";
export {
  fetchTransactionTableToParquet,
  fetchTransactionTableToDuckDB,
  type TransactionTableWritten,
  type TransactionTableLoaded,
  type StreamOptions,
} from "../transactions/stream";
export {
  reportInfos,
  reportInfosColumns,
  reportList,
  reportListColumns,
  lookBacks,
  lookBacksColumns,
  REPORT_INFO_FIELDS,
} from "./reports";
export { apiKeys, apiKeysColumns, maskSecret, MASK, type ApiKeysOptions } from "./api-keys";
export { positionEffects, positionEffectsColumns } from "./position-effects";
export { operationOutcome, operationOutcomeColumns } from "./operation-outcome";
export { pivot, pivotColumns, type PivotOptions, type PivotAgg } from "./pivot";
export { concatColumns } from "../table/concat";

// Columnar: Arrow, SQL (DuckDB), Parquet datasets
export { toArrow, fromArrow, type TableLike } from "../columnar/arrow";
export type { ArrowTable, ArrowField, ArrowSchema, ArrowVector } from "../columnar/arrow-table";
export {
  query,
  queryColumns,
  duckdb,
  SqlSession,
  type SqlSource,
  type SqlSourceInfo,
  type ResultOptions,
  type QueryColumnsOptions,
} from "../columnar/sql";
export type { DuckDBOptions, DuckDBSizing } from "../columnar/duckdb-options";
export {
  writeParquet,
  readParquet,
  readParquetColumns,
  type ReadParquetColumnsOptions,
  type WriteParquetOptions,
  type ParquetWritten,
} from "../columnar/parquet";
export {
  fetchTransactionTablesColumns,
  fetchTransactionTablesToParquet,
  type TransactionTablesOptions,
  type TransactionTablesFailure,
  type TransactionDataset,
} from "../transactions/panel";

// Batches
export {
  fetchYieldCurves,
  fetchYieldCurvesColumns,
  pivotCurves,
  pivotCurvesColumns,
  type YieldCurvesOptions,
  type CurveFailure,
  type PivotCurvesOptions,
} from "./yield-curves";
export type { BatchColumns, BatchFrame } from "../batch/run";
export {
  fetchReportInfosByDate,
  fetchReportInfosByDateColumns,
  type ReportInfosByDateOptions,
  type ReportInfosFailure,
} from "./report-infos-by-date";
export {
  notebookLine,
  type TextDisplay,
  notebookRenderer,
  barRenderer,
  progressLine,
  progressBar,
  type ProgressEvent,
  type ProgressMode,
  type ProgressOptions,
  type ProgressRenderer,
} from "../batch/progress";
export { DEFAULT_CONCURRENCY } from "../batch/pool";

// Frames / rows / CSV → upload records
export {
  bondPriceRecords,
  uploadBondPrices,
  type BondPriceRecordsResult,
  type UploadBondPricesOptions,
} from "../uploads/bond-prices";
export {
  equityVolCurveRecords,
  uploadEquityVolCurves,
  type EquityVolCurvesResult,
  type LeftOutCurve,
  type UploadEquityVolCurvesOptions,
} from "../uploads/equity-vol-curves";
export { type Rejection } from "../uploads/rejections";
export {
  type RowSource,
  type XlsxSource,
  type DataFrameLike,
  type RecordsFromRowsOptions,
} from "../uploads/upload-rows";
export { RowValidationError, CsvError, formatRowError, type RowError } from "../uploads/errors";
export { TableShapeError } from "../transactions/errors";
export { ColumnarError, SqlError } from "../columnar/errors";
export { PivotError } from "../table/errors";
export { parseCsv, readCsvFile, type CsvTable, type CsvOptions } from "../uploads/csv";

// Excel workbooks (.xlsx) in and out
export {
  readExcel,
  readExcelColumns,
  toExcel,
  type ReadExcelOptions,
  type ToExcelOptions,
  type ExcelWritten,
} from "./excel";
export { ExcelError } from "../uploads/errors";

// Comparing two tables
export {
  diff,
  FrameDiffError,
  DEFAULT_DIFF_TOLERANCE,
  type DiffOptions,
  type FrameDiff,
  type RowChange,
  type CellChange,
} from "./diff";
