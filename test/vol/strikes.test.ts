/** Strike conventions: the wire strike types, log-moneyness and forward call delta. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { STRIKE_TYPE } from "../../src/api/assumptions";
import { LOCAL_STRIKE_TYPES, PERCENT_REFERENCE, VolModelError, fromSurface, normCdf, normInv } from "../../src/vol";
import {
  FORWARD_CALL_DELTA,
  checkStrikeType,
  deltaConvention,
  deltaFromK,
  deltaLabel,
  logShift,
  type DeltaStrikeType,
  type ModelStrikeType,
} from "../../src/vol/strikes";
import { SAMPLE, oneYear, validSurface } from "./reference-model";

describe("checkStrikeType", () => {
  it("accepts the three wire values and the two local conventions", () => {
    for (const t of [STRIKE_TYPE.Absolute, STRIKE_TYPE.PercentForward, STRIKE_TYPE.PercentSpot, ...LOCAL_STRIKE_TYPES])
      expect(() => checkStrikeType(t)).not.toThrow();
  });
  it("refuses anything else with a VolModelError on strike_type", () => {
    for (const t of [3, -1, "1", null, undefined, "Absolute"]) expect(() => checkStrikeType(t)).toThrow(VolModelError);
  });
});

describe("logShift", () => {
  it("maps Absolute to −ln F, PercentForward to −ln 100, PercentSpot to ln S − ln 100 − ln F", () => {
    expect(logShift(STRIKE_TYPE.Absolute, 4.5, 4.4)).toBe(-4.5);
    expect(logShift(STRIKE_TYPE.PercentForward, 4.5, 4.4)).toBe(-Math.log(PERCENT_REFERENCE));
    expect(logShift(STRIKE_TYPE.PercentSpot, 4.5, 4.4)).toBeCloseTo(4.4 - Math.log(100) - 4.5, 15);
    expect(logShift("delta", 4.5, 4.4)).toBeUndefined();
    expect(logShift("logMoneyness", 4.5, 4.4)).toBeUndefined();
  });
});

describe("forward call delta", () => {
  it("is 0.5 + something at the money and the flat-vol strike for a flat smile", () => {
    const flat = fromSurface(oneYear({ vol: 0.2, skew: 0, smile: 1e6, putWing: 1e-6, callWing: 1e-6 }));
    // With an almost flat smile, k(delta) = −sqrt(w)·N⁻¹(delta) + w/2 with w = 0.04.
    const k = flat.logMoneyness(365, [0.25, 0.5, 0.75], "delta");
    [0.25, 0.5, 0.75].forEach((d, j) => expect(k[j]).toBeCloseTo(-0.2 * normInv(d) + 0.02, 6));
  });

  it("falls as the strike rises, from near 1 deep in the money to near 0 far out", () => {
    const s = fromSurface(SAMPLE);
    const d = s.callDelta(91, [10, 50, 80, 100, 120, 200, 1000], STRIKE_TYPE.PercentForward);
    for (let j = 1; j < d.length; j++) expect(d[j]).toBeLessThan(d[j - 1]!);
    expect(d[0]).toBeGreaterThan(0.999999);
    expect(d[6]).toBeLessThan(1e-6);
  });
});

describe("an unreachable delta names its real cause", () => {
  it("does not blame Lee's bound when the call wing is within it (b(1+rho) = 1.8 < 2)", () => {
    // The wing is legal, but d1 falls so slowly that at k = 700 the call delta is still about 0.025.
    const s = fromSurface(oneYear({ vol: 1, skew: 0, smile: 1, putWing: 1, callWing: 1.8 }));
    expect(s.benchmarks[0]!.b * (1 + s.benchmarks[0]!.rho)).toBeCloseTo(1.8, 12);
    let error: unknown;
    try {
      s.vols(365, [0.01], "delta");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(VolModelError);
    const message = (error as VolModelError).message;
    expect(message).toMatch(/^strikes\[0\]: forward call delta 0.01 is not reached for \|k\| <= 700/);
    expect(message).not.toMatch(/beyond Lee's bound/);
    expect(message).toMatch(/call-wing slope b\(1 \+ rho\) = 1.8 is within Lee's bound 2/);
    expect(message).toMatch(/at k = 700 it is still 0.02\d+\)$/);
  });

  it("blames Lee's bound when the call wing is beyond it (b(1+rho) = 3)", () => {
    const s = fromSurface(oneYear({ vol: 1, skew: 0, smile: 1, putWing: 1, callWing: 3 }));
    expect(() => s.vols(365, [0.01], "delta")).toThrow(/call-wing slope b\(1 \+ rho\) = 3 is beyond Lee's bound 2/);
  });
});

describe("delta strike types as objects", () => {
  it("accepts { type: 'delta', kind?, premiumAdjusted?, spot? } and refuses malformed ones naming the key", () => {
    for (const t of [
      { type: "delta" },
      { type: "delta", kind: "put" },
      { type: "delta", kind: "call", premiumAdjusted: true },
      { type: "delta", spot: { discountFactor: 0.97 } },
      { type: "delta", kind: "put", premiumAdjusted: false, spot: { discountFactor: 1.02 } },
    ])
      expect(() => checkStrikeType(t)).not.toThrow();
    const cases: [unknown, RegExp][] = [
      [{ type: "Delta" }, /^strike_type.type must be "delta" for a strike type given as an object; got "Delta"$/],
      [{ type: "delta", kind: "c" }, /^strike_type.kind must be "call" or "put"; got "c"$/],
      [
        { type: "delta", premiumAdjust: true },
        /^strike_type has unknown key\(s\) "premiumAdjust"; a delta strike type takes type, kind, premiumAdjusted, spot$/,
      ],
      [{ type: "delta", premiumAdjusted: "yes" }, /^strike_type.premiumAdjusted must be true or false; got "yes"$/],
      [{ type: "delta", spot: { discountFactor: 0 } }, /^strike_type.spot must be \{ discountFactor \}/],
      [{ type: "delta", spot: 0.97 }, /^strike_type.spot must be \{ discountFactor \}.*got 0.97$/],
      [{ type: "delta", spot: { discountFactor: 0.9, rate: 0.1 } }, /^strike_type.spot must be/],
      [[], /^strike_type must be one of/],
    ];
    for (const [t, message] of cases) {
      let error: unknown;
      try {
        checkStrikeType(t);
      } catch (e) {
        error = e;
      }
      expect(error, JSON.stringify(t)).toBeInstanceOf(VolModelError);
      expect((error as VolModelError).field).toBe("strike_type");
      expect((error as VolModelError).message).toMatch(message);
    }
  });

  it("reads defaults: { type: 'delta' } is the plain forward call delta", () => {
    expect(deltaConvention("delta")).toEqual(FORWARD_CALL_DELTA);
    expect(deltaConvention({ type: "delta" })).toEqual(FORWARD_CALL_DELTA);
    expect(
      deltaConvention({ type: "delta", kind: "put", premiumAdjusted: true, spot: { discountFactor: 0.9 } }),
    ).toEqual({
      kind: "put",
      premiumAdjusted: true,
      spot: true,
      discountFactor: 0.9,
    });
    expect(deltaConvention(STRIKE_TYPE.Absolute)).toBeUndefined();
    expect(
      deltaLabel(
        deltaConvention({ type: "delta", kind: "put", premiumAdjusted: true, spot: { discountFactor: 0.9 } })!,
      ),
    ).toBe("premium-adjusted spot put delta");
    const s = fromSurface(SAMPLE);
    expect(Array.from(s.logMoneyness(91, [0.2, 0.5], { type: "delta" }))).toEqual(
      Array.from(s.logMoneyness(91, [0.2, 0.5], "delta")),
    );
  });

  it("gives the flat-smile strikes of Reiswich & Wystup's formulas", () => {
    // Flat 20% smile, T = 1, so w = 0.04 and sqrt(w) = 0.2 at every k.
    const flat = fromSurface(oneYear({ vol: 0.2, skew: 0, smile: 1e-6, putWing: 1e-9, callWing: 1e-9 }));
    const k = (d: number, t: ModelStrikeType) => flat.logMoneyness(365, [d], t)[0]!;
    const sw = 0.2;
    // Forward put: −N(−d+) = −0.25 ⇒ d+ = N⁻¹(0.75) ⇒ k = −sw·d+ + w/2.
    expect(k(-0.25, { type: "delta", kind: "put" })).toBeCloseTo(-sw * normInv(0.75) + 0.02, 6);
    // Spot call: DF·N(d+) = 0.25 ⇒ N(d+) = 0.25/DF.
    expect(k(0.25, { type: "delta", spot: { discountFactor: 0.95 } })).toBeCloseTo(
      -sw * normInv(0.25 / 0.95) + 0.02,
      6,
    );
    // Premium-adjusted call: e^k·N(d−) = 0.25 with d− = −k/sw − sw/2.
    const kpa = k(0.25, { type: "delta", premiumAdjusted: true });
    expect(Math.exp(kpa) * normCdf(-kpa / sw - sw / 2)).toBeCloseTo(0.25, 9);
    // On the branch right of the maximum (the delta falls there), and left of the plain delta's strike: premium
    // adjustment lowers every strike's delta, so the same delta sits at a lower strike.
    expect(Math.exp(kpa + 1e-4) * normCdf(-(kpa + 1e-4) / sw - sw / 2)).toBeLessThan(0.25);
    expect(kpa).toBeLessThan(k(0.25, "delta"));
  });

  it("says a premium-adjusted call delta above its maximum is unreachable, naming the maximum", () => {
    // sqrt(w) = 1: the premium-adjusted call delta peaks near 0.31 (at k ≈ −0.2).
    const s = fromSurface(oneYear({ vol: 1, skew: 0, smile: 1e-6, putWing: 1e-9, callWing: 1e-9 }));
    let error: unknown;
    try {
      s.vols(365, [0.25, 0.5], { type: "delta", premiumAdjusted: true });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(VolModelError);
    const e = error as VolModelError;
    expect(e.field).toBe("strikes");
    expect(e.message).toMatch(
      /^strikes\[1\]: premium-adjusted forward call delta 0.5 is unreachable: on this smile the premium-adjusted call delta is at most 0.3\d+ \(at k = -0.\d+, K\/F = 0.\d+\)$/,
    );
    const max = Number(/at most ([\d.]+)/.exec(e.message)![1]);
    // The maximum is right: a fine scan of e^k·N(d−) does not exceed it, and a delta just below it is reached.
    let scan = 0;
    for (let k = -3; k <= 3; k += 1e-4) scan = Math.max(scan, Math.exp(k) * normCdf(-k - 0.5));
    expect(scan).toBeLessThanOrEqual(max * (1 + 1e-9));
    expect(scan).toBeGreaterThan(max * (1 - 1e-9));
    expect(() => s.vols(365, [max * 0.999999], { type: "delta", premiumAdjusted: true })).not.toThrow();
  });

  it("refuses deltas outside each convention's range, naming the convention", () => {
    const s = fromSurface(SAMPLE);
    const message = (d: number, t: ModelStrikeType) => {
      try {
        s.vols(91, [d], t);
      } catch (e) {
        return (e as VolModelError).message;
      }
      return "no error";
    };
    expect(message(0.25, { type: "delta", kind: "put" })).toBe(
      "strikes[0] must be a forward put delta in (-1, 0); got 0.25",
    );
    expect(message(0.97, { type: "delta", spot: { discountFactor: 0.96 } })).toBe(
      "strikes[0] must be a spot call delta in (0, 0.96); got 0.97",
    );
    expect(message(0, { type: "delta", kind: "put", premiumAdjusted: true })).toBe(
      "strikes[0] must be a premium-adjusted forward put delta < 0 (and finite); got 0",
    );
    expect(message(-1.5, { type: "delta", kind: "put", premiumAdjusted: true })).toBe("no error");
  });
});

describe("delta → strike → delta round trips", () => {
  const conventions: { name: string; type: DeltaStrikeType | "delta"; draw: fc.Arbitrary<number> }[] = [
    { name: "call", type: "delta", draw: fc.double({ min: 0.01, max: 0.99, noNaN: true }) },
    { name: "put", type: { type: "delta", kind: "put" }, draw: fc.double({ min: -0.99, max: -0.01, noNaN: true }) },
    {
      name: "premium-adjusted call",
      type: { type: "delta", premiumAdjusted: true },
      draw: fc.double({ min: 0.01, max: 0.99, noNaN: true }),
    },
    {
      name: "premium-adjusted put",
      type: { type: "delta", kind: "put", premiumAdjusted: true },
      draw: fc.double({ min: -2, max: -0.01, noNaN: true }),
    },
  ];
  for (const { name, type, draw } of conventions) {
    for (const spot of [false, true]) {
      it(`${spot ? "spot" : "forward"} ${name} delta`, () => {
        fc.assert(
          fc.property(
            validSurface({ lee: true }),
            fc.double({ min: 0.5, max: 3000, noNaN: true }),
            fc.array(draw, { minLength: 1, maxLength: 6 }),
            fc.double({ min: 0.6, max: 1.1, noNaN: true }),
            (surface, d, raw, df) => {
              const s = fromSurface(surface);
              const t: ModelStrikeType = spot
                ? { ...(type === "delta" ? { type: "delta" } : type), spot: { discountFactor: df } }
                : type;
              const c = deltaConvention(t)!;
              // Spot deltas: the same fractions of DF_f (the plain ranges scale with it).
              const deltas = raw.map((x) => (spot ? x * df : x));
              for (const delta of deltas) {
                let k: number;
                try {
                  k = s.logMoneyness(d, [delta], t)[0]!;
                } catch (e) {
                  // Only the premium-adjusted call can be out of reach here (Lee-safe surfaces), and then only above its maximum.
                  expect(c.premiumAdjusted && c.kind === "call", String(e)).toBe(true);
                  const max = Number(/at most ([\d.e-]+)/.exec((e as Error).message)?.[1]);
                  expect(delta).toBeGreaterThan(max);
                  continue;
                }
                const w = s.totalVariance(d, [k])[0]!;
                const back = deltaFromK(k, w, c);
                expect(Math.abs(back - delta), `${name} ${delta} at ${d} d`).toBeLessThan(
                  1e-10 * Math.max(1, Math.abs(delta)),
                );
                if (c.premiumAdjusted && c.kind === "call") {
                  // Right of the maximum: the premium-adjusted call delta falls there.
                  const w2 = s.totalVariance(d, [k + 1e-4])[0]!;
                  expect(deltaFromK(k + 1e-4, w2, c)).toBeLessThanOrEqual(back + 1e-12);
                }
              }
            },
          ),
          { numRuns: 150 },
        );
      });
    }
  }
});
