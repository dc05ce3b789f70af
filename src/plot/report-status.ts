/** `reportStatus`: how many reports ended in each status, day by day (stacked bars). */
import { REPORT_STATUSES } from "../api/assumptions";
import type { GetReportInfosResponse, ReportInfo } from "../api/report";
import { reportInfosColumns } from "../frames/reports";
import { levelsOf } from "../table/column-table";
import type { Figure, Trace } from "./figure";
import { columnsOf, isTableInput, plotDate, texts, times, type TableInput } from "./input";
import { axis, baseConfig, baseLayout, PALETTE, STATUS_COLORS } from "./theme";
import { displayable } from "./show";

export interface ReportStatusOptions {
  /** The date column the reports are counted by: `pricing_date` (default), `mkt_data_date` or `time_stamp` (by UTC day). */
  by?: "pricing_date" | "mkt_data_date" | "time_stamp";
  /** Chart title. Default: a summary (reports, days). */
  title?: string;
}

const BY_TITLE: Record<string, string> = {
  pricing_date: "Pricing date",
  mkt_data_date: "Market-data date",
  time_stamp: "Report time (UTC day)",
};
const DAY_MS = 86_400_000;

/** Palette colours no lifecycle status has, for statuses outside it (a status colour would say the wrong state). */
const OTHER_COLORS = PALETTE.filter((c) => !Object.values(STATUS_COLORS).includes(c));

/** The look of the `k`th status outside the lifecycle: a colour of its own, then a fill pattern as well. */
function otherStatusLook(k: number): { color: string; pattern?: { shape: string } } {
  const color = OTHER_COLORS[k % OTHER_COLORS.length]!;
  const round = Math.floor(k / OTHER_COLORS.length);
  return round === 0 ? { color } : { color, pattern: { shape: ["/", "x", "-", "|", "+", "."][(round - 1) % 6]! } };
}

/**
 * Report statuses over time: for each day, one stacked bar of report counts by `status` (none, running,
 * succeeded, warning, failed in lifecycle order, then any other status), in fixed status colours.
 *
 * Takes report infos: `frames.reportInfosColumns(response)` / `frames.reportInfos(response)`, the
 * batch over many dates `frames.fetchReportInfosByDateColumns(rp, { pricingDates })` (or its `table` /
 * `frame`), or a `GetReportInfos` response.
 *
 * @example
 * ```ts
 * plot.show(plot.reportStatus(await frames.fetchReportInfosByDateColumns(rp, { pricingDates })));
 * ```
 */
export function reportStatus(
  input: TableInput | GetReportInfosResponse | readonly ReportInfo[],
  options: ReportStatusOptions = {},
): Figure {
  const by = options.by ?? "pricing_date";
  const table = isTableInput(input) ? input : reportInfosColumns(input);
  const view = columnsOf(table, "plot.reportStatus");
  const status = texts(view, "status");
  const when = times(view, by);
  const days = when.map((t) => (Number.isFinite(t) ? Math.floor(t / DAY_MS) * DAY_MS : NaN));
  const dates = [...new Set(days.filter(Number.isFinite))].sort((a, b) => a - b);
  const dateIndex = new Map(dates.map((d, i) => [d, i]));

  // Lifecycle order first, whatever order the table's levels are in (a category built without known
  // levels lists them as first seen), then the table's other levels in its order.
  const known = levelsOf(view.levels("status") ?? [], REPORT_STATUSES);
  // Sets, not includes() per row: one pass over the rows whatever the number of statuses.
  const seen = new Set<string | null>(status);
  const knownSet = new Set(known);
  for (const s of seen) if (s !== null && !knownSet.has(s)) known.push(s);
  const present = known.filter((s) => seen.has(s));
  const counts = new Map(present.map((s) => [s, new Array<number>(dates.length).fill(0)]));
  let undated = 0;
  for (let r = 0; r < view.rowCount; r++) {
    const i = dateIndex.get(days[r]!);
    const s = status[r] ?? null;
    if (i === undefined || s === null) {
      undated++;
      continue;
    }
    counts.get(s)![i]!++;
  }
  const x = dates.map((d) => plotDate(d));
  let extra = 0;
  const data: Trace[] = present.map((s) => ({
    type: "bar",
    name: s,
    x,
    y: counts.get(s)!,
    marker: { ...(STATUS_COLORS[s] ? { color: STATUS_COLORS[s] } : otherStatusLook(extra++)), line: { width: 0 } },
    hovertemplate: `%{x}: %{y} ${s}<extra></extra>`,
  }));

  // Reports run on business days: hide weekends (unless some report is dated on one) so bars sit side by side.
  const weekendFree =
    dates.length > 1 &&
    dates.every((d) => {
      const day = new Date(d).getUTCDay();
      return day !== 0 && day !== 6;
    });
  const total = view.rowCount - undated;
  const note = undated ? ` (${undated} without ${by} or status)` : "";
  return displayable({
    data,
    layout: baseLayout(
      options.title ??
        `Report status · ${total} reports over ${dates.length} day${dates.length === 1 ? "" : "s"}${note}`,
      {
        barmode: "stack",
        bargap: 0.25,
        xaxis: axis(BY_TITLE[by] ?? by, {
          type: "date",
          showgrid: false,
          ...(weekendFree ? { rangebreaks: [{ bounds: ["sat", "mon"] }] } : {}),
        }),
        yaxis: axis("Reports (count)", { rangemode: "tozero", tickformat: "d" }),
        hovermode: "x unified",
        legend: { orientation: "h", x: 0, xanchor: "left", y: -0.16, yanchor: "top", traceorder: "normal" },
      },
    ),
    config: baseConfig(),
  });
}
