/** `positionEffects`: positions before and after a trade event, one small panel per contract. */
import type { PositionEffectsResponse } from "../api/tradable";
import { positionEffectsColumns } from "../frames/position-effects";
import type { Annotation, Figure, Trace } from "./figure";
import { columnsOf, isTableInput, numbers, plotDate, texts, times, type TableInput } from "./input";
import { formatNumber } from "./labels";
import { axis, baseConfig, baseLayout, INK } from "./theme";

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
 * ```ts
 * const effects = await rp.tradable.positionEffects({ tradable_id: "SPX.XCBO", pricing_date: "2026-11-20", next_trade_event });
 * plot.show(plot.positionEffects(effects, { before: { "SPX.XCBO": 12_500, USD: 3_000_000 } }));
 * ```
 */
export function positionEffects(input: TableInput | PositionEffectsResponse, options: PositionEffectsOptions = {}): Figure {
  const view = columnsOf(isTableInput(input) ? input : positionEffectsColumns(input), "plot.positionEffects");
  const ids = texts(view, "contract_identifier");
  const quantity = numbers(view, "quantity");
  const pricing = view.has("pricing_date") ? times(view, "pricing_date").find(Number.isFinite) : undefined;
  const change = new Map<string, number>();
  ids.forEach((id, i) => {
    if (id === null || !Number.isFinite(quantity[i]!)) return;
    change.set(id, (change.get(id) ?? 0) + quantity[i]!);
  });
  const before = (id: string): number => {
    const b = options.before;
    const v = b instanceof Map ? b.get(id) : (b as Record<string, number> | undefined)?.[id];
    return typeof v === "number" && Number.isFinite(v) ? v : 0;
  };

  const contracts = [...change.keys()];
  const n = contracts.length;
  const gap = n > 1 ? 0.08 : 0;
  const width = n > 0 ? (1 - gap * (n - 1)) / n : 1;
  const data: Trace[] = [];
  const annotations: Annotation[] = [];
  const layoutAxes: Record<string, unknown> = {};
  contracts.forEach((id, k) => {
    const suffix = k === 0 ? "" : String(k + 1);
    const x0 = k * (width + gap);
    const b = before(id);
    const d = change.get(id)!;
    const after = b + d;
    const label = options.labels?.[id] ?? id;
    for (const [which, value, color] of [
      ["before", b, BEFORE],
      ["after", after, d >= 0 ? UP : DOWN],
    ] as const) {
      data.push({
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
      });
    }
    const { title: _none, ...xAxis } = axis("", { domain: [x0, x0 + width], anchor: `y${suffix}`, showgrid: false, type: "category" });
    layoutAxes[`xaxis${suffix}`] = xAxis;
    const yAxis = axis("Position (units; cash in its currency)", { anchor: `x${suffix}`, tickformat: "~s", rangemode: "tozero" });
    if (k > 0) delete yAxis.title;
    layoutAxes[`yaxis${suffix}`] = yAxis;
    annotations.push({
      text: `<b>${label}</b><br><span style="color:${d >= 0 ? UP : DOWN}">${d >= 0 ? "+" : "−"}${formatNumber(Math.abs(d), 8)}</span>`,
      x: x0 + width / 2,
      xref: "paper",
      xanchor: "center",
      y: 1.02,
      yref: "paper",
      yanchor: "bottom",
      showarrow: false,
      font: { size: 12, color: INK.text },
    });
  });
  if (n === 0)
    annotations.push({
      text: "This event changes no position",
      x: 0.5,
      y: 0.5,
      xref: "paper",
      yref: "paper",
      showarrow: false,
      font: { size: 14, color: INK.muted },
    });

  const when = pricing !== undefined ? ` · ${plotDate(pricing)}` : "";
  return {
    data,
    layout: baseLayout(options.title ?? `Position effects${when}`, {
      ...layoutAxes,
      annotations,
      bargap: 0.35,
      margin: { l: 80, r: 24, t: 100, b: 64 },
      hovermode: "closest",
    }),
    config: baseConfig(),
  };
}
