/** `figure`: the library's look on a figure a user builds by hand. */
import { checkFigure, type Axis, type Figure, type Layout, type Trace } from "./figure";
import { displayable } from "./show";
import { axis, baseConfig, baseLayout } from "./theme";

/** A figure to theme: traces, and any layout and config of your own (they win over the theme's). */
export interface FigureSpec {
  data: Trace[];
  layout?: Layout;
  config?: Figure["config"];
}

const AXIS_KEY = /^(x|y)axis\d*$/;

/** Plain objects are merged key by key (yours win); anything else of yours replaces the theme's. */
function merge<T extends Record<string, unknown>>(theme: T, mine: Record<string, unknown> | undefined): T {
  if (!mine) return theme;
  const out: Record<string, unknown> = { ...theme };
  for (const [key, value] of Object.entries(mine)) {
    const base = out[key];
    const plain = (v: unknown) => typeof v === "object" && v !== null && !Array.isArray(v);
    out[key] =
      plain(base) && plain(value) ? merge(base as Record<string, unknown>, value as Record<string, unknown>) : value;
  }
  return out as T;
}

/**
 * The library's theme on a figure of your own: its font, colours (the categorical palette as the
 * colorway), margins, legend under the plot, axes with its grid and lines (every `xaxis…`/`yaxis…` you
 * name, titles as plain strings accepted), and its config (responsive, no logo, PNG at 2×). What you set
 * wins. The result displays like the builders' figures (`plot.show`, or bare under Deno).
 *
 * @example
 * ```ts
 * plot.show(plot.figure({
 *   data: [{ type: "bar", x: ["MS", "JPM"], y: [12.5, 9.1], name: "USD" }],
 *   layout: { title: "Gross notional (USD m)", xaxis: { title: "Counterparty" }, yaxis: { title: "USD m" } },
 * }));
 * ```
 */
export function figure(spec: FigureSpec | (Omit<FigureSpec, "layout"> & { layout?: Record<string, unknown> })): Figure {
  const fig = checkFigure({ layout: {}, ...spec }, "plot.figure");
  const mine = (fig.layout ?? {}) as Record<string, unknown>;
  const title =
    typeof mine.title === "string" ? mine.title : ((mine.title as { text?: string } | undefined)?.text ?? "");
  const layout = baseLayout(title, {
    xaxis: axis(""),
    yaxis: axis(""),
  }) as Record<string, unknown>;
  for (const key of Object.keys(mine)) if (AXIS_KEY.test(key) && !(key in layout)) layout[key] = axis("");
  const own: Record<string, unknown> = { ...mine };
  delete own.title;
  for (const key of Object.keys(own)) {
    const value = own[key];
    if (AXIS_KEY.test(key) && typeof value === "object" && value !== null && typeof (value as Axis).title === "string")
      own[key] = { ...value, title: { text: (value as { title: string }).title } };
  }
  const themed = merge(layout, own) as Layout;
  if (typeof mine.title === "object" && mine.title !== null)
    themed.title = merge(
      themed.title as Record<string, unknown>,
      mine.title as Record<string, unknown>,
    ) as Layout["title"];
  return displayable({
    data: fig.data.map((t) => ({ ...t })),
    layout: themed,
    config: { ...baseConfig(), ...fig.config },
  });
}
