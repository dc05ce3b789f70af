/** Short labels for tenors, maturities and strike conventions, shared by the builders. */
import { STRIKE_TYPE } from "../api/assumptions";

/** A tenor in years as a desk label: `3M`, `18M`, `1Y`, `10Y`; otherwise `2.7Y`. */
export function tenorLabel(years: number): string {
  const months = years * 12;
  if (Math.abs(months - Math.round(months)) < 1e-6 && Math.round(months) > 0) {
    const m = Math.round(months);
    return m % 12 === 0 ? `${m / 12}Y` : `${m}M`;
  }
  return `${Number(years.toPrecision(3))}Y`;
}

/** A maturity in calendar days: `30d`. */
export function daysLabel(days: number): string {
  return `${Number(days.toPrecision(6))}d`;
}

/**
 * The strike axis title of a convention: a wire `strike_type` (0, 1, 2) or the local model's
 * `"logMoneyness"` / `"delta"`; `Strike` when unknown.
 */
export function strikeAxisTitle(strikeType: unknown): string {
  // A delta convention of the local model ({ type: "delta", kind, premiumAdjusted, spot }).
  if (strikeType !== null && typeof strikeType === "object" && (strikeType as { type?: unknown }).type === "delta") {
    const c = strikeType as { kind?: string; premiumAdjusted?: boolean; spot?: unknown };
    const name = `${c.premiumAdjusted ? "premium-adjusted " : ""}${c.spot ? "spot" : "forward"} ${c.kind ?? "call"} delta`;
    return name[0]!.toUpperCase() + name.slice(1);
  }
  switch (strikeType) {
    case STRIKE_TYPE.Absolute:
      return "Strike (price)";
    case STRIKE_TYPE.PercentForward:
      return "Strike (% of forward)";
    case STRIKE_TYPE.PercentSpot:
      return "Strike (% of spot)";
    case "logMoneyness":
      return "Log-moneyness ln(K/F)";
    case "delta":
      return "Forward call delta";
    default:
      return "Strike";
  }
}

/** The at-the-money strike of a convention (100 for percent strikes, 0 log-moneyness, 0.5 delta), if it has one. */
export function atmStrike(strikeType: unknown): number | undefined {
  if (strikeType === STRIKE_TYPE.PercentForward || strikeType === STRIKE_TYPE.PercentSpot) return 100;
  if (strikeType === "logMoneyness") return 0;
  if (strikeType === "delta") return 0.5;
  return undefined;
}

/**
 * The formats of `toLocaleString("en-US")` and `toLocaleString("en-US", { maximumFractionDigits: 20 })`,
 * made once: `toLocaleString` builds a new formatter on every call, the slowest part of labelling a big grid.
 */
let whole: Intl.NumberFormat | undefined;
let fraction: Intl.NumberFormat | undefined;

/** Whole numbers with thousands separators, others to `digits` significant digits: `1,250,000`, `0.0123`. */
export function formatNumber(v: number, digits = 6): string {
  if (!Number.isFinite(v)) return String(v);
  if (Number.isInteger(v)) return (whole ??= new Intl.NumberFormat("en-US")).format(v);
  const abs = Math.abs(v);
  if (abs !== 0 && (abs < 1e-4 || abs >= 1e15)) return v.toExponential(Math.max(0, digits - 1)).replace(/\.?0+e/, "e");
  return (fraction ??= new Intl.NumberFormat("en-US", { maximumFractionDigits: 20 })).format(
    Number(v.toPrecision(digits)),
  );
}

/** HTML-escapes text for labels that plotly renders as HTML (names, hover text). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}
