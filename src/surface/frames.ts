/**
 * `frames` as the package root exports it: what a notebook writes. The response adapters in their
 * DataFrame form (the one door to danfo: `loadDanfo`, `toDataFrame`, `fromDataFrame`), the verbs that
 * call the service (`fetch…`, `upload…`), the table verbs, Arrow/SQL/Parquet, and the errors a cell
 * catches, and each adapter's column-table form (`yieldCurveColumns`, …: the same tables without danfo).
 * Everything else of the folder — the constants, the progress renderers, the cell helpers — is in `risk-portal-lab/frames`
 * (src/subpath/frames.ts), which holds the whole folder. Every type of the folder is here too.
 */
export type * from "../frames";
export {
  // response → DataFrame
  yieldCurve,
  curveTenors,
  pivotCurves,
  volGrid,
  volGridWide,
  volResults,
  volResultsWide,
  positionEffects,
  reportInfos,
  reportList,
  lookBacks,
  transactionTable,
  apiKeys,
  operationOutcome,
  // response → column table (the same adapters without danfo: for Arrow, SQL, Parquet and big tables)
  yieldCurveColumns,
  curveTenorsColumns,
  pivotCurvesColumns,
  volGridColumns,
  volGridWideColumns,
  volResultsColumns,
  volResultsWideColumns,
  positionEffectsColumns,
  reportInfosColumns,
  reportListColumns,
  lookBacksColumns,
  transactionTableColumns,
  apiKeysColumns,
  operationOutcomeColumns,
  fetchYieldCurvesColumns,
  fetchReportInfosByDateColumns,
  fetchTransactionTableColumns,
  fetchTransactionTablesColumns,
  pivotColumns,
  queryColumns,
  readParquetColumns,
  // the service, in batches and streams
  fetchYieldCurves,
  fetchReportInfosByDate,
  fetchTransactionTable,
  fetchTransactionTables,
  fetchTransactionTableToParquet,
  fetchTransactionTablesToParquet,
  // uploads
  uploadBondPrices,
  uploadEquityVolCurves,
  bondPriceRecords,
  equityVolCurveRecords,
  readCsvFile,
  parseCsv,
  formatRowError,
  // tables, and the door to danfo
  diff,
  pivot,
  provenance,
  loadDanfo,
  toDataFrame,
  fromDataFrame,
  frameInfo,
  // Arrow, SQL (DuckDB), Parquet
  toArrow,
  fromArrow,
  duckdb,
  query,
  readParquet,
  writeParquet,
  // errors
  ColumnarError,
  CsvError,
  FrameDiffError,
  PivotError,
  RowValidationError,
  SqlError,
  TableShapeError,
} from "../frames";
