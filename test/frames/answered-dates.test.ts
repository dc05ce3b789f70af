/**
 * The date asked and the date answered (issue 41, item 2): a frame built from an answer for another date
 * than the one asked says so, a batch over dates says which dates came back as another date's data, and
 * `dateMismatch: "error"` refuses such an answer. Over HTTP: the simulator for curves, a loopback server
 * for the answers the simulator never gives (report infos and position effects of another date).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DateMismatchError, RiskPortalClient } from "../../src";
import { startSimulator, type Simulator } from "../../src/sim";
import { frameInfo } from "../../src/frames/danfo";
import { yieldCurve, yieldCurveColumns } from "../../src/frames/yield-curve";
import { curveTenorsColumns } from "../../src/frames/curve-tenors";
import { fetchYieldCurvesColumns } from "../../src/frames/yield-curves";
import { reportInfosColumns } from "../../src/frames/reports";
import { fetchReportInfosByDateColumns } from "../../src/frames/report-infos-by-date";
import { positionEffectsColumns } from "../../src/frames/position-effects";
import { formatWarning } from "../../src/table/column-table";
import { tableHtml } from "../../src/plot/table-view";
import { startLoopback, type Loopback, type RecordedRequest } from "../helpers/loopback";

let sim: Simulator;
let rp: RiskPortalClient;
let server: Loopback;
let other: RiskPortalClient;

/** A report info priced on `day` (the loopback's answers). */
function info(day: string, id: string) {
  return {
    id,
    report_name: "Daily risk",
    status: "succeeded",
    portfolio_name: "GLOBAL-MACRO",
    pricing_date: `${day}T00:00:00+00:00`,
  };
}

/** The loopback's GetReportInfos: a Saturday asked is answered with the Friday's infos (as a service might). */
function reportReply(req: RecordedRequest) {
  const asked = String((req.json as { pricing_date: string }).pricing_date).slice(0, 10);
  const day = asked === "2026-11-21" ? "2026-11-20" : asked;
  return { body: { report_infos: [info(day, `r-${day}`)] } };
}

beforeAll(async () => {
  sim = await startSimulator({ rateLimit: false });
  rp = new RiskPortalClient({ baseUrl: sim.url, auth: { apiKey: sim.credentials.apiKey } });
  server = await startLoopback({
    "/api/Report/GetReportInfos": reportReply,
    "/api/Tradable/GetTradeEventPositionEffects": {
      body: {
        position_effects: [{ quantity: 1, contract: { identifier: "X" } }],
        pricing_date: "2026-11-20T00:00:00Z",
      },
    },
  });
  other = new RiskPortalClient({ baseUrl: server.url, auth: { token: "test-bearer-token-123" }, retry: false });
});
afterAll(async () => {
  await sim.close();
  await server.close();
});

const SATURDAY_WARNING =
  /market_date: asked for 2026-11-21, answered with 2026-11-20 \(RateAsset EUR\): these rows are 2026-11-20's data, not 2026-11-21's/;

describe("a frame from an answer for another date", () => {
  it("a Saturday's curve says it is the Friday's, in meta.warnings, frameInfo and the table display", async () => {
    const answer = await rp.rateAsset.getCurve({ currency: "EUR", market_date: "2026-11-21" });
    const table = yieldCurveColumns(answer);
    expect(table.meta.warnings.map(formatWarning)).toEqual([expect.stringMatching(SATURDAY_WARNING)]);
    expect(table.meta.warnings[0]).toMatchObject({ column: "market_date" });
    const df = yieldCurve(answer);
    expect(frameInfo(df)!.warnings).toEqual([expect.stringMatching(SATURDAY_WARNING)]);
    expect(tableHtml(df)).toContain("asked for 2026-11-21, answered with 2026-11-20");
  });

  it("a date after the data says which date answered it", async () => {
    const answer = await rp.rateAsset.getCurve({ currency: "USD", market_date: "2026-12-15" });
    expect(yieldCurveColumns(answer).meta.warnings.map(formatWarning)).toEqual([
      expect.stringMatching(/market_date: asked for 2026-12-15, answered with 2026-11-20 \(RateAsset USD\)/),
    ]);
    expect(curveTenorsColumns(answer, ["1Y"]).meta.warnings.map(formatWarning)).toEqual([
      expect.stringMatching(/asked for 2026-12-15, answered with 2026-11-20/),
    ]);
  });

  it("the date asked and answered alike, or no date asked (the latest), carries no warning", async () => {
    const friday = await rp.rateAsset.getCurve({ currency: "EUR", market_date: "2026-11-20" });
    expect(yieldCurveColumns(friday).meta.warnings).toEqual([]);
    expect(frameInfo(yieldCurve(friday))!.warnings).toEqual([]);
    const latest = await rp.rateAsset.getCurve({ currency: "EUR" });
    expect(yieldCurveColumns(latest).meta.warnings).toEqual([]);
  });

  it("report infos and position effects of another date than asked say so", async () => {
    const infos = await other.report.infos({ pricing_date: "2026-11-21" });
    expect(reportInfosColumns(infos).meta.warnings.map(formatWarning)).toEqual([
      expect.stringMatching(/pricing_date: asked for 2026-11-21, answered with 2026-11-20 \(GetReportInfos\)/),
    ]);
    expect(reportInfosColumns(await other.report.infos({ pricing_date: "2026-11-20" })).meta.warnings).toEqual([]);
    const effects = await other.tradable.positionEffects({
      tradable_id: "T1",
      pricing_date: "2026-11-23",
      next_trade_event: {
        $type: "Service.Web.Core.TradeEvents.BuyEvent, Service.Web.Core",
        quantity: 1,
        unit_price: 100,
      },
    });
    expect(positionEffectsColumns(effects).meta.warnings.map(formatWarning)).toEqual([
      expect.stringMatching(
        /pricing_date: asked for 2026-11-23, answered with 2026-11-20 \(GetTradeEventPositionEffects T1\)/,
      ),
    ]);
  });
});

describe("a batch over dates flags the dates that came back as another date's data", () => {
  it("fetchYieldCurves: the weekend dates name the Friday and say their rows duplicate it", async () => {
    const { table, failures } = await fetchYieldCurvesColumns(rp, {
      currencies: ["EUR", "USD"],
      marketDates: ["2026-11-19", "2026-11-20", "2026-11-21", "2026-11-22"],
      progress: "none",
    });
    expect(failures).toEqual([]);
    const lines = table.meta.warnings.map(formatWarning);
    expect(lines).toEqual([
      "market_date (RateAsset EUR): 2 of 4 dates asked came back as another date's data: 2026-11-21 → 2026-11-20, 2026-11-22 → 2026-11-20; the rows of 2026-11-20, 2026-11-21 and 2026-11-22 are duplicates, all 2026-11-20's data",
      "market_date (RateAsset USD): 2 of 4 dates asked came back as another date's data: 2026-11-21 → 2026-11-20, 2026-11-22 → 2026-11-20; the rows of 2026-11-20, 2026-11-21 and 2026-11-22 are duplicates, all 2026-11-20's data",
    ]);
  });

  it("a date asked alone that came back as another date's data is named, without duplicates", async () => {
    const { table } = await fetchYieldCurvesColumns(rp, {
      currencies: ["GBP"],
      marketDates: ["2026-11-19", "2026-11-21"],
      progress: "none",
    });
    expect(table.meta.warnings.map(formatWarning)).toEqual([
      "market_date (RateAsset GBP): 1 of 2 dates asked came back as another date's data: 2026-11-21 → 2026-11-20; the rows of 2026-11-21 are 2026-11-20's data, which no other date asked returned: no duplicates",
    ]);
  });

  it("the same dates asked and answered: no warning", async () => {
    const { table } = await fetchYieldCurvesColumns(rp, {
      currencies: ["CHF"],
      marketDates: ["2026-11-19", "2026-11-20"],
      progress: "none",
    });
    expect(table.meta.warnings).toEqual([]);
  });

  it("fetchReportInfosByDate: a Saturday answered with Friday's infos duplicates Friday's rows", async () => {
    const { table } = await fetchReportInfosByDateColumns(other, {
      pricingDates: ["2026-11-20", "2026-11-21"],
      progress: "none",
    });
    expect(table.meta.warnings.map(formatWarning)).toEqual([
      "pricing_date (GetReportInfos): 1 of 2 dates asked came back as another date's data: 2026-11-21 → 2026-11-20; the rows of 2026-11-20 and 2026-11-21 are duplicates, all 2026-11-20's data",
    ]);
  });
});

describe('dateMismatch: "error"', () => {
  it("refuses a Saturday's answer, naming the operation, the date asked and the date answered", async () => {
    const strict = new RiskPortalClient({
      baseUrl: sim.url,
      auth: { apiKey: sim.credentials.apiKey },
      dateMismatch: "error",
    });
    const error = await strict.rateAsset.getCurve({ currency: "EUR", market_date: "2026-11-21" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DateMismatchError);
    const e = error as DateMismatchError;
    expect(e.operation).toBe("RateAsset");
    expect(e.asked).toEqual(["2026-11-21"]);
    expect(e.answered).toEqual(["2026-11-20"]);
    expect(e.message).toMatch(
      /RateAsset: asked for market_date 2026-11-21, answered with 2026-11-20 \(yield_curve_model\.market_date\)/,
    );
    expect(e.message).toMatch(/dateMismatch: "error"/);
    // The same date passes; a call may choose for itself.
    await expect(strict.rateAsset.getCurve({ currency: "EUR", market_date: "2026-11-20" })).resolves.toBeTruthy();
    await expect(
      strict.rateAsset.getCurve({ currency: "EUR", market_date: "2026-11-21" }, { dateMismatch: "warn" }),
    ).resolves.toBeTruthy();
    await expect(
      rp.rateAsset.getCurve({ currency: "EUR", market_date: "2026-11-22" }, { dateMismatch: "error" }),
    ).rejects.toBeInstanceOf(DateMismatchError);
  });

  it("refuses an answer from the response cache too", async () => {
    const cached = new RiskPortalClient({ baseUrl: sim.url, auth: { apiKey: sim.credentials.apiKey }, cache: true });
    await cached.rateAsset.getCurve({ currency: "CHF", market_date: "2026-11-21" });
    await expect(
      cached.rateAsset.getCurve({ currency: "CHF", market_date: "2026-11-21" }, { dateMismatch: "error" }),
    ).rejects.toThrow(/asked for market_date 2026-11-21, answered with 2026-11-20/);
    expect(cached.cache!.stats.hits).toBe(1);
  });

  it("in a batch, the refused dates are failures naming both dates", async () => {
    const { table, failures } = await fetchYieldCurvesColumns(rp, {
      currencies: ["JPY"],
      marketDates: ["2026-11-20", "2026-11-21"],
      progress: "none",
      call: { dateMismatch: "error" },
    });
    expect(table.rowCount).toBeGreaterThan(0);
    expect(failures).toEqual([
      {
        currency: "JPY",
        market_date: "2026-11-21",
        error: expect.stringMatching(/asked for market_date 2026-11-21, answered with 2026-11-20/),
      },
    ]);
  });

  it("refuses report infos of another date", async () => {
    await expect(other.report.infos({ pricing_date: "2026-11-21" }, { dateMismatch: "error" })).rejects.toThrow(
      /GetReportInfos: asked for pricing_date 2026-11-21, answered with 2026-11-20/,
    );
  });

  it("a value other than warn or error is refused when the client is made", () => {
    expect(
      () =>
        new RiskPortalClient({ baseUrl: sim.url, auth: { token: "t" }, dateMismatch: "throw" as unknown as "error" }),
    ).toThrow(/dateMismatch must be "warn" or "error", got "throw"/);
  });
});
