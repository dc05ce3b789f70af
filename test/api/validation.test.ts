/**
 * Request validation happens before sending: a bad argument fails locally with the field path and the
 * reason, and the server sees nothing. Dates go out as ISO 8601 with an offset.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { RequestValidationError, RiskPortalClient } from "../../src";
import { dateTimeInput } from "../../src/api/common";
import { bond, surface } from "../helpers/samples";
import { startLoopback, type Loopback } from "../helpers/loopback";

let server: Loopback;
let rp: RiskPortalClient;
beforeAll(async () => {
  server = await startLoopback();
  rp = new RiskPortalClient({ baseUrl: server.url, auth: { token: "tok-validation" } });
});
beforeEach(() => {
  server.requests.length = 0;
});
afterAll(() => server.close());

/** Runs a call that must fail locally; returns its issues as "path: message" lines. */
async function issuesOf(call: Promise<unknown>): Promise<string[]> {
  const error = await call.then(
    () => {
      throw new Error("expected a RequestValidationError, the call succeeded");
    },
    (e) => e,
  );
  expect(error).toBeInstanceOf(RequestValidationError);
  expect(server.requests).toHaveLength(0);
  return (error as RequestValidationError).issues.map((i) => `${i.path}: ${i.message}`);
}

describe("request validation (nothing is sent)", () => {
  it("surface arrays of different lengths name each short array", async () => {
    const issues = await issuesOf(
      rp.tradable.getVol({
        surface: { ...surface, skews: [-0.1, -0.1], vols: [0.2] },
        maturity: 90,
        strikes: [100],
        strike_type: 1,
      }),
    );
    expect(issues).toEqual([
      "surface.vols: has 1 values but benchmark_maturities has 4; every surface array needs one value per benchmark",
      "surface.skews: has 2 values but benchmark_maturities has 4; every surface array needs one value per benchmark",
    ]);
  });

  it("NaN and Infinity are rejected where they stand", async () => {
    const issues = await issuesOf(
      rp.tradable.getVol({
        surface,
        maturity: Number.NaN,
        strikes: [90, Number.POSITIVE_INFINITY, 110],
        strike_type: 1,
      }),
    );
    expect(issues).toEqual([
      "maturity: Invalid input: expected number, received NaN",
      "strikes[1]: Invalid input: expected number, received Infinity",
    ]);
  });

  it("a strike_type outside 0, 1, 2 says which values exist", async () => {
    const issues = await issuesOf(
      rp.tradable.getVol({ surface, maturity: 90, strikes: [100], strike_type: 3 as never }),
    );
    expect(issues).toEqual([
      "strike_type: expected one of 0, 1, 2 (0 Absolute, 1 PercentForward, 2 PercentSpot) or one of those names",
    ]);
    const named = await issuesOf(
      rp.tradable.getVol({ surface, maturity: 90, strikes: [100], strike_type: "Moneyness" }),
    );
    expect(named).toEqual([
      "strike_type: expected one of 0, 1, 2 (0 Absolute, 1 PercentForward, 2 PercentSpot) or one of those names",
    ]);
  });

  it("non-positive strikes and maturities are rejected", async () => {
    const issues = await issuesOf(rp.tradable.getVol({ surface, maturity: 0, strikes: [100, -5], strike_type: 0 }));
    expect(issues).toEqual(["maturity: Too small: expected number to be >0", "strikes[1]: strikes must be > 0"]);
  });

  it("an empty or blank portfolio name is rejected", async () => {
    expect(await issuesOf(rp.position.transactionTable({ portfolio_name: "" }))).toEqual([
      "portfolio_name: must not be empty or blank",
    ]);
    expect(await issuesOf(rp.position.transactionTable({ portfolio_name: "   " }))).toEqual([
      "portfolio_name: must not be empty or blank",
    ]);
  });

  it("a misspelt field is an error naming the closest known field, not silently dropped", async () => {
    const issues = await issuesOf(
      rp.position.transactionTable({ portfolio_name: "P1", include_zero_quantity: true } as never),
    );
    expect(issues).toEqual([
      'include_zero_quantity: unknown field (did you mean "include_zero_quantities"?); neither the spec nor the service\'s pages name it (to send it anyway: unknownFields: "send")',
    ]);
    const nested = await issuesOf(
      rp.marketData.uploadBondPrices({
        bond_data: [{ ...bond, bond_identifier: { ...bond.bond_identifier, idenifier_type: "Isin" } as never }],
      }),
    );
    expect(nested).toEqual([
      'bond_data[0].bond_identifier.idenifier_type: unknown field (did you mean "identifier_type"?); neither the spec nor the service\'s pages name it (to send it anyway: unknownFields: "send")',
    ]);
    const far = await issuesOf(rp.rateAsset.getCurve({ currency: "USD", colour: "blue" } as never));
    expect(far).toEqual([
      'colour: unknown field; neither the spec nor the service\'s pages name it (to send it anyway: unknownFields: "send")',
    ]);
  });

  it('unknownFields: "send" sends an unknown field as given, per call or per client', async () => {
    server.on("/api/RateAsset", {
      body: { yield_curve_model: { currency: "USD", market_date: "2026-11-20T00:00:00Z", data: [] } },
    });
    await rp.rateAsset.getCurve({ currency: "USD", curve_flavour: "OIS" } as never, { unknownFields: "send" });
    expect(server.to("/api/RateAsset").at(-1)!.json).toEqual({
      $type: "Service.Web.Core.MarketData.ApiGetDiscountCurveMktDataRequest, Service.Web.Core",
      currency: "USD",
      curve_flavour: "OIS",
    });
    const sending = new RiskPortalClient({
      baseUrl: server.url,
      auth: { token: "tok-validation" },
      unknownFields: "send",
    });
    await sending.rateAsset.getCurve({ currency: "USD", market_date: "2026-11-20", extra: { deep: [1] } } as never);
    expect(server.to("/api/RateAsset").at(-1)!.json).toMatchObject({ currency: "USD", extra: { deep: [1] } });
    // A known field with a bad value is still refused.
    server.requests.length = 0;
    expect(await issuesOf(sending.rateAsset.getCurve({ currency: "usd", extra: 1 } as never))).toEqual([
      "currency: usd: currency codes are upper case: USD",
    ]);
  });

  it("wrong types name the field", async () => {
    const issues = await issuesOf(
      rp.marketData.uploadBondPrices({ bond_data: [{ ...bond, traded_price: "99.5" as never, currency: "usd" }] }),
    );
    expect(issues).toEqual([
      "bond_data[0].currency: usd: currency codes are upper case: USD",
      "bond_data[0].traded_price: Invalid input: expected number, received string",
    ]);
  });

  it("an empty upload is rejected", async () => {
    expect(await issuesOf(rp.marketData.uploadBondPrices({ bond_data: [] }))).toEqual([
      "bond_data: must hold at least one bond price",
    ]);
  });

  it("an equity vol curve with unsorted maturities and a negative vol names both", async () => {
    const issues = await issuesOf(
      rp.marketData.uploadEquityVolCurves({
        equity_vol_curves: [
          {
            asset_id: { code: "SX5E", market_identification_code: "XEUR" },
            reference_date: "2026-11-20",
            maturities: [30, 30, 90],
            vols: [0.2, -0.1, 0.2],
          },
        ],
      }),
    );
    expect(issues).toEqual([
      "equity_vol_curves[0].maturities[1]: maturities must be strictly increasing",
      "equity_vol_curves[0].vols[1]: must be > 0 (decimal, 0.2 = 20%)",
    ]);
  });

  it("a confidence level given in percent is caught with a hint", async () => {
    const issues = await issuesOf(
      rp.reportLauncher.createVar({
        report_name: "VaR",
        reporting_currency: "USD",
        market_data_environment_names: ["EOD"],
        portfolio_name: "P1",
        parameters: { horizon: 10, historical_look_back_period: "1Y", confidence_level: 99, run_date: "2026-11-20" },
      }),
    );
    expect(issues).toEqual(["parameters.confidence_level: must be in (0, 1), e.g. 0.99 for 99%"]);
    const flat = await issuesOf(
      rp.reportLauncher.createVar({
        report_name: "VaR",
        portfolio_name: "P1",
        confidence_level: 0.99,
        run_date: "2026-11-20",
        first_observation_date: "2026-12-01",
      }),
    );
    expect(flat).toEqual(["first_observation_date: must not be after run_date"]);
    const twice = await issuesOf(
      rp.reportLauncher.createVar({
        report_name: "VaR",
        portfolio_name: "P1",
        horizon: 1,
        parameters: { horizon: 10 },
      }),
    );
    expect(twice).toEqual([
      "parameters.horizon: horizon is given both on the body and in parameters; give it once (the pages put it on the body)",
    ]);
  });

  it("RateAsset takes one market-data selector form, as its page asks", async () => {
    expect(
      await issuesOf(
        rp.rateAsset.getCurve({ currency: "USD", provider_id: "desk", market_data_environment_names: ["EOD"] }),
      ),
    ).toEqual([
      "market_data_environment_names: give one market-data selector, not provider_id and market_data_environment_names together",
    ]);
  });

  it("GetReportInfos needs a pricing date", async () => {
    expect(await issuesOf(rp.report.infos({ portfolio_names: ["P1"] }))).toEqual([
      "pricing_date: give pricing_date (or the older pricing_dates, non-empty)",
    ]);
  });

  it("a BuyEvent without unit_price is caught; a wrong $type for the request is caught", async () => {
    expect(
      await issuesOf(
        rp.tradable.positionEffects({
          next_trade_event: { $type: "BuyEvent", quantity: 10 },
          pricing_date: "2026-11-20",
          tradable_id: "X",
        }),
      ),
    ).toEqual(["next_trade_event.unit_price: BuyEvent: missing"]);
    const wrongType = {
      $type: "Other.Web.Core.Tradables.ApiGetVolRequest, Other.Web.Core",
      surface,
      maturity: 30,
      strikes: [100],
      strike_type: 0,
    };
    expect(await issuesOf(rp.tradable.getVol(wrongType as never))).toEqual([
      '$type: "Other.Web.Core.Tradables.ApiGetVolRequest, Other.Web.Core" is spelled for the brand "Other", but this client\'s brand is "Service": set brand: "Other" (or RISK_PORTAL_BRAND=Other), or leave $type out',
    ]);
    const otherOperation = {
      ...wrongType,
      $type: "Service.Web.Core.Tradables.ApiGetTradeEventPositionEffectsRequest, Service.Web.Core",
    };
    expect(await issuesOf(rp.tradable.getVol(otherOperation as never))).toEqual([
      '$type: expected "Service.Web.Core.Tradables.ApiGetVolRequest, Service.Web.Core", got "Service.Web.Core.Tradables.ApiGetTradeEventPositionEffectsRequest, Service.Web.Core"',
    ]);
  });

  it("the message lists the problems in one line", async () => {
    const error = await rp.tradable.brief({ tradableId: " " }).catch((e) => e);
    expect(error.message).toBe(
      "GetTradableBrief: invalid request, nothing was sent — tradableId: must not be empty or blank",
    );
    expect(error.operation).toBe("GetTradableBrief");
  });
});

describe("date-time fields", () => {
  const wire = (v: unknown) => dateTimeInput.parse(v);

  it("a Date goes out in UTC with Z", () => {
    expect(wire(new Date(Date.UTC(2026, 10, 20, 15, 30)))).toBe("2026-11-20T15:30:00.000Z");
  });
  it("a date-only string is midnight UTC", () => {
    expect(wire("2026-11-20")).toBe("2026-11-20T00:00:00Z");
  });
  it("a date-time with an offset is kept as given", () => {
    expect(wire("2026-11-20T09:00:00+09:00")).toBe("2026-11-20T09:00:00+09:00");
    expect(wire("2026-11-20T09:00:00.123Z")).toBe("2026-11-20T09:00:00.123Z");
  });
  it("a date-time without an offset is refused: its meaning would depend on the machine", () => {
    expect(() => wire("2026-11-20T09:00:00")).toThrow(/has no offset/);
  });
  it("impossible dates, invalid Dates and other types are refused", () => {
    expect(() => wire("2026-02-30")).toThrow(/2026-02-30: February 2026 has 28 days/);
    expect(() => wire("2026-13-01T00:00:00Z")).toThrow(/2026-13-01: month 13 does not exist/);
    expect(() => wire("20261120")).toThrow(/expected an ISO 8601 date-time with an offset/);
    expect(() => wire(new Date("nope"))).toThrow(/an Invalid Date \(a Date object holding no time/);
    expect(() => wire(20261120)).toThrow(/expected a Date or an ISO 8601 date-time string/);
  });
  it("the date goes on the wire through the client too", async () => {
    server.on("/api/RateAsset", {
      body: { yield_curve_model: { currency: "JPY", market_date: "2026-11-20T00:00:00+09:00", data: [] } },
    });
    await rp.rateAsset.getCurve({ currency: "JPY", market_date: new Date(Date.UTC(2026, 10, 19, 15)) });
    expect(server.to("/api/RateAsset")[0]!.json).toEqual({
      $type: "Service.Web.Core.MarketData.ApiGetDiscountCurveMktDataRequest, Service.Web.Core",
      currency: "JPY",
      market_date: "2026-11-19T15:00:00.000Z",
    });
  });
});
