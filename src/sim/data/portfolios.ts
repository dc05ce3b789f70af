/**
 * Portfolios and their transaction tables (A13: rows of objects keyed by column name). Rows are not
 * stored: row i of a portfolio is a pure function of (seed, portfolio, i), and trade dates grow with i,
 * so a date filter is a binary search and a 1,000,000-row table is generated while it streams.
 */
import { PORTFOLIO_TYPES, TRANSACTION_COLUMNS } from "../../api/assumptions";
import { addBusinessDays, businessDays, wireDate } from "../calendar";
import { hash32, rngFromInts } from "../random";
import type { Tradable, Universe } from "./universe";
import { round } from "../round";

export interface Portfolio {
  name: string;
  type: (typeof PORTFOLIO_TYPES)[number];
  description: string;
  reportingCurrency: string;
  books: string[];
  /** Tradable ids this portfolio trades. */
  tradables: string[];
}

export const COUNTERPARTIES = ["JPM", "GS", "MS", "BARC", "DB", "BNPP", "UBS", "HSBC", "CITI", "SOCGEN"] as const;

/** Share of rows with quantity 0 (cancelled or fully amended tickets). */
const ZERO_QUANTITY_SHARE = 0.03;

export function portfolios(universe: Universe): Portfolio[] {
  const ids = (pred: (t: Tradable) => boolean) => [...universe.tradables.values()].filter(pred).map((t) => t.id);
  return [
    {
      name: "GLOBAL-MACRO",
      type: "provider",
      description: "Global macro: rates, equity indices and index options",
      reportingCurrency: "USD",
      books: ["MACRO-RATES", "MACRO-EQ"],
      tradables: ids((t) => t.kind !== "equity" || t.id.startsWith("SPX") || t.id.startsWith("SX5E")),
    },
    {
      name: "RATES-EU",
      type: "provider",
      description: "European government bonds",
      reportingCurrency: "EUR",
      books: ["EGB-CORE", "EGB-SEMI"],
      tradables: ids((t) => t.kind === "bond" && t.currency === "EUR"),
    },
    {
      name: "EQ-LONG-SHORT",
      type: "external",
      description: "Global equity long/short",
      reportingCurrency: "USD",
      books: ["EQ-US", "EQ-EU", "EQ-ASIA"],
      tradables: ids((t) => t.kind === "equity" || t.kind === "option"),
    },
    {
      name: "TREASURY-ALM",
      type: "not_set",
      description: "Balance-sheet hedges",
      reportingCurrency: "GBP",
      books: ["ALM"],
      tradables: ids((t) => t.kind === "bond"),
    },
  ];
}

export type TransactionRow = Record<(typeof TRANSACTION_COLUMNS)[number], string | number>;

export interface TransactionFilter {
  /** Inclusive, `YYYY-MM-DD`. */
  startDate?: string;
  endDate?: string;
  includeZeroQuantities: boolean;
  counterparties: readonly string[];
}

export class TransactionBook {
  readonly #days: string[];
  /** Wire strings of each trade day and of its T+1 / T+2 settlement, computed once (rows are hot). */
  readonly #tradeWire: string[];
  readonly #settleWire: [string[], string[]];

  constructor(
    readonly seed: number,
    readonly universe: Universe,
    readonly windowStart: string,
    readonly windowEnd: string,
    /** Rows per portfolio. */
    readonly rows: number,
  ) {
    this.#days = businessDays(windowStart, windowEnd);
    this.#tradeWire = this.#days.map(wireDate);
    this.#settleWire = [
      this.#days.map((d) => wireDate(addBusinessDays(d, 1))),
      this.#days.map((d) => wireDate(addBusinessDays(d, 2))),
    ];
  }

  #dayIndex(i: number): number {
    return Math.min(this.#days.length - 1, Math.floor((i * this.#days.length) / this.rows));
  }

  /** Trade date of row i: rows spread evenly over the window's business days, ascending. */
  tradeDate(i: number): string {
    return this.#days[this.#dayIndex(i)]!;
  }

  /** The first row index whose trade date is >= day (binary search; dates grow with the index). */
  firstRowOnOrAfter(day: string): number {
    let lo = 0;
    let hi = this.rows;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.tradeDate(mid) < day) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Row i of a portfolio: deterministic, realistic, with notional = quantity × price × contract size. */
  row(p: Portfolio, i: number): TransactionRow {
    const r = rngFromInts(this.seed ^ hash32(p.name), i);
    const t = this.universe.tradables.get(p.tradables[r.int(p.tradables.length)]!)!;
    const day = this.#dayIndex(i);
    const buy = r.next() < 0.55;
    let quantity: number;
    let price: number;
    let size = 1;
    let assetClass: string;
    if (t.kind === "bond") {
      assetClass = "Bond";
      quantity = 100_000 * (1 + r.int(100));
      price = round(97 + 6 * r.next(), 4);
      size = 0.01; // price is percent of par
    } else if (t.kind === "equity") {
      assetClass = "Equity";
      quantity = 10 * (1 + r.int(500));
      price = round(t.spot * Math.exp(0.15 * r.normal()), 2);
    } else {
      assetClass = "Option";
      quantity = 1 + r.int(50);
      price = round(5 + 60 * r.next(), 2);
      size = t.multiplier;
    }
    if (r.next() < ZERO_QUANTITY_SHARE) quantity = 0;
    const signed = buy ? quantity : -quantity;
    return {
      trade_id: `${p.name.slice(0, 3)}-${String(i + 1).padStart(7, "0")}`,
      trade_date: this.#tradeWire[day]!,
      settlement_date: this.#settleWire[t.kind === "bond" ? 0 : 1][day]!,
      tradable_id: t.id,
      instrument_name: t.name,
      asset_class: assetClass,
      counterparty: COUNTERPARTIES[r.int(COUNTERPARTIES.length)]!,
      book: p.books[r.int(p.books.length)]!,
      direction: buy ? "BUY" : "SELL",
      quantity: signed === 0 ? 0 : signed,
      price,
      currency: t.currency,
      notional: round(signed * price * size, 2),
    };
  }

  /** The rows of a portfolio that pass the filter, in trade-date order, generated lazily. */
  *select(p: Portfolio, filter: TransactionFilter): Generator<TransactionRow> {
    const from = filter.startDate ? this.firstRowOnOrAfter(filter.startDate) : 0;
    const to = filter.endDate ? this.firstRowOnOrAfter(nextDay(filter.endDate)) : this.rows;
    const parties = filter.counterparties.length ? new Set(filter.counterparties) : undefined;
    for (let i = from; i < to; i++) {
      const row = this.row(p, i);
      if (!filter.includeZeroQuantities && row.quantity === 0) continue;
      if (parties && !parties.has(row.counterparty as string)) continue;
      yield row;
    }
  }
}

/** The day after, as a string that sorts after every time on `day`. */
function nextDay(day: string): string {
  return `${day}\uffff`;
}
