/**
 * `followReports(rp, runs, { every, timeoutMs })`: follows launched report runs to their end, polling
 * `GetReportInfos` (which finds runs by pricing date, not by id), with one status chart redrawn in place
 * and a progress line in a notebook (a bar on a terminal), and returns the runs' final statuses as a DataFrame.
 */
import type { DataFrame } from "../../vendor/danfo";
import { REPORT_END_STATUSES } from "../api/assumptions";
import {
  resolveRenderer,
  type ProgressEvent,
  type ProgressMode,
  type ProgressOptions,
  type ProgressRenderer,
} from "../batch/progress";
import type { ReportInfo } from "../api/report";
import type { RiskPortalClient } from "../client/client";
import { RiskPortalError } from "../errors";
import { findKernelDisplay, notebookLine, type TextDisplay } from "../kernel/display";
import { toDataFrame } from "../frames/danfo";
import { tableFromRecords, type FieldSpec } from "../frames/records";
import { REPORT_INFO_FIELDS } from "../frames/reports";
import type { DisplayHandle } from "../plot/display-handle";
import { showWith, type Showable } from "../plot/show";
import type { ColumnTable } from "../table/column-table";
import { runStatusFigure, type RunState } from "../plot/run-status";

/** A run to follow: its id, or what a launch or `conn.sim.runBatch()` returns (`{ id, pricing_date }`). */
export type ReportRun = string | { id: string; pricing_date: string | Date };

/**
 * Options of {@link followReports}. `progress` (default `"auto"`): in a notebook, the line that counts polls
 * and finished runs; elsewhere as the batch helpers' (a bar on a terminal's stderr, nothing where nobody
 * watches); `"none"`, `"bar"` or your own renderer. `onProgress` gets every poll: `done` counts the runs
 * finished, `failed` those that ended failed, `item` says which poll.
 */
export interface FollowReportsOptions extends ProgressOptions {
  /**
   * The runs' pricing date(s), for runs given by id alone: `GetReportInfos` finds runs by pricing date.
   * `YYYY-MM-DD`, an ISO date-time or a `Date`. Not needed for runs given as `{ id, pricing_date }`.
   */
  pricingDate?: string | Date;
  /** Only this portfolio's infos are asked for (smaller answers). Default: every portfolio. */
  portfolioName?: string;
  /** The pause between polls, in ms. Default 1,000. Not waited when the client replays a cassette. */
  every?: number;
  /**
   * How long to follow, in ms, before giving up with a {@link ReportFollowTimeout} (the runs go on on
   * the service). Default 600,000 (10 minutes). When replaying, the pauses not waited count as waited.
   */
  timeoutMs?: number;
  /** In a notebook, the status chart and the progress line (default true); `false` draws neither (a `progress` renderer of your own is still called). */
  show?: boolean;
}

/** The defaults of {@link FollowReportsOptions}. */
export const FOLLOW_DEFAULTS = { every: 1_000, timeoutMs: 600_000 } as const;

/**
 * {@link followReports} gave up: `timeoutMs` passed with runs not finished (still queued or running, or
 * not found). `unfinished` names them; `statuses` is the frame followReports would have returned, as
 * last seen (its `finished` column false for those runs). Nothing partial is returned as final.
 */
export class ReportFollowTimeout extends RiskPortalError {
  /** The ids of the runs not finished (or not found) when it gave up. */
  readonly unfinished: string[];
  /** Every run's status as last seen (see {@link followReports} for the columns). */
  readonly statuses: DataFrame;
  /** @internal */
  constructor(message: string, unfinished: string[], statuses: DataFrame) {
    super(message, { operation: "followReports" });
    this.unfinished = unfinished;
    this.statuses = statuses;
  }
}

/**
 * Follows launched report runs until each has finished (`succeeded`, `warning` or `failed`): polls
 * `GetReportInfos` for their pricing dates every `every` ms and, in a notebook, shows ONE status chart
 * (runs per status, the runs' names on hover) that each poll redraws in place, under a progress line.
 * Returns one row per run, in the order given: `id`, `report_name`, `portfolio_name`, `pricing_date`,
 * `status` (category), `status_message`, `finished` (true), `finished_at` (the run's `time_stamp`).
 * After `timeoutMs` with runs unfinished it throws
 * {@link ReportFollowTimeout}, naming them (their last statuses on its `statuses`). Replaying a
 * cassette, it does not wait between polls. An id no answer holds counts as unfinished.
 *
 * @example
 * ```ts
 * const conn = await connect({ env: {} }); // the embedded simulator, its helpers on conn.sim
 * await conn.rp.reportLauncher.createRisk({
 *   report_name: "GLOBAL-MACRO Daily PnL", portfolio_name: "GLOBAL-MACRO", portfolio_type: "provider",
 *   reporting_currency: "USD", market_data_environment_names: ["EOD"], run_date: "2026-11-20", report_cutoff: "EOD",
 * });
 * const runs = (await conn.sim?.runBatch()) ?? []; // on the service: the ids of the runs launched
 * const statuses = await frames.followReports(conn.rp, runs, { every: 500, timeoutMs: 60_000 });
 * await conn.close();
 * ```
 */
export async function followReports(
  rp: RiskPortalClient,
  runs: readonly ReportRun[],
  options: FollowReportsOptions = {},
): Promise<DataFrame> {
  const wanted = runsOf(runs, options.pricingDate);
  const every = checkMs(options.every ?? FOLLOW_DEFAULTS.every, "every");
  const timeoutMs = checkMs(options.timeoutMs ?? FOLLOW_DEFAULTS.timeoutMs, "timeoutMs");
  const replaying = rp.cassette?.mode === "replay";
  const { show = true, progress = "auto" } = options;
  const view = show ? notebookView(progress) : undefined;
  const renderer = show || typeof progress === "object" ? progressRenderer(progress, view !== undefined) : undefined;
  const ids = new Set(wanted.map((w) => w.id));
  const seen = new Map<string, ReportInfo>();
  const started = performance.now();
  let skippedMs = 0;
  for (let poll = 1; ; poll++) {
    for (const info of await pollInfos(rp, wanted, options.portfolioName))
      if (ids.has(info.id)) seen.set(info.id, info);
    const states = wanted.map((w): RunState => ({ id: w.id, info: seen.get(w.id) }));
    const open = states.filter((s) => !ended(s.info));
    const elapsedMs = performance.now() - started + skippedMs;
    const givingUp = open.length > 0 && elapsedMs + every > timeoutMs;
    const event = progressEvent(states, open.length, { poll, elapsedMs, finished: open.length === 0 || givingUp });
    options.onProgress?.(event);
    renderer?.update(event);
    view?.draw(states, event, open.length === 0 ? "done" : givingUp ? `gave up after ${seconds(elapsedMs)}` : "");
    if (open.length === 0 || givingUp) {
      view?.close();
      const table = statusTable(wanted, seen);
      if (open.length === 0) return toDataFrame(table);
      throw timeout(open, poll, elapsedMs, table);
    }
    if (replaying) skippedMs += every;
    else await new Promise((resolve) => setTimeout(resolve, every));
  }
}

interface Wanted {
  id: string;
  pricingDate: string | Date;
}

/** The runs as ids with their pricing dates; a clear error for what cannot be followed. */
function runsOf(runs: readonly ReportRun[], pricingDate: string | Date | undefined): Wanted[] {
  if (!Array.isArray(runs) || runs.length === 0)
    throw new TypeError('followReports: give the runs to follow, e.g. await conn.sim.runBatch() or ["rep-…"]');
  const out: Wanted[] = [];
  for (const [i, run] of runs.entries()) {
    const id = typeof run === "string" ? run : run?.id;
    if (typeof id !== "string" || id === "")
      throw new TypeError(`followReports: run ${i} has no id (${JSON.stringify(run)})`);
    const date = typeof run === "string" ? pricingDate : (run.pricing_date ?? pricingDate);
    if (date === undefined)
      throw new TypeError(
        `followReports: run ${id} has no pricing date, and GetReportInfos finds runs by pricing date: give { pricingDate }, or the runs as { id, pricing_date }`,
      );
    if (!out.some((w) => w.id === id)) out.push({ id, pricingDate: date });
  }
  return out;
}

function checkMs(value: number, name: string): number {
  if (!(typeof value === "number" && Number.isFinite(value) && value >= 0))
    throw new RangeError(`followReports: ${name} must be a number of ms >= 0; got ${String(value)}`);
  return value;
}

/** One poll: the infos of every pricing date the runs have (one call per date, in turn). */
async function pollInfos(rp: RiskPortalClient, wanted: Wanted[], portfolioName?: string): Promise<ReportInfo[]> {
  const dates = [...new Map(wanted.map((w) => [dayOf(w.pricingDate), w.pricingDate])).values()];
  const infos: ReportInfo[] = [];
  for (const pricing_date of dates) {
    const answer = await rp.report.infos({
      pricing_date,
      ...(portfolioName ? { portfolio_name: portfolioName } : {}),
    });
    infos.push(...answer.report_infos);
  }
  return infos;
}

function dayOf(date: string | Date): string {
  return date instanceof Date ? date.toISOString().slice(0, 10) : date.slice(0, 10);
}

function ended(info: ReportInfo | undefined): boolean {
  return info !== undefined && (REPORT_END_STATUSES as readonly string[]).includes(info.status);
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;

/** Where the runs are after a poll (`open` of them not ended), as the batch helpers report their calls. */
function progressEvent(
  states: RunState[],
  open: number,
  at: { poll: number; elapsedMs: number; finished: boolean },
): ProgressEvent {
  const failed = states.filter((s) => s.info?.status === "failed").length;
  const { poll, elapsedMs, finished } = at;
  return {
    label: "report runs",
    done: states.length - open,
    total: states.length,
    failed,
    elapsedMs,
    item: `poll ${poll}`,
    finished,
  };
}

/**
 * Who shows `progress` beside the notebook's own line: `auto` and `notebook` are that line in a notebook;
 * elsewhere `auto` is a bar on a terminal's stderr (as the batch helpers'); `bar`, `none` or a renderer as named.
 */
function progressRenderer(mode: ProgressMode, inNotebook: boolean): ProgressRenderer | undefined {
  if (mode === "auto" || mode === "notebook") return inNotebook || mode === "notebook" ? undefined : resolveRenderer();
  return resolveRenderer(mode);
}

/** The chart and the line in a notebook (the line unless `progress` says otherwise); undefined outside one. */
function notebookView(
  mode: ProgressMode,
): { draw(states: RunState[], event: ProgressEvent, end: string): void; close(): void } | undefined {
  const display = findKernelDisplay();
  if (!display) return undefined;
  const line: TextDisplay | undefined = mode === "auto" || mode === "notebook" ? notebookLine(display) : undefined;
  let chart: DisplayHandle<Showable> | undefined;
  return {
    draw(states, { label, item, done, total }, end) {
      const open = total - done;
      line?.text(
        `${label} · ${item} · ${done} of ${total} finished${open ? ` · ${open} not yet` : ""}${end ? ` · ${end}` : ""}`,
      );
      const figure = runStatusFigure(states, `Report runs · ${done} of ${total} finished`);
      if (chart) chart.update(figure);
      else chart = showWith(display, figure);
    },
    close: () => chart?.close(),
  };
}

/** The report infos' own columns as `frames.reportInfos` reads them, then what following adds. */
const FIELDS: readonly FieldSpec[] = [
  ...["id", "report_name", "portfolio_name", "pricing_date", "status", "status_message"].map((name) =>
    REPORT_INFO_FIELDS.find((field) => field.name === name)!,
  ),
  { name: "finished", hint: "boolean" },
  { name: "finished_at", hint: "date" },
];

/** One row per run as last seen (a run never seen: its id, pricing date, and missing status). */
function statusTable(wanted: Wanted[], seen: Map<string, ReportInfo>): ColumnTable {
  const rows = wanted.map((w) => {
    const info = seen.get(w.id);
    return {
      id: w.id,
      report_name: info?.report_name ?? null,
      portfolio_name: info?.portfolio_name ?? null,
      pricing_date: info?.pricing_date ?? w.pricingDate,
      status: info?.status ?? null,
      status_message: info ? (info.status_message ?? null) : "not found in GetReportInfos of its pricing date",
      finished: ended(info),
      finished_at: ended(info) ? (info!.time_stamp ?? null) : null,
    };
  });
  return tableFromRecords(rows, FIELDS, { source: "followReports" });
}

function timeout(open: RunState[], poll: number, elapsedMs: number, table: ColumnTable): ReportFollowTimeout {
  const named = open
    .slice(0, 10)
    .map(
      (s) =>
        `${s.id} (${s.info ? `${s.info.status}${s.info.status_message ? `: ${s.info.status_message}` : ""}` : "not found"})`,
    );
  const more = open.length > 10 ? ` and ${open.length - 10} more` : "";
  return new ReportFollowTimeout(
    `followReports: ${open.length} of ${table.rowCount} runs not finished after ${seconds(elapsedMs)} (${poll} polls; timeoutMs): ${named.join(", ")}${more}. Their last statuses are on this error's .statuses; the runs go on on the service`,
    open.map((s) => s.id),
    toDataFrame(table),
  );
}
