/**
 * Provenance on frames: every adapter carries the provenance of the response it is given into
 * `meta.provenance` and `frameInfo(df).provenance`; parts of responses carry none; batches keep one
 * entry per response in request order; concat, pivot and `fromDataFrame` keep it; `frames.provenance`
 * reads it off every kind of input. Responses are stamped with `attachProvenance` as the pipeline does
 * (the real pipeline's records are checked in provenance.live.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DataFrame } from "../../vendor/danfo";
import { RiskPortalClient } from "../../src";
import type { OperationDef, RequestInput, ResponseOf } from "../../src/api/operation";
import { canonicalRequest } from "../../src/record/canonical";
import type { CallOptions } from "../../src/client/pipeline";
import { attachProvenance, type Provenance } from "../../src/client/provenance";
import * as frames from "../../src/frames";
import { startLoopback, type Loopback, type RecordedRequest } from "../helpers/loopback";
import { apiKeysReply, curveReply, reportInfoReply } from "../helpers/samples";

const BASE = "http://127.0.0.1:4321";

/** A provenance record as the pipeline makes one (fixed time, so tests compare whole records). */
function record(operation: string, path: string, body: unknown, second = 0): Provenance {
  return {
    operation,
    request: canonicalRequest("POST", path, undefined, body),
    receivedAt: `2026-11-22T01:40:${String(second).padStart(2, "0")}.345Z`,
    source: "live",
    baseUrl: BASE,
    requestId: `req-${operation}-${second}`,
  };
}

/** A fresh copy of a sample reply with `p` attached, as the client returns it. */
function stamped<T>(reply: T, p: Provenance): T {
  return attachProvenance(structuredClone(reply), p);
}

const curveP = record("RateAsset", "/api/RateAsset", { currency: "EUR", market_date: "2026-11-19" });
const volRequest = { maturity: 91, strikes: [90, 100, 110], strike_type: 1 };
const volReply = { vols: [0.24, 0.22, 0.21], strike_type: 1 };
const volP = record("GetVol", "/api/Tradable/GetVol", volRequest);
const tradesReply = {
  $type: "Service.Web.Core.Positions.ApiGetTransactionTableResponse, Service.Web.Core",
  data_table: [
    { trade_id: "T1", trade_date: "2026-11-18T00:00:00Z", quantity: 100, counterparty: "GS" },
    { trade_id: "T2", trade_date: "2026-11-19T00:00:00Z", quantity: -50, counterparty: "JPM" },
  ],
};
const tradesP = record("GetTransactionTable", "/api/Position/GetTransactionTable", { portfolio_name: "GLOBAL-MACRO" });
const reportInfosP = record("GetReportInfos", "/api/Report/GetReportInfos", { pricing_date: "2026-11-20" });
const listReply = { report_infos: [{ report_type: "VaR", report_name: "Desk VaR 99% 1d" }] };
const listP = record("ReportInfos", "/api/Report/ReportInfos", undefined);
const lookBacksReply = { look_backs: ["6M", "1Y", "2Y"] };
const lookBacksP = record("LookBacks", "/api/Report/LookBacks", undefined);
const keysP = record("ApiKeys", "/api/User/me/ApiKeys", undefined);
const effectsReply = {
  pricing_date: "2026-11-20T00:00:00Z",
  position_effects: [
    { quantity: 100, contract: { identifier: "AAPL.XNAS" } },
    { quantity: -18950, contract: { identifier: "USD" } },
  ],
};
const effectsP = record("GetTradeEventPositionEffects", "/api/Tradable/GetTradeEventPositionEffects", {
  tradable_id: "AAPL.XNAS",
});
const outcomeReply = {
  $type: "Service.Web.Core.ApiOperationOutcome, Service.Web.Core",
  is_success: false,
  error_messages: ["bond_data[1]: unknown bond"],
};
const outcomeP = record("UploadBondPriceData", "/api/MarketData/UploadBondPriceData", { bond_data: [] });

interface Case {
  name: string;
  expected: Provenance[];
  columns: () => frames.ColumnTable;
  frame: () => DataFrame;
}

/** Every adapter that takes a response, given a stamped one. */
const cases: Case[] = [
  {
    name: "yieldCurve",
    expected: [curveP],
    columns: () => frames.yieldCurveColumns(stamped(curveReply, curveP)),
    frame: () => frames.yieldCurve(stamped(curveReply, curveP)),
  },
  {
    name: "yieldCurve (derived)",
    expected: [curveP],
    columns: () => frames.yieldCurveColumns(stamped(curveReply, curveP), { derived: true }),
    frame: () => frames.yieldCurve(stamped(curveReply, curveP), { derived: true }),
  },
  {
    name: "volResults (response, request)",
    expected: [volP],
    columns: () => frames.volResultsColumns(stamped(volReply, volP), volRequest),
    frame: () => frames.volResults(stamped(volReply, volP), volRequest),
  },
  {
    name: "volResultsWide (response, request)",
    expected: [volP],
    columns: () => frames.volResultsWideColumns(stamped(volReply, volP), volRequest),
    frame: () => frames.volResultsWide(stamped(volReply, volP), volRequest),
  },
  {
    name: "transactionTable",
    expected: [tradesP],
    columns: () => frames.transactionTableColumns(stamped(tradesReply, tradesP)),
    frame: () => frames.transactionTable(stamped(tradesReply, tradesP)),
  },
  {
    name: "transactionTable (no rows)",
    expected: [tradesP],
    columns: () => frames.transactionTableColumns(stamped({ data_table: [] }, tradesP)),
    frame: () => frames.transactionTable(stamped({ data_table: [] }, tradesP)),
  },
  {
    name: "reportInfos",
    expected: [reportInfosP],
    columns: () => frames.reportInfosColumns(stamped(reportInfoReply, reportInfosP)),
    frame: () => frames.reportInfos(stamped(reportInfoReply, reportInfosP)),
  },
  {
    name: "reportList",
    expected: [listP],
    columns: () => frames.reportListColumns(stamped(listReply, listP)),
    frame: () => frames.reportList(stamped(listReply, listP)),
  },
  {
    name: "lookBacks",
    expected: [lookBacksP],
    columns: () => frames.lookBacksColumns(stamped(lookBacksReply, lookBacksP)),
    frame: () => frames.lookBacks(stamped(lookBacksReply, lookBacksP)),
  },
  {
    name: "apiKeys (an array response)",
    expected: [keysP],
    columns: () => frames.apiKeysColumns(stamped(apiKeysReply, keysP)),
    frame: () => frames.apiKeys(stamped(apiKeysReply, keysP)),
  },
  {
    name: "apiKeys (revealed)",
    expected: [keysP],
    columns: () => frames.apiKeysColumns(stamped(apiKeysReply, keysP), { reveal: true }),
    frame: () => frames.apiKeys(stamped(apiKeysReply, keysP), { reveal: true }),
  },
  {
    name: "positionEffects",
    expected: [effectsP],
    columns: () => frames.positionEffectsColumns(stamped(effectsReply, effectsP)),
    frame: () => frames.positionEffects(stamped(effectsReply, effectsP)),
  },
  {
    name: "operationOutcome",
    expected: [outcomeP],
    columns: () => frames.operationOutcomeColumns(stamped(outcomeReply, outcomeP)),
    frame: () => frames.operationOutcome(stamped(outcomeReply, outcomeP)),
  },
];

describe("adapters carry the response's provenance", () => {
  it.each(cases)("$name: into meta.provenance and frameInfo(df).provenance", ({ columns, frame, expected }) => {
    const table = columns();
    expect(table.meta.provenance).toEqual(expected);
    expect(frames.provenance(table)).toEqual(expected);
    const df = frame();
    expect(frames.frameInfo(df)?.provenance).toEqual(expected);
    expect(frames.provenance(df)).toEqual(expected);
  });

  it("volResults of many results: one entry per response, in order", () => {
    const other = record("GetVol", "/api/Tradable/GetVol", { ...volRequest, maturity: 182 }, 1);
    const results = [
      { request: volRequest, response: stamped(volReply, volP) },
      { request: { ...volRequest, maturity: 182 }, response: stamped(volReply, other) },
    ];
    expect(frames.volResultsColumns(results).meta.provenance).toEqual([volP, other]);
    expect(frames.frameInfo(frames.volResults(results))?.provenance).toEqual([volP, other]);
    expect(frames.volResultsWideColumns(results).meta.provenance).toEqual([volP, other]);
    expect(frames.frameInfo(frames.volResultsWide(results))?.provenance).toEqual([volP, other]);
  });

  it("a part of a response, an unstamped response or a local grid has none ([])", () => {
    const curve = stamped(curveReply, curveP);
    expect(frames.yieldCurveColumns(curve.yield_curve_model).meta.provenance).toEqual([]);
    expect(frames.reportInfosColumns(stamped(reportInfoReply, reportInfosP).report_infos).meta.provenance).toEqual([]);
    expect(frames.transactionTableColumns(stamped(tradesReply, tradesP).data_table).meta.provenance).toEqual([]);
    expect(frames.lookBacksColumns(["6M"]).meta.provenance).toEqual([]);
    expect(frames.yieldCurveColumns(structuredClone(curveReply)).meta.provenance).toEqual([]);
    expect(frames.frameInfo(frames.yieldCurve(structuredClone(curveReply)))?.provenance).toEqual([]);
    const grid = { maturities: [30, 91], strikes: [90, 110], strikeType: 1, vols: [0.2, 0.21, 0.22, 0.23] };
    expect(frames.volGridColumns(grid).meta.provenance).toEqual([]);
    expect(frames.volGridWideColumns(grid).meta.provenance).toEqual([]);
    expect(frames.emptyTable("x").meta.provenance).toEqual([]);
  });

  it("the record is not copied into the table's columns or fields", () => {
    const table = frames.yieldCurveColumns(stamped(curveReply, curveP));
    expect(JSON.stringify(table.meta.fields)).not.toContain("live");
    expect(table.columns).toEqual([...frames.YIELD_CURVE_COLUMNS]);
  });
});

describe("derived tables keep provenance", () => {
  const eur = record("RateAsset", "/api/RateAsset", { currency: "EUR", market_date: "2026-11-19" }, 1);
  const usd = record("RateAsset", "/api/RateAsset", { currency: "USD", market_date: "2026-11-19" }, 2);
  const usdReply = structuredClone(curveReply);
  usdReply.yield_curve_model.currency = "USD";
  const long = () =>
    frames.concatColumns(
      [frames.yieldCurveColumns(stamped(curveReply, eur)), frames.yieldCurveColumns(stamped(usdReply, usd))],
      "RateAsset",
    );

  it("concatColumns merges the lists in table order", () => {
    expect(long().meta.provenance).toEqual([eur, usd]);
    expect(frames.concatColumns([long(), frames.lookBacksColumns(["6M"])], "mixed").meta.provenance).toEqual([
      eur,
      usd,
    ]);
  });

  it("pivot and pivotCurves keep them, from a table, a frame and batch results", () => {
    const options = { index: "maturity", columns: "currency", values: "rate" };
    expect(frames.pivotColumns(long(), options).meta.provenance).toEqual([eur, usd]);
    expect(frames.frameInfo(frames.pivot(long(), options))?.provenance).toEqual([eur, usd]);
    const df = frames.toDataFrame(long());
    for (const input of [long(), df, { table: long(), failures: [] }, { frame: df, failures: [] }]) {
      expect(frames.pivotCurvesColumns(input).meta.provenance).toEqual([eur, usd]);
      expect(frames.provenance(frames.pivotCurves(input))).toEqual([eur, usd]);
    }
  });

  it("fromDataFrame keeps them; a frame derived with danfo operations has none", () => {
    const df = frames.toDataFrame(long());
    expect(frames.fromDataFrame(df).meta.provenance).toEqual([eur, usd]);
    expect(frames.provenance(df.head(2))).toEqual([]);
    expect(frames.fromDataFrame(df.head(2)).meta.provenance).toEqual([]);
  });
});

describe("frames.provenance(x)", () => {
  it("reads a column table, a DataFrame, batch results and a response", () => {
    const table = frames.yieldCurveColumns(stamped(curveReply, curveP));
    const df = frames.toDataFrame(table);
    expect(frames.provenance(table)).toEqual([curveP]);
    expect(frames.provenance(df)).toEqual([curveP]);
    expect(frames.provenance({ table, failures: [] })).toEqual([curveP]);
    expect(frames.provenance({ frame: df, failures: [] })).toEqual([curveP]);
    expect(frames.provenance(stamped(curveReply, curveP))).toEqual([curveP]);
    expect(frames.provenance(stamped(apiKeysReply, keysP))).toEqual([keysP]);
  });

  it("is [] for anything else", () => {
    for (const x of [
      undefined,
      null,
      42,
      "RateAsset",
      {},
      [],
      structuredClone(curveReply),
      { table: 1 },
      { frame: null },
    ])
      expect(frames.provenance(x)).toEqual([]);
  });

  it("returns a copy: changing it does not change the table", () => {
    const table = frames.yieldCurveColumns(stamped(curveReply, curveP));
    frames.provenance(table).pop();
    expect(table.meta.provenance).toEqual([curveP]);
  });
});

/**
 * Stands in for the pipeline's provenance (one record per response, from the operation and the input)
 * so the batch order can be checked with fixed values; requests go over real HTTP to a loopback server.
 */
class StampingClient extends RiskPortalClient {
  override async request<Op extends OperationDef>(
    op: Op,
    input: RequestInput<Op>,
    options?: CallOptions,
  ): Promise<ResponseOf<Op>> {
    const response = await super.request(op, input, options);
    return attachProvenance(response, record(op.name, op.path, input));
  }
}

describe("batches: one entry per response, in request order", () => {
  const FAILING = "2026-11-21";
  let server: Loopback;
  let rp: StampingClient;

  beforeAll(async () => {
    server = await startLoopback({
      "/api/RateAsset": async (req: RecordedRequest) => {
        const { currency, market_date } = req.json as { currency: string; market_date: string };
        if (market_date.startsWith(FAILING)) return { status: 400, body: { title: "No curve", status: 400 } };
        // The first currency answers last, so arrival order differs from request order.
        await new Promise((r) => setTimeout(r, currency === "USD" ? 20 : 0));
        return {
          body: {
            yield_curve_model: {
              currency,
              market_date,
              data: [{ maturity: 1, rate: currency === "USD" ? 0.04 : 0.025 }],
            },
          },
        };
      },
      "/api/Report/GetReportInfos": (req: RecordedRequest) => {
        const { pricing_date } = req.json as { pricing_date: string };
        if (pricing_date.startsWith(FAILING))
          return { status: 503, body: { title: "Service Unavailable", status: 503 } };
        return {
          body: {
            report_infos: [
              { id: `var-${pricing_date.slice(0, 10)}`, report_name: "Desk VaR", status: "succeeded", pricing_date },
            ],
          },
        };
      },
      "/api/Position/GetTransactionTable": { body: tradesReply },
    });
    rp = new StampingClient({ baseUrl: server.url, auth: { token: "test-bearer-token-123" }, retry: false });
  });
  afterAll(() => server.close());

  /** A field of each record's request body (dates as `YYYY-MM-DD`). */
  const asked = (list: Provenance[], key: string) =>
    list.map((p) => String((p.request.body as Record<string, unknown>)[key]).slice(0, 10));

  it("fetchYieldCurves: the curves fetched, currency-major; failed calls have none; pivotCurves keeps them", async () => {
    const options = {
      currencies: ["USD", "EUR"],
      marketDates: ["2026-11-19", FAILING, "2026-11-20"],
      progress: "none" as const,
    };
    const { table } = await frames.fetchYieldCurvesColumns(rp, options);
    expect(table.meta.provenance.map((p) => p.operation)).toEqual(Array(4).fill("RateAsset"));
    expect(asked(table.meta.provenance, "currency")).toEqual(["USD", "USD", "EUR", "EUR"]);
    expect(asked(table.meta.provenance, "market_date")).toEqual([
      "2026-11-19",
      "2026-11-20",
      "2026-11-19",
      "2026-11-20",
    ]);
    const batch = await frames.fetchYieldCurves(rp, options);
    expect(frames.provenance(batch)).toEqual(table.meta.provenance);
    expect(frames.provenance(frames.pivotCurves(batch))).toEqual(table.meta.provenance);
    const none = await frames.fetchYieldCurvesColumns(rp, { ...options, marketDates: [FAILING] });
    expect(none.table.meta.provenance).toEqual([]);
  });

  it("fetchReportInfosByDate: the dates fetched, in the order given", async () => {
    const options = { pricingDates: ["2026-11-20", FAILING, "2026-11-18"], progress: "none" as const };
    const { table } = await frames.fetchReportInfosByDateColumns(rp, options);
    expect(asked(table.meta.provenance, "pricing_date")).toEqual(["2026-11-20", "2026-11-18"]);
    expect(frames.provenance(await frames.fetchReportInfosByDate(rp, options))).toEqual(table.meta.provenance);
  });

  it("fetchTransactionTable: the response the lean fetch gets back", async () => {
    const table = await frames.fetchTransactionTableColumns(rp, { portfolio_name: "GLOBAL-MACRO" });
    expect(table.rowCount).toBe(2);
    expect(table.meta.provenance).toEqual([
      record("GetTransactionTable", "/api/Position/GetTransactionTable", { portfolio_name: "GLOBAL-MACRO" }),
    ]);
    expect(frames.provenance(await frames.fetchTransactionTable(rp, { portfolio_name: "GLOBAL-MACRO" }))).toHaveLength(
      1,
    );
  });
});
