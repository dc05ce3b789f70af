/**
 * The resources table: the client's groups and their methods, each naming the operation declaration it
 * sends. `RiskPortalClient` derives its group types and methods from this table (nothing is written out
 * twice); the doc comments here are what an editor shows on `rp.marketData.uploadBondPrices`.
 */
import { uploadBondPriceData, uploadEquityVolCurves } from "./market-data";
import { getTransactionTable } from "./position";
import { getRateAsset } from "./rate-asset";
import { getReportInfos, lookBacks, reportInfos } from "./report";
import { riskReportLauncherItemCreate, varReportLauncherItemCreate } from "./report-launcher";
import { getTradableBrief, getTradeEventPositionEffects, getVol } from "./tradable";
import { getApiKeys } from "./user";

export const RESOURCES = {
  /** Market-data uploads. */
  marketData: {
    /** 1. Upload bond prices (`use_best_effort` default false, `trigger_immediate_bootstrap` default true: A18, A19); `traded_price` is a clean price, in percent of par with `is_percentage_of_par` (A24: the spec and the pages do not say). Never retried. */
    uploadBondPrices: uploadBondPriceData,
    /** 2. Upload equity vol curves (`use_best_effort` default false). Never retried. */
    uploadEquityVolCurves,
  },
  /** Tradable queries. */
  tradable: {
    /** 3. Vols from a surface at one maturity (days) and many strikes (`strike_type` 0/1/2, see `STRIKE_TYPE`). */
    getVol,
    /** 5. Position effects of a tradable's next trade event (`$type` of the event may be a bare name like `"BuyEvent"`). */
    positionEffects: getTradeEventPositionEffects,
    /** 6. A short text summary of a tradable; an unknown tradable throws `NotFoundError` with problem details. */
    brief: getTradableBrief,
  },
  /** Rate assets. */
  rateAsset: {
    /** 4. The discount curve of a currency at a market date. */
    getCurve: getRateAsset,
  },
  /** Report launcher. */
  reportLauncher: {
    /** 7. Create a VaR launcher item. Never retried. */
    createVar: varReportLauncherItemCreate,
    /** 8. Create a risk (PnL) launcher item. Never retried. */
    createRisk: riskReportLauncherItemCreate,
  },
  /** Reports. */
  report: {
    /** 9. Report infos filtered by pricing date(s), portfolios and portfolio type. */
    infos: getReportInfos,
    /** 10. The reports of the calling user. */
    list: reportInfos,
    /** 11. The report cut-offs (look-backs) of the user's organisation. */
    lookBacks,
  },
  /** Positions. */
  position: {
    /** 12. The transaction table of a portfolio (`include_zero_quantities` default false, `counterparties` default all). */
    transactionTable: getTransactionTable,
  },
  /** The calling user. */
  user: {
    /** 13. The caller's API keys (the key values are secrets: frames mask them). */
    apiKeys: getApiKeys,
  },
} as const;

export type Resources = typeof RESOURCES;
