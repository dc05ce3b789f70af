/** `transactions`: gross notional by counterparty, and cumulative quantity over time, side by side. */
import type { TransactionTableResponse } from "../api/position";
import { transactionTableColumns } from "../transactions/table";
import type { Annotation, Figure, Trace } from "./figure";
import { columnsOf, isTableInput, numbers, plotDate, texts, times, type TableInput } from "./input";
import { axis, barLook, baseConfig, baseLayout, INK, seriesLook } from "./theme";
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
  /**
   * Convert every notional to one currency (`rates[ccy]` = units of `currency` per 1 `ccy`) and draw
   * the bars on one axis. Default: one axis per trade currency, amounts never converted.
   */
  reportingCurrency?: { currency: string; rates: Readonly<Record<string, number>> };
}

/**
 * A portfolio's trades in two panels. Left: gross notional (sum of |notional|) by counterparty, largest
 * at the top, one bar per trade currency on an axis of its own (amounts in different currencies are
 * never added nor drawn on one scale), or with `reportingCurrency` converted onto one axis. Right:
 * the cumulative signed quantity of each chosen instrument over trade dates (a step line: the position
 * these trades built), by default the largest instruments of one asset class.
 *
 * Takes a transaction table: `frames.transactionTableColumns(response)` /
 * `frames.fetchTransactionTableColumns(rp, request)`, their DataFrame twins, or a
 * `GetTransactionTable` response. Needs `counterparty`, `notional`, `trade_date`, `quantity` and
 * `instrument_name` (or `tradable_id`); uses `currency` and `asset_class` when present. Traces: one
 * bar per currency, then one line per instrument.
 *
 * @example
 * ```ts
 * plot.show(plot.transactions(await frames.fetchTransactionTableColumns(rp, { portfolio_name: "GLOBAL-MACRO" })));
 * ```
 */
export function transactions(input: TableInput | TransactionTableResponse, options: TransactionsOptions = {}): Figure {
  const trades = readTrades(
    columnsOf(isTableInput(input) ? input : transactionTableColumns(input), "plot.transactions"),
  );
  const bars = notionalBars(trades, options.reportingCurrency);
  const { chosen, chosenClass } = chooseInstruments(trades, options);
  const rowsOf = rowsByInstrument(trades, chosen);
  const data: Trace[] = [
    ...bars.traces,
    ...chosen.map((name, k) => quantityLine(trades, name, rowsOf.get(name)!, seriesLook(bars.currencies.length + k))),
  ];
  const [from, to] = dateRange(trades.date);
  const title =
    options.title ??
    `Transactions · ${trades.n.toLocaleString("en-US")} trades, ${bars.counterparties.length} counterparties${from ? ` · ${from} to ${to}` : ""}`;
  const rightTitle = `Cumulative quantity${options.instruments ? "" : `, top ${chosen.length}${chosenClass ? ` ${chosenClass.toLowerCase()}` : ""} instruments`}`;
  return displayable({ data, layout: transactionsLayout(title, rightTitle, bars.axes), config: baseConfig() });
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

/** One x axis of the left panel: its id (`x`, `x3`, …), its title. */
interface BarAxis {
  id: string;
  title: string;
}

/** The rate that converts `ccy` to the reporting currency; throws naming a currency without one. */
function rateOf(reporting: NonNullable<TransactionsOptions["reportingCurrency"]>, ccy: string): number {
  if (ccy === reporting.currency) return reporting.rates[ccy] ?? 1;
  const rate = reporting.rates[ccy];
  if (!(typeof rate === "number" && rate > 0 && Number.isFinite(rate)))
    throw new RangeError(
      `plot.transactions: reportingCurrency.rates has no rate for ${ccy || "(no currency)"} (${reporting.currency} per 1 ${ccy}); got ${String(rate)}`,
    );
  return rate;
}

/**
 * Left panel: gross notional by counterparty × currency, horizontal bars, the largest counterparty on
 * top; one x axis per currency (ids `x`, `x3`, `x4`, …: `x2` is the right panel's), or one axis in the
 * reporting currency.
 */
function notionalBars(
  t: Trades,
  reporting: TransactionsOptions["reportingCurrency"],
): { traces: Trace[]; counterparties: string[]; currencies: string[]; axes: BarAxis[] } {
  const gross = new Map<string, Map<string, number>>(); // currency → counterparty → sum
  for (let i = 0; i < t.n; i++) {
    const cp = t.counterparty[i] ?? "(none)";
    const v = Math.abs(t.notional[i]!);
    if (!Number.isFinite(v)) continue;
    const ccy = t.currency[i] ?? "";
    let m = gross.get(ccy);
    if (!m) gross.set(ccy, (m = new Map()));
    m.set(cp, (m.get(cp) ?? 0) + v);
  }
  const scale = new Map([...gross.keys()].map((ccy) => [ccy, reporting ? rateOf(reporting, ccy) : 1]));
  // Counterparties ranked by their gross in the reporting currency, or by their share of each currency's total.
  const weight = new Map<string, number>();
  for (const [ccy, m] of gross) {
    const total = reporting ? 1 : sum(m) || 1;
    for (const [cp, v] of m) weight.set(cp, (weight.get(cp) ?? 0) + (v * scale.get(ccy)!) / total);
  }
  // A category axis lists from the bottom: ascending order puts the largest at the top.
  const counterparties = [...weight.keys()].sort((a, b) => weight.get(a)! - weight.get(b)!);
  const total = new Map([...gross].map(([ccy, m]) => [ccy, sum(m) * scale.get(ccy)!]));
  const currencies = [...gross.keys()].sort((a, b) => total.get(b)! - total.get(a)!);
  const axes: BarAxis[] = reporting
    ? [{ id: "x", title: `Gross notional (${reporting.currency})` }]
    : currencies.map((ccy, k) => ({ id: k === 0 ? "x" : `x${k + 2}`, title: ccy || "no currency" }));
  const unit = (ccy: string) => (reporting ? reporting.currency : ccy);
  const traces: Trace[] = currencies.map((ccy, k) => ({
    type: "bar",
    orientation: "h",
    name: ccy || "notional",
    legend: "legend",
    y: counterparties,
    x: counterparties.map((cp) => (gross.get(ccy)!.get(cp) ?? 0) * scale.get(ccy)!),
    marker: barLook(k),
    xaxis: reporting ? "x" : axes[k]!.id,
    yaxis: "y",
    hovertemplate: `%{y}: %{x:,.0f} ${unit(ccy)}${reporting && ccy !== reporting.currency ? ` (from ${ccy})` : ""}<extra></extra>`,
  }));
  return { traces, counterparties, currencies, axes };
}

/** The instruments of the right panel: those asked for, or the top ones by gross notional of the leading asset class. */
function chooseInstruments(t: Trades, options: TransactionsOptions): { chosen: string[]; chosenClass: string | null } {
  if (options.instruments) {
    // The first row of each name and of each id, found in one pass (not a search of every row per instrument).
    const wanted = new Set(options.instruments);
    const first = new Map<string, number>();
    for (let i = 0; i < t.n; i++)
      for (const key of [t.instrument[i], t.ids[i]])
        if (key !== null && key !== undefined && wanted.has(key) && !first.has(key)) first.set(key, i);
    const chosen = options.instruments.map((w) => {
      const at = first.get(w);
      if (at === undefined) throw new RangeError(`plot.transactions: no trade of instrument "${w}"`);
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

/** The rows of each chosen instrument, in row order, in one pass over the trades. */
function rowsByInstrument(t: Trades, chosen: readonly string[]): Map<string, number[]> {
  const rows = new Map<string, number[]>(chosen.map((name) => [name, []]));
  for (let i = 0; i < t.n; i++) {
    const name = t.instrument[i];
    if (name !== null && name !== undefined) rows.get(name)?.push(i);
  }
  return rows;
}

/** Right panel: one instrument's cumulative quantity over its trade dates (`rows`: its rows), as a step line. */
function quantityLine(t: Trades, name: string, rows: readonly number[], look: { color: string; dash?: string }): Trace {
  const perDay = new Map<number, number>();
  for (const i of rows) {
    if (!Number.isFinite(t.date[i]!) || !Number.isFinite(t.quantity[i]!)) continue;
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
    line: { shape: "hv", width: 2, color: look.color, ...(look.dash ? { dash: look.dash } : {}) },
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

function transactionsLayout(title: string, rightTitle: string, barAxes: readonly BarAxis[]) {
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
    // The left panel's [0, 0.42] shared by the currency axes, side by side.
    ...Object.fromEntries(
      barAxes.map((a, k) => {
        const width = 0.42 / barAxes.length;
        const domain: [number, number] = [k * width + (k > 0 ? 0.012 : 0), (k + 1) * width];
        const title = axis(a.title, {}).title!;
        return [
          `xaxis${a.id.slice(1)}`,
          axis(a.title, {
            domain,
            tickformat: "~s",
            rangemode: "tozero",
            anchor: "y",
            nticks: barAxes.length > 2 ? 3 : 5,
            tickangle: 0,
            title: { ...title, font: { size: 12 } },
          }),
        ];
      }),
    ),
    yaxis: axis("", { showgrid: false, ticks: "", title: undefined }),
    xaxis2: axis("Trade date", { domain: [0.56, 1], type: "date", anchor: "y2" }),
    yaxis2: axis("Cumulative quantity (units)", { tickformat: "~s", anchor: "x2" }),
    annotations: [
      panelTitle(
        barAxes.length > 1 ? "Gross notional by counterparty, per trade currency" : "Gross notional by counterparty",
        0,
      ),
      panelTitle(rightTitle, 0.56),
    ],
    legend: {
      title: { text: "Currency " },
      orientation: "h",
      x: 0,
      xanchor: "left",
      y: -0.2,
      yanchor: "top",
      font: { size: 12 },
    },
    legend2: { orientation: "v", x: 0.56, xanchor: "left", y: -0.2, yanchor: "top", font: { size: 11 } },
    hovermode: "closest",
  });
}

function sum(m: Map<string, number>): number {
  let s = 0;
  for (const v of m.values()) s += v;
  return s;
}
