/**
 * risk-portal-lab: a typed client for the risk service and (loaded lazily, on first use) DataFrames,
 * plots, a local vol model and a simulator. Importing this module loads neither danfo nor plotly.
 *
 * The root is what a notebook writes, one completion list at a time: at most 45 names here and 80 keys in
 * each namespace (the surface test counts them in the built bundle and says why): the client, the notebook verbs, the errors a cell catches, and the curated
 * namespaces `frames`, `plot`, `vol`, `curves` (the surface room). What tools need besides is behind subpaths
 * (the subpath room, package.json "exports"): `risk-portal-lab/api` (the wire model: zod schemas, operation
 * declarations, the spec's constants), `risk-portal-lab/internals` (the pipeline's parts), and
 * `risk-portal-lab/frames`, `/vol`, `/plot`, `/curves` (each folder whole).
 */
import type { Simulator, SimulatorOptions } from "./sim";
import { guardAnswers } from "./await-guard";
import * as client from "./client";
import { diffNotebooks as diffNotebooksImpl } from "./notebook/diff";
import { diffFigures as diffFiguresImpl } from "./notebook/diff/chart";
import { writeReport } from "./notebook/diff/report";

export * from "./client";
export * as vol from "./surface/vol";
export * as curves from "./surface/curves";
export * as frames from "./surface/frames";
export * as plot from "./surface/plot";
export type {
  Simulator,
  SimulatorOptions,
  SimulatorCredentials,
  FaultOptions,
  RateLimitOptions,
  ReportTiming,
  Clock,
  ManualClock,
} from "./sim";
/**
 * The types of the frames and tables the package returns, named from the package itself: a notebook's
 * `const df = frames.yieldCurve(…)` compiles under tslab (which emits declarations for each cell) only
 * when the inferred type can be named from the user's folder, and a re-export here is such a name
 * (danfo ships in vendor/danfo; apache-arrow may sit in the package's own node_modules when it is linked).
 */
export type { DataFrame, Series } from "../vendor/danfo";
export type { ArrowTable } from "./columnar/arrow-table";
export type { ColumnTable, TypedColumnTable, ColumnKind, TableMeta } from "./table/column-table";

/**
 * Starts the embedded simulator of the service on 127.0.0.1 (the sim room). The HTTP server code loads
 * on first call, so importing the package stays light.
 * @example
 * ```ts
 * const sim = await startSimulator({ seed: 1, asOf: "2026-11-20" });
 * const client = new RiskPortalClient({ baseUrl: sim.url, auth: { apiKey: sim.credentials.apiKey } });
 * await sim.close();
 * ```
 */
export async function startSimulator(options?: SimulatorOptions): Promise<Simulator> {
  const sim = await import("./sim");
  return sim.startSimulator(options);
}

export { manualClock } from "./sim/clock";
export {
  connect,
  closeAllConnections,
  type Connection,
  type ConnectOptions,
  type SimHelpers,
  type SimTradable,
  type SimPortfolio,
  type SimBatchRun,
} from "./notebook/connect";
export { runNotebook, NotebookError, type RunOptions, type RunResult } from "./notebook/run";
export {
  diffNotebookFiles,
  NotebookDiffError,
  type NotebookDiff,
  type NotebookDiffOptions,
  type CellDiff,
  type ChartChange,
  type TraceChange,
  type TableChange,
} from "./notebook/diff";
// The root's readers of answers, figures and notebooks, behind the one Promise guard ({@link guardAnswers},
// as the namespaces' functions in the surface room): these names take precedence over `export *` above.
export const provenanceOf = guardAnswers("provenanceOf", client.provenanceOf);
export const formatProvenance = guardAnswers("formatProvenance", client.formatProvenance);
export const diffNotebooks = guardAnswers("diffNotebooks", diffNotebooksImpl);
export const diffFigures = guardAnswers("diffFigures", diffFiguresImpl);
export const writeDiffReport = guardAnswers("writeDiffReport", writeReport);
/** `STRIKE_TYPE` is what a vol cell writes; the spec's other constants are in `risk-portal-lab/api`. */
export {
  STRIKE_TYPE,
  type StrikeType,
  type PortfolioType,
  type IdentifierType,
  type Assumption,
} from "./api/assumptions";
// The wire types of the api room's generated wire-types module, where each is written out: the modules that declare them
// beside their zod schemas (./api/market-data, …) would make a kernel that type-checks a cell (tslab)
// load zod's declarations and the schemas' with the package's root (bench/tslab-cost.mjs).
export type {
  BondPriceRecordInput,
  EquityVolCurveInput,
  UploadBondPriceDataRequest,
  UploadEquityVolCurvesRequest,
  VolSurfaceInput,
  GetVolRequest,
  GetVolResponse,
  PositionEffectsRequest,
  PositionEffectsResponse,
  TradeEventInput,
  TradableBriefQuery,
  TradableBriefResponse,
  RateAssetRequest,
  RateAssetResponse,
  CurvePoint,
  YieldCurveModel,
  VarLauncherItemCreateRequest,
  RiskLauncherItemCreateRequest,
  GetReportInfosRequest,
  GetReportInfosResponse,
  ReportInfo,
  ReportListResponse,
  LookBacksResponse,
  TransactionTableRequest,
  TransactionTableResponse,
  DataTable,
  ApiKeyEntry,
  OperationOutcome,
  ProblemDetails,
  IdentifierInput,
} from "./api/wire-types";
export type { FieldIssue } from "./api/operation";
