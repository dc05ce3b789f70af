/**
 * The simulator's rule for dates without data (wire assumption A23, docs/simulator.md), over raw
 * HTTP: RateAsset answers the latest curve on or before the date asked and says which in `market_date`;
 * report infos are those priced on the date asked; position effects carry the date asked.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../src/sim";
import { raw } from "./helpers";

let sim: Simulator;
let headers: Record<string, string>;

beforeAll(async () => {
  sim = await startSimulator({ rateLimit: false });
  headers = { "x-api-key": sim.credentials.apiKey };
});
afterAll(() => sim.close());

async function curve(body: Record<string, unknown>) {
  const res = await raw(`${sim.url}/api/RateAsset`, { method: "POST", headers, json: { currency: "EUR", ...body } });
  const model = (res.body as { yield_curve_model?: { market_date: string; latest_market_date: string } })
    .yield_curve_model;
  return { status: res.status, market_date: model?.market_date, latest: model?.latest_market_date, body: res.body };
}

describe("RateAsset: the latest curve on or before the date asked (data as of 2026-11-20, a Friday)", () => {
  it.each([
    ["a weekday with data", "2026-11-18", "2026-11-18"],
    ["the last day of the data", "2026-11-20", "2026-11-20"],
    ["a Saturday", "2026-11-21", "2026-11-20"],
    ["a Sunday", "2026-11-15", "2026-11-13"],
    ["a date after the data (a Monday)", "2026-11-23", "2026-11-20"],
    ["a date long after the data", "2027-06-30", "2026-11-20"],
    ["a Friday evening in New York (Saturday in UTC)", "2026-11-20T22:00:00-05:00", "2026-11-20"],
  ])("%s (%s) gets the curve of %s, and says so in market_date", async (_what, asked, answered) => {
    const got = await curve({ market_date: asked });
    expect(got.status).toBe(200);
    expect(got.market_date).toBe(`${answered}T00:00:00+00:00`);
    expect(got.latest).toBe("2026-11-20T00:00:00+00:00");
  });

  it("has no holidays: every Monday to Friday of its two years has a curve of its own (25 Dec 2025 too)", async () => {
    expect((await curve({ market_date: "2025-12-25" })).market_date).toBe("2025-12-25T00:00:00+00:00");
  });

  it("no market_date: the latest date's curve", async () => {
    expect((await curve({})).market_date).toBe("2026-11-20T00:00:00+00:00");
  });

  it("a date before the data: 404 naming the first curve's date and the date asked", async () => {
    const got = await curve({ market_date: "2020-01-02" });
    expect(got.status).toBe(404);
    expect(JSON.stringify(got.body)).toMatch(/no curve before 2024-11-25 \(requested 2020-01-02\)/);
  });
});

describe("report infos and position effects keep the date asked", () => {
  it("GetReportInfos answers only infos priced on the date asked (a Saturday: none)", async () => {
    const ask = async (pricing_date: string) =>
      (
        (await raw(`${sim.url}/api/Report/GetReportInfos`, { method: "POST", headers, json: { pricing_date } }))
          .body as { report_infos: { pricing_date: string }[] }
      ).report_infos;
    const friday = await ask("2026-11-20");
    expect(friday.length).toBeGreaterThan(0);
    expect(new Set(friday.map((i) => i.pricing_date.slice(0, 10)))).toEqual(new Set(["2026-11-20"]));
    expect(await ask("2026-11-21")).toEqual([]);
  });

  it("GetTradeEventPositionEffects answers with the pricing date asked, a Saturday included", async () => {
    const res = await raw(`${sim.url}/api/Tradable/GetTradeEventPositionEffects`, {
      method: "POST",
      headers,
      json: {
        tradable_id: "SX5E.XEUR",
        pricing_date: "2026-11-21",
        next_trade_event: { $type: "Service.Web.Core.TradeEvents.BuyEvent, Service.Web.Core", unit_price: 100 },
      },
    });
    expect(res.status).toBe(200);
    expect((res.body as { pricing_date: string }).pricing_date).toBe("2026-11-21T00:00:00+00:00");
  });
});
