/**
 * Each of the 13 operations called through the client against a real loopback server: method, path,
 * query and the request body field for field (including `$type`), then the typed response.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OperationFailedError, RiskPortalClient } from "../../src";
import { apiKeysReply, bond, curveReply, outcomeOk, reportInfoReply, surface } from "../helpers/samples";
import { startLoopback, type Loopback } from "../helpers/loopback";

const NS = "Service";
const t = (name: string) => `${NS}.Web.Core.${name}, ${NS}.Web.Core`;

let server: Loopback;
let rp: RiskPortalClient;

beforeAll(async () => {
  server = await startLoopback({
    "/api/MarketData/UploadBondPriceData": { body: outcomeOk(t("MarketData.ApiUploadBondPriceDataResponse")) },
    "/api/MarketData/UploadEquityVolCurves": { body: outcomeOk(t("MarketData.ApiUploadEquityVolCurvesResponse")) },
    "/api/Tradable/GetVol": { body: { vols: [0.2431, 0.2212, 0.2105], strike_type: 1 } },
    "/api/RateAsset": { body: curveReply },
    "/api/Tradable/GetTradeEventPositionEffects": {
      body: {
        position_effects: [
          { quantity: 100, contract: { identifier: "AAPL.XNAS" } },
          { quantity: -18_950.0, contract: { identifier: "USD" } },
        ],
        pricing_date: "2026-11-20T00:00:00+00:00",
      },
    },
    "/api/Tradable/GetTradableBrief": { body: { brief: "AAPL US Equity — Apple Inc, common stock, USD, XNAS" } },
    "/api/ReportLauncher/VarReportLauncherItemCreate": { body: outcomeOk(t("ApiBaseResponse")) },
    "/api/ReportLauncher/RiskReportLauncherItemCreate": { body: outcomeOk(t("ApiBaseResponse")) },
    "/api/Report/GetReportInfos": { body: reportInfoReply },
    "/api/Report/ReportInfos": { body: { report_infos: [{ report_type: "risk", report_name: "Daily PnL" }] } },
    "/api/Report/LookBacks": { body: { look_backs: ["6M", "1Y", "2Y"] } },
    "/api/Position/GetTransactionTable": {
      body: {
        data_table: [
          { trade_id: "T1", trade_date: "2026-11-02T00:00:00+00:00", counterparty: "JPM", quantity: 100, price: 189.5 },
        ],
      },
    },
    "/api/User/me/ApiKeys": { body: apiKeysReply },
  });
  rp = new RiskPortalClient({ baseUrl: server.url, auth: { token: "test-bearer-token-123" } });
});
afterAll(() => server.close());

function last(path: string) {
  const reqs = server.to(path);
  expect(reqs.length).toBeGreaterThan(0);
  return reqs[reqs.length - 1]!;
}

describe("the 13 operations over HTTP", () => {
  it("1. UploadBondPriceData posts $type, bond_data with the nested $types the pages show, and no default the caller did not set", async () => {
    const out = await rp.marketData.uploadBondPrices({ bond_data: [bond] });
    const req = last("/api/MarketData/UploadBondPriceData");
    expect(req.method).toBe("POST");
    expect(req.headers["content-type"]).toBe("application/json");
    expect(req.json).toEqual({
      $type: t("MarketData.ApiUploadBondPriceDataRequest"),
      bond_data: [
        {
          $type: t("MarketData.BondDataExternal"),
          date: "2026-11-20T00:00:00Z",
          bond_identifier: {
            $type: t("MarketData.InstrumentIdentifier"),
            code: "US91282CJL54",
            market_identification_code: "XNYS",
            identifier_type: "ISIN",
          },
          is_currency_per_bond_unit: false,
          currency: "USD",
          traded_price: 99.8125,
          is_percentage_of_par: true,
        },
      ],
    });
    expect(out).toEqual({
      $type: t("MarketData.ApiUploadBondPriceDataResponse"),
      is_success: true,
      error_messages: [],
    });
  });

  it("2. UploadEquityVolCurves posts the A8 curve fields; an identifier_type left out is not sent", async () => {
    await rp.marketData.uploadEquityVolCurves({
      use_best_effort: true,
      equity_vol_curves: [
        {
          asset_id: { code: "SPX", market_identification_code: "XCBO" },
          reference_date: new Date("2026-11-20T00:00:00Z"),
          maturities: [30, 91],
          vols: [0.18, 0.19],
        },
      ],
    });
    expect(last("/api/MarketData/UploadEquityVolCurves").json).toEqual({
      $type: t("MarketData.ApiUploadEquityVolCurvesRequest"),
      use_best_effort: true,
      equity_vol_curves: [
        {
          $type: t("MarketData.EquityVolCurve"),
          asset_id: { $type: t("MarketData.InstrumentIdentifier"), code: "SPX", market_identification_code: "XCBO" },
          reference_date: "2026-11-20T00:00:00.000Z",
          maturities: [30, 91],
          vols: [0.18, 0.19],
        },
      ],
    });
  });

  it("3. GetVol sends $type first, the surface in spec order, and returns the vols", async () => {
    const out = await rp.tradable.getVol({
      surface,
      maturity: 120,
      strikes: new Float64Array([90, 100, 110]),
      strike_type: 1,
    });
    const req = last("/api/Tradable/GetVol");
    expect(Object.keys(req.json as object)).toEqual(["$type", "surface", "maturity", "strikes", "strike_type"]);
    expect(req.json).toEqual({
      $type: t("Tradables.ApiGetVolRequest"),
      surface: { $type: t("MarketData.VolatilitySurfaceSvi"), ...surface, reference_date: "2026-11-20T00:00:00Z" },
      maturity: 120,
      strikes: [90, 100, 110],
      strike_type: 1,
    });
    expect(Object.keys((req.json as { surface: object }).surface)).toEqual([
      "$type",
      "benchmark_fwd_factors",
      "smiles",
      "benchmark_maturities",
      "vols",
      "call_wings",
      "put_wings",
      "skews",
      "reference_date",
      "spot_ref",
    ]);
    expect(out.vols).toEqual([0.2431, 0.2212, 0.2105]);
  });

  it("4. RateAsset posts its $type, currency and market_date and returns the yield curve model", async () => {
    const out = await rp.rateAsset.getCurve({ currency: "EUR", market_date: "2026-11-19T00:00:00+01:00" });
    expect(last("/api/RateAsset").json).toEqual({
      $type: t("MarketData.ApiGetDiscountCurveMktDataRequest"),
      currency: "EUR",
      market_date: "2026-11-19T00:00:00+01:00",
    });
    expect(out.yield_curve_model.data).toHaveLength(2);
    expect(out.yield_curve_model.data[1]!.fitted_instrument_name).toBe("EUR SWAP 2Y");
  });

  it("5. GetTradeEventPositionEffects expands a bare event name to the namespaced $type", async () => {
    const out = await rp.tradable.positionEffects({
      next_trade_event: { $type: "BuyEvent", unit_price: 189.5, quantity: 100 },
      pricing_date: "2026-11-20",
      tradable_id: "AAPL.XNAS",
    });
    expect(last("/api/Tradable/GetTradeEventPositionEffects").json).toEqual({
      $type: t("Tradables.ApiGetTradeEventPositionEffectsRequest"),
      next_trade_event: { $type: t("TradeEvents.BuyEvent"), unit_price: 189.5, quantity: 100 },
      pricing_date: "2026-11-20T00:00:00Z",
      tradable_id: "AAPL.XNAS",
    });
    expect(out.position_effects.map((e) => e.contract.identifier)).toEqual(["AAPL.XNAS", "USD"]);
  });

  it("6. GetTradableBrief is a GET with the tradableId query parameter and no body", async () => {
    const out = await rp.tradable.brief({ tradableId: "AAPL.XNAS" });
    const req = last("/api/Tradable/GetTradableBrief");
    expect(req.method).toBe("GET");
    expect(req.query).toEqual({ tradableId: "AAPL.XNAS" });
    expect(req.text).toBe("");
    expect(req.headers["content-type"]).toBeUndefined();
    expect(out.brief).toContain("Apple");
  });

  it("7. VarReportLauncherItemCreate takes the spec's nested `parameters` and sends the members flat, as the pages show", async () => {
    await rp.reportLauncher.createVar({
      report_name: "Desk VaR",
      reporting_currency: "USD",
      market_data_environment_names: ["EOD"],
      portfolio_name: "GLOBAL-MACRO",
      parameters: {
        horizon: 1,
        historical_look_back_period: "1Y",
        confidence_level: 0.99,
        run_date: "2026-11-20",
        first_observation_date: "2025-11-20",
      },
    });
    const req = last("/api/ReportLauncher/VarReportLauncherItemCreate");
    expect(req.json).toEqual({
      $type: t("ReportLauncher.ApiVarReportLauncherItemCreateRequest"),
      report_name: "Desk VaR",
      reporting_currency: "USD",
      market_data_environment_names: ["EOD"],
      portfolio_name: "GLOBAL-MACRO",
      horizon: 1,
      historical_look_back_period: "1Y",
      confidence_level: 0.99,
      run_date: "2026-11-20T00:00:00Z",
      first_observation_date: "2025-11-20T00:00:00Z",
    });
    expect(Object.keys(req.json as object)[0]).toBe("$type");
  });

  it("8. RiskReportLauncherItemCreate sends the risk members flat, without defaults the caller did not set", async () => {
    await rp.reportLauncher.createRisk({
      report_name: "Daily PnL",
      reporting_currency: "EUR",
      market_data_environment_names: ["EOD", "INTRADAY"],
      portfolio_name: "RATES-EU",
      portfolio_type: "external",
      parameters: { report_cutoff: "1Y", run_date: "2026-11-20T18:00:00+01:00" },
    });
    expect(last("/api/ReportLauncher/RiskReportLauncherItemCreate").json).toEqual({
      $type: t("ReportLauncher.ApiRiskReportLauncherItemCreateRequest"),
      report_name: "Daily PnL",
      reporting_currency: "EUR",
      market_data_environment_names: ["EOD", "INTRADAY"],
      portfolio_name: "RATES-EU",
      portfolio_type: "external",
      report_cutoff: "1Y",
      run_date: "2026-11-20T18:00:00+01:00",
    });
  });

  it("9. GetReportInfos posts dates, portfolios and the portfolio type with its $type", async () => {
    const out = await rp.report.infos({
      pricing_dates: ["2026-11-19", new Date("2026-11-20T00:00:00Z")],
      portfolio_names: ["GLOBAL-MACRO"],
      portfolio_type: "provider",
    });
    expect(last("/api/Report/GetReportInfos").json).toEqual({
      $type: t("Reports.ApiGetReportInfosRequest"),
      pricing_dates: ["2026-11-19T00:00:00Z", "2026-11-20T00:00:00.000Z"],
      portfolio_names: ["GLOBAL-MACRO"],
      portfolio_type: "provider",
    });
    expect(out.report_infos[0]!.status).toBe("succeeded");
  });

  it("10. ReportInfos is a GET without parameters", async () => {
    const out = await rp.report.list();
    const req = last("/api/Report/ReportInfos");
    expect([req.method, req.text, req.query]).toEqual(["GET", "", {}]);
    expect(out.report_infos).toEqual([{ report_type: "risk", report_name: "Daily PnL" }]);
  });

  it("11. LookBacks is a GET without parameters", async () => {
    const out = await rp.report.lookBacks();
    expect(last("/api/Report/LookBacks").method).toBe("GET");
    expect(out.look_backs).toEqual(["6M", "1Y", "2Y"]);
  });

  it("12. GetTransactionTable posts its $type and the filters the caller set", async () => {
    const out = await rp.position.transactionTable({
      portfolio_name: "GLOBAL-MACRO",
      start_date: "2026-11-01",
      end_date: "2026-11-20",
    });
    expect(last("/api/Position/GetTransactionTable").json).toEqual({
      $type: t("Positions.ApiGetTransactionTableRequest"),
      portfolio_name: "GLOBAL-MACRO",
      start_date: "2026-11-01T00:00:00Z",
      end_date: "2026-11-20T00:00:00Z",
    });
    expect(Array.isArray(out.data_table)).toBe(true);
  });

  it("13. ApiKeys is a GET returning the array of key entries", async () => {
    const out = await rp.user.apiKeys();
    expect(last("/api/User/me/ApiKeys").method).toBe("GET");
    expect(out.map((k) => k.id)).toEqual(["key-1", "key-2"]);
  });

  it("every operation carried the bearer token and asked for JSON", () => {
    const paths = new Set(server.requests.map((r) => r.path));
    expect(paths.size).toBe(13);
    for (const r of server.requests) {
      expect(r.headers.authorization).toBe("Bearer test-bearer-token-123");
      expect(r.headers.accept).toBe("application/json");
    }
  });
});

describe("typeNamespace", () => {
  it("builds every $type from the configured namespace", async () => {
    const acme = new RiskPortalClient({ baseUrl: server.url, auth: { apiKey: "k-123456" }, typeNamespace: "Acme" });
    await acme.tradable.positionEffects({
      next_trade_event: { $type: "CouponEvent", amount_per_unit: 2.5, quantity: 1000 },
      pricing_date: "2026-11-20",
      tradable_id: "BOND1",
    });
    const body = last("/api/Tradable/GetTradeEventPositionEffects").json as Record<string, { $type?: string }>;
    expect(body.$type).toBe("Acme.Web.Core.Tradables.ApiGetTradeEventPositionEffectsRequest, Acme.Web.Core");
    expect(body.next_trade_event!.$type).toBe("Acme.Web.Core.TradeEvents.CouponEvent, Acme.Web.Core");
  });

  it("passes a full $type of an unknown trade-event variant through untouched", async () => {
    const full = "Service.Web.Core.TradeEvents.FutureVariantEvent, Service.Web.Core";
    await rp.tradable.positionEffects({
      next_trade_event: { $type: full, novel_field: [1, 2] },
      pricing_date: "2026-11-20",
      tradable_id: "X1",
    });
    expect(
      (last("/api/Tradable/GetTradeEventPositionEffects").json as Record<string, unknown>).next_trade_event,
    ).toEqual({ $type: full, novel_field: [1, 2] });
  });
});

describe("responses as the pages publish them", () => {
  it("an unsuccessful brief envelope is an OperationFailedError carrying its lookup errors", async () => {
    server.on("/api/Tradable/GetTradableBrief", {
      body: {
        $type: "Derivitec.Web.Core.Tradables.GetTradableBriefResponse, Derivitec.Web.Core",
        is_success: false,
        error_messages: ["Tradable 'X1' could not be resolved"],
        brief: null,
      },
    });
    const error = await rp.tradable.brief({ tradableId: "X1" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OperationFailedError);
    expect((error as OperationFailedError).message).toBe(
      "GetTradableBrief reported failure: Tradable 'X1' could not be resolved",
    );
    expect((error as OperationFailedError).errorMessages).toEqual(["Tradable 'X1' could not be resolved"]);
    const outcome = await rp.tradable.brief({ tradableId: "X1" }, { throwOnFailure: false });
    expect([outcome.is_success, outcome.brief]).toEqual([false, null]);
  });

  it("LookBacks and ReportInfos carry the envelope; nullable lists read as empty; a failure throws", async () => {
    server.on("/api/Report/LookBacks", {
      body: {
        $type: "Derivitec.Web.Core.Reports.ApiGetReportLookBacksResponse, Derivitec.Web.Core",
        is_success: true,
        error_messages: null,
        look_backs: null,
      },
    });
    expect((await rp.report.lookBacks()).look_backs).toEqual([]);
    server.on("/api/Report/ReportInfos", {
      body: { is_success: false, error_messages: ["No report definitions for this organisation"], report_infos: null },
    });
    await expect(rp.report.list()).rejects.toThrow(
      /^ReportInfos reported failure: No report definitions for this organisation$/,
    );
  });

  it("API-key entries take their $type and null fields", async () => {
    server.on("/api/User/me/ApiKeys", {
      body: [
        {
          $type: "Derivitec.Aws.ApiGateway.Models.DerivitecExposedApiKey, Derivitec.Aws.ApiGateway",
          id: "k-9",
          name: null,
          exposed_value: null,
        },
      ],
    });
    expect(await rp.user.apiKeys()).toEqual([
      {
        $type: "Derivitec.Aws.ApiGateway.Models.DerivitecExposedApiKey, Derivitec.Aws.ApiGateway",
        id: "k-9",
        name: null,
        exposed_value: null,
      },
    ]);
  });
});

describe("declared effects", () => {
  it("the operations that change the service's data say so (mutates: the cache empties after them); none of them is cacheable", async () => {
    const { OPERATIONS } = await import("../../src/api");
    expect(
      OPERATIONS.filter((op) => op.mutates)
        .map((op) => op.name)
        .sort(),
    ).toEqual([
      "RiskReportLauncherItemCreate",
      "UploadBondPriceData",
      "UploadEquityVolCurves",
      "VarReportLauncherItemCreate",
    ]);
    expect(OPERATIONS.filter((op) => op.mutates && op.cacheable)).toEqual([]);
    expect(OPERATIONS.filter((op) => op.mutates).every((op) => op.retry === "write" && op.whenOutcomeUnknown)).toBe(
      true,
    );
  });
});

describe("the resources table", () => {
  it("names every operation exactly once, and the client's methods are exactly its entries", async () => {
    const { OPERATIONS, RESOURCES } = await import("../../src/api");
    const listed = Object.values(RESOURCES).flatMap((group) => Object.values(group));
    expect(listed).toHaveLength(OPERATIONS.length);
    expect(new Set(listed)).toEqual(new Set(OPERATIONS));
    const rp = new RiskPortalClient({ baseUrl: "http://127.0.0.1:9", auth: { apiKey: "k-table-0123456789" } });
    for (const [group, methods] of Object.entries(RESOURCES)) {
      expect(Object.keys((rp as unknown as Record<string, object>)[group]!).sort()).toEqual(
        Object.keys(methods).sort(),
      );
    }
  });
});
