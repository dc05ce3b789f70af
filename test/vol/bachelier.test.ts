/**
 * The Bachelier model and the shifted Black-76 against stored references (scripts/reference/quantlib-vols.py):
 * mpmath's 60-digit prices (the truth) and QuantLib 1.29's bachelierBlackFormula / blackFormula with a
 * displacement (double precision: held to the rounding of the terms its textbook formula subtracts). Greeks
 * by central differences of the price; limits, parity, errors, the array form.
 */
import { describe, expect, it } from "vitest";
import { bachelier, bachelierStrikes, type BachelierInput } from "../../src/vol/bachelier";
import { black76, black76Strikes, type Black76Input } from "../../src/vol/black76";
import { errorOf } from "./vol-error";
import { BACHELIER_ROWS, BLACK_ROWS, moneyness, type ReferenceRow } from "./vol-fixtures";

const KEYS = ["price", "delta", "gamma", "vega", "theta"] as const;
const report = (what: string, worst: Record<string, number>): void => {
  if (process.env.VOL_REPORT) console.log(what, worst);
};

/** The worst relative error per band of |z| (standardised moneyness). */
function bands(rows: ReferenceRow[], model: "black" | "bachelier", err: (r: ReferenceRow) => number) {
  const worst: Record<string, number> = { "|z|<=1": 0, "1<|z|<=5": 0, "5<|z|<=10": 0 };
  for (const r of rows) {
    const z = Math.abs(moneyness(r, model));
    const band = z <= 1 + 1e-9 ? "|z|<=1" : z <= 5 + 1e-9 ? "1<|z|<=5" : "5<|z|<=10";
    worst[band] = Math.max(worst[band]!, err(r));
  }
  return worst;
}

const asBachelier = (r: ReferenceRow, vol = r.vol): BachelierInput => ({
  forward: r.forward,
  strike: r.strike,
  maturity: r.maturity,
  vol,
  discountFactor: r.discountFactor,
  kind: r.kind,
});

describe("bachelier against mpmath and QuantLib", () => {
  it("prices equal the 60-digit price to 2e-14 relative (measured 1.4e-14 at |z| = 10), and QuantLib's to its rounding", () => {
    const rel = (r: ReferenceRow) => Math.abs(bachelier(asBachelier(r)).price - r.exact) / r.exact;
    const worst = bands(BACHELIER_ROWS, "bachelier", rel);
    report("bachelier vs mpmath, max relative error by |z|:", worst);
    expect(worst["|z|<=1"]).toBeLessThan(2e-15);
    expect(worst["1<|z|<=5"]).toBeLessThan(1e-14);
    expect(worst["5<|z|<=10"]).toBeLessThan(2e-14);
    // QuantLib forms DF·(σ√T·φ(x) + (F − K)·N(x)), which cancels out of the money: held to 2 ulps of its terms.
    for (const r of BACHELIER_ROWS) {
      const s = r.vol * Math.sqrt(r.maturity);
      const scale = r.discountFactor * (s * 0.4 + Math.abs(r.forward - r.strike));
      expect(Math.abs(bachelier(asBachelier(r)).price - r.ql), JSON.stringify(r)).toBeLessThanOrEqual(
        4.5e-16 * scale + 1e-15 * r.exact,
      );
    }
  });

  it("has the greeks of its price (central differences), put–call parity, and negative forwards and strikes", () => {
    for (const r of BACHELIER_ROWS.filter((_, i) => i % 7 === 0)) {
      const g = bachelier(asBachelier(r));
      const s = r.vol * Math.sqrt(r.maturity);
      const p = (patch: Partial<BachelierInput>) => bachelier({ ...asBachelier(r), ...patch }).price;
      const hF = 1e-4 * s;
      const scale = g.price + r.discountFactor * s * 1e-3;
      expect(
        Math.abs((p({ forward: r.forward + hF }) - p({ forward: r.forward - hF })) / (2 * hF) - g.delta),
      ).toBeLessThan(1e-7);
      const gamma = (p({ forward: r.forward + hF }) - 2 * g.price + p({ forward: r.forward - hF })) / (hF * hF);
      expect(Math.abs(gamma - g.gamma) * s).toBeLessThan(1e-4 + 1e-5 * g.gamma * s);
      const hV = 1e-5 * r.vol;
      const vega = (p({ vol: r.vol + hV }) - p({ vol: r.vol - hV })) / (2 * hV);
      expect(Math.abs(vega - g.vega) * r.vol).toBeLessThan(1e-8 * scale);
      // theta at a fixed rate r = −ln(DF)/T: DF moves with T
      const rate = -Math.log(r.discountFactor) / r.maturity;
      const hT = 1e-5 * r.maturity;
      const at = (T: number) => p({ maturity: T, discountFactor: Math.exp(-rate * T) });
      const theta = -(at(r.maturity + hT) - at(r.maturity - hT)) / (2 * hT);
      expect(Math.abs(theta - g.theta) * r.maturity).toBeLessThan(1e-8 * scale);
      const other = bachelier({ ...asBachelier(r), kind: r.kind === "call" ? "put" : "call" });
      const call = r.kind === "call" ? g : other;
      const put = r.kind === "call" ? other : g;
      const parity = r.discountFactor * (r.forward - r.strike);
      expect(Math.abs(call.price - put.price - parity)).toBeLessThan(
        1e-15 * (Math.abs(parity) + call.price + put.price) + 1e-300,
      );
      expect(call.delta - put.delta).toBeCloseTo(r.discountFactor, 15);
    }
    expect(BACHELIER_ROWS.some((r) => r.forward < 0 && r.strike < 0)).toBe(true);
    // A negative rate: 2 years at 75 bp normal vol, struck 35 bp above a forward of −10 bp.
    const neg = bachelier({ forward: -0.001, strike: 0.0025, maturity: 2, vol: 0.0075, kind: "call" });
    expect(neg.price).toBeCloseTo(0.002709731371537765, 15); // mpmath: 0.0027097313715377654608…
  });

  it("gives the intrinsic value and black76's limits at σ√T = 0, never NaN", () => {
    const base = { forward: -0.002, strike: -0.002, maturity: 1, vol: 0, kind: "call" as const, discountFactor: 0.9 };
    expect(bachelier(base)).toEqual({
      price: 0,
      delta: 0.45,
      gamma: Infinity,
      vega: 0.9 / Math.sqrt(2 * Math.PI),
      theta: 0,
    });
    const itm = bachelier({ ...base, strike: -0.003, kind: "call" });
    expect(itm.price).toBeCloseTo(0.9 * 0.001, 18);
    expect(itm.delta).toBe(0.9);
    expect(itm.gamma).toBe(0);
    const expired = bachelier({ ...base, maturity: 0, vol: 0.01 });
    expect(expired.theta).toBe(-Infinity);
    for (const g of [itm, expired, bachelier({ ...base, vol: 1e-300, strike: 1 })])
      for (const key of KEYS) expect(Number.isNaN(g[key])).toBe(false);
  });

  it("refuses invalid inputs with a VolModelError naming the field", () => {
    const ok: BachelierInput = { forward: 0.01, strike: 0.02, maturity: 1, vol: 0.01, kind: "put" };
    const cases: [Partial<BachelierInput> | Record<string, unknown>, string, RegExp][] = [
      [{ forward: NaN }, "forward", /^forward must be a finite number; got NaN$/],
      [{ strike: Infinity }, "strike", /^strike must be a finite number; got Infinity$/],
      [{ forward: 1.5e308, strike: -1.5e308 }, "strike", /^forward − strike must be finite/],
      [{ vol: -0.01 }, "vol", /^vol must be a finite number >= 0; got -0.01$/],
      [{ maturity: -1 }, "maturity", /^maturity must be a finite number >= 0/],
      [{ discountFactor: 0 }, "discountFactor", /^discountFactor must be a finite number > 0/],
      [{ kind: "straddle" }, "kind", /^kind must be "call" or "put"/],
    ];
    for (const [patch, field, message] of cases) {
      const e = errorOf(() => bachelier({ ...ok, ...patch }));
      expect(e.field).toBe(field);
      expect(e.message).toMatch(message);
    }
  });

  it("bachelierStrikes equals the scalar bachelier strike by strike, and names a bad element", () => {
    const strikes = Float64Array.from({ length: 50 }, (_, q) => -0.01 + q * 0.0005);
    const vols = Float64Array.from(strikes, (K) => 0.006 + 0.1 * Math.abs(K));
    for (const kind of ["call", "put"] as const) {
      const market = { forward: 0.0015, maturity: 2.5, discountFactor: 0.95, kind };
      const perStrike = bachelierStrikes(market, strikes, vols);
      const flat = bachelierStrikes(market, Array.from(strikes), 0.008);
      strikes.forEach((K, q) => {
        const a = bachelier({ ...market, strike: K, vol: vols[q]! });
        const b = bachelier({ ...market, strike: K, vol: 0.008 });
        for (const key of KEYS) {
          expect(perStrike[key][q]).toBe(a[key]);
          expect(flat[key][q]).toBe(b[key]);
        }
      });
    }
    const market = { forward: 0.01, maturity: 1, kind: "call" as const };
    expect(() => bachelierStrikes(market, [0.01, NaN], 0.01)).toThrow(
      /^strikes\[1\] must be a finite number; got NaN$/,
    );
    expect(() => bachelierStrikes(market, [0.01, 0.02], [0.01, -1])).toThrow(/^vols\[1\] must be a finite number >= 0/);
  });
});

const asShifted = (r: ReferenceRow, vol = r.vol): Black76Input => ({
  forward: r.forward,
  strike: r.strike,
  maturity: r.maturity,
  vol,
  discountFactor: r.discountFactor,
  kind: r.kind,
  shift: r.shift,
});

describe("black76 with a shift (shifted lognormal)", () => {
  it("prices equal the 60-digit price (1e-13 relative, measured per band) and QuantLib's blackFormula with a displacement to its rounding", () => {
    const rows = BLACK_ROWS.filter((r) => r.exact > 1e-300);
    const rel = (r: ReferenceRow) => Math.abs(black76(asShifted(r)).price - r.exact) / r.exact;
    const worst = bands(rows, "black", rel);
    report("black76 (shifted and not) vs mpmath, max relative error by |z|:", worst);
    for (const band of Object.keys(worst)) expect(worst[band], band).toBeLessThan(1e-13);
    expect(rows.filter((r) => r.shift > 0 && r.forward < 0).length).toBeGreaterThan(50);
    // QuantLib: DF·(F'·N(d1) − K'·N(d2)), held to 3 ulps of the larger term, plus its relative rounding.
    for (const r of rows) {
      const scale = r.discountFactor * Math.max(r.forward + r.shift, r.strike + r.shift);
      expect(Math.abs(black76(asShifted(r)).price - r.ql), JSON.stringify(r)).toBeLessThanOrEqual(
        6.7e-16 * scale + 1e-14 * r.exact,
      );
    }
  });

  it("is black76 of the shifted forward and strike, greeks included, and shift 0 changes nothing", () => {
    const a = black76({ forward: -0.004, strike: 0.001, maturity: 3, vol: 0.25, kind: "call", shift: 0.02 });
    const b = black76({ forward: -0.004 + 0.02, strike: 0.001 + 0.02, maturity: 3, vol: 0.25, kind: "call" });
    expect(a).toEqual(b);
    const plain = { forward: 100, strike: 95, maturity: 0.5, vol: 0.3, kind: "put" as const, discountFactor: 0.98 };
    expect(black76({ ...plain, shift: 0 })).toEqual(black76(plain));
    const strikes = [-0.01, -0.005, 0, 0.005, 0.01];
    const market = { forward: -0.002, maturity: 2, kind: "put" as const, shift: 0.015 };
    const arrays = black76Strikes(market, strikes, 0.3);
    strikes.forEach((K, q) => {
      const one = black76({ ...market, strike: K, vol: 0.3 });
      for (const key of KEYS) expect(arrays[key][q]).toBe(one[key]);
    });
  });

  it("refuses a forward or strike at or below −shift, saying the shifted value", () => {
    const ok: Black76Input = { forward: -0.004, strike: 0.001, maturity: 3, vol: 0.25, kind: "call", shift: 0.005 };
    let e = errorOf(() => black76({ ...ok, forward: -0.006 }));
    expect(e.field).toBe("forward");
    expect(e.message).toBe("forward + shift must be a finite number > 0; got -0.006 + 0.005 = -0.001");
    e = errorOf(() => black76({ ...ok, strike: -0.005 }));
    expect(e.message).toBe("strike + shift must be a finite number > 0; got -0.005 + 0.005 = 0");
    expect(errorOf(() => black76({ ...ok, shift: NaN })).message).toBe("shift must be a finite number; got NaN");
    expect(() => black76Strikes({ forward: 0.01, maturity: 1, kind: "call", shift: 0.01 }, [0, -0.02], 0.2)).toThrow(
      /^strikes\[1\] \+ shift must be a finite number > 0; got -0.02 \+ 0.01 = -0.01$/,
    );
    // without a shift the messages are black76's own
    expect(errorOf(() => black76({ ...ok, shift: 0 })).message).toBe("forward must be a finite number > 0; got -0.004");
  });
});
