/**
 * `frames` as the package root exports it: what a notebook writes. The response adapters in their
 * DataFrame form (the one door to danfo: `loadDanfo`, `toDataFrame`, `fromDataFrame`), the verbs that
 * call the service (`fetch…`, `upload…`), the table verbs, Arrow/SQL/Parquet, and the errors a cell
 * catches. Everything else of the folder — each adapter's column-table form (`yieldCurveColumns`, …),
 * the constants, the progress renderers, the cell helpers — is in `risk-portal-lab/frames`
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
