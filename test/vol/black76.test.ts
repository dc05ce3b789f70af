/**
 * Black-76 against an independent implementation: the textbook formula `DF·(F·N(d1) − K·N(d2))` in
 * 70-digit decimal arithmetic (mathjs BigNumber), with N from its power series and the Laplace continued
 * fraction of the Mills ratio, and every greek by a central finite difference of that price. Nothing is
 * shared with {@link black76}'s code (no Jäckel regions, no Cody erfc).
 */
import fc from "fast-check";
import { all, create, type BigNumber } from "mathjs";
import { describe, expect, it } from "vitest";
import { black76, black76Strikes, type Black76Greeks, type Black76Input, type OptionKind } from "../../src/vol/black76";
import { VolModelError } from "../../src/vol/errors";

const M = create(all!, { precision: 70 });
type Big = BigNumber;
const big = (x: number | string): Big => M.bignumber(x);
/** The exact value of a double (to 100 digits, beyond the 70 used): `big(0.001)` would be the decimal 0.001, 2e-20 off. */
const exact = (x: number): Big => M.bignumber(x.toPrecision(100));
const ONE = big(1);
const HALF = big(0.5);
const SQRT_2PI = big(-1).acos().times(2).sqrt();
const TINY = big("1e-75");

/** φ(x) in 70 digits. */
function phiHP(x: Big): Big {
  return x.times(x).div(-2).exp().div(SQRT_2PI);
}

/**
 * N(x) in 70 digits: for |x| ≤ 6 the series `N(x) = 1/2 + φ(x)·Σ x^(2n+1)/(2n+1)!!` (terms of one sign);
 * beyond, `N(−y) = φ(y)·R(y)` with the Mills ratio's continued fraction `R(y) = 1/(y + 1/(y + 2/(y + …)))`
 * (200 levels: below 1e-66 relative for y ≥ 6).
 */
function normHP(x: Big): Big {
  if (x.abs().lte(6)) {
    const x2 = x.times(x);
    let term = x;
    let sum = x;
    for (let n = 0; n < 2000; n++) {
      term = term.times(x2).div(2 * n + 3);
      sum = sum.plus(term);
      if (term.abs().lt(sum.abs().times(TINY))) break;
    }
    return HALF.plus(phiHP(x).times(sum));
  }
  const y = x.abs();
  let tail = y;
  for (let m = 200; m >= 1; m--) tail = y.plus(big(m).div(tail));
  const lower = phiHP(y).div(tail);
  return x.isNegative() ? lower : ONE.minus(lower);
}

interface HPInput {
  F: Big;
  K: Big;
  T: Big;
  vol: Big;
  r: Big;
  call: boolean;
}

/** The textbook Black-76 price, `DF = e^(−rT)`. */
function priceHP({ F, K, T, vol, r, call }: HPInput): Big {
  const s = vol.times(T.sqrt());
  const d1 = F.div(K).ln().div(s).plus(s.div(2));
  const d2 = d1.minus(s);
  const df = r.times(T).neg().exp();
  const undiscounted = call
    ? F.times(normHP(d1)).minus(K.times(normHP(d2)))
    : K.times(normHP(d2.neg())).minus(F.times(normHP(d1.neg())));
  return df.times(undiscounted);
}

/**
 * The price (textbook formula) and every greek by central differences of {@link priceHP}, theta at a fixed
 * rate r = −ln(DF)/T. The greeks are differenced on the out-of-the-money one of the call and the put and
 * carried to the other by parity (`call − put = DF·(F − K)`, linear in F): differencing a deep in-the-money
 * price would need as many more digits as the intrinsic value outweighs the option's time value.
 */
function referenceHP(input: Black76Input): Black76Greeks & { thetaScale: number } {
  const F = exact(input.forward);
  const K = exact(input.strike);
  const T = exact(input.maturity);
  const r = exact(input.discountFactor ?? 1)
    .ln()
    .neg()
    .div(T);
  const call = input.kind === "call";
  const otmCall = K.gte(F);
  const base: HPInput = { F, K, T, vol: exact(input.vol), r, call: otmCall };
  const bumped = (key: "F" | "T" | "vol", rel: string, k: number): Big =>
    priceHP({ ...base, [key]: base[key].plus(base[key].times(big(rel)).times(k)) });
  const diff1 = (key: "F" | "T" | "vol"): Big =>
    bumped(key, "1e-22", 1)
      .minus(bumped(key, "1e-22", -1))
      .div(base[key].times(big("2e-22")));
  const otm = priceHP(base);
  const hF = F.times(big("1e-16"));
  const gamma = bumped("F", "1e-16", 1)
    .minus(otm.times(2))
    .plus(bumped("F", "1e-16", -1))
    .div(hF.times(hF));
  const df = r.times(T).neg().exp();
  // The option asked for minus the out-of-the-money one: 0, or ±DF·(F − K).
  const sign = call === otmCall ? 0 : call ? 1 : -1;
  const intrinsic = df.times(F.minus(K)).times(sign);
  const price = call === otmCall ? otm : priceHP({ ...base, call });
  const theta = diff1("T").neg().plus(r.times(intrinsic));
  const rV = r.times(price);
  return {
    price: price.toNumber(),
    delta: diff1("F").plus(df.times(sign)).toNumber(),
    gamma: gamma.toNumber(),
    vega: diff1("vol").toNumber(),
    theta: theta.toNumber(),
    thetaScale: rV.abs().plus(rV.minus(theta).abs()).toNumber(),
  };
}

/** |got − want| over the scale, or over 1e-290 where the scale is below it (subnormal territory). */
function relErr(got: number, want: number, scale = Math.abs(want)): number {
  return Math.abs(got - want) / Math.max(scale, 1e-290);
}

const KEYS = ["price", "delta", "gamma", "vega", "theta"] as const;

function errors(input: Black76Input): Record<(typeof KEYS)[number], number> {
  const got = black76(input);
  const want = referenceHP(input);
  return {
    price: relErr(got.price, want.price),
    delta: relErr(got.delta, want.delta),
    gamma: relErr(got.gamma, want.gamma),
    vega: relErr(got.vega, want.vega),
    theta: relErr(got.theta, want.theta, want.thetaScale),
  };
}

const option = fc.record({
  forward: fc.double({ min: 1e-3, max: 1e5, noNaN: true }),
  logMoneyness: fc.double({ min: -3, max: 3, noNaN: true }),
  maturity: fc.double({ min: 1 / 365, max: 30, noNaN: true }),
  vol: fc.double({ min: 0.005, max: 2.5, noNaN: true }),
  rate: fc.double({ min: -0.02, max: 0.15, noNaN: true }),
  kind: fc.constantFrom<OptionKind>("call", "put"),
});

const toInput = (o: {
  forward: number;
  logMoneyness: number;
  maturity: number;
  vol: number;
  rate: number;
  kind: OptionKind;
}): Black76Input => ({
  forward: o.forward,
  strike: o.forward * Math.exp(o.logMoneyness),
  maturity: o.maturity,
  vol: o.vol,
  discountFactor: Math.exp(-o.rate * o.maturity),
  kind: o.kind,
});

describe("the 70-digit reference", () => {
  it("reproduces N to 40 digits (values from mpmath)", () => {
    const cases: [string, string][] = [
      ["-1", "0.1586552539314570514147674543679620775221"],
      ["0.5", "0.6914624612740131036377046106083377398836"],
      ["3", "0.9986501019683699054733481852324050226222"],
      ["-10", "7.619853024160526065973343251599308363504e-24"],
      ["-37", "5.725571222524576822683192548273201656433e-300"],
    ];
    for (const [x, want] of cases) {
      const err = normHP(big(x)).minus(big(want)).div(big(want)).abs();
      expect(err.lt(big("1e-38")), x).toBe(true);
    }
  });
});

describe("black76 against the independent 70-digit Black-76", () => {
  it("agrees to 1e-12 relative on price, delta, gamma, vega and theta over random options", () => {
    const worst = { price: 0, delta: 0, gamma: 0, vega: 0, theta: 0 };
    fc.assert(
      fc.property(option, (o) => {
        const e = errors(toInput(o));
        for (const key of KEYS) {
          worst[key] = Math.max(worst[key], e[key]);
          expect(e[key], `${key} of ${JSON.stringify(o)}`).toBeLessThan(1e-12);
        }
      }),
      { numRuns: 150 },
    );
    if (process.env.BLACK76_REPORT) console.log("max relative error vs the 70-digit Black-76:", worst);
  });

  it("keeps full relative accuracy deep out of the money and at small vol-time, where F·N(d1) − K·N(d2) cancels", () => {
    const cases: Black76Input[] = [
      { forward: 100, strike: 200, maturity: 0.25, vol: 0.05, kind: "call" }, // h ≈ −27.7: price ~1e-170
      { forward: 100, strike: 101, maturity: 1 / 365, vol: 0.01, kind: "call" }, // t ≈ 2.6e-4, h ≈ −19
      { forward: 100, strike: 99.999, maturity: 0.5, vol: 1e-4, kind: "put" }, // h ≈ −0.14, t ≈ 3.5e-5
      { forward: 100, strike: 100, maturity: 1e-6, vol: 0.2, kind: "call" }, // at the money, tiny vol-time
      { forward: 100, strike: 60, maturity: 0.1, vol: 0.1, kind: "put" }, // h ≈ −16
      { forward: 100, strike: 60, maturity: 0.1, vol: 0.1, kind: "call" }, // the same, in the money: OTM put + intrinsic
      { forward: 1e-6, strike: 3e-6, maturity: 2, vol: 0.3, discountFactor: 0.9, kind: "call" },
      { forward: 5e5, strike: 5e5 * Math.exp(-9), maturity: 3, vol: 0.4, discountFactor: 0.8, kind: "put" }, // h + t ≈ −13: asymptotic series
      { forward: 1, strike: Math.exp(2.9), maturity: 4, vol: 0.106, kind: "call" }, // h + t ≈ −13.5
      { forward: 1, strike: Math.exp(-4.1), maturity: 1, vol: 0.42, kind: "put" }, // t = 0.21 with h ≈ −9.8: the seams of the regions
      { forward: 1, strike: Math.exp(-4.2), maturity: 1, vol: 0.42, kind: "put" },
      { forward: 1, strike: 1.1, maturity: 1, vol: 2, kind: "call" }, // h + t > 0.85
      { forward: 1, strike: 30, maturity: 10, vol: 3, discountFactor: 0.5, kind: "call" },
    ];
    for (const input of cases) {
      const e = errors(input);
      for (const key of KEYS) expect(e[key], `${key} of ${JSON.stringify(input)}`).toBeLessThan(1e-12);
    }
    // The naive formula in doubles gets the first case badly wrong; this one does not.
    expect(black76(cases[0]!).price).toBeGreaterThan(0);
  });

  it("is continuous across the seams of its regions (t = 0.21, h + t = −10, h + t = 0.85)", () => {
    // Each pair straddles a seam by one part in 1e9 of vol; both sides must agree with the reference.
    const at = (h: number, t: number): Black76Input => ({
      forward: 1,
      strike: Math.exp(-2 * h * t),
      maturity: 1,
      vol: 2 * t,
      kind: "call",
    });
    for (const [h, t] of [
      [-5, 0.21],
      [-9.9, 0.21],
      [-0.3, 0.21],
      [-10.5, 0.5],
      [-11, 1],
      [-0.15, 1],
      [-1.5, 2.35],
    ] as const) {
      for (const f of [1 - 1e-9, 1 + 1e-9]) {
        const input = at(h, t * f);
        const e = errors(input);
        expect(e.price, `price at h=${h}, t=${t * f}`).toBeLessThan(1e-13);
        expect(e.vega, `vega at h=${h}, t=${t * f}`).toBeLessThan(1e-13);
      }
    }
  });
});

describe("black76 identities and textbook values", () => {
  it("satisfies put–call parity C − P = DF·(F − K) and delta_C − delta_P = DF", () => {
    fc.assert(
      fc.property(option, (o) => {
        const input = toInput(o);
        const c = black76({ ...input, kind: "call" });
        const p = black76({ ...input, kind: "put" });
        const DF = input.discountFactor!;
        const scale = Math.max(c.price, p.price, DF * input.forward);
        expect(Math.abs(c.price - p.price - DF * (input.forward - input.strike))).toBeLessThanOrEqual(4e-16 * scale);
        expect(Math.abs(c.delta - p.delta - DF)).toBeLessThanOrEqual(4e-16);
        expect(c.gamma).toBe(p.gamma);
        expect(c.vega).toBe(p.vega);
      }),
      { numRuns: 500 },
    );
  });

  it("reproduces Hull's futures put and Haug's futures call", () => {
    // Hull, Options, Futures and Other Derivatives: F = K = 20, r = 9%, T = 4 months, σ = 25% → put 1.12.
    const hull = black76({
      forward: 20,
      strike: 20,
      maturity: 4 / 12,
      vol: 0.25,
      discountFactor: Math.exp((-0.09 * 4) / 12),
      kind: "put",
    });
    expect(hull.price).toBeCloseTo(1.12, 2);
    expect(hull.price).toBeCloseTo(1.1166414565589435, 14);
    // Haug, The Complete Guide to Option Pricing Formulas: F = K = 19, T = 0.75, r = 10%, σ = 28% → 1.7011.
    const haug = black76({
      forward: 19,
      strike: 19,
      maturity: 0.75,
      vol: 0.28,
      discountFactor: Math.exp(-0.1 * 0.75),
      kind: "call",
    });
    expect(haug.price).toBeCloseTo(1.7011, 4);
    expect(haug.price).toBeCloseTo(1.701050725236267, 14);
  });

  it("gives the intrinsic value and the documented limits at vol 0 or maturity 0, never NaN", () => {
    const DF = 0.95;
    for (const [maturity, vol] of [
      [0, 0.2],
      [1, 0],
      [0, 0],
    ] as const) {
      const itm = black76({ forward: 110, strike: 100, maturity, vol, discountFactor: DF, kind: "call" });
      expect(itm.price).toBeCloseTo(DF * 10, 14);
      expect(itm.delta).toBe(DF);
      expect(itm.gamma).toBe(0);
      expect(itm.vega).toBe(0);
      const r = maturity > 0 ? -Math.log(DF) / maturity : 0;
      expect(itm.theta).toBeCloseTo(r * itm.price, 14);
      const otm = black76({ forward: 110, strike: 100, maturity, vol, discountFactor: DF, kind: "put" });
      expect(otm).toEqual({ price: 0, delta: -0, gamma: 0, vega: 0, theta: 0 });
      const atm = black76({ forward: 100, strike: 100, maturity, vol, discountFactor: DF, kind: "put" });
      expect(atm.price).toBe(0);
      expect(atm.delta).toBe(-DF / 2);
      expect(atm.gamma).toBe(Infinity);
      expect(atm.vega).toBeCloseTo((DF * 100 * Math.sqrt(maturity)) / Math.sqrt(2 * Math.PI), 12);
      expect(atm.theta).toBe(maturity === 0 && vol > 0 ? -Infinity : 0);
      for (const g of [itm, otm, atm]) for (const key of KEYS) expect(Number.isNaN(g[key])).toBe(false);
    }
    // Approaching the limit: a tiny vol gives (almost) the intrinsic value, not NaN.
    const tiny = black76({ forward: 110, strike: 100, maturity: 1, vol: 1e-300, kind: "call" });
    expect(tiny.price).toBe(10);
    expect(tiny.delta).toBe(1);
  });

  it("refuses invalid inputs with a VolModelError naming the field", () => {
    const ok: Black76Input = { forward: 100, strike: 100, maturity: 1, vol: 0.2, kind: "call" };
    const cases: [Partial<Record<keyof Black76Input, unknown>>, string, RegExp][] = [
      [{ forward: 0 }, "forward", /^forward must be a finite number > 0; got 0$/],
      [{ forward: NaN }, "forward", /got NaN/],
      [{ strike: -1 }, "strike", /^strike must be a finite number > 0; got -1$/],
      [{ strike: Infinity }, "strike", /got Infinity/],
      [{ maturity: -0.1 }, "maturity", /^maturity must be a finite number >= 0; got -0.1$/],
      [{ vol: -0.2 }, "vol", /^vol must be a finite number >= 0/],
      [{ vol: "0.2" }, "vol", /got "0.2"/],
      [{ discountFactor: 0 }, "discountFactor", /^discountFactor must be a finite number > 0/],
      [{ kind: "straddle" }, "kind", /^kind must be "call" or "put"; got "straddle"$/],
      [{ vol: 1e200, maturity: 1e250 }, "vol", /vol · sqrt\(maturity\) must be finite/],
    ];
    for (const [patch, field, message] of cases) {
      let error: unknown;
      try {
        black76({ ...ok, ...patch } as Black76Input);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(VolModelError);
      expect((error as VolModelError).field).toBe(field);
      expect((error as VolModelError).message).toMatch(message);
    }
  });
});

describe("black76Strikes", () => {
  const strikes = Float64Array.from({ length: 200 }, (_, q) => 20 + q * 2);
  const vols = Float64Array.from(strikes, (K) => 0.15 + 0.1 * Math.abs(Math.log(K / 100)));

  it("equals the scalar black76 strike by strike, with one vol or one per strike", () => {
    for (const kind of ["call", "put"] as const) {
      const market = { forward: 101, maturity: 0.7, discountFactor: 0.97, kind };
      const perStrike = black76Strikes(market, strikes, vols);
      const flat = black76Strikes(market, Array.from(strikes), 0.3);
      strikes.forEach((K, q) => {
        const a = black76({ ...market, strike: K, vol: vols[q]! });
        const b = black76({ ...market, strike: K, vol: 0.3 });
        for (const key of KEYS) {
          expect(perStrike[key][q]).toBe(a[key]);
          expect(flat[key][q]).toBe(b[key]);
        }
      });
    }
  });

  it("writes into the arrays it is given and returns them", () => {
    const out = {
      price: new Float64Array(300),
      delta: new Float64Array(300),
      gamma: new Float64Array(300),
      vega: new Float64Array(300),
      theta: new Float64Array(300),
    };
    const res = black76Strikes({ forward: 100, maturity: 1, kind: "call" }, strikes, vols, out);
    expect(res).toBe(out);
    expect(out.price[0]).toBeCloseTo(80, 0);
    expect(out.price[250]).toBe(0);
    expect(() =>
      black76Strikes({ forward: 100, maturity: 1, kind: "call" }, strikes, vols, {
        ...out,
        vega: new Float64Array(10),
      }),
    ).toThrow(/out.vega must be a Float64Array of at least 200 elements/);
  });

  it("checks every input before computing, naming the element", () => {
    const market = { forward: 100, maturity: 1, kind: "put" as const };
    expect(() => black76Strikes(market, [100, 0, 120], 0.2)).toThrow(
      /^strikes\[1\] must be a finite number > 0; got 0$/,
    );
    expect(() => black76Strikes(market, [100, 110], [0.2, NaN])).toThrow(
      /^vols\[1\] must be a finite number >= 0; got NaN$/,
    );
    expect(() => black76Strikes(market, [100, 110], [0.2])).toThrow(
      /vols must be one number or one per strike \(2\); got 1 values/,
    );
    expect(() => black76Strikes({ ...market, forward: -1 }, [100], 0.2)).toThrow(/^forward must be/);
    expect(black76Strikes(market, [], 0.2).price.length).toBe(0);
  });
});
