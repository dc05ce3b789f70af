/**
 * The figure objects every builder returns: plain plotly data (`{ data, layout, config }`), JSON-safe,
 * meant to be tweaked (`fig.layout.title = { text: "…" }`, `fig.data[0].line = { dash: "dot" }`) before
 * `show`, `toHtml` or `toPng`. Only the attributes the builders set are typed; any other plotly attribute
 * may be added (see https://plotly.com/javascript/reference/).
 */

/** A plotly axis title (`{ text }`). */
export interface AxisTitle {
  text: string;
  [attribute: string]: unknown;
}

/** A plotly 2D axis or 3D scene axis. */
export interface Axis {
  title?: AxisTitle;
  type?: "linear" | "log" | "date" | "category" | "-";
  tickformat?: string;
  hoverformat?: string;
  range?: unknown[];
  domain?: [number, number];
  anchor?: string;
  [attribute: string]: unknown;
}

/** A plotly layout. */
export interface Layout {
  title?: { text: string; [attribute: string]: unknown };
  xaxis?: Axis;
  yaxis?: Axis;
  width?: number;
  height?: number;
  [attribute: string]: unknown;
}

/** A plotly trace (`scatter`, `bar`, `heatmap`, `surface`, …). */
export interface Trace {
  type: string;
  name?: string;
  x?: unknown[];
  y?: unknown[];
  z?: unknown[];
  hovertemplate?: string;
  customdata?: unknown[];
  [attribute: string]: unknown;
}

/** A layout shape (a line, a rectangle) drawn over the plot. */
export interface Shape {
  type: string;
  [attribute: string]: unknown;
}

/** A layout annotation (text placed on the plot). */
export interface Annotation {
  text: string;
  [attribute: string]: unknown;
}

/** plotly's `config` (the mode bar, responsiveness, …). */
export interface Config {
  [option: string]: unknown;
}

/** A plotly figure. */
export interface Figure {
  data: Trace[];
  layout: Layout;
  config?: Config;
}

/**
 * True when `value` looks like a plotly figure: `{ data: [...], layout?: {...} }`.
 * @example
 * ```ts
 * import { isFigure } from "risk-portal-lab/plot";
 * isFigure(plot.yieldCurve(frames.yieldCurveColumns(curve))); // true
 * ```
 */
export function isFigure(value: unknown): value is Figure {
  if (typeof value !== "object" || value === null) return false;
  const v = value as { data?: unknown; layout?: unknown };
  return Array.isArray(v.data) && (v.layout === undefined || (typeof v.layout === "object" && v.layout !== null));
}

/** Throws a TypeError naming the caller unless `value` is a figure. */
export function checkFigure(value: unknown, caller: string): Figure {
  if (!isFigure(value))
    throw new TypeError(
      `${caller} expects a plotly figure { data: [...], layout: {...} } (e.g. from plot.yieldCurve(...)); got ${describe(value)}`,
    );
  return value;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === "object") return `an object with keys ${Object.keys(value).slice(0, 6).join(", ") || "(none)"}`;
  return typeof value;
}
