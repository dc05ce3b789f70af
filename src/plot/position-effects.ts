/** `positionEffects`: positions before and after a trade event, one small panel per contract. */
import type { PositionEffectsResponse } from "../api/tradable";
import { positionEffectsColumns } from "../frames/position-effects";
import type { Annotation, Figure, Trace } from "./figure";
import { columnsOf, isTableInput, numbers, plotDate, texts, times, type TableInput } from "./input";
import { formatNumber } from "./labels";
import { axis, baseConfig, baseLayout, INK } from "./theme";
import { displayable } from "./show";

export interface PositionEffectsOptions {
  /**
   * Positions before the event, by contract identifier (a tradable id, or a currency for cash). A
   * contract not listed starts at 0. Default: every contract at 0 (the chart then shows the changes).
   */
  before?: Readonly<Record<string, number>> | ReadonlyMap<string, number>;
  /** Display names by contract identifier (`{ "SPX.XCBO": "S&P 500" }`). */
  labels?: Readonly<Record<string, string>>;
  /** Chart title. Default: `Position effects · <pricing date>`. */
  title?: string;
}

const BEFORE = "#bab0ac";
const UP = "#4e79a7";
const DOWN = "#e15759";

/**
 * What a trade event does to positions: for each contract it touches, a panel with two bars, the
 * position before and after (`before + quantity`), the change written above. Each panel has its own
 * scale (a cash leg in currency units next to a few hundred contracts would flatten one of them).
 * Traces: two per contract (before, after).
 *
 * Takes the `GetTradeEventPositionEffects` response, or `frames.positionEffectsColumns(response)` /
 * `frames.positionEffects(response)` (needs `contract_identifier` and `quantity`).
 *
 * @example
 * ```ts
 * const effects = await rp.tradable.positionEffects({ tradable_id: "SPX.XCBO", pricing_date: "2026-11-20", next_trade_event });
 * plot.show(plot.positionEffects(effects, { before: { "SPX.XCBO": 12_500, USD: 3_000_000 } }));
 * ```
 */
export function positionEffects(
  input: TableInput | PositionEffectsResponse,
  options: PositionEffectsOptions = {},
): Figure {
  const { change, pricing } = readEffects(
    columnsOf(isTableInput(input) ? input : positionEffectsColumns(input), "plot.positionEffects"),
  );
  const contracts = [...change.keys()];
  const { gap, width } = panelWidths(contracts.length);
  const data: Trace[] = [];
  const annotations: Annotation[] = [];
  const layoutAxes: Record<string, unknown> = {};
  contracts.forEach((id, k) => {
    const suffix = k === 0 ? "" : String(k + 1);
    const x0 = k * (width + gap);
    const b = startingPosition(options.before, id);
    const d = change.get(id)!;
    const label = options.labels?.[id] ?? id;
    data.push(...positionBars(label, b, d, k, suffix));
    Object.assign(layoutAxes, panelAxes(x0, width, k, suffix));
    annotations.push(changeNote(label, d, x0 + width / 2));
  });
  if (contracts.length === 0) annotations.push(noChangeNote());
  const when = pricing !== undefined ? ` · ${plotDate(pricing)}` : "";
  return displayable({
    data,
    layout: effectsLayout(options.title ?? `Position effects${when}`, layoutAxes, annotations),
    config: baseConfig(),
  });
}

/** The net quantity by contract (in order of first appearance), and the first valid pricing date when there is one. */
function readEffects(view: ReturnType<typeof columnsOf>): { change: Map<string, number>; pricing: number | undefined } {
  const ids = texts(view, "contract_identifier");
  const quantity = numbers(view, "quantity");
  const pricing = view.has("pricing_date") ? times(view, "pricing_date").find(Number.isFinite) : undefined;
  const change = new Map<string, number>();
  ids.forEach((id, i) => {
    if (id === null || !Number.isFinite(quantity[i]!)) return;
    change.set(id, (change.get(id) ?? 0) + quantity[i]!);
  });
  return { change, pricing };
}

/** A contract's position before the event: the one given, else 0. */
function startingPosition(before: PositionEffectsOptions["before"], id: string): number {
  const v = before instanceof Map ? before.get(id) : (before as Record<string, number> | undefined)?.[id];
  return typeof v === "number" && Number.isFinite(v) ? v : 0;
}

/** The paper width of each of `n` panels side by side, and the gap between them. */
function panelWidths(n: number): { gap: number; width: number } {
  const gap = n > 1 ? 0.08 : 0;
  return { gap, width: n > 0 ? (1 - gap * (n - 1)) / n : 1 };
}

/** One panel's two bars, before and after (blue for an increase, red for a decrease); the legend shows the first panel's. */
function positionBars(label: string, before: number, change: number, k: number, suffix: string): Trace[] {
  const bars = [
    ["before", before, BEFORE],
    ["after", before + change, change >= 0 ? UP : DOWN],
  ] as const;
  return bars.map(([which, value, color]): Trace => ({
    type: "bar",
    name: which,
    legendgroup: which,
    showlegend: k === 0,
    x: [which],
    y: [value],
    xaxis: `x${suffix}`,
    yaxis: `y${suffix}`,
    marker: { color, line: { width: 0 } },
    text: [formatNumber(value, 8)],
    textposition: "auto",
    hovertemplate: `${label}<br>${which}: %{y:,}<extra></extra>`,
  }));
}

/** One panel's axes: an untitled category x axis over its slice of the paper, a y axis titled on the first panel only. */
function panelAxes(x0: number, width: number, k: number, suffix: string): Record<string, unknown> {
  const { title: _none, ...xAxis } = axis("", {
    domain: [x0, x0 + width],
    anchor: `y${suffix}`,
    showgrid: false,
    type: "category",
  });
  const yAxis = axis("Position (units; cash in its currency)", {
    anchor: `x${suffix}`,
    tickformat: "~s",
    rangemode: "tozero",
  });
  if (k > 0) delete yAxis.title;
  return { [`xaxis${suffix}`]: xAxis, [`yaxis${suffix}`]: yAxis };
}

/** The heading above a panel: the contract's label and its signed change. */
function changeNote(label: string, change: number, x: number): Annotation {
  return {
    text: `<b>${label}</b><br><span style="color:${change >= 0 ? UP : DOWN}">${change >= 0 ? "+" : "−"}${formatNumber(Math.abs(change), 8)}</span>`,
    x,
    xref: "paper",
    xanchor: "center",
    y: 1.02,
    yref: "paper",
    yanchor: "bottom",
    showarrow: false,
    font: { size: 12, color: INK.text },
  };
}

/** The note shown instead of panels when the event changes nothing. */
function noChangeNote(): Annotation {
  return {
    text: "This event changes no position",
    x: 0.5,
    y: 0.5,
    xref: "paper",
    yref: "paper",
    showarrow: false,
    font: { size: 14, color: INK.muted },
  };
}

/** The layout: the title, each panel's axes and heading, the bar gap and margins. */
function effectsLayout(title: string, layoutAxes: Record<string, unknown>, annotations: Annotation[]) {
  return baseLayout(title, {
    ...layoutAxes,
    annotations,
    bargap: 0.35,
    margin: { l: 80, r: 24, t: 100, b: 64 },
    hovermode: "closest",
  });
}
