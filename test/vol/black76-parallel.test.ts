/**
 * Large batches on several threads ({@link fillBlack76Parallel}, its worker built as dist/vol/black76/worker.js):
 * the results equal the calling thread's alone, bit for bit, on a large random batch (several windows, a
 * smile and one vol for all, calls and puts, options the fast passes leave to the reference kernel); with
 * `RPL_BLACK_THREADS=1` nothing goes to the workers; where workers cannot start (Node's permission model
 * without --allow-worker) the pricing call still succeeds, on one thread, and the pool is off.
 */
import { execFileSync } from "node:child_process";
import { availableParallelism } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { black76Strikes } from "../../src/vol/black76";
import {
  PARALLEL_MIN,
  black76PoolStatus,
  black76Threads,
  fillBlack76Parallel,
  setBlack76Threads,
} from "../../src/vol/black76/parallel";
import type { Black76Arrays } from "../../src/vol/black76/series";
import { random } from "../helpers/random";

const KEYS = ["price", "delta", "gamma", "vega", "theta"] as const;
const root = path.resolve(__dirname, "..", "..");

/** Strikes from 1e-3 to 1e3 times the forward (far wings go to the reference kernel), vols 0 to 150%. */
function batch(n: number, seed: number): { strikes: Float64Array; vols: Float64Array } {
  const next = random(seed);
  const strikes = new Float64Array(n);
  const vols = new Float64Array(n);
  for (let q = 0; q < n; q++) {
    strikes[q] = 100 * Math.exp(13.8 * (next() - 0.5));
    vols[q] = q % 997 === 0 ? 0 : 1.5 * next();
  }
  return { strikes, vols };
}

function firstDifference(a: Black76Arrays, b: Black76Arrays): string | undefined {
  for (const key of KEYS)
    for (let q = 0; q < a[key].length; q++)
      if (!Object.is(a[key][q], b[key][q])) return `${key}[${q}]: ${a[key][q]} vs ${b[key][q]}`;
  return undefined;
}

/** Until the pool is no longer starting (a first large call starts it without waiting). */
async function poolSettled(): Promise<string> {
  for (let i = 0; i < 500 && black76PoolStatus().state === "starting"; i++) await new Promise((r) => setTimeout(r, 10));
  return black76PoolStatus().state;
}

afterEach(() => {
  setBlack76Threads(undefined);
  delete process.env.RPL_BLACK_THREADS;
});

describe("black76Strikes on several threads", () => {
  it.runIf(availableParallelism() >= 2)("equals one thread bit for bit on a large random batch", async () => {
    const n = 600_001; // several windows, the last one short
    const { strikes, vols } = batch(n, 7);
    setBlack76Threads(2);
    black76Strikes({ forward: 100, maturity: 1.5, discountFactor: 0.95, kind: "call" }, strikes, vols);
    expect(await poolSettled()).toBe("ready");
    expect(black76PoolStatus().threads).toBe(2);
    for (const [kind, maturity, DF] of [
      ["call", 1.5, 0.95],
      ["put", 0.02, 1],
    ] as const) {
      const market = { forward: 100, maturity, discountFactor: DF, kind };
      const many = black76Strikes(market, strikes, vols);
      const flat = black76Strikes(market, strikes, 0.3);
      expect(black76PoolStatus().state).toBe("ready"); // no worker failed: the batch was shared
      setBlack76Threads(1);
      const one = black76Strikes(market, strikes, vols);
      const flatOne = black76Strikes(market, strikes, 0.3);
      setBlack76Threads(2);
      expect(firstDifference(many, one)).toBeUndefined();
      expect(firstDifference(flat, flatOne)).toBeUndefined();
      expect(many.price.every((x) => Number.isFinite(x))).toBe(true);
    }
  });

  it.runIf(availableParallelism() >= 2)(
    "refuses a bad element of a large batch before writing anything; the pool stays ready",
    async () => {
      const n = 300_000; // two windows
      const { strikes, vols } = batch(n, 11);
      const market = { forward: 100, maturity: 4, discountFactor: 0.99, kind: "call" } as const;
      setBlack76Threads(2);
      black76Strikes(market, strikes, vols);
      expect(await poolSettled()).toBe("ready");
      const out = Object.fromEntries(KEYS.map((k) => [k, new Float64Array(n).fill(7)])) as unknown as Black76Arrays;
      for (const [field, q, value, message] of [
        ["strikes", n - 1, -1, /^strikes\[299999\] must be a finite number > 0; got -1$/],
        ["vols", 1, NaN, /^vols\[1\] must be a finite number >= 0; got NaN$/],
        ["strikes", 200_000, Infinity, /^strikes\[200000\] must be a finite number > 0; got Infinity$/],
        ["vols", n - 1, 1e308, /^vols\[299999\] · sqrt\(maturity\) must be finite/],
      ] as const) {
        const s = strikes.slice();
        const v = vols.slice();
        (field === "strikes" ? s : v)[q] = value;
        expect(() => black76Strikes(market, s, v, out)).toThrow(message);
        expect(KEYS.every((k) => out[k].every((x) => x === 7))).toBe(true);
        expect(black76PoolStatus().state).toBe("ready");
      }
      // The pool goes on: the next batch is shared and right.
      const many = black76Strikes(market, strikes, vols);
      setBlack76Threads(1);
      expect(firstDifference(many, black76Strikes(market, strikes, vols))).toBeUndefined();
    },
  );

  it("leaves small batches and RPL_BLACK_THREADS=1 to the calling thread", () => {
    const { strikes, vols } = batch(PARALLEL_MIN, 3);
    const out = black76Strikes({ forward: 100, maturity: 1, kind: "call" }, strikes, vols);
    const args = [100, strikes, vols, 1, 1, 1, 0, true, out] as const;
    expect(fillBlack76Parallel(...args, PARALLEL_MIN - 1)).toBe(false);
    process.env.RPL_BLACK_THREADS = "1";
    expect(black76Threads()).toBe(1);
    expect(fillBlack76Parallel(...args, PARALLEL_MIN)).toBe(false);
    process.env.RPL_BLACK_THREADS = "3";
    expect(black76Threads()).toBe(3);
  });

  it("prices on one thread where workers cannot start (permission model without --allow-worker)", () => {
    const script = `
      const { black76Strikes } = require(${JSON.stringify(path.join(root, "dist", "vol", "black76", "index.js"))});
      const par = require(${JSON.stringify(path.join(root, "dist", "vol", "black76", "parallel.js"))});
      const n = 200000, strikes = new Float64Array(n);
      for (let q = 0; q < n; q++) strikes[q] = 50 + q / 1000;
      const a = black76Strikes({ forward: 100, maturity: 1, kind: "call" }, strikes, 0.2);
      const b = black76Strikes({ forward: 100, maturity: 1, kind: "call" }, strikes, 0.2);
      console.log(JSON.stringify({ state: par.black76PoolStatus().state, price: a.price[12345], same: a.price[n - 1] === b.price[n - 1] }));
    `;
    // Node's permission model: --permission since Node 22.13 (Node 26 knows no other), --experimental-permission before.
    const [major, minor] = process.versions.node.split(".").map(Number) as [number, number];
    const permission = major > 22 || (major === 22 && minor >= 13) ? "--permission" : "--experimental-permission";
    const flags = [permission, `--allow-fs-read=${root}`, "--no-warnings"];
    const res = JSON.parse(
      execFileSync(process.execPath, [...flags, "-e", script], {
        cwd: root,
        encoding: "utf8",
        env: { ...process.env, RPL_BLACK_THREADS: "2" },
      }),
    );
    const want = black76Strikes({ forward: 100, maturity: 1, kind: "call" }, [50 + 12345 / 1000], 0.2).price[0];
    expect(res).toEqual({ state: "off", price: want, same: true });
  });
});
