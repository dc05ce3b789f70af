/** `transactions`: gross notional by counterparty, and cumulative quantity over time, side by side. */
import type { TransactionTableResponse } from "../api/position";
import { transactionTableColumns } from "../frames/transaction-table";
import type { Annotation, Figure, Trace } from "./figure";
import { columnsOf, isTableInput, numbers, plotDate, texts, times, type TableInput } from "./input";
import { axis, baseConfig, baseLayout, INK, paletteColor } from "./theme";
import { displayable } from "./show";

export interface TransactionsOptions {
  /**
   * Instruments in the cumulative-quantity panel (names or tradable ids). Default: the `top` by gross
   * notional among the asset class of the largest one (quantities of one class share a unit: bond face
   * amounts next to index units would flatten one of them).
   */
  instruments?: readonly string[];
  /** How many instruments to draw when none are chosen. Default 5. */
  top?: number;
  /** Chart title. Default: a summary (trades, counterparties, dates). */
  title?: string;
}

/**
 * A portfolio's trades in two panels. Left: gross notional (sum of |notional|) by counterparty, largest
 * at the top, one bar per trade currency (amounts in different currencies are never added). Right:
 * the cumulative signed quantity of each chosen instrument over trade dates (a step line: the position
 * these trades built), by default the largest instruments of one asset class.
 *
 * Takes a transaction table: `frames.transactionTableColumns(response)` /
 * `frames.fetchTransactionTableColumns(rp, request)`, their DataFrame twins, or a
 * `GetTransactionTable` response. Needs `counterparty`, `notional`, `trade_date`, `quantity` and
 * `instrument_name` (or `tradable_id`); uses `currency` and `asset_class` when present. Traces: one
 * bar per currency, then one line per instrument.
 *
 * ```ts
 * plot.show(plot.transactions(await frames.fetchTransactionTableColumns(rp, { portfolio_name: "GLOBAL-MACRO" })));
 * ```
 */
export function transactions(input: TableInput | TransactionTableResponse, options: TransactionsOptions = {}): Figure {
  const trades = readTrades(columnsOf(isTableInput(input) ? input : transactionTableColumns(input), "plot.transactions"));
  const bars = notionalBars(trades);
  const { chosen, chosenClass } = chooseInstruments(trades, options);
  const data: Trace[] = [...bars.traces, ...chosen.map((name, k) => quantityLine(trades, name, paletteColor(bars.currencies.length + k)))];
  const [from, to] = dateRange(trades.date);
  const title =
    options.title ??
    `Transactions · ${trades.n.toLocaleString("en-US")} trades, ${bars.counterparties.length} counterparties${from ? ` · ${from} to ${to}` : ""}`;
  const rightTitle = `Cumulative quantity${options.instruments ? "" : `, top ${chosen.length}${chosenClass ? ` ${chosenClass.toLowerCase()}` : ""} instruments`}`;
  return displayable({ data, layout: transactionsLayout(title, rightTitle), config: baseConfig() });
}

/** The columns the figure reads, one array each (`currency` and `asset_class` when present). */
function readTrades(view: ReturnType<typeof columnsOf>) {
  const n = view.rowCount;
  const instrument = texts(view, view.has("instrument_name") ? "instrument_name" : "tradable_id");
  return {
    n,
    counterparty: texts(view, "counterparty"),
    notional: numbers(view, "notional"),
    currency: view.has("currency") ? texts(view, "currency") : new Array<string | null>(n).fill(null),
    date: times(view, "trade_date"),
    quantity: numbers(view, "quantity"),
    instrument,
    ids: view.has("tradable_id") ? texts(view, "tradable_id") : instrument,
    assetClass: view.has("asset_class") ? texts(view, "asset_class") : undefined,
  };
}

type Trades = ReturnType<typeof readTrades>;

/** Left panel: gross notional by counterparty × currency, horizontal bars, the largest counterparty on top. */
function notionalBars(t: Trades): { traces: Trace[]; counterparties: string[]; currencies: string[] } {
  const gross = new Map<string, Map<string, number>>(); // currency → counterparty → sum
  const byCounterparty = new Map<string, number>();
  for (let i = 0; i < t.n; i++) {
    const cp = t.counterparty[i] ?? "(none)";
    const v = Math.abs(t.notional[i]!);
    if (!Number.isFinite(v)) continue;
    const ccy = t.currency[i] ?? "";
    let m = gross.get(ccy);
    if (!m) gross.set(ccy, (m = new Map()));
    m.set(cp, (m.get(cp) ?? 0) + v);
    byCounterparty.set(cp, (byCounterparty.get(cp) ?? 0) + v);
  }
  // A category axis lists from the bottom: ascending order puts the largest at the top.
  const counterparties = [...byCounterparty.keys()].sort((a, b) => byCounterparty.get(a)! - byCounterparty.get(b)!);
  const currencies = [...gross.keys()].sort((a, b) => sum(gross.get(b)!) - sum(gross.get(a)!));
  const traces: Trace[] = currencies.map((ccy, k) => ({
    type: "bar",
    orientation: "h",
    name: ccy || "notional",
    legend: "legend",
    y: counterparties,
    x: counterparties.map((cp) => gross.get(ccy)!.get(cp) ?? 0),
    marker: { color: paletteColor(k) },
    xaxis: "x",
    yaxis: "y",
    hovertemplate: `%{y}: %{x:,.0f} ${ccy}<extra></extra>`,
  }));
  return { traces, counterparties, currencies };
}

/** The instruments of the right panel: those asked for, or the top ones by gross notional of the leading asset class. */
function chooseInstruments(t: Trades, options: TransactionsOptions): { chosen: string[]; chosenClass: string | null } {
  if (options.instruments) {
    const chosen = options.instruments.map((wanted) => {
      const at = t.instrument.findIndex((name, i) => name === wanted || t.ids[i] === wanted);
      if (at < 0) throw new RangeError(`plot.transactions: no trade of instrument "${wanted}"`);
      return t.instrument[at]!;
    });
    return { chosen, chosenClass: null };
  }
  const grossByInstrument = new Map<string, number>();
  const classOf = new Map<string, string | null>();
  for (let i = 0; i < t.n; i++) {
    const name = t.instrument[i] ?? null;
    const v = Math.abs(t.notional[i]!);
    if (name === null || !Number.isFinite(v)) continue;
    grossByInstrument.set(name, (grossByInstrument.get(name) ?? 0) + v);
    if (!classOf.has(name)) classOf.set(name, t.assetClass?.[i] ?? null);
  }
  const ranked = [...grossByInstrument.keys()].sort((a, b) => grossByInstrument.get(b)! - grossByInstrument.get(a)!);
  const chosenClass = ranked.length ? (classOf.get(ranked[0]!) ?? null) : null;
  return { chosen: ranked.filter((name) => classOf.get(name) === chosenClass).slice(0, options.top ?? 5), chosenClass };
}

/** Right panel: one instrument's cumulative quantity over its trade dates, as a step line. */
function quantityLine(t: Trades, name: string, color: string): Trace {
  const perDay = new Map<number, number>();
  for (let i = 0; i < t.n; i++) {
    if (t.instrument[i] !== name || !Number.isFinite(t.date[i]!) || !Number.isFinite(t.quantity[i]!)) continue;
    perDay.set(t.date[i]!, (perDay.get(t.date[i]!) ?? 0) + t.quantity[i]!);
  }
  const days = [...perDay.keys()].sort((a, b) => a - b);
  let running = 0;
  const y = days.map((d) => (running += perDay.get(d)!));
  return {
    type: "scatter",
    mode: "lines",
    name,
    legend: "legend2",
    x: days.map((d) => plotDate(d)),
    y,
    line: { shape: "hv", width: 2, color },
    xaxis: "x2",
    yaxis: "y2",
    hovertemplate: `${name}<br>%{x}: %{y:,.0f}<extra></extra>`,
  };
}

/** The first and last trade dates as the plot writes dates. */
function dateRange(date: ArrayLike<number>): [ReturnType<typeof plotDate>, ReturnType<typeof plotDate>] {
  let first = Infinity;
  let last = -Infinity;
  for (let i = 0; i < date.length; i++) {
    const d = date[i]!;
    if (d < first) first = d;
    if (d > last) last = d;
  }
  return [plotDate(first), plotDate(last)];
}

function transactionsLayout(title: string, rightTitle: string) {
  const panelTitle = (text: string, x: number): Annotation => ({
    text: `<b>${text}</b>`,
    x,
    xref: "paper",
    xanchor: "left",
    y: 1.02,
    yref: "paper",
    yanchor: "bottom",
    showarrow: false,
    font: { size: 13, color: INK.text },
  });
  return baseLayout(title, {
    height: 560,
    margin: { l: 72, r: 24, t: 84, b: 150 },
    barmode: "group",
    bargap: 0.2,
    xaxis: axis("Gross notional (trade currency)", { domain: [0, 0.42], tickformat: "~s", rangemode: "tozero" }),
    yaxis: axis("", { showgrid: false, ticks: "", title: undefined }),
    xaxis2: axis("Trade date", { domain: [0.56, 1], type: "date", anchor: "y2" }),
    yaxis2: axis("Cumulative quantity (units)", { tickformat: "~s", anchor: "x2" }),
    annotations: [panelTitle("Gross notional by counterparty", 0), panelTitle(rightTitle, 0.56)],
    legend: { title: { text: "Currency " }, orientation: "h", x: 0, xanchor: "left", y: -0.2, yanchor: "top", font: { size: 12 } },
    legend2: { orientation: "v", x: 0.56, xanchor: "left", y: -0.2, yanchor: "top", font: { size: 11 } },
    hovermode: "closest",
  });
}

function sum(m: Map<string, number>): number {
  let s = 0;
  for (const v of m.values()) s += v;
  return s;
}
