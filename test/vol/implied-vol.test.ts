/**
 * Implied vols ({@link impliedVol}, {@link impliedVols}) round-tripped from exact prices: the stored
 * 60-digit mpmath prices of scripts/reference/quantlib-vols.py (Black, shifted Black, Bachelier, with QuantLib's implied vols as a
 * ~1e-8 cross-check), and a grid of this package's own prices over |z| ≤ 10 (z the standardised moneyness),
 * vol 1e-4 … 5 and maturity 1/365 … 30. Where the price determines the vol (vega·σ/price ≥ 1e-3, so one ulp
 * of price is at most ~1e-13 of vol) the vol must come back to 1e-12 relative; elsewhere (prices within
 * rounding of a bound, or far in the money, where the intrinsic value swamps the time value) the price of
 * the implied vol must give the price back. Bounds, errors and the array form.
 */
import { describe, expect, it } from "vitest";
import { bachelier } from "../../src/vol/bachelier";
import { black76, type OptionKind } from "../../src/vol/black76";
import { impliedVol, impliedVols, type ImpliedVolInput, type VolModel } from "../../src/vol/implied-vol";
import { errorOf } from "./vol-error";
import { BACHELIER_ROWS, BLACK_ROWS, moneyness, type ReferenceRow } from "./vol-fixtures";

const report = (what: string, worst: unknown): void => {
  if (process.env.VOL_REPORT) console.log(what, worst);
};

/** Vega·σ/price: how many relative units of price one relative unit of vol moves. */
const CONDITION_LIMIT = 1e-3;

interface Case {
  forward: number;
  strike: number;
  maturity: number;
  vol: number;
  discountFactor: number;
  kind: OptionKind;
  shift: number;
  price: number;
}

function priceOf(model: VolModel, c: Omit<Case, "price">, vol = c.vol) {
  const { forward, strike, maturity, discountFactor, kind, shift } = c;
  return model === "black"
    ? black76({ forward, strike, maturity, vol, discountFactor, kind, shift })
    : bachelier({ forward, strike, maturity, vol, discountFactor, kind });
}

function implied(model: VolModel, c: Case): number {
  const { price, forward, strike, maturity, discountFactor, kind, shift } = c;
  return impliedVol({ price, forward, strike, maturity, discountFactor, kind, model, ...(shift ? { shift } : {}) });
}

type Band = "|z|<=1" | "1<|z|<=5" | "5<|z|<=10";
const band = (z: number): Band =>
  Math.abs(z) <= 1 + 1e-9 ? "|z|<=1" : Math.abs(z) <= 5 + 1e-9 ? "1<|z|<=5" : "5<|z|<=10";

interface Tally {
  /** Max relative vol error per band, where vega·σ/price ≥ 1e-3. */
  vol: Record<Band, number>;
  /** Max relative price error of the implied vol's price, where vega·σ/price < 1e-3. */
  price: number;
  volCases: number;
  priceCases: number;
  upperBound: number;
}

/** Round-trips every case: the vol where the price determines it, else the price; the rest must be bound errors. */
function roundTrip(model: VolModel, cases: Case[], z: (c: Case) => number): Tally {
  const t: Tally = {
    vol: { "|z|<=1": 0, "1<|z|<=5": 0, "5<|z|<=10": 0 },
    price: 0,
    volCases: 0,
    priceCases: 0,
    upperBound: 0,
  };
  for (const c of cases) {
    const F = c.forward + c.shift;
    const K = c.strike + c.shift;
    const upper = c.discountFactor * (c.kind === "call" ? F : K);
    if (model === "black" && c.price >= upper * (1 - 4e-16)) {
      // The price is the bound to the last digits: vol infinite as far as the double can tell.
      let vol: number | undefined;
      try {
        vol = implied(model, c);
      } catch (e) {
        expect((e as Error).message, JSON.stringify(c)).toMatch(/is at or above its upper bound/);
        t.upperBound++;
      }
      if (vol !== undefined) expect(Math.abs(priceOf(model, c, vol).price - c.price)).toBeLessThan(1e-15 * upper);
      continue;
    }
    const vol = implied(model, c);
    const g = priceOf(model, c);
    const condition = (g.vega * c.vol) / c.price;
    if (condition >= CONDITION_LIMIT) {
      const e = Math.abs(vol - c.vol) / c.vol;
      const b = band(z(c));
      t.vol[b] = Math.max(t.vol[b], e);
      t.volCases++;
      expect(e, JSON.stringify(c)).toBeLessThan(1e-12);
    } else {
      const e = Math.abs(priceOf(model, c, vol).price - c.price) / c.price;
      t.price = Math.max(t.price, e);
      t.priceCases++;
    }
  }
  return t;
}

const fromRow = (r: ReferenceRow): Case => ({ ...r, price: r.exact });

/** Own prices over a grid of standardised moneyness, vol and maturity (DF 0.95, both kinds). */
function grid(model: VolModel): Case[] {
  const cases: Case[] = [];
  const vols = model === "black" ? [1e-4, 3e-3, 0.05, 0.3, 1, 2.5, 5] : [1e-5, 1e-4, 0.0075, 0.05, 1, 5];
  for (const vol of vols)
    for (const maturity of [1 / 365, 0.1, 1, 10, 30])
      for (let z = -10; z <= 10; z += 0.5)
        for (const kind of ["call", "put"] as const) {
          const s = vol * Math.sqrt(maturity);
          const forward = model === "black" ? 100 : -0.002;
          const strike = model === "black" ? forward * Math.exp(-z * s) : forward - z * s;
          const c = { forward, strike, maturity, vol, discountFactor: 0.95, kind, shift: 0 };
          const price = priceOf(model, c).price;
          if (price > 0) cases.push({ ...c, price });
        }
  return cases;
}

describe("impliedVol, Black (Let's Be Rational)", () => {
  it("gives back the vol of the 60-digit prices to 1e-12 relative wherever the price determines it, shifted too", () => {
    const t = roundTrip("black", BLACK_ROWS.filter((r) => r.exact > 0).map(fromRow), (c) =>
      moneyness(c as unknown as ReferenceRow, "black"),
    );
    report("Black round trips from mpmath prices:", t);
    expect(t.volCases).toBeGreaterThan(700);
    expect(t.price).toBeLessThan(2e-13);
  });

  it("inverts black76 over |z| ≤ 10, vol 1e-4 … 5, maturity 1/365 … 30", () => {
    const cases = grid("black");
    const t = roundTrip("black", cases, (c) => Math.log(c.forward / c.strike) / (c.vol * Math.sqrt(c.maturity)));
    report("Black round trips from black76's prices:", t);
    expect(t.volCases).toBeGreaterThan(1500);
    expect(t.price).toBeLessThan(2e-13);
  });

  it("agrees with QuantLib's blackFormulaImpliedStdDev to its accuracy (~1e-6 in σ√T) near the money", () => {
    let worst = 0;
    for (const r of BLACK_ROWS) {
      if (r.qlVol === null || !(r.exact > 0)) continue;
      const g = black76({ ...r });
      // Beyond |z| = 3 QuantLib's own inversion fails (0, or 1.3 times the vol at |z| = 10: it forms the price
      // by cancellation); it is a cross-check near the money only.
      if ((g.vega * r.vol) / r.exact < 0.05 || Math.abs(moneyness(r, "black")) > 3) continue;
      // QuantLib's accuracy (its default, 1e-6) is absolute in σ√T: measured 1.5e-6 at σ√T = 5e-6
      worst = Math.max(worst, Math.abs(implied("black", fromRow(r)) - r.qlVol) * Math.sqrt(r.maturity));
    }
    report("Black: max |ours − QuantLib| in σ√T:", worst);
    expect(worst).toBeLessThan(3e-6);
  });
});

describe("impliedVol, Bachelier (Jäckel 2017)", () => {
  it("gives back the normal vol of the 60-digit prices to 1e-12 relative, negative forwards and strikes too", () => {
    const t = roundTrip("bachelier", BACHELIER_ROWS.filter((r) => r.exact > 0).map(fromRow), (c) =>
      moneyness(c as unknown as ReferenceRow, "bachelier"),
    );
    report("Bachelier round trips from mpmath prices:", t);
    expect(t.volCases).toBeGreaterThan(500);
    expect(t.price).toBeLessThan(2e-13);
  });

  it("inverts bachelier over |z| ≤ 10, normal vol 1e-5 … 5, maturity 1/365 … 30", () => {
    const t = roundTrip(
      "bachelier",
      grid("bachelier"),
      (c) => (c.forward - c.strike) / (c.vol * Math.sqrt(c.maturity)),
    );
    report("Bachelier round trips from bachelier's prices:", t);
    expect(t.volCases).toBeGreaterThan(1500);
    expect(t.price).toBeLessThan(2e-13);
  });

  it("agrees with QuantLib's bachelierBlackFormulaImpliedVol to its ~1e-8 near the money", () => {
    let worst = 0;
    for (const r of BACHELIER_ROWS) {
      if (r.qlVol === null || !(r.exact > 0)) continue;
      const g = bachelier({ ...r });
      // Beyond |z| = 3 QuantLib's own inversion fails (0, or 1.3 times the vol at |z| = 10: it forms the price
      // by cancellation); it is a cross-check near the money only.
      if ((g.vega * r.vol) / r.exact < 0.05 || Math.abs(moneyness(r, "bachelier")) > 3) continue;
      worst = Math.max(worst, Math.abs(implied("bachelier", fromRow(r)) - r.qlVol) / r.vol);
    }
    report("Bachelier: max |ours − QuantLib|/vol:", worst);
    expect(worst).toBeLessThan(1e-6);
  });
});

/** A seeded generator (mulberry32): the same random options on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("impliedVol over random prices anywhere between the bounds", () => {
  it("gives a vol whose price is the price given, to 1e-12 relative (measured 1.6e-13 over 300 000)", () => {
    const rand = random(45);
    const worst = { black: 0, bachelier: 0 };
    for (let i = 0; i < 6000; i++) {
      const model: VolModel = i % 2 ? "black" : "bachelier";
      const e = (w: number) => Math.exp((rand() - 0.5) * w);
      // Black: F from e^±20, K within e^±15 of it; Bachelier: F and F − K of any sign, magnitudes e^±10.
      const forward = model === "black" ? e(40) : (rand() - 0.5) * e(20);
      const strike = model === "black" ? forward * e(30) : forward + (rand() - 0.5) * e(20);
      const kind: OptionKind = rand() < 0.5 ? "call" : "put";
      const discountFactor = Math.exp(-rand());
      const maturity = 30 * rand();
      const intrinsic = discountFactor * Math.max(kind === "call" ? forward - strike : strike - forward, 0);
      const upper =
        model === "black"
          ? discountFactor * (kind === "call" ? forward : strike)
          : intrinsic + 10 * Math.abs(forward - strike) + 1;
      // time values from the whole range down to e^-200 of it
      const price = intrinsic + (upper - intrinsic) * Math.exp(-200 * rand());
      // (vol: unknown, the implied one below)
      const c = { forward, strike, maturity, discountFactor, kind, shift: 0, price, vol: NaN };
      const vol = implied(model, c);
      const back = priceOf(model, { ...c, vol }).price;
      worst[model] = Math.max(worst[model], Math.abs(back - price) / price);
    }
    report("price of the implied vol vs the price, max relative difference:", worst);
    expect(worst.black).toBeLessThan(1e-12);
    expect(worst.bachelier).toBeLessThan(1e-12);
  });
});

describe("impliedVol's bounds and errors", () => {
  const call: ImpliedVolInput = { price: 0, forward: 100, strike: 90, maturity: 1, kind: "call", discountFactor: 0.9 };

  it("is 0 at the intrinsic value (and within rounding below it), for both models", () => {
    expect(impliedVol({ ...call, price: 0.9 * 10 })).toBe(0);
    expect(impliedVol({ ...call, price: 0.9 * 10 * (1 - 2 ** -52) })).toBe(0);
    expect(impliedVol({ ...call, kind: "put", price: 0 })).toBe(0);
    expect(impliedVol({ ...call, model: "bachelier", price: 9 })).toBe(0);
    expect(impliedVol({ ...call, maturity: 0, price: 9 })).toBe(0);
  });

  it("names the bound a price breaks, with its value", () => {
    let e = errorOf(() => impliedVol({ ...call, price: 8.9 }));
    expect(e.field).toBe("price");
    expect(e.message).toBe(
      "price = 8.9 is below its lower bound, the intrinsic value DF·max(F − K, 0) = 9: no vol gives a price that low",
    );
    e = errorOf(() => impliedVol({ ...call, price: 90 }));
    expect(e.message).toBe(
      "price = 90 is at or above its upper bound DF·F = 90 (the price at infinite vol): no vol gives a price that high",
    );
    e = errorOf(() => impliedVol({ ...call, kind: "put", price: 81.5 }));
    expect(e.message).toMatch(/^price = 81.5 is at or above its upper bound DF·K = 81 /);
    e = errorOf(() => impliedVol({ ...call, kind: "put", price: -1e-3 }));
    expect(e.message).toMatch(/below its lower bound, the intrinsic value DF·max\(K − F, 0\) = 0:/);
    const shifted = { ...call, forward: -0.001, strike: 0.002, shift: 0.01 };
    e = errorOf(() => impliedVol({ ...shifted, price: 0.0082 }));
    expect(e.message).toMatch(/^price = 0.0082 is at or above its upper bound DF·\(F \+ shift\) = 0.0081 /);
    e = errorOf(() => impliedVol({ ...shifted, kind: "put", price: 0.011 }));
    expect(e.message).toMatch(/upper bound DF·\(K \+ shift\) = 0.0108 /);
    e = errorOf(() => impliedVol({ ...call, maturity: 0, price: 9.5 }));
    expect(e.message).toBe(
      "price = 9.5 is above the intrinsic value DF·max(F − K, 0) = 9 at maturity 0: an expired option is worth its intrinsic value",
    );
    // A time value whose normalised form is subnormal: an error, not a vol from a handful of digits (with
    // F = 1, K = e^700 the price 1e-200 is 1e-352 of sqrt(F·K); LBR on 0 gave a vol that priced it at 9e-194).
    e = errorOf(() => impliedVol({ ...call, discountFactor: 1, forward: 1, strike: Math.exp(700), price: 1e-200 }));
    expect(e.message).toMatch(
      /^price = 1e-200 is above the intrinsic value DF·max\(F − K, 0\) = 0 by less than 2.2e-308 of sqrt\(F·K\) = 1.007090887e\+152: too small a time value to imply a vol in double precision$/,
    );
    e = errorOf(() =>
      impliedVol({ ...call, model: "bachelier", forward: 1e10, strike: -1e10, kind: "put", price: 5e-324 }),
    );
    expect(e.message).toMatch(/by less than 2.2e-308 of \|F − K\| = 20000000000: too small a time value/);
    // Bachelier has no upper bound
    expect(impliedVol({ ...call, model: "bachelier", price: 1e6 })).toBeGreaterThan(1e6);
    e = errorOf(() => impliedVol({ ...call, model: "bachelier", price: 8 }));
    expect(e.message).toMatch(/below its lower bound/);
  });

  it("refuses bad inputs naming the field", () => {
    const cases: [Partial<ImpliedVolInput> | Record<string, unknown>, string, RegExp][] = [
      [{ price: NaN }, "price", /^price must be a finite number; got NaN$/],
      [{ model: "normal" }, "model", /^model must be "black" or "bachelier"; got "normal"$/],
      [{ model: "bachelier", shift: 0.01 }, "shift", /^shift applies to model "black" only/],
      [{ forward: -1 }, "forward", /^forward must be a finite number > 0; got -1$/],
      [{ forward: -1, shift: 0.5 }, "forward", /^forward \+ shift must be a finite number > 0; got -1 \+ 0.5 = -0.5$/],
      [{ strike: 0 }, "strike", /^strike must be a finite number > 0/],
      [{ maturity: -1 }, "maturity", /^maturity must be/],
      [{ discountFactor: 0 }, "discountFactor", /^discountFactor must be/],
      [{ kind: "straddle" }, "kind", /^kind must be "call" or "put"/],
    ];
    for (const [patch, field, message] of cases) {
      const e = errorOf(() => impliedVol({ ...call, price: 12, ...patch }));
      expect(e.field).toBe(field);
      expect(e.message).toMatch(message);
    }
  });
});

describe("impliedVols", () => {
  const strikes = Float64Array.from({ length: 41 }, (_, i) => 60 + 2 * i);
  const vols = Float64Array.from(strikes, (K) => 0.2 + 0.3 * Math.log(K / 100) ** 2);
  const kinds = Array.from(strikes, (K): OptionKind => (K < 100 ? "put" : "call"));
  const market = { forward: 100, maturity: 0.75, discountFactor: 0.97 };
  const prices = Float64Array.from(
    strikes,
    (K, i) => black76({ ...market, strike: K, vol: vols[i]!, kind: kinds[i]! }).price,
  );

  it("equals impliedVol price by price, with one kind or one per price, for both models", () => {
    const got = impliedVols({ ...market, prices, strikes, kind: kinds });
    expect(got).toBeInstanceOf(Float64Array);
    strikes.forEach((K, i) => {
      expect(got[i]).toBe(impliedVol({ ...market, price: prices[i]!, strike: K, kind: kinds[i]! }));
      expect(Math.abs(got[i]! - vols[i]!) / vols[i]!).toBeLessThan(1e-13);
    });
    const normal = impliedVols({ ...market, prices: Array.from(prices), strikes, kind: kinds, model: "bachelier" });
    strikes.forEach((K, i) =>
      expect(normal[i]).toBe(
        impliedVol({ ...market, price: prices[i]!, strike: K, kind: kinds[i]!, model: "bachelier" }),
      ),
    );
    expect(impliedVols({ ...market, prices: [], strikes: [], kind: "call" }).length).toBe(0);
  });

  it("names the index of a price that implies no vol, and the bound", () => {
    const bad = Float64Array.from(prices);
    bad[3] = -0.5;
    const e = errorOf(() => impliedVols({ ...market, prices: bad, strikes, kind: kinds }));
    expect(e.field).toBe("prices[3]");
    expect(e.message).toBe(
      "prices[3] = -0.5 (strikes[3] = 66, put) is below its lower bound, the intrinsic value DF·max(K − F, 0) = 0: no vol gives a price that low",
    );
    expect(() => impliedVols({ ...market, prices: [1, 2], strikes: [100], kind: "call" })).toThrow(
      /^strikes must be one per price \(2\); got 1$/,
    );
    expect(() => impliedVols({ ...market, prices: [1, NaN], strikes: [100, 101], kind: "call" })).toThrow(
      /^prices\[1\] must be a finite number; got NaN$/,
    );
    expect(() => impliedVols({ ...market, prices: [1, 2], strikes: [100, 101], kind: ["call"] })).toThrow(
      /^kind must be/,
    );
    expect(() =>
      impliedVols({ ...market, prices: [1, 2], strikes: [100, 101], kind: ["call", "cal"] as unknown as OptionKind[] }),
    ).toThrow(/^kind\[1\] must be "call" or "put"/);
  });
});
