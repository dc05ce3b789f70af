/**
 * Every decision the interface spec leaves "not shown", in one place
 * (`../shared/design/wire-assumptions.md`, numbered A1…A19). The client, the simulator and the local
 * vol model read these constants; none of them repeats a literal. When the real service proves a
 * decision wrong, the change is one line here.
 */

/** A1: default brand segment of every `$type` value (`Service.Web.Core.X, Service.Web.Core`). */
export const DEFAULT_TYPE_NAMESPACE = "Service";

/** A2: headers that carry credentials. Either one authenticates a call. */
export const HEADERS = {
  authorization: "authorization",
  apiKey: "x-api-key",
  /** Not in the spec: a request id, echoed by the server when present, carried by every error. */
  requestId: "x-request-id",
  retryAfter: "retry-after",
} as const;

/** A3: OAuth2 client-credentials grant (RFC 6749 §4.4); the token URL is configuration. */
export const OAUTH = {
  grantType: "client_credentials",
  tokenType: "Bearer",
  /** Refresh this long before the token's stated expiry, so a call never carries a dying token. */
  refreshMarginMs: 60_000,
} as const;

/** A4: the one query parameter of `GetTradableBrief`. */
export const BRIEF_QUERY_PARAM = "tradableId" as const;

/** A5: `strike_type` values on the wire. Anything else is rejected. */
export const STRIKE_TYPE = {
  Absolute: 0,
  PercentForward: 1,
  PercentSpot: 2,
} as const;
export type StrikeType = (typeof STRIKE_TYPE)[keyof typeof STRIKE_TYPE];
export const STRIKE_TYPE_VALUES = Object.values(STRIKE_TYPE) as readonly StrikeType[];

/** A6: maturities of `GetVol` and `benchmark_maturities` are calendar days; `T = days / DAYS_PER_YEAR`. */
export const DAYS_PER_YEAR = 365;

/** A9: `identifier_type` is an open string enum; these are the known values, the first is the default. */
export const IDENTIFIER_TYPES = ["Provider", "ISIN"] as const;
export const DEFAULT_IDENTIFIER_TYPE = IDENTIFIER_TYPES[0];

/** Spec: the portfolio-type enum of launcher and report requests and of report infos. */
export const PORTFOLIO_TYPES = ["provider", "external", "not_set"] as const;

/** A10: report statuses; a report starts `none`, goes `running`, ends in one of the end states. */
export const REPORT_STATUSES = ["none", "running", "succeeded", "warning", "failed"] as const;
export const REPORT_END_STATUSES = ["succeeded", "warning", "failed"] as const;

/** A11: field names of the launcher's (and GetReportInfos') portfolio type and parameter object. */
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
 * A14: trade-event variants, a discriminated union on `$type` = `{ns}.Web.Core.TradeEvents.<Name>, {ns}.Web.Core`.
 * Only these names are known; unknown variants pass through untouched.
 */
export const TRADE_EVENT_GROUP = "TradeEvents";
export const TRADE_EVENT_NAMES = [
  "BuyEvent",
  "SellEvent",
  "CouponEvent",
  "RedemptionEvent",
  "DividendEvent",
  "ExerciseEvent",
  "ExpiryEvent",
  "StockSplitEvent",
] as const;

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

/** A18/A19 defaults the client sends when the caller says nothing (the conservative choice). */
export const UPLOAD_DEFAULTS = {
  use_best_effort: false,
  trigger_immediate_bootstrap: false,
} as const;

/** Spec: the serialized `$type` names, without the namespace (see {@link typeName}). */
export const TYPE_NAMES = {
  uploadBondPriceResponse: "MarketData.ApiUploadBondPriceDataResponse",
  uploadEquityVolCurvesResponse: "MarketData.ApiUploadEquityVolCurvesResponse",
  baseResponse: "ApiBaseResponse",
  getVolRequest: "Tradables.ApiGetVolRequest",
  discountCurveResponse: "MarketData.ApiGetDiscountCurveMktDataResponse",
  positionEffectsRequest: "Tradables.ApiGetTradeEventPositionEffectsRequest",
  varLauncherRequest: "ReportLauncher.ApiVarReportLauncherItemCreateRequest",
  riskLauncherRequest: "ReportLauncher.ApiRiskReportLauncherItemCreateRequest",
  reportInfosRequest: "Reports.ApiGetReportInfosRequest",
} as const;

/** `typeName("Service", "Tradables.ApiGetVolRequest")` → `Service.Web.Core.Tradables.ApiGetVolRequest, Service.Web.Core`. */
export function typeName(namespace: string, name: string): string {
  return `${namespace}.Web.Core.${name}, ${namespace}.Web.Core`;
}

/** The short name of a `$type` value (`BuyEvent` for `Service.Web.Core.TradeEvents.BuyEvent, Service.Web.Core`). */
export function shortTypeName(fullName: string): string {
  const head = fullName.split(",")[0]!.trim();
  return head.slice(head.lastIndexOf(".") + 1);
}

/** Portfolio type the client sends when a launcher create does not name one. */
export const DEFAULT_PORTFOLIO_TYPE = "provider" as const;
