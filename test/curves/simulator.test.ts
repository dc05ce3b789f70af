/**
 * curves.fromResponse on every curve the simulator serves (5 currencies × 6 market dates), fetched over
 * real HTTP through the client, under each interpolation.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RiskPortalClient, type RateAssetResponse } from "../../src";
import { fromResponse, INTERPOLATIONS, spread, type Curve } from "../../src/curves";
import { startSimulator, type Simulator } from "../../src/sim";
import { CURRENCIES } from "../../src/sim/data/curves";

/** Weekdays inside the simulator's window, two of them month-ends. */
const DATES = ["2025-09-30", "2025-12-31", "2026-02-27", "2026-06-15", "2026-08-31", "2026-11-20"];

let sim: Simulator;
let responses: RateAssetResponse[];

beforeAll(async () => {
  sim = await startSimulator();
  const rp = new RiskPortalClient({ baseUrl: sim.url, auth: { apiKey: sim.credentials.apiKey } });
  responses = [];
  for (const currency of CURRENCIES)
    for (const market_date of DATES) responses.push(await rp.rateAsset.getCurve({ currency, market_date }));
});
afterAll(() => sim?.close());

const each = (f: (curve: Curve, response: RateAssetResponse) => void, interpolation = INTERPOLATIONS) => {
  for (const kind of interpolation) for (const r of responses) f(fromResponse(r, { interpolation: kind }), r);
};

/** `count` times from 0 to `end`, with every pillar and its neighbours at ±1e-9 years. */
function grid(curve: Curve, end: number, count: number): number[] {
  const out = Array.from({ length: count + 1 }, (_, i) => (i * end) / count);
  for (const p of curve.pillars) out.push(p.t, p.t - 1e-9, p.t + 1e-9);
  return out.filter((t) => t >= 0).sort((a, b) => a - b);
}

describe("curves.fromResponse on the simulator's curves", () => {
  it("fetched 30 curves over HTTP, each with at least 15 pillars", () => {
    expect(responses).toHaveLength(30);
    for (const r of responses) expect(r.yield_curve_model.data.length).toBeGreaterThanOrEqual(15);
  });

  it("reproduces every pillar's rate exactly (===) under each interpolation, by t and by the pillar's own number", () => {
    let checked = 0;
    each((curve, r) => {
      for (const p of r.yield_curve_model.data) {
        expect(curve.zeroRate(p.maturity)).toBe(p.rate);
        checked++;
      }
    });
    expect(checked).toBeGreaterThan(1500);
  });

  it("discount factors and forwards agree with the zero curve to 1e-12", () => {
    let maxDf = 0;
    let maxFwd = 0;
    each((curve) => {
      const ts = grid(curve, 40, 800);
      for (let k = 0; k < ts.length; k++) {
        const t = ts[k]!;
        const z = curve.zeroRate(t);
        maxDf = Math.max(maxDf, Math.abs(curve.discountFactor(t) - Math.exp(-z * t)));
        if (k > 0 && t - ts[k - 1]! > 1e-6) {
          const t1 = ts[k - 1]!;
          const expected = (z * t - curve.zeroRate(t1) * t1) / (t - t1);
          maxFwd = Math.max(maxFwd, Math.abs(curve.forwardRate(t1, t) - expected));
        }
      }
    });
    console.log(
      `simulator curves: max |DF − exp(−z·t)| = ${maxDf.toExponential(2)}, max |forward − (z2·t2 − z1·t1)/(t2 − t1)| = ${maxFwd.toExponential(2)}`,
    );
    expect(maxDf).toBeLessThan(1e-12);
    expect(maxFwd).toBeLessThan(1e-12);
  });

  it("monotone convex keeps the instantaneous forward positive on every curve (their discrete forwards are all positive)", () => {
    let minDiscrete = Infinity;
    let minInstant = Infinity;
    let minLinear = Infinity;
    let minInside = Infinity;
    each(
      (curve) => {
        const ts = curve.pillars.map((p) => p.t);
        for (let i = 0; i < ts.length; i++) {
          const fd = i === 0 ? curve.pillars[0]!.rate : curve.forwardRate(ts[i - 1]!, ts[i]!);
          minDiscrete = Math.min(minDiscrete, fd);
        }
        for (const t of grid(curve, 40, 4000)) {
          const f = curve.instantaneousForward(t);
          minInstant = Math.min(minInstant, f);
          if (t >= ts[0]!) minInside = Math.min(minInside, f);
        }
      },
      ["monotone-convex"],
    );
    each(
      (curve) => {
        for (const t of grid(curve, 40, 4000)) minLinear = Math.min(minLinear, curve.instantaneousForward(t));
      },
      ["linear-zero"],
    );
    console.log(
      `simulator curves: min discrete forward ${minDiscrete.toFixed(6)}, min instantaneous forward: monotone convex ${minInstant.toFixed(6)} (${minInside.toFixed(6)} from the first pillar on), linear zero ${minLinear.toFixed(6)}`,
    );
    expect(minDiscrete).toBeGreaterThan(0);
    expect(minInstant).toBeGreaterThan(0);
  });

  it("prices the simulator's swap quotes back to within 1 bp (annual par rates on unadjusted dates; the simulator pays on business days)", () => {
    let worst = 0;
    each(
      (curve, r) => {
        for (const p of r.yield_curve_model.data) {
          const m = / SWAP (\d+)Y$/.exec(p.fitted_instrument_name ?? "");
          if (!m) continue;
          worst = Math.max(worst, Math.abs(curve.parRate(`${m[1]}Y`) - p.fitted_instrument_rate!) * 1e4);
        }
      },
      ["monotone-convex", "linear-zero"],
    );
    console.log(`simulator curves: max |parRate − swap quote| = ${worst.toFixed(4)} bp`);
    expect(worst).toBeLessThan(1);
  });

  it("measures a tenor as the service measures its pillars: ACT/365 from the market date to the calendar date, where the pillar's expiry is that date", () => {
    let matched = 0;
    for (const r of responses) {
      const curve = fromResponse(r);
      const day = Date.parse(r.yield_curve_model.market_date.slice(0, 10));
      for (const p of r.yield_curve_model.data) {
        const m = / (\d+[WMY])$/.exec(p.fitted_instrument_name ?? "");
        if (!m || / FUT | FRA /.test(p.fitted_instrument_name ?? "")) continue;
        const tenor = m[1]!;
        const years = curve.years(tenor);
        // Where the business-day adjustment left the expiry alone, the tenor lands on it exactly.
        if (Date.parse(p.expiry!.slice(0, 10)) === day + Math.round(years * 365) * 86_400_000) {
          expect(Math.round(years * 1e6) / 1e6).toBe(p.maturity);
          expect(curve.zeroRate(tenor)).toBe(p.rate);
          matched++;
        }
      }
    }
    expect(matched).toBeGreaterThan(200);
  });

  it("gives each date's 2s10s in bp as the difference of the two zero rates", () => {
    for (const r of responses) {
      const curve = fromResponse(r);
      expect(spread(curve, "2Y", "10Y")).toBeCloseTo((curve.zeroRate("10Y") - curve.zeroRate("2Y")) * 1e4, 9);
    }
  });
});
