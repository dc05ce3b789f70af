/**
 * The client's resource groups, written out from the resources table (src/api/resources.ts) with the
 * wire types by scripts/gen-wire-types.mjs: do not edit (run `node scripts/gen-wire-types.mjs`). The
 * table is what the client runs; this is how its methods are typed, so that a kernel checking a notebook
 * cell does not infer each call's types from zod's at every use (test/api/wire-types.test.ts checks that
 * each method's types equal the table's).
 */
import type * as wire from "../api/wire-types";
import type { CallOptions } from "./pipeline";

/** A call that sends `I` and answers `O`. */
export type Call<I, O> = (input: I, options?: CallOptions) => Promise<O>;
/** A call that sends nothing and answers `O`. */
export type CallWithoutInput<O> = (options?: CallOptions) => Promise<O>;

/** Every resource group of the client. */
export interface ClientGroups {
  /** Market-data uploads. */
  readonly marketData: {
    /** 1. Upload bond prices (`use_best_effort` default false, `trigger_immediate_bootstrap` default true: A18, A19); `traded_price` is a clean price, in percent of par with `is_percentage_of_par` (A24: the spec and the pages do not say). Never retried. */
    readonly uploadBondPrices: Call<wire.UploadBondPriceDataRequest, wire.OperationOutcome>;
    /** 2. Upload equity vol curves (`use_best_effort` default false). Never retried. */
    readonly uploadEquityVolCurves: Call<wire.UploadEquityVolCurvesRequest, wire.OperationOutcome>;
  };
  /** Tradable queries. */
  readonly tradable: {
    /** 3. Vols from a surface at one maturity (days) and many strikes (`strike_type` 0/1/2, see `STRIKE_TYPE`). */
    readonly getVol: Call<wire.GetVolRequest, wire.GetVolResponse>;
    /** 5. Position effects of a tradable's next trade event (`$type` of the event may be a bare name like `"BuyEvent"`). */
    readonly positionEffects: Call<wire.PositionEffectsRequest, wire.PositionEffectsResponse>;
    /** 6. A short text summary of a tradable; an unknown tradable throws `NotFoundError` with problem details. */
    readonly brief: Call<wire.TradableBriefQuery, wire.TradableBriefResponse>;
  };
  /** Rate assets. */
  readonly rateAsset: {
    /** 4. The discount curve of a currency at a market date. */
    readonly getCurve: Call<wire.RateAssetRequest, wire.RateAssetResponse>;
  };
  /** Report launcher. */
  readonly reportLauncher: {
    /** 7. Create a VaR launcher item. Never retried. */
    readonly createVar: Call<wire.VarLauncherItemCreateRequest, wire.OperationOutcome>;
    /** 8. Create a risk (PnL) launcher item. Never retried. */
    readonly createRisk: Call<wire.RiskLauncherItemCreateRequest, wire.OperationOutcome>;
  };
  /** Reports. */
  readonly report: {
    /** 9. Report infos filtered by pricing date(s), portfolios and portfolio type. */
    readonly infos: Call<wire.GetReportInfosRequest, wire.GetReportInfosResponse>;
    /** 10. The reports of the calling user. */
    readonly list: CallWithoutInput<wire.ReportListResponse>;
    /** 11. The report cut-offs (look-backs) of the user's organisation. */
    readonly lookBacks: CallWithoutInput<wire.LookBacksResponse>;
  };
  /** Positions. */
  readonly position: {
    /** 12. The transaction table of a portfolio (`include_zero_quantities` default false, `counterparties` default all). */
    readonly transactionTable: Call<wire.TransactionTableRequest, wire.TransactionTableResponse>;
  };
  /** The calling user. */
  readonly user: {
    /** 13. The caller's API keys (the key values are secrets: frames mask them). */
    readonly apiKeys: CallWithoutInput<wire.ApiKeysResponse>;
  };
}
