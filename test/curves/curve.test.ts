/**
 * Curve on hand-made curves: exact at the pillars, DF / forwards consistent with the zero curve, each
 * interpolation against an independent straightforward implementation, extrapolation, par rates, errors.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RiskPortalError } from "../../src";
import { Curve, CurveError, fromResponse, INTERPOLATIONS, type Interpolation } from "../../src/curves";

const MARKET = "2026-11-20T00:00:00+00:00";
const TS = [0.25, 1, 2, 5, 10, 30];
const ZS = [0.031, 0.034, 0.033, 0.036, 0.04, 0.038];

function curve(interpolation: Interpolation = "linear-zero", ts = TS, zs = ZS, extra: object = {}): Curve {
  return fromResponse(
    {
      $type: "x",
      yield_curve_model: {
        currency: "EUR",
        market_date: MARKET,
        data: ts.map((t, i) => ({ maturity: t, rate: zs[i]!, expiry: null })),
      },
    },
    { interpolation, ...extra },
  );
}

/** Random curves: 1 to 12 pillars at distinct times in (0, 40], rates in [-1%, 10%]. */
const arbCurve = fc
  .uniqueArray(fc.double({ min: 0.002, max: 40, noNaN: true }), { minLength: 1, maxLength: 12 })
  .chain((ts) =>
    fc.tuple(
      fc.constant([...ts].sort((a, b) => a - b)),
      fc.array(fc.double({ min: -0.01, max: 0.1, noNaN: true }), { minLength: ts.length, maxLength: ts.length }),
    ),
  );

/** The straightforward reference: linear in z, or linear in z·t, between pillars (flat zero before, flat forward after). */
function reference(kind: "linear-zero" | "log-linear-df", ts: number[], zs: number[], t: number): number {
  const n = ts.length;
  if (t <= ts[0]!) return zs[0]!;
  if (t >= ts[n - 1]!) {
    const fwd = n === 1 ? zs[0]! : (zs[n - 1]! * ts[n - 1]! - zs[n - 2]! * ts[n - 2]!) / (ts[n - 1]! - ts[n - 2]!);
    return (zs[n - 1]! * ts[n - 1]! + fwd * (t - ts[n - 1]!)) / t;
  }
  let i = 1;
  while (ts[i]! < t) i++;
  const w = (t - ts[i - 1]!) / (ts[i]! - ts[i - 1]!);
  if (kind === "linear-zero") return zs[i - 1]! + w * (zs[i]! - zs[i - 1]!);
  const logDf = -(1 - w) * zs[i - 1]! * ts[i - 1]! - w * zs[i]! * ts[i]!;
  return -logDf / t;
}

describe("Curve: exact at the pillars", () => {
  it("reproduces each pillar's rate exactly (===) under every interpolation, on random curves", () => {
    fc.assert(
      fc.property(arbCurve, fc.constantFrom(...INTERPOLATIONS), ([ts, zs], kind) => {
        const c = curve(kind, ts, zs);
        ts.forEach((t, i) => expect(c.zeroRate(t)).toBe(zs[i]));
      }),
      { numRuns: 300 },
    );
  });

  it("takes pillars in any order and sorts them by t, keeping a repeated identical pillar once", () => {
    const c = curve("linear-zero", [5, 1, 2, 1], [0.036, 0.034, 0.033, 0.034]);
    expect(c.pillars.map((p) => p.t)).toEqual([1, 2, 5]);
    expect(c.pillars.map((p) => p.rate)).toEqual([0.034, 0.033, 0.036]);
  });

  it("keeps the currency, market date, and each pillar's expiry and instrument", () => {
    const c = fromResponse({
      yield_curve_model: {
        currency: "USD",
        market_date: MARKET,
        data: [
          {
            maturity: 2.00274,
            rate: 0.04,
            fitted_instrument_name: "USD SWAP 2Y",
            expiry: "2028-11-20T00:00:00+00:00",
            fitted_instrument_rate: 0.041,
          },
        ],
      },
    });
    expect(c.currency).toBe("USD");
    expect(c.marketDate).toEqual(new Date("2026-11-20T00:00:00Z"));
    expect(c.pillars).toEqual([
      { t: 2.00274, rate: 0.04, expiry: new Date("2028-11-20T00:00:00Z"), instrument: "USD SWAP 2Y" },
    ]);
    expect(c.interpolation).toBe("linear-zero");
  });
});

describe("Curve: discount factors and forwards agree with the zero curve to 1e-12", () => {
  it("DF(t) = exp(−z(t)·t), forward(t1, t2) = (z2·t2 − z1·t1)/(t2 − t1), on random curves and times", () => {
    fc.assert(
      fc.property(
        arbCurve,
        fc.constantFrom(...INTERPOLATIONS),
        fc.double({ min: 0, max: 50, noNaN: true }),
        fc.double({ min: 0.003, max: 20, noNaN: true }),
        ([ts, zs], kind, t1, dt) => {
          const c = curve(kind, ts, zs);
          const t2 = t1 + dt;
          const z1 = c.zeroRate(t1);
          const z2 = c.zeroRate(t2);
          expect(Math.abs(c.discountFactor(t1) - Math.exp(-z1 * t1))).toBeLessThan(1e-12);
          expect(Math.abs(c.forwardRate(t1, t2) - (z2 * t2 - z1 * t1) / (t2 - t1))).toBeLessThan(1e-12);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("has DF(0) = 1, and the zero rate at 0 is the first pillar's", () => {
    for (const kind of INTERPOLATIONS) {
      expect(curve(kind).discountFactor(0)).toBe(1);
      expect(curve(kind).zeroRate(0)).toBe(ZS[0]);
    }
  });

  it("converts zero rates and forwards to other compoundings from the same discount factors", () => {
    const c = curve();
    const df = c.discountFactor("7Y");
    const t = c.years("7Y");
    expect(c.zeroRate("7Y", { compounding: "annual" })).toBeCloseTo(Math.pow(df, -1 / t) - 1, 14);
    expect(c.zeroRate("7Y", { compounding: "semiannual" })).toBeCloseTo(2 * (Math.pow(df, -1 / (2 * t)) - 1), 14);
    expect(c.zeroRate("7Y", { compounding: "simple" })).toBeCloseTo((1 / df - 1) / t, 14);
    expect(c.zeroRate("7Y", { compounding: { periodsPerYear: 12 } })).toBeCloseTo(
      12 * (Math.pow(df, -1 / (12 * t)) - 1),
      14,
    );
    const [d1, d2] = [c.discountFactor(1), c.discountFactor(2)];
    expect(c.forwardRate(1, 2, { compounding: "simple" })).toBeCloseTo(d1 / d2 - 1, 14);
    expect(c.forwardRate(1, 2, { compounding: "annual" })).toBeCloseTo(d1 / d2 - 1, 14);
    // "2Y" from 2026-11-20 is 2028-11-20: 731 days (2028 is a leap year)
    const [y1, y2] = [c.years("1Y"), c.years("2Y")];
    expect([y1, y2]).toEqual([1, 731 / 365].map((y) => Math.round(y * 1e6) / 1e6));
    expect(c.forwardRate("1Y", "2Y", { compounding: "annual" })).toBeCloseTo(
      Math.pow(c.discountFactor(y1) / c.discountFactor(y2), 1 / (y2 - y1)) - 1,
      14,
    );
    expect(c.zeroRate(0, { compounding: "annual" })).toBeCloseTo(Math.exp(ZS[0]!) - 1, 15);
    expect(c.zeroRate(0, { compounding: "simple" })).toBe(ZS[0]);
  });
});

describe("Curve: each interpolation against a straightforward implementation", () => {
  for (const kind of ["linear-zero", "log-linear-df"] as const) {
    it(`${kind} matches the reference to 1e-15 everywhere, inside and outside the pillars`, () => {
      fc.assert(
        fc.property(arbCurve, fc.double({ min: 0, max: 60, noNaN: true }), ([ts, zs], t) => {
          expect(Math.abs(curve(kind, ts, zs).zeroRate(t) - reference(kind, ts, zs, t))).toBeLessThan(1e-15);
        }),
        { numRuns: 500 },
      );
    });
  }

  it("linear-zero is linear in the zero rate between pillars: halfway from 2Y to 5Y is the average", () => {
    expect(curve().zeroRate(3.5)).toBeCloseTo((0.033 + 0.036) / 2, 16);
  });

  it("log-linear-df has a constant forward between pillars: the pillar-to-pillar forward", () => {
    const c = curve("log-linear-df");
    const fd = (0.036 * 5 - 0.033 * 2) / 3;
    for (const t of [2, 2.5, 3, 4.999]) expect(c.instantaneousForward(t)).toBeCloseTo(fd, 14);
    expect(c.forwardRate(2.2, 4.1)).toBeCloseTo(fd, 14);
  });

  it("the instantaneous forward integrates to the zero curve: z(t)·t = ∫₀ᵗ f under every interpolation", () => {
    for (const kind of INTERPOLATIONS) {
      const c = curve(kind);
      let integral = 0;
      const h = 1 / 2000;
      for (let k = 0; k < 40 * 2000; k++) {
        const a = k * h;
        integral +=
          (h / 6) *
          (c.instantaneousForward(a + 1e-13) +
            4 * c.instantaneousForward(a + h / 2) +
            c.instantaneousForward(a + h - 1e-13));
        const t = (k + 1) * h;
        if ((k + 1) % 1000 === 0) expect(Math.abs(integral - c.zeroRate(t) * t)).toBeLessThan(1e-10);
      }
    }
  });
});

describe("Curve: extrapolation", () => {
  it("is flat in the zero rate before the first pillar, under every interpolation", () => {
    for (const kind of INTERPOLATIONS) {
      const c = curve(kind);
      for (const t of [0, 1e-6, "ON", "1W", 0.1, 0.2499]) expect(c.zeroRate(t)).toBe(0.031);
      expect(c.instantaneousForward(0.1)).toBe(0.031);
    }
  });

  it("is flat in the forward after the last pillar, at the last pillar-to-pillar forward", () => {
    const tail = (0.038 * 30 - 0.04 * 10) / 20;
    for (const kind of INTERPOLATIONS) {
      const c = curve(kind);
      expect(c.forwardRate(30, 40)).toBeCloseTo(tail, 14);
      expect(c.forwardRate(35, 50)).toBeCloseTo(tail, 14);
      expect(c.instantaneousForward(45)).toBe(tail);
      expect(c.zeroRate(50)).toBeCloseTo((0.038 * 30 + tail * 20) / 50, 15);
      expect(c.discountFactor(60) / c.discountFactor(30)).toBeCloseTo(Math.exp(-tail * 30), 14);
    }
  });

  it("makes a one-pillar curve flat everywhere", () => {
    for (const kind of INTERPOLATIONS) {
      const c = curve(kind, [2], [0.03]);
      for (const t of [0, 0.5, 2, 10, 50]) expect(c.zeroRate(t)).toBeCloseTo(0.03, 16);
    }
  });
});

describe("Curve.parRate(tenor, { frequency })", () => {
  it("is (1 − DF(T)) / Σ α·DF(t_k) on the calendar schedule, accrual 1/frequency", () => {
    const c = curve("monotone-convex");
    const annual = [1, 2, 3, 4, 5].map((y) => c.discountFactor(`${y}Y`));
    expect(c.parRate("5Y")).toBeCloseTo((1 - annual[4]!) / annual.reduce((a, b) => a + b, 0), 15);
    const semi = [6, 12, 18, 24].map((m) => c.discountFactor(`${m}M`));
    expect(c.parRate("2Y", { frequency: 2 })).toBeCloseTo((1 - semi[3]!) / (0.5 * semi.reduce((a, b) => a + b, 0)), 15);
  });

  it("accrues a front stub over its own length: 18M annual pays at 6M (stub) and 18M", () => {
    const c = curve();
    const [t6, t18] = [c.years("6M"), c.years("18M")];
    const expected = (1 - c.discountFactor(t18)) / (t6 * c.discountFactor(t6) + 1 * c.discountFactor(t18));
    expect(c.parRate("18M")).toBeCloseTo(expected, 15);
    expect(c.paymentTimes("18M")).toEqual(Object.assign([t6, t18], { full: false }));
  });

  it("is the simple rate for a single period, and the flat rate's annual equivalent on a flat curve", () => {
    const c = curve();
    expect(c.parRate("3M", { frequency: 4 })).toBeCloseTo((1 / c.discountFactor("3M") - 1) / 0.25, 14);
    const flat = curve("linear-zero", [1, 30], [0.03, 0.03]);
    expect(flat.parRate(10)).toBeCloseTo(Math.exp(0.03) - 1, 14);
    expect(flat.parRate(10, { frequency: 4 })).toBeCloseTo(4 * (Math.exp(0.03 / 4) - 1), 14);
  });

  it("refuses a frequency other than 1, 2, 3, 4, 6 or 12", () => {
    expect(() => curve().parRate("5Y", { frequency: 5 })).toThrow(
      /options.frequency must be 1, 2, 3, 4, 6 or 12 payments a year, got 5/,
    );
    expect(() => curve().parRate(0)).toThrow(/tenor must be > 0 years/);
  });
});

describe("Curve: errors name the argument and the reason", () => {
  const caught = (f: () => unknown): CurveError => {
    try {
      f();
    } catch (e) {
      expect(e).toBeInstanceOf(CurveError);
      expect(e).toBeInstanceOf(RiskPortalError);
      expect((e as CurveError).name).toBe("CurveError");
      expect((e as CurveError).operation).toBe("curve model");
      return e as CurveError;
    }
    throw new Error("did not throw");
  };

  it.each([
    ["an empty curve", () => curve("linear-zero", [], []), "data", /no pillars/],
    [
      "a NaN rate",
      () => curve("linear-zero", [1, 2], [0.03, NaN]),
      "data[1].rate",
      /data\[1\]\.rate must be a finite number, got NaN/,
    ],
    [
      "a negative maturity",
      () => curve("linear-zero", [-1, 2], [0.03, 0.03]),
      "data[0].maturity",
      /must be > 0 years, got -1/,
    ],
    [
      "a zero maturity",
      () => curve("linear-zero", [0, 2], [0.03, 0.03]),
      "data[0].maturity",
      /must be > 0 years, got 0/,
    ],
    [
      "a duplicate pillar with another rate",
      () => curve("linear-zero", [2, 1, 2], [0.03, 0.02, 0.031]),
      "data[2].rate",
      /data\[0\] and data\[2\] are both at maturity 2 with different rates \(0.03 and 0.031\)/,
    ],
    [
      "an unknown interpolation",
      () => curve("cubic" as Interpolation),
      "options.interpolation",
      /options.interpolation must be "linear-zero", "log-linear-df", "monotone-convex"; got "cubic"/,
    ],
    [
      "a bad market date",
      () => fromResponse({ currency: "USD", market_date: "20/11/2026", data: [{ maturity: 1, rate: 0.03 }] }),
      "market_date",
      /market_date must be an ISO 8601 date/,
    ],
    ["no data", () => fromResponse({ yield_curve_model: {} } as never), "response", /no yield_curve_model.data array/],
    ["an unknown tenor", () => curve().zeroRate("3X"), "t", /t "3X" is not a tenor/],
    ["a NaN t", () => curve().discountFactor(NaN), "t", /t is NaN/],
    ["a negative t", () => curve().zeroRate(-1), "t", /t must be >= 0 years/],
    [
      "t2 before t1",
      () => curve().forwardRate("2Y", "1Y"),
      "t2",
      /t2 must be after t1: got t1 = 2Y \(2.00274 years\), t2 = 1Y \(1 years\)/,
    ],
    ["t2 equal to t1", () => curve().forwardRate(1, 1), "t2", /t2 must be after t1/],
    ["a bad t1", () => curve().forwardRate("1Q", 2), "t1", /t1 "1Q" is not a tenor/],
    [
      "a bad compounding",
      () => curve().zeroRate(1, { compounding: "weekly" as never }),
      "options.compounding",
      /options.compounding must be "continuous"/,
    ],
  ])("refuses %s", (_what, f, argument, message) => {
    const e = caught(f);
    expect(e.argument).toBe(argument);
    expect(e.message).toMatch(message);
  });
});
