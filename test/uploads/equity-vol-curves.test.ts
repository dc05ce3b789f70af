import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RiskPortalClient } from "../../src";
import { equityVolCurveRecords, uploadEquityVolCurves } from "../../src/uploads/equity-vol-curves";
import { formatRowError, RowValidationError } from "../../src/uploads/errors";
import { startLoopback, type Loopback } from "../helpers/loopback";
import { fixturePath } from "../frames/helpers/fixtures";

const GOOD = { csvFile: fixturePath("equity-vol-curves.csv") };
const BAD = { csvFile: fixturePath("equity-vol-curves-bad.csv") };

describe("equityVolCurveRecords(source)", () => {
  it("groups one row per asset and maturity into one curve per asset, maturities ascending", () => {
    const { curves, errors, rows } = equityVolCurveRecords(GOOD);
    expect(errors).toEqual([]);
    expect(curves).toEqual([
      {
        asset_id: { code: "AAPL", market_identification_code: "XNAS" },
        reference_date: "2026-11-20T00:00:00Z",
        maturities: [30, 91, 365],
        vols: [0.2412, 0.2301, 0.2104],
        spot_ref: 189.5,
      },
      {
        asset_id: { code: "SPX", market_identification_code: "XCBO" },
        reference_date: "2026-11-20T00:00:00Z",
        maturities: [30, 182, 730],
        vols: [0.162, 0.171, 0.1805],
        spot_ref: 5321.5,
      },
    ]);
    expect(rows).toEqual([
      [1, 0, 2],
      [3, 4, 5],
    ]);
  });

  it("reports every bad row: repeated maturity, the schema's own checks, conflicting spot_ref, bad cells", () => {
    const { curves, errors } = equityVolCurveRecords(BAD);
    expect(curves).toEqual([]);
    expect(errors.map(formatRowError)).toEqual([
      "line 3 (row 1): maturity: maturity 30 repeats for this asset and reference date with another vol (0.2412 on row 0, 0.2301 here); one row per maturity",
      "line 4 (row 2): vol: must be > 0 (decimal, 0.2 = 20%)",
      "line 5 (row 3): spot_ref: 5300 differs from 5321.5 on row 2; one spot_ref per curve",
      'line 6 (row 4): maturity: expected number, got "abc"',
      "line 7 (row 5): asset_id.code: missing",
    ]);
  });

  it("splits curves of one asset by reference date and accepts nested asset_id objects", () => {
    const { curves } = equityVolCurveRecords([
      {
        asset_id: { code: "SPX", market_identification_code: "XCBO" },
        reference_date: "2026-11-19",
        maturity: 30,
        vol: 0.17,
      },
      {
        asset_id: { code: "SPX", market_identification_code: "XCBO" },
        reference_date: "2026-11-20",
        maturity: 30,
        vol: 0.16,
      },
    ]);
    expect(curves.map((c) => c.reference_date)).toEqual(["2026-11-19T00:00:00Z", "2026-11-20T00:00:00Z"]);
  });

  it("takes a row that is already a whole curve", () => {
    const { curves, errors } = equityVolCurveRecords([
      {
        code: "AAPL",
        market_identification_code: "XNAS",
        reference_date: "2026-11-20",
        maturities: [30, 90],
        vols: [0.25, 0.24],
      },
    ]);
    expect(errors).toEqual([]);
    expect(curves[0]!.maturities).toEqual([30, 90]);
    const bad = equityVolCurveRecords([
      {
        code: "AAPL",
        market_identification_code: "XNAS",
        reference_date: "2026-11-20",
        maturities: [30, 90],
        vols: [0.25],
      },
    ]);
    expect(bad.errors.map(formatRowError)).toEqual([
      "row 0: vols: has 1 values but maturities has 2; they must have the same length",
    ]);
  });

  it("reports an unknown column", () => {
    const { errors } = equityVolCurveRecords({
      csv: "code,market_identification_code,reference_date,maturity,volatility\nA,X,2026-11-20,30,0.2\n",
    });
    expect(errors.map(formatRowError)).toEqual([
      expect.stringMatching(/^line 1: volatility: unknown column; expected code, market_identification_code, /),
      "line 2 (row 0): vol: missing",
    ]);
  });
});

describe("uploadEquityVolCurves(rp, source) over HTTP", () => {
  let server: Loopback;
  let rp: RiskPortalClient;
  beforeAll(async () => {
    server = await startLoopback({
      "/api/MarketData/UploadEquityVolCurves": {
        body: {
          $type: "Service.Web.Core.MarketData.ApiUploadEquityVolCurvesResponse, Service.Web.Core",
          is_success: true,
          error_messages: [],
        },
      },
    });
    rp = new RiskPortalClient({ baseUrl: server.url, auth: { token: "test-bearer-token-123" } });
  });
  afterAll(() => server.close());

  it("sends nothing when a row is bad", async () => {
    await expect(uploadEquityVolCurves(rp, BAD)).rejects.toBeInstanceOf(RowValidationError);
    expect(server.to("/api/MarketData/UploadEquityVolCurves")).toHaveLength(0);
  });

  it("uploads one curve per asset", async () => {
    await uploadEquityVolCurves(rp, GOOD);
    const sent = server.to("/api/MarketData/UploadEquityVolCurves").at(-1)!.json as {
      use_best_effort: boolean;
      equity_vol_curves: { maturities: number[] }[];
    };
    expect(sent.use_best_effort).toBeUndefined(); // not set: the service's default (false) applies
    expect(sent.equity_vol_curves.map((c) => c.maturities)).toEqual([
      [30, 91, 365],
      [30, 182, 730],
    ]);
  });
});
