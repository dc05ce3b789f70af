/**
 * Controls that need no kernel: plotly's own sliders. They work inline under any kernel (tslab, Deno,
 * JupyterLab's plotly renderer), offline, and in exported HTML, because the figure carries them: no
 * comms, no round trip to the notebook's process.
 */

/** Traces shown together by one step of a slider (indices into the figure's `data`). */
export interface TraceGroup {
  label: string;
  traces: readonly number[];
}

/** Layout additions for a chart with a slider under it: room below the plot for the rail and its labels. */
export function sliderLayout(slider: Record<string, unknown>): Record<string, unknown> {
  return { sliders: [slider], height: 560, margin: { l: 72, r: 24, t: 64, b: 120 } };
}

/**
 * A slider that shows one group of traces at a time. Its first step, `all`, shows every trace: the
 * figure's state as drawn, so the slider only ever narrows the view.
 */
export function groupSlider(
  groups: readonly TraceGroup[],
  traceCount: number,
  prefix: string,
): Record<string, unknown> {
  const visible = (shown?: ReadonlySet<number>) =>
    Array.from({ length: traceCount }, (_, i) => shown === undefined || shown.has(i));
  const step = (label: string, shown?: ReadonlySet<number>) => ({
    label,
    method: "restyle",
    args: [{ visible: visible(shown) }],
  });
  return {
    active: 0,
    steps: [step("all"), ...groups.map((g) => step(g.label, new Set(g.traces)))],
    currentvalue: { prefix: `${prefix}: `, font: { size: 13 } },
    pad: { t: 56, b: 8 },
    len: 1,
    x: 0,
    xanchor: "left",
  };
}
