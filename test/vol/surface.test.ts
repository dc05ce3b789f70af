/** fromSurface: the model of vol-model.md across maturities, strike conventions, and its evaluators. */
import { describe, expect, it } from "vitest";
import { DAYS_PER_YEAR, STRIKE_TYPE } from "../../src/api/assumptions";
import { VolModelError, VolSurfaceModel, fromSurface, normCdf } from "../../src/vol";
import { SAMPLE, docModel, oneYear } from "./reference-model";

const { Absolute, PercentForward, PercentSpot } = STRIKE_TYPE;
const rel = (a: number, b: number) => Math.abs(a - b) / Math.abs(b);

describe("public reference case 3: a flat surface", () => {
  const flat = {
    ...SAMPLE,
    skews: [0, 0, 0, 0],
    smiles: [0.5, 0.5, 0.5, 0.5],
    put_wings: [0.8, 0.8, 0.8, 0.8],
    call_wings: [0.8, 0.8, 0.8, 0.8],
  };

  it("gives exactly v at k = 0 at every benchmark", () => {
    const s = fromSurface(flat);
    flat.benchmark_maturities.forEach((d, i) => {
      expect(s.vols(d, [0], "logMoneyness")[0]).toBe(flat.vols[i]);
      expect(s.vols(d, [100], PercentForward)[0]).toBe(flat.vols[i]);
    });
  });

  it("returns vols[0] at the forward when a one-benchmark surface is queried at its own maturity", () => {
    const one = oneYear({ vol: 0.2345, skew: 0, smile: 0.5, putWing: 1, callWing: 1 }, 4000, 1.03);
    const s = fromSurface(one);
    expect(s.vols(DAYS_PER_YEAR, [100], PercentForward)[0]).toBe(0.2345);
    expect(s.vols(DAYS_PER_YEAR, [s.forward(DAYS_PER_YEAR)], Absolute)[0]).toBe(0.2345);
    expect(s.vols(DAYS_PER_YEAR, [103], PercentSpot)[0]).toBeCloseTo(0.2345, 15);
  });

  it("is symmetric in k", () => {
    const s = fromSurface(flat);
    const v = s.vols(120, [-0.4, 0.4, -1.1, 1.1], "logMoneyness");
    expect(v[0]).toBeCloseTo(v[1]!, 15);
    expect(v[2]).toBeCloseTo(v[3]!, 15);
  });
});

describe("public reference case 4: nodes are exact", () => {
  const s = fromSurface(SAMPLE);

  it("has F(T_i) = spot_ref · benchmark_fwd_factors[i] exactly", () => {
    SAMPLE.benchmark_maturities.forEach((d, i) =>
      expect(s.forward(d)).toBe(SAMPLE.spot_ref * SAMPLE.benchmark_fwd_factors[i]!),
    );
  });

  it("has the ATM-forward vol vols[i] exactly, in every strike convention that reaches the forward", () => {
    SAMPLE.benchmark_maturities.forEach((d, i) => {
      expect(s.vols(d, [100], PercentForward)[0]).toBe(SAMPLE.vols[i]);
      expect(s.vols(d, [0], "logMoneyness")[0]).toBe(SAMPLE.vols[i]);
      expect(s.vols(d, [s.forward(d)], Absolute)[0]).toBe(SAMPLE.vols[i]);
    });
  });

  it("has the ATM total variance theta_i = v_i²·T_i at the nodes", () => {
    SAMPLE.benchmark_maturities.forEach((d, i) => {
      expect(s.totalVariance(d, [0])[0]).toBeCloseTo(SAMPLE.vols[i]! ** 2 * (d / DAYS_PER_YEAR), 16);
    });
  });
});

describe("maturity interpolation and extrapolation", () => {
  const s = fromSurface(SAMPLE);
  const doc = docModel(SAMPLE);
  const strikes = [3000, 4500, 5000, 5321.5, 5600, 6500, 9000];

  it("matches vol-model.md before, between, at and after the benchmarks, to 1e-13 relative", () => {
    for (const d of [1, 7, 29.5, 30, 45, 91, 100, 181, 182, 300, 365, 366, 500, 1000, 3650]) {
      const v = s.vols(d, strikes, Absolute);
      strikes.forEach((K, j) => expect(rel(v[j]!, doc.vol(d, K)), `${d} d, K ${K}`).toBeLessThan(1e-13));
    }
  });

  it("keeps the first benchmark's smile in implied vol before it: w(k, T) = (T/T_1)·w_1(k)", () => {
    const k = [-0.3, 0, 0.2];
    const at = s.vols(30, k, "logMoneyness");
    const before = s.vols(3, k, "logMoneyness");
    k.forEach((_, j) => expect(before[j]).toBeCloseTo(at[j]!, 15));
  });

  it("holds the ATM vol flat and keeps the wing slopes after the last benchmark", () => {
    const w365 = s.totalVariance(365, [-0.5, 0, 0.5]);
    const w730 = s.totalVariance(730, [-0.5, 0, 0.5]);
    const theta = SAMPLE.vols[3]! ** 2;
    expect(s.vols(730, [0], "logMoneyness")[0]).toBeCloseTo(SAMPLE.vols[3]!, 15);
    for (let j = 0; j < 3; j++) expect(w730[j]! - w365[j]!).toBeCloseTo(theta, 15);
  });

  it("interpolates ln F linearly in T from (0, ln spot_ref) and continues the last segment", () => {
    for (const d of [10, 60, 200, 400, 2000]) expect(rel(s.forward(d), doc.forward(d))).toBeLessThan(1e-14);
    const lnF = (d: number) => Math.log(s.forward(d));
    expect((lnF(2000) - lnF(365)) / (2000 - 365)).toBeCloseTo((lnF(365) - lnF(182)) / (365 - 182), 12);
    expect(
      fromSurface(oneYear({ vol: 0.2, skew: 0, smile: 1, putWing: 1, callWing: 1 }, 100, 1.05)).forward(730),
    ).toBeCloseTo(100 * 1.05 ** 2, 11);
  });
});

describe("strike conventions", () => {
  const s = fromSurface(SAMPLE);
  const F = s.forward(120);

  it("reads PercentForward as x/100·F(T) and PercentSpot as x/100·spot_ref", () => {
    const pf = s.vols(120, [80, 100, 125], PercentForward);
    const abs = s.vols(120, [0.8 * F, F, 1.25 * F], Absolute);
    const ps = s.vols(120, [80, 100, 125], PercentSpot);
    const absSpot = s.vols(120, [0.8 * SAMPLE.spot_ref, SAMPLE.spot_ref, 1.25 * SAMPLE.spot_ref], Absolute);
    for (let j = 0; j < 3; j++) {
      expect(pf[j]).toBeCloseTo(abs[j]!, 14);
      expect(ps[j]).toBeCloseTo(absSpot[j]!, 14);
    }
  });

  it("converts between conventions with logMoneyness, absoluteStrikes and callDelta", () => {
    expect(Array.from(s.logMoneyness(120, [100], PercentForward))).toEqual([0]);
    expect(s.logMoneyness(120, [F * Math.E], Absolute)[0]).toBeCloseTo(1, 14);
    expect(s.absoluteStrikes(120, [100], PercentSpot)[0]).toBeCloseTo(SAMPLE.spot_ref, 9);
    expect(Array.from(s.absoluteStrikes(120, [4000, 5000], Absolute))).toEqual([4000, 5000]);
    const d = s.callDelta(120, [0], "logMoneyness")[0]!;
    const sw = Math.sqrt(s.totalVariance(120, [0])[0]!);
    expect(d).toBe(normCdf(sw / 2));
  });

  it("solves forward call delta on the model's own smile", () => {
    const deltas = [0.1, 0.25, 0.5, 0.75, 0.9];
    const K = s.absoluteStrikes(120, deltas, "delta");
    expect(Array.from(K)).toEqual([...K].sort((a, b) => b - a));
    const back = s.callDelta(120, K, Absolute);
    deltas.forEach((d, j) => expect(back[j]).toBeCloseTo(d, 12));
    const byDelta = s.vols(120, deltas, "delta");
    const byStrike = s.vols(120, K, Absolute);
    deltas.forEach((_, j) => expect(byDelta[j]).toBeCloseTo(byStrike[j]!, 12));
  });

  it("accepts plain arrays, Float64Arrays and other typed arrays alike", () => {
    const a = s.vols(120, [90, 100, 110], PercentForward);
    expect(s.vols(120, new Float64Array([90, 100, 110]), PercentForward)).toEqual(a);
    expect(s.vols(120, new Float32Array([90, 100, 110]), PercentForward)).toEqual(a);
    expect(s.vols(120, [], PercentForward)).toEqual(new Float64Array(0));
  });
});

describe("grid", () => {
  const s = fromSurface(SAMPLE);

  it("is row-major: vols[i·strikes.length + j] is maturity i, strike j, equal to vols() of that maturity", () => {
    const mats = [10, 91, 200, 800];
    for (const type of [Absolute, PercentForward, PercentSpot, "logMoneyness", "delta"] as const) {
      const strikes =
        type === "logMoneyness"
          ? [-0.2, 0, 0.1]
          : type === "delta"
            ? [0.25, 0.5, 0.75]
            : type === Absolute
              ? [4800, 5300, 5900]
              : [90, 100, 110];
      const g = s.grid(mats, strikes, type);
      expect(g.vols.length).toBe(12);
      expect(Array.from(g.maturities)).toEqual(mats);
      expect(Array.from(g.strikes)).toEqual(strikes);
      expect(g.strikeType).toBe(type);
      mats.forEach((d, i) => {
        const row = s.vols(d, strikes, type);
        strikes.forEach((_, j) => expect(g.vols[i * 3 + j]).toBeCloseTo(row[j]!, 15));
      });
    }
  });

  it("checks every maturity and strike", () => {
    expect(() => s.grid([30, -1], [100], PercentForward)).toThrow(
      /maturities\[1\] must be a finite number of days > 0; got -1/,
    );
    expect(() => s.grid([30], [100, 0], PercentForward)).toThrow(/strikes\[1\] must be a finite number > 0; got 0/);
  });
});

describe("the model object", () => {
  it("exposes spot, reference date, benchmarks with raw SVI, and the wire form", () => {
    const s = fromSurface({
      ...SAMPLE,
      reference_date: new Date("2026-11-20T00:00:00Z"),
      vols: new Float64Array(SAMPLE.vols),
    });
    expect(s.spotRef).toBe(5321.5);
    expect(s.referenceDate.toISOString()).toBe("2026-11-20T00:00:00.000Z");
    expect(s.benchmarks).toHaveLength(4);
    expect(s.benchmarks[2]).toMatchObject({ index: 2, maturity: 182, vol: 0.215, skew: -0.1, forward: 5321.5 * 1.013 });
    expect(Object.isFrozen(s.benchmarks[2])).toBe(true);
    expect(Array.from(s.maturities)).toEqual([30, 91, 182, 365]);
    expect(s.toJSON()).toEqual({ ...SAMPLE, reference_date: "2026-11-20T00:00:00.000Z" });
    expect(fromSurface(s)).toBe(s);
    expect(s).toBeInstanceOf(VolSurfaceModel);
  });

  it("reads date-only reference dates as midnight UTC, like the wire", () => {
    expect(fromSurface({ ...SAMPLE, reference_date: "2026-11-20" }).toJSON().reference_date).toBe(
      "2026-11-20T00:00:00Z",
    );
  });

  it("is not changed by later edits of the caller's arrays", () => {
    const vols = new Float64Array(SAMPLE.vols);
    const s = fromSurface({ ...SAMPLE, vols });
    vols[0] = 5;
    expect(s.vols(30, [100], PercentForward)[0]).toBe(0.24);
  });
});

describe("vols() arguments", () => {
  const s = fromSurface(SAMPLE);
  const error = (f: () => unknown): VolModelError => {
    try {
      f();
    } catch (e) {
      return e as VolModelError;
    }
    throw new Error("did not throw");
  };

  it("refuses a maturity that is not a finite number of days > 0, naming the field", () => {
    for (const m of [0, -5, NaN, Infinity]) {
      const e = error(() => s.vols(m, [100], PercentForward));
      expect(e).toBeInstanceOf(VolModelError);
      expect(e.field).toBe("maturity");
      expect(e.message).toMatch(/maturity must be a finite number of days > 0/);
    }
  });

  it("refuses strikes that are not finite and > 0, naming the index", () => {
    for (const [K, shown] of [
      [0, "0"],
      [-100, "-100"],
      [NaN, "NaN"],
      [Infinity, "Infinity"],
    ] as const) {
      const e = error(() => s.vols(30, [100, K], Absolute));
      expect(e.field).toBe("strikes");
      expect(e.message).toBe(`strikes[1] must be a finite number > 0; got ${shown}`);
    }
    expect(error(() => s.vols(30, [100, "90" as unknown as number], Absolute)).message).toMatch(
      /strikes\[1\] must be a number; got "90"/,
    );
    expect(error(() => s.vols(30, [0.1, 1], "delta")).message).toMatch(
      /strikes\[1\] must be a forward call delta in \(0, 1\); got 1/,
    );
    expect(error(() => s.vols(30, [0.1, NaN], "logMoneyness")).message).toMatch(
      /strikes\[1\] must be a finite log-moneyness with \|k\| <= 10000; got NaN/,
    );
    expect(error(() => s.vols(30, [0.1, -1e300], "logMoneyness")).message).toMatch(
      /strikes\[1\] must be a finite log-moneyness/,
    );
    expect(error(() => s.totalVariance(30, [Infinity])).field).toBe("k");
  });

  it("refuses an unknown strike type", () => {
    const e = error(() => s.vols(30, [100], 3 as never));
    expect(e.field).toBe("strike_type");
    expect(e.message).toBe(
      'strike_type must be one of 0 (Absolute), 1 (PercentForward), 2 (PercentSpot), "logMoneyness" or "delta"; got 3',
    );
  });

  it("accepts extreme strikes and maturities without NaN", () => {
    const v = s.vols(1e-9, [Number.MIN_VALUE, 1e-300, 1, 1e300, Number.MAX_VALUE], Absolute);
    const w = s.vols(1e5, [Number.MIN_VALUE, 1e-300, 1, 1e300, Number.MAX_VALUE], PercentForward);
    for (const x of [...v, ...w]) expect(Number.isFinite(x) && x > 0).toBe(true);
  });

  it("refuses a maturity so far out that the forward leaves double precision", () => {
    const steep = fromSurface({ ...SAMPLE, benchmark_fwd_factors: [1, 1, 1, 2] });
    const e = error(() => steep.vols(1e6, [100], PercentForward));
    expect(e).toMatchObject({ field: "maturity", condition: "finite forward" });
    expect(e.message).toMatch(/^maturity 1000000 d is too far out: the forward F\(T\) = exp\(/);
    // With a flat forward curve every maturity is in range.
    expect(
      fromSurface({ ...SAMPLE, benchmark_fwd_factors: [1, 1, 1, 1] }).vols(1e300, [100], PercentForward)[0],
    ).toBeCloseTo(SAMPLE.vols[3]!, 15);
  });

  it("reports an unreachable delta when the call wing breaks Lee's bound", () => {
    const steep = fromSurface(oneYear({ vol: 1, skew: 0, smile: 1, putWing: 1, callWing: 3 }));
    expect(() => steep.vols(365, [0.01], "delta")).toThrow(/forward call delta 0.01 is not reached/);
    expect(steep.vols(365, [0.9], "delta")[0]).toBeGreaterThan(0);
  });
});
