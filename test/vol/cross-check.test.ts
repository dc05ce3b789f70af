/** crossCheck against a real loopback HTTP server that answers GetVol. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STRIKE_TYPE } from "../../src/api/assumptions";
import { BadRequestError, RiskPortalClient, frames } from "../../src";
import { VolModelError, crossCheck, formatSummary, fromSurface } from "../../src/vol";
import { startLoopback, type Loopback, type RecordedRequest, type Reply } from "../helpers/loopback";
import { SAMPLE } from "./reference-model";

const PATH = "/api/Tradable/GetVol";
const STRIKES = [80, 90, 100, 110, 120];

interface GetVolBody {
  surface: typeof SAMPLE;
  maturity: number;
  strikes: number[];
  strike_type: 0 | 1 | 2;
}

/** A GetVol that is the local model, with a bump on some maturities and a 400 on others. */
function getVolHandler(options: { bump?: Record<number, number>; reject?: number[]; delayMs?: number } = {}) {
  let inFlight = 0;
  let maxInFlight = 0;
  const handler = async (req: RecordedRequest): Promise<Reply> => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
      const body = req.json as GetVolBody;
      if (options.reject?.includes(body.maturity)) {
        return {
          status: 400,
          body: { title: "Invalid maturity", status: 400, detail: `maturity ${body.maturity} is not supported` },
        };
      }
      const vols = Array.from(fromSurface(body.surface).vols(body.maturity, body.strikes, body.strike_type));
      const bump = options.bump?.[body.maturity] ?? 0;
      return { body: { vols: vols.map((v, j) => (j === 2 ? v + bump : v)), strike_type: body.strike_type } };
    } finally {
      inFlight--;
    }
  };
  return {
    handler,
    get maxInFlight() {
      return maxInFlight;
    },
  };
}

let server: Loopback;
let rp: RiskPortalClient;
beforeAll(async () => {
  server = await startLoopback();
  rp = new RiskPortalClient({ baseUrl: server.url, auth: { token: "t-vol" }, retry: false });
});
afterAll(() => server.close());

describe("crossCheck", () => {
  it("agrees to the last bit with a service that runs the same model", async () => {
    server.on(PATH, getVolHandler().handler);
    const result = await crossCheck(rp, SAMPLE, { maturities: [30, 60, 365, 700], strikes: STRIKES });
    expect(result.rows).toHaveLength(20);
    expect(result.strikeType).toBe(STRIKE_TYPE.PercentForward);
    expect(result.tolerance).toBe(1e-8);
    expect(result.summary).toMatchObject({
      maturities: 4,
      answered: 4,
      rows: 20,
      maxAbsDifference: 0,
      beyondTolerance: 0,
      flagged: 0,
      failed: [],
      ok: true,
    });
    for (const row of result.rows) {
      expect(row.difference).toBe(0);
      expect(row.flagged).toBe(false);
      expect(row).not.toHaveProperty("error");
    }
    expect(result.rows.map((r) => [r.maturity, r.strike]).slice(0, 6)).toEqual([
      [30, 80],
      [30, 90],
      [30, 100],
      [30, 110],
      [30, 120],
      [60, 80],
    ]);
  });

  it("sends the surface in wire form with the strikes and strike type it was given", async () => {
    server.on(PATH, getVolHandler().handler);
    const before = server.to(PATH).length;
    await crossCheck(
      rp,
      { ...SAMPLE, reference_date: new Date("2026-11-20T00:00:00Z"), vols: new Float64Array(SAMPLE.vols) },
      {
        maturities: [91],
        strikes: new Float64Array([5000, 5400]),
        strikeType: STRIKE_TYPE.Absolute,
      },
    );
    const sent = server.to(PATH).slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.json).toMatchObject({
      maturity: 91,
      strikes: [5000, 5400],
      strike_type: 0,
      surface: { ...SAMPLE, reference_date: "2026-11-20T00:00:00.000Z" },
    });
  });

  it("flags the rows beyond tolerance and keeps the other maturities, and a 400 only costs its own maturity", async () => {
    server.on(PATH, getVolHandler({ bump: { 91: 3e-6 }, reject: [182] }).handler);
    const result = await crossCheck(rp, SAMPLE, { maturities: [30, 91, 182, 365], strikes: STRIKES });
    const s = result.summary;
    expect(s).toMatchObject({
      maturities: 4,
      answered: 3,
      rows: 20,
      beyondTolerance: 1,
      flagged: 6,
      ok: false,
      maxAt: { maturity: 91, strike: 100 },
    });
    expect(s.maxAbsDifference).toBeCloseTo(3e-6, 12);
    const bumped = result.rows.filter((r) => r.maturity === 91);
    expect(bumped.map((r) => r.flagged)).toEqual([false, false, true, false, false]);
    expect(bumped[2]!.difference).toBeCloseTo(3e-6, 12);
    expect(s.failed).toHaveLength(1);
    expect(s.failed[0]!.maturity).toBe(182);
    expect(s.failed[0]!.error).toMatch(/^GetVol failed: HTTP 400 .*Invalid maturity: maturity 182 is not supported/);
    expect(s.failed[0]!.cause).toBeInstanceOf(BadRequestError);
    const rejected = result.rows.filter((r) => r.maturity === 182);
    expect(rejected).toHaveLength(5);
    for (const row of rejected) {
      expect(row).toMatchObject({ service_vol: null, difference: null, flagged: true, error: s.failed[0]!.error });
      expect(row.local_vol).toBeGreaterThan(0);
    }
    expect(result.rows.filter((r) => r.maturity === 365).every((r) => r.difference === 0)).toBe(true);
    // Where the service's vols came from: one record per answered maturity, in maturity order.
    expect(
      result.provenance.map((p) => [p.operation, p.source, (p.request.body as { maturity: number }).maturity]),
    ).toEqual([
      ["GetVol", "live", 30],
      ["GetVol", "live", 91],
      ["GetVol", "live", 365],
    ]);
    expect(frames.provenance(result)).toEqual(result.provenance);
    expect(formatSummary(result)).toMatch(
      /^3\/4 maturities answered, 20 rows; max \|service − local\| = 0\.03 vol bp at maturity 91 d, strike 100; 1 beyond ±0\.0001 vol bp\nmaturity 182 d failed: GetVol failed: HTTP 400/,
    );
  });

  it("honours a looser tolerance", async () => {
    server.on(PATH, getVolHandler({ bump: { 91: 3e-6 } }).handler);
    const result = await crossCheck(rp, SAMPLE, { maturities: [91], strikes: STRIKES, tolerance: 1e-5 });
    expect(result.summary.ok).toBe(true);
    expect(result.rows.some((r) => r.flagged)).toBe(false);
  });

  it("keeps at most `concurrency` calls in flight and reports progress per maturity", async () => {
    const h = getVolHandler({ delayMs: 30 });
    server.on(PATH, h.handler);
    const progress: [number, number][] = [];
    const result = await crossCheck(rp, SAMPLE, {
      maturities: [10, 20, 30, 40, 50, 60, 70],
      strikes: [100],
      concurrency: 3,
      onProgress: (done, total) => progress.push([done, total]),
    });
    expect(h.maxInFlight).toBe(3);
    expect(progress).toEqual([1, 2, 3, 4, 5, 6, 7].map((d) => [d, 7]));
    expect(result.rows.map((r) => r.maturity)).toEqual([10, 20, 30, 40, 50, 60, 70]);

    const d = getVolHandler({ delayMs: 20 });
    server.on(PATH, d.handler);
    await crossCheck(rp, SAMPLE, { maturities: [10, 20, 30, 40, 50, 60, 70], strikes: [100] });
    expect(d.maxInFlight).toBe(4);
  });

  it("turns a reply with the wrong number of vols or a dropped connection into that maturity's error", async () => {
    server.on(PATH, (req) => {
      const body = req.json as GetVolBody;
      if (body.maturity === 30) return { body: { vols: [0.2], strike_type: 1 } };
      if (body.maturity === 60) return { destroy: true };
      return getVolHandler().handler(req);
    });
    const result = await crossCheck(rp, SAMPLE, { maturities: [30, 60, 90], strikes: STRIKES });
    expect(result.summary.failed.map((f) => f.maturity)).toEqual([30, 60]);
    expect(result.summary.failed[0]!.error).toBe("GetVol returned 1 vols for 5 strikes");
    expect(result.summary.failed[1]!.error).toMatch(
      /^GetVol failed: the connection to \S+ broke before an answer arrived/,
    );
    expect(result.summary.answered).toBe(1);
  });

  it("rejects with the abort reason when aborted, and sends nothing when aborted before it starts", async () => {
    server.on(PATH, getVolHandler({ delayMs: 200 }).handler);
    const controller = new AbortController();
    const pending = crossCheck(rp, SAMPLE, {
      maturities: [10, 20, 30, 40, 50, 60],
      strikes: [100],
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(new Error("user stopped")), 50);
    await expect(pending).rejects.toThrow("user stopped");

    const before = server.to(PATH).length;
    await expect(
      crossCheck(rp, SAMPLE, { maturities: [10], strikes: [100], signal: AbortSignal.abort(new Error("already")) }),
    ).rejects.toThrow("already");
    expect(server.to(PATH).length).toBe(before);
  });

  it("refuses a bad surface or bad options locally, before any call", async () => {
    const before = server.to(PATH).length;
    await expect(
      crossCheck(rp, { ...SAMPLE, skews: [0.9, 0, 0, 0] }, { maturities: [30], strikes: [100] }),
    ).rejects.toThrow(/benchmark 0 \(maturity 30 d\): skew must satisfy/);
    await expect(crossCheck(rp, SAMPLE, { maturities: [30, 0], strikes: [100] })).rejects.toThrow(VolModelError);
    await expect(crossCheck(rp, SAMPLE, { maturities: [30], strikes: [100, -1] })).rejects.toThrow(
      "strikes[1] must be a finite number > 0; got -1",
    );
    await expect(crossCheck(rp, SAMPLE, { maturities: [30], strikes: [100], concurrency: 0 })).rejects.toThrow(
      /concurrency must be an integer >= 1/,
    );
    await expect(crossCheck(rp, SAMPLE, { maturities: [30], strikes: [100], tolerance: -1 })).rejects.toThrow(
      /tolerance must be a number >= 0/,
    );
    await expect(
      crossCheck(rp, SAMPLE, { maturities: [30], strikes: [0.5], strikeType: "delta" as never }),
    ).rejects.toThrow(/strikeType must be a wire strike type/);
    expect(server.to(PATH).length).toBe(before);
  });

  it("returns an empty check for no maturities", async () => {
    const result = await crossCheck(rp, SAMPLE, { maturities: [], strikes: [100] });
    expect(result.rows).toEqual([]);
    expect(result.summary).toMatchObject({ maturities: 0, answered: 0, maxAbsDifference: 0, maxAt: null, ok: true });
  });
});
