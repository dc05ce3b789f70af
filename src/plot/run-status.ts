/** The status chart of `frames.followReports`: how many of the followed runs are in each status, now. */
import { REPORT_STATUSES } from "../api/assumptions";
import type { ReportInfo } from "../api/report";
import type { Figure, Trace } from "./figure";
import { displayable } from "./show";
import { axis, baseConfig, baseLayout, PALETTE, STATUS_COLORS } from "./theme";

/** A followed run: its id, and its info as last answered (undefined while no answer holds it). */
export interface RunState {
  id: string;
  info: ReportInfo | undefined;
}

/** The bar of runs no answer has held yet. */
const NOT_FOUND = "not found yet";

/**
 * One bar per status, in lifecycle order (`not found yet`, none, running, succeeded, warning, failed,
 * then any other status), every lifecycle bar there even at 0 so that a chart redrawn in place keeps its
 * axes; the y axis goes to the number of runs. Hovering a bar lists its runs.
 */
export function runStatusFigure(states: readonly RunState[], title: string): Figure {
  const byStatus = new Map<string, string[]>([
    [NOT_FOUND, []],
    ...REPORT_STATUSES.map((s) => [s, []] as [string, string[]]),
  ]);
  for (const { id, info } of states) {
    const status = info?.status ?? NOT_FOUND;
    if (!byStatus.has(status)) byStatus.set(status, []);
    byStatus.get(status)!.push(info ? `${info.report_name} (${id})` : id);
  }
  if (byStatus.get(NOT_FOUND)!.length === 0) byStatus.delete(NOT_FOUND);
  const statuses = [...byStatus.keys()];
  const counts = statuses.map((s) => byStatus.get(s)!.length);
  const trace: Trace = {
    type: "bar",
    x: statuses,
    y: counts,
    text: counts.map(String),
    textposition: "outside",
    marker: { color: statuses.map((s, i) => STATUS_COLORS[s] ?? PALETTE[i % PALETTE.length]!), line: { width: 0 } },
    hovertext: statuses.map((s) => byStatus.get(s)!.slice(0, 20).join("<br>") || "no run"),
    hovertemplate: "%{x}: %{y}<br>%{hovertext}<extra></extra>",
  };
  return displayable({
    data: [trace],
    layout: baseLayout(title, {
      showlegend: false,
      height: 320,
      xaxis: axis("Status", { type: "category", showgrid: false }),
      yaxis: axis("Runs (count)", { range: [0, Math.max(1, states.length) * 1.15], tickformat: "d" }),
    }),
    config: baseConfig(),
  });
}
