/** The wire model: schemas and operation declarations for all 13 operations. */
import { uploadBondPriceData, uploadEquityVolCurves } from "./market-data";
import { getTransactionTable } from "./position";
import { getRateAsset } from "./rate-asset";
import { getReportInfos, lookBacks, reportInfos } from "./report";
import { riskReportLauncherItemCreate, varReportLauncherItemCreate } from "./report-launcher";
import { getTradableBrief, getTradeEventPositionEffects, getVol } from "./tradable";
import { getApiKeys } from "./user";

export * from "./assumptions";
export * from "./common";
export * from "./operation";
export * from "./market-data";
export * from "./tradable";
export * from "./rate-asset";
export * from "./report-launcher";
export * from "./report";
export * from "./position";
export * from "./user";
export * from "./resources";

/** The 13 operations, in the spec's order. */
export const OPERATIONS = [
  uploadBondPriceData,
  uploadEquityVolCurves,
  getVol,
  getRateAsset,
  getTradeEventPositionEffects,
  getTradableBrief,
  varReportLauncherItemCreate,
  riskReportLauncherItemCreate,
  getReportInfos,
  reportInfos,
  lookBacks,
  getTransactionTable,
  getApiKeys,
] as const;
