/**
 * Provenance end to end: the embedded simulator, the real client and pipeline, and every frames adapter.
 * Each frame (and column table) carries where its rows came from: source `live`, the operation, the
 * simulator's URL, when the response arrived, and the canonical request.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DataFrame } from "../../vendor/danfo";
import { RiskPortalClient } from "../../src";
import { STRIKE_TYPE } from "../../src/api/assumptions";
import type { Provenance } from "../../src/client/provenance";
import * as frames from "../../src/frames";
import { tableHtml, tableText } from "../../src/plot";
import { startSimulator, type Simulator } from "../../src/sim";

const AS_OF = "2026-11-20";

let sim: Simulator;
let rp: RiskPortalClient;
let started: number;

beforeAll(async () => {
  sim = await startSimulator({ rateLimit: false, transactionRows: 200 });
  rp = new RiskPortalClient({ baseUrl: sim.url, auth: { apiKey: sim.credentials.apiKey }, retry: false });
  started = Date.now();
});
afterAll(() => sim.close());

/** One record of a live response to `operation` at `path`, received during this test file. */
function expectLive(p: Provenance | undefined, operation: string, path: string): void {
  expect(p).toBeDefined();
  expect(p!.source).toBe("live");
  expect(p!.operation).toBe(operation);
  expect(p!.baseUrl).toBe(sim.url);
  expect(p!.receivedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
  expect(new Date(p!.receivedAt).toISOString()).toBe(p!.receivedAt);
  expect(Date.parse(p!.receivedAt)).toBeGreaterThanOrEqual(started - 1000);
  expect(Date.parse(p!.receivedAt)).toBeLessThanOrEqual(Date.now() + 1000);
  expect(p!.request.path).toBe(path);
  expect(p!.cassette).toBeUndefined();
}

/** The table and its DataFrame each have exactly one live record for the operation. */
function expectOneLive(table: frames.ColumnTable, df: DataFrame, operation: string, path: string): Provenance {
  expect(table.meta.provenance).toHaveLength(1);
  expectLive(table.meta.provenance[0], operation, path);
  const info = frames.frameInfo(df)?.provenance;
  expect(info).toHaveLength(1);
  expectLive(info![0], operation, path);
  expect(frames.provenance(df)).toEqual(info);
  return table.meta.provenance[0]!;
}

describe("frames from the simulator carry live provenance", () => {
  it("yieldCurve (with the canonical request body)", async () => {
    const response = await rp.rateAsset.getCurve({ currency: "EUR", market_date: AS_OF });
    expectLive(frames.provenance(response)[0], "RateAsset", "/api/RateAsset");
    const p = expectOneLive(
      frames.yieldCurveColumns(response),
      frames.yieldCurve(response, { derived: true }),
      "RateAsset",
      "/api/RateAsset",
    );
    expect(p.request.method).toBe("POST");
    expect(p.request.body).toMatchObject({ currency: "EUR", market_date: `${AS_OF}T00:00:00Z` });
    // The model alone is a part of the response: no provenance.
    expect(frames.yieldCurveColumns(response.yield_curve_model).meta.provenance).toEqual([]);
  });

  it("volResults and volResultsWide", async () => {
    const surface = await (
      await fetch(`${sim.url}/sim/surface?asset=SPX`, { headers: { "x-api-key": sim.credentials.apiKey } })
    ).json();
    const requests = [91, 182].map((maturity) => ({
      surface,
      maturity,
      strikes: [90, 100, 110],
      strike_type: STRIKE_TYPE.PercentForward,
    }));
    const [a, b] = await Promise.all(requests.map((r) => rp.tradable.getVol(r)));
    expectOneLive(
      frames.volResultsColumns(a!, requests[0]!),
      frames.volResults(a!, requests[0]!),
      "GetVol",
      "/api/Tradable/GetVol",
    );
    expectOneLive(
      frames.volResultsWideColumns(a!, requests[0]!),
      frames.volResultsWide(a!, requests[0]!),
      "GetVol",
      "/api/Tradable/GetVol",
    );
    const results = [
      { request: requests[0]!, response: a! },
      { request: requests[1]!, response: b! },
    ];
    for (const list of [
      frames.volResultsColumns(results).meta.provenance,
      frames.provenance(frames.volResultsWide(results)),
    ]) {
      expect(list).toHaveLength(2);
      list.forEach((p) => expectLive(p, "GetVol", "/api/Tradable/GetVol"));
      expect(list.map((p) => (p.request.body as { maturity: number }).maturity)).toEqual([91, 182]);
    }
  });

  it("positionEffects", async () => {
    const tradables = (await (
      await fetch(`${sim.url}/sim/tradables`, { headers: { "x-api-key": sim.credentials.apiKey } })
    ).json()) as {
      id: string;
      next_trade_event: { event: Record<string, unknown> & { $type: string } };
    }[];
    const t = tradables.find((x) => x.id === "SX5E.XEUR")!;
    const response = await rp.tradable.positionEffects({
      tradable_id: t.id,
      pricing_date: AS_OF,
      next_trade_event: t.next_trade_event.event,
    });
    expectOneLive(
      frames.positionEffectsColumns(response),
      frames.positionEffects(response),
      "GetTradeEventPositionEffects",
      "/api/Tradable/GetTradeEventPositionEffects",
    );
  });

  it("transactionTable and fetchTransactionTable", async () => {
    const path = "/api/Position/GetTransactionTable";
    const response = await rp.position.transactionTable({ portfolio_name: "GLOBAL-MACRO" });
    const table = frames.transactionTableColumns(response);
    expect(table.rowCount).toBeGreaterThan(0);
    expectOneLive(table, frames.transactionTable(response), "GetTransactionTable", path);
    const p = expectOneLive(
      await frames.fetchTransactionTableColumns(rp, { portfolio_name: "GLOBAL-MACRO" }),
      await frames.fetchTransactionTable(rp, { portfolio_name: "GLOBAL-MACRO" }),
      "GetTransactionTable",
      path,
    );
    expect(p.request.body).toMatchObject({ portfolio_name: "GLOBAL-MACRO" });
  });

  it("reportInfos, reportList, lookBacks", async () => {
    const infos = await rp.report.infos({ pricing_date: AS_OF });
    expectOneLive(
      frames.reportInfosColumns(infos),
      frames.reportInfos(infos),
      "GetReportInfos",
      "/api/Report/GetReportInfos",
    );
    const list = await rp.report.list();
    expectOneLive(frames.reportListColumns(list), frames.reportList(list), "ReportInfos", "/api/Report/ReportInfos");
    const lookBacks = await rp.report.lookBacks();
    expectOneLive(
      frames.lookBacksColumns(lookBacks),
      frames.lookBacks(lookBacks),
      "LookBacks",
      "/api/Report/LookBacks",
    );
  });

  it("apiKeys (an array response), and the record holds no key value", async () => {
    const keys = await rp.user.apiKeys();
    const p = expectOneLive(frames.apiKeysColumns(keys), frames.apiKeys(keys), "ApiKeys", "/api/User/me/ApiKeys");
    expect(p.request.method).toBe("GET");
    expect(JSON.stringify(p)).not.toContain(sim.credentials.apiKey);
  });

  it("operationOutcome of an upload and of a launcher create", async () => {
    const bond = (code: string) => ({
      date: AS_OF,
      bond_identifier: { code, market_identification_code: "XETR", identifier_type: "ISIN" },
      is_currency_per_bond_unit: false,
      currency: "EUR",
      traded_price: 96,
      is_percentage_of_par: true,
    });
    const upload = await rp.marketData.uploadBondPrices(
      { bond_data: [bond("DE0001102580"), bond("XS0000000000")] },
      { throwOnFailure: false },
    );
    const table = frames.operationOutcomeColumns(upload);
    expect(table.rowCount).toBeGreaterThan(0);
    expectOneLive(table, frames.operationOutcome(upload), "UploadBondPriceData", "/api/MarketData/UploadBondPriceData");
    const launched = await rp.reportLauncher.createVar({
      report_name: "GLOBAL-MACRO VaR 99% 1d",
      reporting_currency: "USD",
      market_data_environment_names: ["EOD"],
      portfolio_name: "GLOBAL-MACRO",
      parameters: { horizon: 1, historical_look_back_period: "1Y", confidence_level: 0.99, run_date: AS_OF },
    });
    expectOneLive(
      frames.operationOutcomeColumns(launched),
      frames.operationOutcome(launched),
      "VarReportLauncherItemCreate",
      "/api/ReportLauncher/VarReportLauncherItemCreate",
    );
  });
});

describe("batches from the simulator: one live record per response, in request order", () => {
  it("fetchYieldCurves and pivotCurves", async () => {
    const batch = await frames.fetchYieldCurves(rp, {
      currencies: ["USD", "EUR"],
      marketDates: ["2026-11-19", AS_OF],
      progress: "none",
    });
    const list = frames.provenance(batch);
    expect(list).toHaveLength(4);
    list.forEach((p) => expectLive(p, "RateAsset", "/api/RateAsset"));
    expect(list.map((p) => (p.request.body as { currency: string }).currency)).toEqual(["USD", "USD", "EUR", "EUR"]);
    expect(frames.provenance(frames.pivotCurves(batch))).toEqual(list);
  });

  it("fetchReportInfosByDate", async () => {
    const { table } = await frames.fetchReportInfosByDateColumns(rp, {
      pricingDates: ["2026-11-18", "2026-11-19", AS_OF],
      progress: "none",
    });
    expect(table.meta.provenance).toHaveLength(3);
    table.meta.provenance.forEach((p) => expectLive(p, "GetReportInfos", "/api/Report/GetReportInfos"));
    expect(
      table.meta.provenance.map((p) => String((p.request.body as { pricing_date: string }).pricing_date).slice(0, 10)),
    ).toEqual(["2026-11-18", "2026-11-19", AS_OF]);
  });
});

describe("the display footer", () => {
  it("names the operation, the request, live, the simulator and the time, in HTML and text", async () => {
    const df = frames.yieldCurve(await rp.rateAsset.getCurve({ currency: "USD", market_date: AS_OF }));
    const line = tableText(df).split("\n").at(-1)!;
    expect(line).toMatch(
      new RegExp(
        `^source: RateAsset \\{.*"currency":"USD".*\\} · live from ${sim.url.replace(/[.]/g, "\\.")} · received \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}Z$`,
      ),
    );
    expect(tableHtml(df)).toContain(
      `<p class="rpl-provenance rpl-muted">RateAsset {&quot;currency&quot;:&quot;USD&quot;`,
    );
  });
});
