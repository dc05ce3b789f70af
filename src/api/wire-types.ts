/**
 * The wire types, written out from the zod schemas by scripts/gen-wire-types.mjs: do not edit (run
 * `node scripts/gen-wire-types.mjs`). Each equals `z.input`/`z.output` of its schema (checked by
 * test/api/wire-types.test.ts); written out so that a kernel checking a notebook cell does not infer
 * them from zod's types at each use.
 */
import type { PortfolioType, StrikeType } from "./assumptions";

/** `z.input<typeof identifier>`. */
export type IdentifierInput = {
  code: string;
  $type?: string | undefined;
  market_identification_code?: string | null | undefined;
  identifier_type?: string | (string & {}) | undefined;
};

/** `z.output<typeof identifier>`. */
export type Identifier = {
  $type: string;
  code: string;
  market_identification_code?: string | null | undefined;
  identifier_type?: string | (string & {}) | undefined;
};

/** `z.output<typeof operationOutcome>`. */
export type OperationOutcome = {
  [x: string]: unknown;
  is_success: boolean;
  error_messages: string[];
  $type?: string | undefined;
};

/** `z.output<typeof problemDetails>`. */
export type ProblemDetails = {
  [x: string]: unknown;
  type?: string | null | undefined;
  title?: string | null | undefined;
  status?: number | null | undefined;
  detail?: string | null | undefined;
  instance?: string | null | undefined;
};

/** `z.input<typeof bondPriceRecord>`. */
export type BondPriceRecordInput = {
  date: string | Date;
  bond_identifier: {
    code: string;
    $type?: string | undefined;
    market_identification_code?: string | null | undefined;
    identifier_type?: string | (string & {}) | undefined;
  };
  is_currency_per_bond_unit: boolean;
  currency: string;
  traded_price: number;
  is_percentage_of_par: boolean;
  provider_id?: string | null | undefined;
  service_created?: string | null | undefined;
  service_modified?: string | null | undefined;
  service_modified_by?: string | null | undefined;
  uploaded_date_time?: string | null | undefined;
  uploaded_by?: string | null | undefined;
  rolled?: boolean | null | undefined;
  derivitec_created?: string | null | undefined;
  derivitec_modified?: string | null | undefined;
  derivitec_modified_by?: string | null | undefined;
  $type?: string | undefined;
};

/** `z.output<typeof bondPriceRecord>`. */
export type BondPriceRecord = {
  date: string;
  bond_identifier: {
    $type: string;
    code: string;
    market_identification_code?: string | null | undefined;
    identifier_type?: string | (string & {}) | undefined;
  };
  is_currency_per_bond_unit: boolean;
  currency: string;
  traded_price: number;
  is_percentage_of_par: boolean;
  $type: string;
  provider_id?: string | null | undefined;
  service_created?: string | null | undefined;
  service_modified?: string | null | undefined;
  service_modified_by?: string | null | undefined;
  uploaded_date_time?: string | null | undefined;
  uploaded_by?: string | null | undefined;
  rolled?: boolean | null | undefined;
  derivitec_created?: string | null | undefined;
  derivitec_modified?: string | null | undefined;
  derivitec_modified_by?: string | null | undefined;
};

/** `z.input<typeof uploadBondPriceDataRequest>`. */
export type UploadBondPriceDataRequest = {
  bond_data: {
    date: string | Date;
    bond_identifier: {
      code: string;
      $type?: string | undefined;
      market_identification_code?: string | null | undefined;
      identifier_type?: string | (string & {}) | undefined;
    };
    is_currency_per_bond_unit: boolean;
    currency: string;
    traded_price: number;
    is_percentage_of_par: boolean;
    provider_id?: string | null | undefined;
    service_created?: string | null | undefined;
    service_modified?: string | null | undefined;
    service_modified_by?: string | null | undefined;
    uploaded_date_time?: string | null | undefined;
    uploaded_by?: string | null | undefined;
    rolled?: boolean | null | undefined;
    derivitec_created?: string | null | undefined;
    derivitec_modified?: string | null | undefined;
    derivitec_modified_by?: string | null | undefined;
    $type?: string | undefined;
  }[];
  trigger_immediate_bootstrap?: boolean | undefined;
  use_best_effort?: boolean | undefined;
  market_data_environment_name?: string | null | undefined;
  provider_id?: string | null | undefined;
  $type?: string | undefined;
};

/** `z.input<typeof equityVolCurve>`. */
export type EquityVolCurveInput = {
  asset_id: {
    code: string;
    $type?: string | undefined;
    market_identification_code?: string | null | undefined;
    identifier_type?: string | (string & {}) | undefined;
  };
  reference_date: string | Date;
  maturities: Float64Array<ArrayBufferLike> | readonly number[];
  vols: Float64Array<ArrayBufferLike> | readonly number[];
  spot_ref?: number | undefined;
  provider_id?: string | null | undefined;
  service_created?: string | null | undefined;
  service_modified?: string | null | undefined;
  service_modified_by?: string | null | undefined;
  uploaded_date_time?: string | null | undefined;
  uploaded_by?: string | null | undefined;
  rolled?: boolean | null | undefined;
  derivitec_created?: string | null | undefined;
  derivitec_modified?: string | null | undefined;
  derivitec_modified_by?: string | null | undefined;
  $type?: string | undefined;
};

/** `z.output<typeof equityVolCurve>`. */
export type EquityVolCurve = {
  asset_id: {
    $type: string;
    code: string;
    market_identification_code?: string | null | undefined;
    identifier_type?: string | (string & {}) | undefined;
  };
  reference_date: string;
  maturities: number[];
  vols: number[];
  $type: string;
  spot_ref?: number | undefined;
  provider_id?: string | null | undefined;
  service_created?: string | null | undefined;
  service_modified?: string | null | undefined;
  service_modified_by?: string | null | undefined;
  uploaded_date_time?: string | null | undefined;
  uploaded_by?: string | null | undefined;
  rolled?: boolean | null | undefined;
  derivitec_created?: string | null | undefined;
  derivitec_modified?: string | null | undefined;
  derivitec_modified_by?: string | null | undefined;
};

/** `z.input<typeof uploadEquityVolCurvesRequest>`. */
export type UploadEquityVolCurvesRequest = {
  equity_vol_curves: {
    asset_id: {
      code: string;
      $type?: string | undefined;
      market_identification_code?: string | null | undefined;
      identifier_type?: string | (string & {}) | undefined;
    };
    reference_date: string | Date;
    maturities: Float64Array<ArrayBufferLike> | readonly number[];
    vols: Float64Array<ArrayBufferLike> | readonly number[];
    spot_ref?: number | undefined;
    provider_id?: string | null | undefined;
    service_created?: string | null | undefined;
    service_modified?: string | null | undefined;
    service_modified_by?: string | null | undefined;
    uploaded_date_time?: string | null | undefined;
    uploaded_by?: string | null | undefined;
    rolled?: boolean | null | undefined;
    derivitec_created?: string | null | undefined;
    derivitec_modified?: string | null | undefined;
    derivitec_modified_by?: string | null | undefined;
    $type?: string | undefined;
  }[];
  use_best_effort?: boolean | undefined;
  market_data_environment_name?: string | null | undefined;
  provider_id?: string | null | undefined;
  $type?: string | undefined;
};

/** `z.input<typeof transactionTableRequest>`. */
export type TransactionTableRequest = {
  portfolio_name: string;
  $type?: string | undefined;
  portfolio_type?: string | (string & {}) | null | undefined;
  start_date?: string | Date | undefined;
  end_date?: string | Date | undefined;
  include_zero_quantities?: boolean | undefined;
  counterparties?: string[] | null | undefined;
};

/** `z.output<typeof dataTable>`. */
export type DataTable = unknown[] | Record<string, unknown>;

/** `z.output<typeof transactionTableResponse>`. */
export type TransactionTableResponse = { [x: string]: unknown; data_table: unknown[] | Record<string, unknown> };

/** `z.input<typeof rateAssetRequest>`. */
export type RateAssetRequest = {
  currency: string;
  $type?: string | undefined;
  provider_id?: string | null | undefined;
  entity_access_type?: unknown;
  market_data_environment_names?: string[] | null | undefined;
  market_data_environment_name?: string | null | undefined;
  market_date?: string | Date | null | undefined;
};

/** `z.output<typeof curvePoint>`. */
export type CurvePoint = {
  [x: string]: unknown;
  maturity: number;
  rate: number;
  fitted_instrument_name?: string | null | undefined;
  expiry?: string | null | undefined;
  fitted_instrument_rate?: number | null | undefined;
};

/** `z.output<typeof yieldCurveModel>`. */
export type YieldCurveModel = {
  [x: string]: unknown;
  currency: string;
  market_date: string;
  data: {
    [x: string]: unknown;
    maturity: number;
    rate: number;
    fitted_instrument_name?: string | null | undefined;
    expiry?: string | null | undefined;
    fitted_instrument_rate?: number | null | undefined;
  }[];
  latest_market_date?: string | null | undefined;
};

/** `z.output<typeof rateAssetResponse>`. */
export type RateAssetResponse = {
  [x: string]: unknown;
  yield_curve_model: {
    [x: string]: unknown;
    currency: string;
    market_date: string;
    data: {
      [x: string]: unknown;
      maturity: number;
      rate: number;
      fitted_instrument_name?: string | null | undefined;
      expiry?: string | null | undefined;
      fitted_instrument_rate?: number | null | undefined;
    }[];
    latest_market_date?: string | null | undefined;
  };
  $type?: string | undefined;
};

/** `z.input<typeof varLauncherItemCreateRequest>`. */
export type VarLauncherItemCreateRequest = {
  report_name: string;
  portfolio_name: string;
  reporting_currency?: string | null | undefined;
  market_data_environment_names?: string[] | null | undefined;
  portfolio_type?: string | (string & {}) | null | undefined;
} & {
  horizon?: number | null | undefined;
  historical_look_back_period?: string | null | undefined;
  confidence_level?: number | null | undefined;
  first_observation_date?: string | Date | null | undefined;
  last_observation_date?: string | Date | null | undefined;
  weighting_var_definition?: { [x: string]: unknown } | null | undefined;
  id?: string | null | undefined;
  run_date?: string | Date | null | undefined;
  portfolio_date_time?: string | Date | null | undefined;
  real_time_mkt_data?: boolean | null | undefined;
  run_date_is_today?: boolean | null | undefined;
  report_id?: string | null | undefined;
} & {
  $type?: string | undefined;
  parameters?:
    | {
        horizon?: number | null | undefined;
        historical_look_back_period?: string | null | undefined;
        confidence_level?: number | null | undefined;
        first_observation_date?: string | Date | null | undefined;
        last_observation_date?: string | Date | null | undefined;
        weighting_var_definition?: { [x: string]: unknown } | null | undefined;
        id?: string | null | undefined;
        run_date?: string | Date | null | undefined;
        portfolio_date_time?: string | Date | null | undefined;
        real_time_mkt_data?: boolean | null | undefined;
        run_date_is_today?: boolean | null | undefined;
        report_id?: string | null | undefined;
      }
    | undefined;
};

/** `z.input<typeof riskLauncherItemCreateRequest>`. */
export type RiskLauncherItemCreateRequest = {
  report_name: string;
  portfolio_name: string;
  reporting_currency?: string | null | undefined;
  market_data_environment_names?: string[] | null | undefined;
  portfolio_type?: string | (string & {}) | null | undefined;
} & {
  report_cutoff?: string | null | undefined;
  is_druid_report?: boolean | null | undefined;
  position_filter_name?: string | null | undefined;
  id?: string | null | undefined;
  run_date?: string | Date | null | undefined;
  portfolio_date_time?: string | Date | null | undefined;
  real_time_mkt_data?: boolean | null | undefined;
  run_date_is_today?: boolean | null | undefined;
  report_id?: string | null | undefined;
} & {
  $type?: string | undefined;
  parameters?:
    | {
        report_cutoff?: string | null | undefined;
        is_druid_report?: boolean | null | undefined;
        position_filter_name?: string | null | undefined;
        id?: string | null | undefined;
        run_date?: string | Date | null | undefined;
        portfolio_date_time?: string | Date | null | undefined;
        real_time_mkt_data?: boolean | null | undefined;
        run_date_is_today?: boolean | null | undefined;
        report_id?: string | null | undefined;
      }
    | undefined;
};

/** `z.input<typeof getReportInfosRequest>`. */
export type GetReportInfosRequest = {
  $type?: string | undefined;
  report_name?: string | null | undefined;
  reporting_currency?: string | null | undefined;
  market_data_environment_names?: string[] | null | undefined;
  portfolio_name?: string | null | undefined;
  portfolio_type?: string | (string & {}) | null | undefined;
  pricing_date?: string | Date | null | undefined;
  pricing_dates?: (string | Date)[] | null | undefined;
  portfolio_names?: string[] | null | undefined;
  run_by_user_emails?: string[] | null | undefined;
};

/** `z.output<typeof reportInfo>`. */
export type ReportInfo = {
  [x: string]: unknown;
  id: string;
  report_name: string;
  status: string;
  pricing_date: string;
  report_definition_id?: string | null | undefined;
  description?: string | null | undefined;
  status_message?: string | null | undefined;
  portfolio_name?: string | null | undefined;
  portfolio_type?: PortfolioType | null | undefined;
  reporting_currency?: string | null | undefined;
  real_time_mkt_data?: boolean | null | undefined;
  mkt_data_date?: string | null | undefined;
  time_stamp?: string | null | undefined;
};

/** `z.output<typeof getReportInfosResponse>`. */
export type GetReportInfosResponse = {
  [x: string]: unknown;
  report_infos: {
    [x: string]: unknown;
    id: string;
    report_name: string;
    status: string;
    pricing_date: string;
    report_definition_id?: string | null | undefined;
    description?: string | null | undefined;
    status_message?: string | null | undefined;
    portfolio_name?: string | null | undefined;
    portfolio_type?: PortfolioType | null | undefined;
    reporting_currency?: string | null | undefined;
    real_time_mkt_data?: boolean | null | undefined;
    mkt_data_date?: string | null | undefined;
    time_stamp?: string | null | undefined;
  }[];
};

/** `z.output<typeof reportListResponse>`. */
export type ReportListResponse = {
  [x: string]: unknown;
  report_infos: { [x: string]: unknown; report_type: string; report_name: string }[];
  $type?: string | undefined;
  is_success?: boolean | undefined;
  error_messages?: string[] | null | undefined;
};

/** `z.output<typeof lookBacksResponse>`. */
export type LookBacksResponse = {
  [x: string]: unknown;
  look_backs: string[];
  $type?: string | undefined;
  is_success?: boolean | undefined;
  error_messages?: string[] | null | undefined;
};

/** `z.input<typeof volSurface>`. */
export type VolSurfaceInput = {
  reference_date: string | Date;
  spot_ref: number;
  benchmark_fwd_factors: Float64Array<ArrayBufferLike> | readonly number[];
  smiles: Float64Array<ArrayBufferLike> | readonly number[];
  benchmark_maturities: Float64Array<ArrayBufferLike> | readonly number[];
  vols: Float64Array<ArrayBufferLike> | readonly number[];
  call_wings: Float64Array<ArrayBufferLike> | readonly number[];
  put_wings: Float64Array<ArrayBufferLike> | readonly number[];
  skews: Float64Array<ArrayBufferLike> | readonly number[];
  provider_id?: string | null | undefined;
  service_created?: string | null | undefined;
  service_modified?: string | null | undefined;
  service_modified_by?: string | null | undefined;
  uploaded_date_time?: string | null | undefined;
  uploaded_by?: string | null | undefined;
  rolled?: boolean | null | undefined;
  derivitec_created?: string | null | undefined;
  derivitec_modified?: string | null | undefined;
  derivitec_modified_by?: string | null | undefined;
  $type?: string | undefined;
};

/** `z.output<typeof volSurface>`. */
export type VolSurface = {
  reference_date: string;
  spot_ref: number;
  benchmark_fwd_factors: number[];
  smiles: number[];
  benchmark_maturities: number[];
  vols: number[];
  call_wings: number[];
  put_wings: number[];
  skews: number[];
  $type: string;
  provider_id?: string | null | undefined;
  service_created?: string | null | undefined;
  service_modified?: string | null | undefined;
  service_modified_by?: string | null | undefined;
  uploaded_date_time?: string | null | undefined;
  uploaded_by?: string | null | undefined;
  rolled?: boolean | null | undefined;
  derivitec_created?: string | null | undefined;
  derivitec_modified?: string | null | undefined;
  derivitec_modified_by?: string | null | undefined;
};

/** `z.input<typeof getVolRequest>`. */
export type GetVolRequest = {
  surface: {
    reference_date: string | Date;
    spot_ref: number;
    benchmark_fwd_factors: Float64Array<ArrayBufferLike> | readonly number[];
    smiles: Float64Array<ArrayBufferLike> | readonly number[];
    benchmark_maturities: Float64Array<ArrayBufferLike> | readonly number[];
    vols: Float64Array<ArrayBufferLike> | readonly number[];
    call_wings: Float64Array<ArrayBufferLike> | readonly number[];
    put_wings: Float64Array<ArrayBufferLike> | readonly number[];
    skews: Float64Array<ArrayBufferLike> | readonly number[];
    provider_id?: string | null | undefined;
    service_created?: string | null | undefined;
    service_modified?: string | null | undefined;
    service_modified_by?: string | null | undefined;
    uploaded_date_time?: string | null | undefined;
    uploaded_by?: string | null | undefined;
    rolled?: boolean | null | undefined;
    derivitec_created?: string | null | undefined;
    derivitec_modified?: string | null | undefined;
    derivitec_modified_by?: string | null | undefined;
    $type?: string | undefined;
  };
  maturity: number;
  strikes: Float64Array<ArrayBufferLike> | readonly number[];
  $type?: string | undefined;
  strike_type?: (string & {}) | "Absolute" | "PercentForward" | "PercentSpot" | StrikeType | undefined;
};

/** `z.output<typeof getVolResponse>`. */
export type GetVolResponse = { [x: string]: unknown; vols: number[]; strike_type: number };

/** `z.input<typeof tradeEvent>`. */
export type TradeEventInput = { [x: string]: unknown; $type: string };

/** `z.input<typeof positionEffectsRequest>`. */
export type PositionEffectsRequest = {
  next_trade_event: { [x: string]: unknown; $type: string };
  pricing_date: string | Date;
  tradable_id: string;
  $type?: string | undefined;
};

/** `z.output<typeof positionEffectsResponse>`. */
export type PositionEffectsResponse = {
  [x: string]: unknown;
  position_effects: {
    [x: string]: unknown;
    quantity: number;
    contract: { [x: string]: unknown; identifier: string };
  }[];
  pricing_date: string;
};

/** `z.input<typeof tradableBriefQuery>`. */
export type TradableBriefQuery = { tradableId: string };

/** `z.output<typeof tradableBriefResponse>`. */
export type TradableBriefResponse = {
  [x: string]: unknown;
  $type?: string | undefined;
  is_success?: boolean | undefined;
  error_messages?: string[] | null | undefined;
  brief?: string | null | undefined;
};

/** `z.output<typeof apiKeyEntry>`. */
export type ApiKeyEntry = {
  [x: string]: unknown;
  $type?: string | undefined;
  name?: string | null | undefined;
  exposed_value?: string | null | undefined;
  id?: string | null | undefined;
};

/** `z.output<typeof apiKeysResponse>`. */
export type ApiKeysResponse = {
  [x: string]: unknown;
  $type?: string | undefined;
  name?: string | null | undefined;
  exposed_value?: string | null | undefined;
  id?: string | null | undefined;
}[];
