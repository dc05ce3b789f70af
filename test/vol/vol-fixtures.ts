/**
 * The reference prices of scripts/reference/quantlib-vols.py (test/vol/fixtures/quantlib-vols.json):
 * QuantLib 1.29's blackFormula / bachelierBlackFormula, mpmath's 60-digit price rounded to double, and
 * QuantLib's implied vol of that price (a cross-check, ~1e-8).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { OptionKind } from "../../src/vol/black76";

export interface ReferenceRow {
  forward: number;
  strike: number;
  maturity: number;
  vol: number;
  discountFactor: number;
  shift: number;
  kind: OptionKind;
  /** QuantLib's price (double precision, textbook formula). */
  ql: number;
  /** The 60-digit price, rounded to double. */
  exact: number;
  /** QuantLib's implied vol of `exact`, or null where it refused. */
  qlVol: number | null;
}

type Raw = [number, number, number, number, number, number, number, number, number, number | null];

const file = JSON.parse(readFileSync(path.join(__dirname, "fixtures", "quantlib-vols.json"), "utf8")) as {
  black: Raw[];
  bachelier: Raw[];
};

const rows = (raw: Raw[]): ReferenceRow[] =>
  raw.map(([forward, strike, maturity, vol, discountFactor, shift, call, ql, exact, qlVol]) => ({
    forward,
    strike,
    maturity,
    vol,
    discountFactor,
    shift,
    kind: call ? "call" : "put",
    ql,
    exact,
    qlVol,
  }));

/** Black-76 rows, shifted ones among them (shift > 0, forwards down to −0.005). */
export const BLACK_ROWS = rows(file.black);
/** Bachelier rows, negative forwards and strikes among them. */
export const BACHELIER_ROWS = rows(file.bachelier);

/** The standardised moneyness the row was placed at: ln(F'/K')/(σ√T) (Black) or (F − K)/(σ√T) (Bachelier). */
export function moneyness(r: ReferenceRow, model: "black" | "bachelier"): number {
  const s = r.vol * Math.sqrt(r.maturity);
  return model === "black" ? Math.log((r.forward + r.shift) / (r.strike + r.shift)) / s : (r.forward - r.strike) / s;
}
