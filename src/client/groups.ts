/**
 * The client's resource groups, written out from the resources table (`RESOURCES`) with the
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
    /**
     * 1. Upload bond prices (`use_best_effort` default false, `trigger_immediate_bootstrap` default true: A18, A19); `traded_price` is a clean price, in percent of par with `is_percentage_of_par` (A24: the spec and the pages do not say). Never retried.
     * @example
     * ```ts
     * const outcome = await rp.marketData.uploadBondPrices({
     *   bond_data: [{ date: "2026-11-20", bond_identifier: { code: "DE0001102580", identifier_type: "ISIN" }, currency: "EUR",
     *     traded_price: 97.5, is_percentage_of_par: true, is_currency_per_bond_unit: false }],
     * });
     * outcome.is_success; // true; frames.operationOutcome(outcome) lists any messages
     * ```
     */
    readonly uploadBondPrices: Call<wire.UploadBondPriceDataRequest, wire.OperationOutcome>;
    /**
     * 2. Upload equity vol curves (`use_best_effort` default false). Never retried.
     * @example
     * ```ts
     * await rp.marketData.uploadEquityVolCurves({
     *   equity_vol_curves: [{ asset_id: { code: "SPX", market_identification_code: "XCBO" }, reference_date: "2026-11-20",
     *     maturities: [30, 91], vols: [0.18, 0.19] }],
     * });
     * ```
     */
    readonly uploadEquityVolCurves: Call<wire.UploadEquityVolCurvesRequest, wire.OperationOutcome>;
  };
  /** Tradable queries. */
  readonly tradable: {
    /**
     * 3. Vols from a surface at one maturity (days) and many strikes (`strike_type` 0/1/2, see `STRIKE_TYPE`).
     * @example
     * ```ts
     * const { vols } = await rp.tradable.getVol({ surface, maturity: 90, strikes: [80, 100, 120], strike_type: STRIKE_TYPE.PercentForward });
     * ```
     */
    readonly getVol: Call<wire.GetVolRequest, wire.GetVolResponse>;
    /**
     * 5. Position effects of a tradable's next trade event (`$type` of the event may be a bare name like `"BuyEvent"`).
     * @example
     * ```ts
     * const effects = await rp.tradable.positionEffects({
     *   tradable_id: "AAPL.XNAS",
     *   pricing_date: "2026-11-20",
     *   next_trade_event: { $type: "BuyEvent", unit_price: 189.5, quantity: 100 },
     * });
     * ```
     */
    readonly positionEffects: Call<wire.PositionEffectsRequest, wire.PositionEffectsResponse>;
    /**
     * 6. A short text summary of a tradable; an unknown tradable throws `NotFoundError` with problem details.
     * @example
     * ```ts
     * const { brief } = await rp.tradable.brief({ tradableId: "AAPL.XNAS" });
     * ```
     */
    readonly brief: Call<wire.TradableBriefQuery, wire.TradableBriefResponse>;
  };
  /** Rate assets. */
  readonly rateAsset: {
    /**
     * 4. The discount curve of a currency at a market date.
     * @example
     * ```ts
     * const curve = await rp.rateAsset.getCurve({ currency: "EUR", market_date: "2026-11-20" });
     * curve.yield_curve_model.market_date; // the date the curve is for (a weekend asks for Friday's)
     * ```
     */
    readonly getCurve: Call<wire.RateAssetRequest, wire.RateAssetResponse>;
  };
  /** Report launcher. */
  readonly reportLauncher: {
    /**
     * 7. Create a VaR launcher item. Never retried.
     * @example
     * ```ts
     * await rp.reportLauncher.createVar({
     *   report_name: "GLOBAL-MACRO VaR 99% 1d", portfolio_name: "GLOBAL-MACRO", market_data_environment_names: ["EOD"],
     *   horizon: 1, historical_look_back_period: "1Y", confidence_level: 0.99, run_date: "2026-11-20",
     * }); // saves a launcher item; the service runs it on its schedule
     * ```
     */
    readonly createVar: Call<wire.VarLauncherItemCreateRequest, wire.OperationOutcome>;
    /**
     * 8. Create a risk (PnL) launcher item. Never retried.
     * @example
     * ```ts
     * await rp.reportLauncher.createRisk({
     *   report_name: "GLOBAL-MACRO Daily PnL", portfolio_name: "GLOBAL-MACRO", market_data_environment_names: ["EOD"],
     *   report_cutoff: "EOD", run_date: "2026-11-20",
     * });
     * ```
     */
    readonly createRisk: Call<wire.RiskLauncherItemCreateRequest, wire.OperationOutcome>;
  };
  /** Reports. */
  readonly report: {
    /**
     * 9. Report infos filtered by pricing date(s), portfolios and portfolio type.
     * @example
     * ```ts
     * const { report_infos } = await rp.report.infos({ pricing_date: "2026-11-20", portfolio_name: "GLOBAL-MACRO" });
     * ```
     */
    readonly infos: Call<wire.GetReportInfosRequest, wire.GetReportInfosResponse>;
    /**
     * 10. The reports of the calling user.
     * @example
     * ```ts
     * const reports = frames.reportList(await rp.report.list());
     * ```
     */
    readonly list: CallWithoutInput<wire.ReportListResponse>;
    /**
     * 11. The report cut-offs (look-backs) of the user's organisation.
     * @example
     * ```ts
     * const looks = frames.lookBacks(await rp.report.lookBacks()); // 6M, 1Y … 10Y
     * ```
     */
    readonly lookBacks: CallWithoutInput<wire.LookBacksResponse>;
  };
  /** Positions. */
  readonly position: {
    /**
     * 12. The transaction table of a portfolio (`include_zero_quantities` default false, `counterparties` default all).
     * @example
     * ```ts
     * const trades = frames.transactionTable(await rp.position.transactionTable({ portfolio_name: "GLOBAL-MACRO" }));
     * ```
     */
    readonly transactionTable: Call<wire.TransactionTableRequest, wire.TransactionTableResponse>;
  };
  /** The calling user. */
  readonly user: {
    /**
     * 13. The caller's API keys (the key values are secrets: frames mask them).
     * @example
     * ```ts
     * const keys = frames.apiKeys(await rp.user.apiKeys()); // values masked: ••••1a2b
     * ```
     */
    readonly apiKeys: CallWithoutInput<wire.ApiKeysResponse>;
  };
}
