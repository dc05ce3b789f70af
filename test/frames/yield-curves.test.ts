import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RiskPortalClient } from "../../src";
import { frameInfo } from "../../src/frames/danfo";
import type { ProgressEvent } from "../../src/batch/progress";
import {
  pivotCurves,
  pivotCurvesColumns,
  fetchYieldCurves,
  fetchYieldCurvesColumns,
} from "../../src/frames/yield-curves";
import { startLoopback, type Loopback, type RecordedRequest } from "../helpers/loopback";

/** Curve points per currency: USD and EUR have different pillars, as real curves do. */
const PILLARS: Record<string, number[]> = { USD: [0.25, 1, 5], EUR: [0.5, 2, 10] };
const FAILING_DATE = "2026-11-21";

let server: Loopback;
let rp: RiskPortalClient;
let inFlight = 0;
let maxInFlight = 0;

function curveReply(req: RecordedRequest) {
  const { currency, market_date } = req.json as { currency: string; market_date: string };
  if (market_date.startsWith(FAILING_DATE)) {
    return {
      status: 400,
      body: { title: "No curve", status: 400, detail: `no ${currency} curve for ${FAILING_DATE}` },
    };
  }
  const bump = market_date.startsWith("2026-11-20") ? 0.001 : 0;
  return {
    body: {
      $type: "Service.Web.Core.MarketData.ApiGetDiscountCurveMktDataResponse, Service.Web.Core",
      yield_curve_model: {
        latest_market_date: "2026-11-20T00:00:00+00:00",
        currency,
        market_date,
        data: PILLARS[currency]!.map((t, i) => ({
          maturity: t,
          rate: 0.02 + 0.002 * i + bump,
          fitted_instrument_name: `${currency} ${t}Y`,
          expiry: "2030-01-01T00:00:00+00:00",
          fitted_instrument_rate: 0.02,
        })),
      },
    },
  };
}

beforeAll(async () => {
  server = await startLoopback({
    "/api/RateAsset": async (req) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((r) => setTimeout(r, 15));
      inFlight--;
      return curveReply(req);
    },
  });
  rp = new RiskPortalClient({ baseUrl: server.url, auth: { token: "test-bearer-token-123" }, retry: false });
});
afterAll(() => server.close());

describe("fetchYieldCurvesColumns(rp, { currencies, marketDates })", () => {
  it("fetches every currency × date, returns one long table and lists the failed date beside it", async () => {
    const { table, failures } = await fetchYieldCurvesColumns(rp, {
      currencies: ["USD", "EUR"],
      marketDates: ["2026-11-19", FAILING_DATE, "2026-11-20"],
      progress: "none",
    });
    expect(table.rowCount).toBe(12);
    expect(table.data.currency).toEqual([...Array(6).fill("USD"), ...Array(6).fill("EUR")]);
    expect((table.data.market_date as Date[]).map((d) => d.toISOString().slice(0, 10))).toEqual([
      "2026-11-19",
      "2026-11-19",
      "2026-11-19",
      "2026-11-20",
      "2026-11-20",
      "2026-11-20",
      "2026-11-19",
      "2026-11-19",
      "2026-11-19",
      "2026-11-20",
      "2026-11-20",
      "2026-11-20",
    ]);
    expect(failures).toEqual([
      {
        currency: "USD",
        market_date: FAILING_DATE,
        error: expect.stringMatching(/HTTP 400 .*No curve: no USD curve for 2026-11-21/),
        status: 400,
      },
      { currency: "EUR", market_date: FAILING_DATE, error: expect.stringMatching(/no EUR curve/), status: 400 },
    ]);
  });

  it("keeps at most `concurrency` calls in flight", async () => {
    maxInFlight = 0;
    await fetchYieldCurvesColumns(rp, {
      currencies: ["USD", "EUR"],
      marketDates: ["2026-11-16", "2026-11-17", "2026-11-18", "2026-11-19"],
      concurrency: 2,
      progress: "none",
    });
    expect(maxInFlight).toBe(2);
    maxInFlight = 0;
    await fetchYieldCurvesColumns(rp, {
      currencies: ["USD"],
      marketDates: ["2026-11-18", "2026-11-19"],
      concurrency: 1,
      progress: "none",
    });
    expect(maxInFlight).toBe(1);
  });

  it("reports progress after every call, failures counted, the last event marked finished", async () => {
    const events: ProgressEvent[] = [];
    await fetchYieldCurvesColumns(rp, {
      currencies: ["EUR"],
      marketDates: ["2026-11-19", FAILING_DATE, "2026-11-20"],
      concurrency: 1,
      progress: "none",
      onProgress: (e) => events.push({ ...e }),
    });
    expect(events.map((e) => [e.done, e.failed, e.finished])).toEqual([
      [0, 0, false],
      [1, 0, false],
      [2, 1, false],
      [3, 1, true],
    ]);
    expect(events[2]!.item).toBe(`EUR ${FAILING_DATE}`);
    expect(events.every((e) => e.total === 3 && e.label === "yield curves")).toBe(true);
  });

  it("shows progress through a renderer given as the progress option", async () => {
    const lines: number[] = [];
    await fetchYieldCurvesColumns(rp, {
      currencies: ["USD"],
      marketDates: ["2026-11-19"],
      progress: { update: (e) => lines.push(e.done) },
    });
    expect(lines).toEqual([0, 1]);
  });

  it("adds the derived columns per curve with the compounding given", async () => {
    const { table } = await fetchYieldCurvesColumns(rp, {
      currencies: ["USD"],
      marketDates: ["2026-11-19"],
      derived: true,
      compounding: "annual",
      progress: "none",
    });
    expect(table.columns.slice(-2)).toEqual(["discount_factor", "forward_rate"]);
    expect(table.data.discount_factor![0]).toBeCloseTo(1.02 ** -0.25, 14);
  });

  it("lists calls an aborted batch never made as failures instead of throwing", async () => {
    const before = server.to("/api/RateAsset").length;
    const controller = new AbortController();
    controller.abort(new Error("stopped by the user"));
    const { table, failures } = await fetchYieldCurvesColumns(rp, {
      currencies: ["USD"],
      marketDates: ["2026-11-18", "2026-11-19"],
      signal: controller.signal,
      progress: "none",
    });
    expect(table.rowCount).toBe(0);
    expect(table.columns).toEqual([
      "currency",
      "market_date",
      "maturity",
      "rate",
      "fitted_instrument_name",
      "expiry",
      "fitted_instrument_rate",
    ]);
    expect(failures.map((f) => f.error)).toEqual(["stopped by the user", "stopped by the user"]);
    expect(server.to("/api/RateAsset").length).toBe(before);
  });

  it("takes Date market dates and names failures by their ISO string", async () => {
    const { failures } = await fetchYieldCurvesColumns(rp, {
      currencies: ["USD"],
      marketDates: [new Date(`${FAILING_DATE}T00:00:00Z`)],
      progress: "none",
    });
    expect(failures[0]!.market_date).toBe(`${FAILING_DATE}T00:00:00.000Z`);
  });

  it("refuses empty lists and a bad concurrency before sending anything", async () => {
    await expect(fetchYieldCurvesColumns(rp, { currencies: [], marketDates: ["2026-11-19"] })).rejects.toThrow(
      /currencies must be a non-empty array/,
    );
    await expect(fetchYieldCurvesColumns(rp, { currencies: ["USD"], marketDates: [] })).rejects.toThrow(
      /marketDates must be a non-empty array/,
    );
    await expect(
      fetchYieldCurvesColumns(rp, { currencies: ["USD"], marketDates: ["2026-11-19"], concurrency: 0 }),
    ).rejects.toThrow(/concurrency must be a whole number from 1 to 64/);
  });

  it("reports an invalid request (a bad currency code) as that curve's failure", async () => {
    const { failures, table } = await fetchYieldCurvesColumns(rp, {
      currencies: ["usd", "USD"],
      marketDates: ["2026-11-19"],
      progress: "none",
    });
    expect(table.rowCount).toBe(3);
    expect(failures).toEqual([
      {
        currency: "usd",
        market_date: "2026-11-19",
        error: expect.stringMatching(/currency: usd: currency codes are upper case: USD/),
      },
    ]);
  });
});

describe("fetchYieldCurves(rp, options) and pivotCurves(result)", () => {
  it("returns the long DataFrame and the failures", async () => {
    const { frame, failures } = await fetchYieldCurves(rp, {
      currencies: ["USD", "EUR"],
      marketDates: ["2026-11-20", FAILING_DATE],
      progress: "none",
    });
    expect(frame.shape).toEqual([6, 7]);
    expect(frameInfo(frame)!.source).toBe("RateAsset");
    expect(failures).toHaveLength(2);
  });

  it("keeps its pooled connections through an event loop blocked past Node's default keep-alive timeout, as a slow danfo import blocks it", () => {
    // In CI a 5.5 s danfo import (the test above) made the next test's calls fail with ECONNRESET: the
    // in-process server's 5 s idle timer and the client's requests fell due together. The pivot test
    // below is the check; test/helpers/loopback.ts keeps idle connections for 60 s.
    const start = Date.now();
    while (Date.now() - start < 5_600) {
      // blocked
    }
  }, 20_000);

  it("pivots to one row per maturity and one column per curve, missing where a curve has no such pillar", async () => {
    const result = await fetchYieldCurvesColumns(rp, {
      currencies: ["USD", "EUR"],
      marketDates: ["2026-11-19", "2026-11-20"],
      progress: "none",
    });
    const wide = pivotCurvesColumns(result);
    expect(wide.columns).toEqual(["maturity", "USD 2026-11-19", "USD 2026-11-20", "EUR 2026-11-19", "EUR 2026-11-20"]);
    expect(wide.data.maturity).toEqual([0.25, 0.5, 1, 2, 5, 10]);
    expect(wide.data["USD 2026-11-20"]).toEqual([0.021, NaN, 0.023, NaN, 0.025, NaN]);
    const frame = pivotCurves(await yields());
    expect(frame.shape).toEqual([6, 5]);
  });

  it("pivots a chosen value column of a long DataFrame", async () => {
    const { frame } = await fetchYieldCurves(rp, {
      currencies: ["USD"],
      marketDates: ["2026-11-19"],
      derived: true,
      progress: "none",
    });
    const wide = pivotCurvesColumns(frame, { value: "discount_factor" });
    expect(wide.data["USD 2026-11-19"]![0]).toBeCloseTo(Math.exp(-0.02 * 0.25), 14);
  });
});

async function yields() {
  return fetchYieldCurves(rp, {
    currencies: ["USD", "EUR"],
    marketDates: ["2026-11-19", "2026-11-20"],
    progress: "none",
  });
}
