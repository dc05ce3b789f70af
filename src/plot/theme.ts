/**
 * One look for every chart: a white background, light grid, a colour-blind-safe categorical palette
 * (Tableau 10), a sequential ramp for ordered series (maturities), fixed colours for report statuses,
 * left-aligned titles and axis titles that carry their units.
 */
import type { Axis, Config, Layout } from "./figure";

/** Categorical colours, in the order series take them (Tableau 10). */
export const PALETTE = [
  "#4e79a7",
  "#f28e2b",
  "#e15759",
  "#76b7b2",
  "#59a14f",
  "#edc948",
  "#b07aa1",
  "#ff9da7",
  "#9c755f",
  "#bab0ac",
] as const;

/** Report status colours: grey before start, blue while running, then green / amber / red. */
export const STATUS_COLORS: Readonly<Record<string, string>> = {
  none: "#bab0ac",
  running: "#4e79a7",
  succeeded: "#59a14f",
  warning: "#f2b447",
  failed: "#e15759",
};

/** Text and line colours. */
export const INK = { text: "#2a3442", muted: "#6b7685", grid: "#e6e9ef", line: "#9aa3ad", zero: "#c9ced6" } as const;

/** Default chart size in pixels (readable inline, and the README pictures' size). */
export const DEFAULT_WIDTH = 900;
export const DEFAULT_HEIGHT = 500;

const FONT = "Inter, 'Segoe UI', 'Helvetica Neue', Helvetica, Arial, 'Liberation Sans', sans-serif";

/** Viridis stops: dark (long maturities) to light (short), readable on white when the ends are trimmed. */
const RAMP = ["#440154", "#3b528b", "#21918c", "#5ec962", "#b5de2b"] as const;

/** `n` colours along the sequential ramp (first = darkest). */
export function rampColors(n: number): string[] {
  if (n <= 0) return [];
  if (n === 1) return [RAMP[1]];
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    // Stop before the lightest tenth: pale yellow lines vanish on white.
    const t = (i / (n - 1)) * 0.9 * (RAMP.length - 1);
    const k = Math.min(Math.floor(t), RAMP.length - 2);
    out.push(mix(RAMP[k]!, RAMP[k + 1]!, t - k));
  }
  return out;
}

function mix(a: string, b: string, t: number): string {
  const pa = [1, 3, 5].map((i) => parseInt(a.slice(i, i + 2), 16));
  const pb = [1, 3, 5].map((i) => parseInt(b.slice(i, i + 2), 16));
  return `#${pa
    .map((v, i) =>
      Math.round(v + (pb[i]! - v) * t)
        .toString(16)
        .padStart(2, "0"),
    )
    .join("")}`;
}

/** The categorical colour of series `i`. */
export function paletteColor(i: number): string {
  return PALETTE[i % PALETTE.length]!;
}

/** plotly's line dashes, in the order overlays take them. */
export const DASHES = ["solid", "dash", "dot", "dashdot", "longdash", "longdashdot"] as const;
/** Marker symbols, in the order overlays take them. */
export const SYMBOLS = ["circle", "square", "diamond", "triangle-up", "cross", "x"] as const;

/** A line's dash and marker: one of 36 pairs, different for each `variant` from 0 to 35 (0: solid, circle). */
export function variantLook(variant: number): { dash: (typeof DASHES)[number]; symbol: (typeof SYMBOLS)[number] } {
  const n = DASHES.length;
  const dash = variant % n;
  // The symbol moves on by one each time the dashes come round, so (dash, symbol) repeats only after n².
  return { dash: DASHES[dash]!, symbol: SYMBOLS[(dash + Math.floor(variant / n)) % n]! };
}

/**
 * How overlay series `i` looks: the palette's colour, and from the eleventh series on (when the colours
 * come round) another dash and marker, so no two of up to 360 series look the same. The first ten carry
 * no dash or symbol (plotly's solid line and circle).
 */
export function seriesLook(i: number): { color: string; dash?: string; symbol?: string } {
  const round = Math.floor(i / PALETTE.length);
  return round === 0 ? { color: paletteColor(i) } : { color: paletteColor(i), ...variantLook(round) };
}

/** Bar fill patterns, in the order bar series take them past the palette's length. */
const PATTERNS = ["/", "\\", "x", "-", "|", "+", "."] as const;

/**
 * A bar trace's `marker` for series `i`: the palette's colour, and from the eleventh series on a fill
 * pattern, so no two bar series look the same.
 */
export function barLook(i: number): { color: string; pattern?: { shape: string } } {
  const round = Math.floor(i / PALETTE.length);
  return round === 0
    ? { color: paletteColor(i) }
    : { color: paletteColor(i), pattern: { shape: PATTERNS[(round - 1) % PATTERNS.length]! } };
}

/** A scatter trace's `line` and `marker` for overlay series `i` (see {@link seriesLook}), with their other settings. */
export function seriesLine(
  i: number,
  line: Record<string, unknown> = {},
  marker: Record<string, unknown> = {},
): { line: Record<string, unknown>; marker: Record<string, unknown> } {
  const { color, dash, symbol } = seriesLook(i);
  return {
    line: { color, ...line, ...(dash ? { dash } : {}) },
    marker: { color, ...marker, ...(symbol ? { symbol } : {}) },
  };
}

/** An axis with the theme's lines and grid, and its title (say the unit: `Maturity (years)`). */
export function axis(title: string, extra: Axis = {}): Axis {
  return {
    title: { text: title, standoff: 10 },
    showgrid: true,
    gridcolor: INK.grid,
    zeroline: false,
    showline: true,
    linecolor: INK.line,
    ticks: "outside",
    tickcolor: INK.line,
    automargin: true,
    ...extra,
  };
}

/** A 3D scene axis with the theme's colours. */
export function sceneAxis(title: string, extra: Axis = {}): Axis {
  return {
    title: { text: title },
    gridcolor: INK.grid,
    zerolinecolor: INK.zero,
    linecolor: INK.line,
    backgroundcolor: "#fafbfc",
    showbackground: true,
    ...extra,
  };
}

/** The base layout: title, font, colours, margins, a horizontal legend under the plot, 500 px high. */
export function baseLayout(title: string, extra: Layout = {}): Layout {
  return {
    title: { text: title, x: 0.01, xanchor: "left", font: { size: 17, color: INK.text } },
    font: { family: FONT, size: 13, color: INK.text },
    paper_bgcolor: "#ffffff",
    plot_bgcolor: "#ffffff",
    colorway: [...PALETTE],
    // No width: inline the chart fills its output area; toPng uses DEFAULT_WIDTH.
    height: DEFAULT_HEIGHT,
    margin: { l: 72, r: 24, t: 64, b: 64 },
    hoverlabel: { font: { family: FONT, size: 12 } },
    legend: { orientation: "h", x: 0, xanchor: "left", y: -0.16, yanchor: "top", font: { size: 12 } },
    ...extra,
  };
}

/** The config every figure gets: responsive, no plotly logo, PNG button at 2× scale. */
export function baseConfig(): Config {
  return { responsive: true, displaylogo: false, toImageButtonOptions: { format: "png", scale: 2 } };
}
