/**
 * Every decision the interface spec leaves "not shown", in one place (`../shared/design/wire-assumptions.md`,
 * numbered A1…A22), each with what the service's public API reference says of it (read per operation
 * and per schema name: the older OpenAPI 3.0.1 pages named after operation ids, and the newer 3.0.4
 * pages with descriptive names). Where the pages settle a point they win, and {@link ASSUMPTIONS} says
 * so. The client, the simulator and the local vol model read these constants; none of them repeats a
 * literal. When the real service proves a decision wrong, the change is one line here.
 */
import { DEFAULT_BRAND } from "./brand";

export { DEFAULT_BRAND, PUBLISHED_BRAND, brandOf, shortTypeName, typeName, type Brand } from "./brand";

/** What the public pages say of a decision. */
export type PagesVerdict = "confirmed" | "changed" | "silent";

export interface Assumption {
  readonly id: string;
  readonly topic: string;
  /** The decision as the code implements it. */
  readonly decision: string;
  readonly pages: PagesVerdict;
  /** What the pages show (and, when they changed the decision, what changed). */
  readonly note: string;
}

/** A1: the neutral brand of `$type` values, enum values and field names (see `brand.ts`). `typeNamespace` is its old name. */
export const DEFAULT_TYPE_NAMESPACE = DEFAULT_BRAND;

/** A2: headers that carry credentials. Either one authenticates a call. */
export const HEADERS = {
  authorization: "authorization",
  apiKey: "x-api-key",
  /** Not in the spec: a request id, echoed by the server when present, carried by every error. */
  requestId: "x-request-id",
  retryAfter: "retry-after",
} as const;

/**
 * A3: OAuth2 client-credentials grant (RFC 6749 §4.4); the token URL is configuration. The pages name AWS
 * Cognito as the identity provider (its `/oauth2/token` endpoint speaks this grant); tokens obtained
 * elsewhere (SSO in a browser) come in through `auth: { getToken }`.
 */
export const OAUTH = {
  grantType: "client_credentials",
  tokenType: "Bearer",
  /** Refresh this long before the token's stated expiry, so a call never carries a dying token. */
  refreshMarginMs: 60_000,
} as const;

/** A4: the one query parameter of `GetTradableBrief`. */
export const BRIEF_QUERY_PARAM = "tradableId" as const;

/** A5: `strike_type` values on the wire. */
export const STRIKE_TYPE = {
  Absolute: 0,
  PercentForward: 1,
  PercentSpot: 2,
} as const;
export type StrikeType = (typeof STRIKE_TYPE)[keyof typeof STRIKE_TYPE];
export type StrikeTypeName = keyof typeof STRIKE_TYPE;
export const STRIKE_TYPE_VALUES = Object.values(STRIKE_TYPE) as readonly StrikeType[];
/**
 * A5: `strike_type` when a request leaves it out (the newer GetVol page's example has none): `Absolute`,
 * the first member of the enum, which is what a .NET service reads for a missing enum member, and the
 * value of the older page's example. The client sends nothing; the simulator applies this.
 */
export const DEFAULT_STRIKE_TYPE: StrikeType = STRIKE_TYPE.Absolute;

/** A6: maturities of `GetVol` and `benchmark_maturities` are calendar days; `T = days / DAYS_PER_YEAR`. */
export const DAYS_PER_YEAR = 365;

/**
 * A9: `identifier_type` is an open enum. The brand's value (`Provider` in the neutral spelling,
 * `Derivitec` on the pages) is what the service reads when the field is left out (the newer pages'
 * examples leave it out); the others are typed for autocompletion, any other string passes.
 */
export const IDENTIFIER_TYPES = ["Provider", "Isin", "Figi", "Sedol", "Cusip", "Ticker"] as const;
export const DEFAULT_IDENTIFIER_TYPE = IDENTIFIER_TYPES[0];
export type IdentifierType = (typeof IDENTIFIER_TYPES)[number] | (string & {});

/** Spec: the neutral portfolio types of launcher, report and position requests and of report infos. */
export const PORTFOLIO_TYPES = ["provider", "external", "not_set"] as const;
/** The portfolio types the newer pages list (the brand's `derivitec`, the position-keeping systems, `not_set`). */
export const PUBLISHED_PORTFOLIO_TYPES = [
  "derivitec",
  "enfusion",
  "orchestrade",
  "liquidity_book",
  "maia",
  "fund_studio",
  "not_set",
] as const;
/** A portfolio type: the neutral or published values (typed for autocompletion), or any other string. */
export type PortfolioType =
  (typeof PORTFOLIO_TYPES)[number] | (typeof PUBLISHED_PORTFOLIO_TYPES)[number] | (string & {});

/** A10: report statuses; a report starts `none`, goes `running`, ends in one of the end states. */
export const REPORT_STATUSES = ["none", "running", "succeeded", "warning", "failed"] as const;
export const REPORT_END_STATUSES = ["succeeded", "warning", "failed"] as const;

/**
 * A11: field names of the launcher's portfolio type and of the nested parameter object. The pages put
 * the parameter members flat on the body: the client sends them flat and still accepts `parameters`.
 */
export const LAUNCHER_FIELDS = {
  portfolioType: "portfolio_type",
  parameters: "parameters",
} as const;

/** A12: display names of `historical_look_back_period` and `look_backs`. */
export const LOOK_BACK_PERIODS = ["6M", "1Y", "2Y", "3Y", "4Y", "5Y", "6Y", "7Y", "8Y", "9Y", "10Y"] as const;

/** A13: the simulator's transaction-table columns (rows of objects keyed by column name). */
export const TRANSACTION_COLUMNS = [
  "trade_id",
  "trade_date",
  "settlement_date",
  "tradable_id",
  "instrument_name",
  "asset_class",
  "counterparty",
  "book",
  "direction",
  "quantity",
  "price",
  "currency",
  "notional",
] as const;

/**
 * A14: trade-event variants, a discriminated union on `$type` = `{brand}.Web.Core.TradeEvents.<Name>,
 * {brand}.Web.Core`. The pages publish `BuyEvent` (with `unit_price` alone) and the event kinds of
 * `GetNextTradeEvents` ({@link PUBLISHED_TRADE_EVENT_KINDS}, each `<Kind>Event` here); the other names
 * are this project's, kept for existing callers. Unknown variants pass through untouched.
 */
export const TRADE_EVENT_GROUP = "TradeEvents";
/** The next-trade-event kinds the pages list (`GetNextTradeEvents`). A bare kind (`"CouponPayment"`) names the variant `CouponPaymentEvent`. */
export const PUBLISHED_TRADE_EVENT_KINDS = [
  "Buy",
  "CouponPayment",
  "DividendExDate",
  "DivPassThrough",
  "Exercise",
  "Expire",
  "EarlyExercise",
  "Fixing",
  "Maturity",
  "NotionalExchange",
  "Payment",
  "Reset",
  "Termination",
  "Settlement",
  "Fixings",
] as const;
/** This project's own variant names (A14 before the pages were read), still understood. */
export const PROJECT_TRADE_EVENT_NAMES = [
  "SellEvent",
  "CouponEvent",
  "RedemptionEvent",
  "DividendEvent",
  "ExpiryEvent",
  "StockSplitEvent",
] as const;
export const TRADE_EVENT_NAMES = [
  ...PUBLISHED_TRADE_EVENT_KINDS.map((k) => `${k}Event`),
  ...PROJECT_TRADE_EVENT_NAMES,
] as const;
export type TradeEventName = (typeof TRADE_EVENT_NAMES)[number];

/** A16: HTTP status of every success. */
export const SUCCESS_STATUS = 200;

/** A16: the content type the client sends; the spec accepts these four for bodies. */
export const REQUEST_CONTENT_TYPE = "application/json";
export const ACCEPTED_CONTENT_TYPES = [
  "application/json-patch+json",
  "application/json",
  "text/json",
  "application/*+json",
] as const;
export const PROBLEM_CONTENT_TYPE = "application/problem+json";

/**
 * A17: which operations may be retried. Reads may; uploads and launcher creates are never re-sent once
 * the request may have reached the server.
 */
export type RetryClass = "read" | "write";

/**
 * A18/A19 and the pages' published defaults: what the service assumes for a field a request leaves out.
 * The client never sends a value the caller did not set; the simulator applies these.
 */
export const SERVICE_DEFAULTS = {
  /** "UseBestEffort defaults to false". */
  use_best_effort: false,
  /** "TriggerImmediateBootstrap defaults to true … those refreshes need not finish before this response". */
  trigger_immediate_bootstrap: true,
  /** "IncludeZeroQuantities defaults to false". */
  include_zero_quantities: false,
  /** Spec, risk launcher. */
  is_druid_report: false,
  /** "When null, the service uses the caller's configured reporting currency or USD". */
  reporting_currency: "USD",
  strike_type: DEFAULT_STRIKE_TYPE,
  identifier_type: DEFAULT_IDENTIFIER_TYPE,
} as const;
/** @deprecated the client no longer sends defaults; see {@link SERVICE_DEFAULTS}. */
export const UPLOAD_DEFAULTS = {
  use_best_effort: SERVICE_DEFAULTS.use_best_effort,
  trigger_immediate_bootstrap: SERVICE_DEFAULTS.trigger_immediate_bootstrap,
} as const;

/**
 * A24: what `traded_price` of a bond price record (`bond_data[]`, `BondDataExternal`) means. The spec
 * gives only its type ("number (floating point)"); the public pages (`UploadBondPriceData`, "Store
 * contributed bond prices") say a price must follow "the bond's percentage-of-par or currency-per-unit
 * quotation convention" (`is_percentage_of_par`, `is_currency_per_bond_unit`) and say nothing of clean or
 * dirty. Decided: a **clean** price (without accrued interest), the way bond markets quote (a gilt at
 * 96.25 is 96.25 clean); with `is_percentage_of_par`, in percent of par (97.43, not 0.9743). The simulator
 * adds the accrued interest (actual/actual within the coupon period) before it solves the yield that
 * enters a curve, and the upload's answer says so. If the service proves to read it dirty, this is the
 * line to change, and the simulator's `yieldToMaturity` with it.
 */
export const TRADED_PRICE = {
  /** Clean: accrued interest is not included. */
  basis: "clean",
  /** With `is_percentage_of_par: true`: percent of par (100 = par). */
  unit: "percent of par",
} as const;

/**
 * A20: a request field neither the spec nor the pages name is most likely a typo: the client refuses it,
 * naming the closest known field; `unknownFields: "send"` (per client or per call) sends it anyway.
 */
export const UNKNOWN_FIELDS = ["refuse", "send"] as const;
export type UnknownFieldsPolicy = (typeof UNKNOWN_FIELDS)[number];

/** Spec and pages: the serialized `$type` names, without the brand (see {@link typeName}). */
export const TYPE_NAMES = {
  uploadBondPriceRequest: "MarketData.ApiUploadBondPriceDataRequest",
  uploadBondPriceResponse: "MarketData.ApiUploadBondPriceDataResponse",
  bondData: "MarketData.BondDataExternal",
  instrumentIdentifier: "MarketData.InstrumentIdentifier",
  uploadEquityVolCurvesRequest: "MarketData.ApiUploadEquityVolCurvesRequest",
  uploadEquityVolCurvesResponse: "MarketData.ApiUploadEquityVolCurvesResponse",
  equityVolCurve: "MarketData.EquityVolCurve",
  baseResponse: "ApiBaseResponse",
  getVolRequest: "Tradables.ApiGetVolRequest",
  volSurface: "MarketData.VolatilitySurfaceSvi",
  discountCurveRequest: "MarketData.ApiGetDiscountCurveMktDataRequest",
  discountCurveResponse: "MarketData.ApiGetDiscountCurveMktDataResponse",
  positionEffectsRequest: "Tradables.ApiGetTradeEventPositionEffectsRequest",
  tradableBriefResponse: "Tradables.GetTradableBriefResponse",
  varLauncherRequest: "ReportLauncher.ApiVarReportLauncherItemCreateRequest",
  riskLauncherRequest: "ReportLauncher.ApiRiskReportLauncherItemCreateRequest",
  reportInfosRequest: "Reports.ApiGetReportInfosRequest",
  /** Not shown on the pages (the schema is named `ApiReportInfosResponse`); its namespace follows its siblings'. */
  reportListResponse: "Reports.ApiReportInfosResponse",
  lookBacksResponse: "Reports.ApiGetReportLookBacksResponse",
  transactionTableRequest: "Positions.ApiGetTransactionTableRequest",
} as const;

/**
 * The `$type` of an API key entry (not of the `X.Web.Core` form): `{brand}.Aws.ApiGateway.Models.{brand}ExposedApiKey, {brand}.Aws.ApiGateway`.
 * @example
 * ```ts
 * import { apiKeyTypeName } from "risk-portal-lab/api";
 * apiKeyTypeName("Derivitec"); // "Derivitec.Aws.ApiGateway.Models.DerivitecExposedApiKey, Derivitec.Aws.ApiGateway"
 * ```
 */
export function apiKeyTypeName(brand: string): string {
  return `${brand}.Aws.ApiGateway.Models.${brand}ExposedApiKey, ${brand}.Aws.ApiGateway`;
}

/** Portfolio type the client sent when a launcher create named none, before the pages made it optional. */
export const DEFAULT_PORTFOLIO_TYPE = "provider" as const;

/**
 * RateAsset's market-data selectors: "one authorised provider/environment selector form"; "Do not
 * combine this list with the single-name or provider-ID alternatives": the client refuses a request that
 * does. (Uploads take an environment and a provider together: the pages' examples send both.)
 */
export const MARKET_DATA_SELECTORS = [
  "provider_id",
  "market_data_environment_name",
  "market_data_environment_names",
] as const;

/** Where an operation's request names a date and where its answer says which date it is for (A23). */
export interface AnsweredDateField {
  /** The request field. */
  readonly field: string;
  /** A request field that lists several such dates (GetReportInfos' older `pricing_dates`), if any. */
  readonly plural?: string;
  /** Where the answer keeps its date, as a path (`yield_curve_model.market_date`, `report_infos[].pricing_date`). */
  readonly where: string;
  /** The request field naming what was asked about (`currency`, `tradable_id`), if any. */
  readonly subject?: string;
}

/**
 * A23: every operation whose answer carries the date its request asked for, and where. The answer's date
 * is the date in effect (RateAsset: 'effective … market dates'), which may differ from the date asked; the
 * client reports a difference and never corrects it (see `dateMismatch`).
 */
export const ANSWERED_DATE_FIELDS: Readonly<Record<string, AnsweredDateField>> = {
  RateAsset: { field: "market_date", where: "yield_curve_model.market_date", subject: "currency" },
  GetReportInfos: { field: "pricing_date", plural: "pricing_dates", where: "report_infos[].pricing_date" },
  GetTradeEventPositionEffects: { field: "pricing_date", where: "pricing_date", subject: "tradable_id" },
};

/** Every decision, with what the public pages say of it. docs/client.md shows this table (a test keeps them equal). */
export const ASSUMPTIONS: readonly Assumption[] = [
  {
    id: "A1",
    topic: "brand of `$type`, enum values, field names",
    decision:
      "one `brand` setting, default `Service` (the spec's neutral spelling); a caller may write either spelling, the wire carries the brand's",
    pages: "changed",
    note: "the pages spell the brand `Derivitec` in `$type` values, in `identifier_type`/`portfolio_type` values and in audit field names (`derivitec_created`): the setting now covers all three, not only `$type`",
  },
  {
    id: "A2",
    topic: "API-key header",
    decision: "`x-api-key: <key>`; OAuth2 tokens as `Authorization: Bearer`",
    pages: "confirmed",
    note: "every page lists the `oauth2` and `apikey` schemes; 'Authenticated calls … using `x-api-key`'",
  },
  {
    id: "A3",
    topic: "token endpoint, grant",
    decision: "OAuth2 client credentials at a configured token URL; `auth: { getToken }` for tokens obtained elsewhere",
    pages: "silent",
    note: "the pages name AWS Cognito ('OAuth2 access-token requested from AWS Cognito') with an implicit flow for browsers; Cognito's `/oauth2/token` speaks client credentials",
  },
  {
    id: "A4",
    topic: "GetTradableBrief query",
    decision: "`tradableId` (required, non-blank); unknown tradable: 404 problem details",
    pages: "confirmed",
    note: "`tradableId` in the query; 404 ProblemDetails; the newer page adds the envelope and 'an unsuccessful payload with lookup errors' (an `OperationFailedError`)",
  },
  {
    id: "A5",
    topic: "`strike_type` values",
    decision:
      "integers 0 Absolute, 1 PercentForward, 2 PercentSpot; the names are accepted and sent as their integer; omitted → Absolute (the client sends nothing)",
    pages: "silent",
    note: 'the older GetVol example sends `0`; sibling pages name Absolute, PercentForward, PercentSpot (and send `"absolute"`); the newer GetVol example has no `strike_type`',
  },
  {
    id: "A6",
    topic: "GetVol maturity unit",
    decision: "calendar days after `reference_date`; T = days/365",
    pages: "silent",
    note: "'its unit is not specified here'; sibling vol-grid pages use day offsets",
  },
  {
    id: "A7",
    topic: "vol-surface units",
    decision: "vols decimal; skews, smiles, wings as in vol-model.md",
    pages: "silent",
    note: "'SVI-compatible volatility surface' (`VolatilitySurfaceSvi`); the surface may carry `$type` and audit fields, accepted and ignored",
  },
  {
    id: "A8",
    topic: "equity vol curve fields",
    decision: "`asset_id`, `reference_date`, `maturities` (days), `vols` (decimal), `spot_ref` optional",
    pages: "confirmed",
    note: "'positive day maturities, and an equal number of positive volatility values expressed as decimals'; records may carry `$type` and audit fields",
  },
  {
    id: "A9",
    topic: "`identifier_type` values",
    decision:
      "open enum; the brand's value (`Provider`) when left out; `Isin`, `Figi`, `Sedol`, `Cusip`, `Ticker` typed",
    pages: "changed",
    note: "the older example sends `Derivitec` (the brand); the newer examples leave the field out and add `$type: MarketData.InstrumentIdentifier`",
  },
  {
    id: "A10",
    topic: "report statuses",
    decision: "`none` → `running` → `succeeded` | `warning` | `failed`",
    pages: "confirmed",
    note: "'The possible status values are None, Succeeded, Failed, Running, and Warning'",
  },
  {
    id: "A11",
    topic: "launcher portfolio type and parameters",
    decision:
      "`portfolio_type` (optional); the VaR and risk members flat on the body (the nested `parameters` form is still accepted and flattened)",
    pages: "changed",
    note: "the pages show the members flat and never a `parameters` object; `reporting_currency` null means the caller's currency or USD; `market_data_environment_names` and `portfolio_type` optional",
  },
  {
    id: "A12",
    topic: "look-back display names",
    decision: "`6M`, `1Y` … `10Y`",
    pages: "confirmed",
    note: "'one of the supported six-month or one-through-ten-year choices'",
  },
  {
    id: "A13",
    topic: "transaction-table rows",
    decision: "rows of objects keyed by column; other shapes accepted",
    pages: "silent",
    note: "'a tabular portfolio view'; the shape is not shown",
  },
  {
    id: "A14",
    topic: "trade-event variants",
    decision:
      "open union on `$type`; `<Kind>Event` for the published kinds, `BuyEvent` with `unit_price` alone (quantity 1 when left out)",
    pages: "changed",
    note: "the newer example sends `BuyEvent` with `unit_price` only; `GetNextTradeEvents` lists Buy, CouponPayment, DividendExDate, DivPassThrough, Exercise, Expire, EarlyExercise, Fixing, Maturity, NotionalExchange, Payment, Reset, Termination, Settlement, Fixings",
  },
  {
    id: "A15",
    topic: "GetVol request variants",
    decision: "the base variant with its `$type`",
    pages: "silent",
    note: "only `ApiGetVolRequest` is shown",
  },
  {
    id: "A16",
    topic: "statuses and envelopes",
    decision:
      "200 for every success; operation failures as `is_success: false`; 400 problem details with field paths; 401/403/413/415/429",
    pages: "changed",
    note: "GetTradableBrief, LookBacks, ReportInfos and API-key entries carry `$type`/`is_success`/`error_messages` (and nullable fields): `is_success: false` there is an `OperationFailedError`",
  },
  {
    id: "A17",
    topic: "retry safety",
    decision: "reads may be retried; uploads and launcher creates never re-sent",
    pages: "confirmed",
    note: "the reads are described as 'read-only' and 'synchronous'",
  },
  {
    id: "A18",
    topic: "`use_best_effort`",
    decision: "false: all or nothing; true: valid records stored, one message per rejected record",
    pages: "confirmed",
    note: "'defaults to false and, when true, permits valid rows to be accepted despite rejected rows'",
  },
  {
    id: "A19",
    topic: "`trigger_immediate_bootstrap`",
    decision: "defaults to true; the refresh finishes after the response (the simulator models the lag)",
    pages: "changed",
    note: "'defaults to true … those refreshes need not finish before this response'",
  },
  {
    id: "A20",
    topic: "unknown request fields",
    decision: 'refused with the closest known field named; `unknownFields: "send"` sends them',
    pages: "silent",
    note: "fields the pages document (`provider_id`, `market_data_environment_name`, nested `$type`s, audit fields, the VaR members) are known",
  },
  {
    id: "A21",
    topic: "launcher create",
    decision: "saves an item and nothing more; runs come from the service's schedule",
    pages: "changed",
    note: "'Saving does not launch a report or create a report-run identifier'",
  },
  {
    id: "A22",
    topic: "RateAsset request",
    decision: "`market_date` optional (latest market date); provider / environment selectors, one form at a time",
    pages: "changed",
    note: "'MarketDate is optional; omitting it uses the latest available market-data date'; `$type`, `provider_id`, `entity_access_type`, `market_data_environment_name(s)`",
  },
  {
    id: "A23",
    topic: "the date answered and the date asked",
    decision:
      "the answer says which date it is for (`RateAsset`: `yield_curve_model.market_date`; `GetReportInfos`: each info's `pricing_date`; `GetTradeEventPositionEffects`: `pricing_date`), compared with the request's as UTC calendar days; another date is reported, never corrected: a warning on every table built from the answer (`dateMismatch: \"warn\"`, the default) or `DateMismatchError` (`\"error\"`). The simulator answers RateAsset with the latest curve on or before the date asked (a weekend: Friday's; after its data: the last day's; before it: 404)",
    pages: "silent",
    note: "the newer RateAsset page: the answer 'Returns the curve currency, effective and latest market dates, and yield-curve points' (its `market_date` is the date in effect, not an echo) and `MarketDate` left out 'uses the latest available market-data date'; which date a weekend, a holiday or a date after the data gets is not said (open); `GetLatestMktDataDate` (not one of the 13 operations) 'returns the latest market-data date'; GetReportInfos 'finds report-run summaries by report, portfolio, and pricing date'; GetTradeEventPositionEffects answers with a `pricing_date`, nothing said of it differing from the request's",
  },
  {
    id: "A24",
    topic: "bond `traded_price`",
    decision:
      "a clean price (no accrued interest), in percent of par with `is_percentage_of_par`; the simulator adds accrued interest before solving the yield",
    pages: "silent",
    note: "the spec gives only 'number (floating point)'; the pages ask for 'the bond's percentage-of-par or currency-per-unit quotation convention' and never say clean or dirty",
  },
];
