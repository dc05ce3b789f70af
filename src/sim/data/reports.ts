/**
 * Reports: definitions (a VaR and a PnL report per portfolio), infos over past business days, and the
 * lifecycle of launched reports (A10): `none` (queued) → `running` → one of `succeeded | warning |
 * failed`, driven by the simulator's clock; nothing leaves an end state.
 */
import { REPORT_END_STATUSES, type REPORT_STATUSES } from "../../api/assumptions";
import { addBusinessDays, businessDays, dayMs, isBusinessDay, isoDate, wireDate } from "../calendar";
import { hash32 } from "../random";
import type { Portfolio } from "./portfolios";

type Status = (typeof REPORT_STATUSES)[number];

export interface ReportDefinition {
  id: string;
  report_type: "var" | "risk";
  report_name: string;
  description: string;
  portfolio: Portfolio;
}

/**
 * A saved launcher item (A21): the caller's launch preferences. Saving runs nothing; the simulator's
 * batches (the daily schedule, or `POST /sim/batch` now) run every saved item.
 */
export interface SavedLauncherItem {
  id: string;
  report_type: "var" | "risk";
  report_name: string;
  /** The report definition the name resolved to. */
  report_definition_id: string;
  portfolio_name: string;
  portfolio_type: string;
  reporting_currency: string;
  market_data_environment_names: string[];
  /** The VaR or risk members as saved (flat, wire names). */
  members: Record<string, unknown>;
  /** Clock time of the save, ms. */
  created_ms: number;
}

/** The daily batch runs every saved item at this hour (UTC) of each business day, on the simulator's clock. */
export const DAILY_BATCH_HOUR_UTC = 22;

/** A report run, as the store keeps it (and persists with --data-dir). */
export interface LaunchedReport {
  id: string;
  report_type: "var" | "risk";
  report_name: string;
  portfolio_name: string;
  portfolio_type: string;
  reporting_currency: string;
  market_data_environment_names: string[];
  pricing_date: string;
  /** Clock time the run started, ms. */
  created_ms: number;
  parameters: Record<string, unknown>;
  /** The saved launcher item it runs (absent in state files written before items existed). */
  item_id?: string;
  report_definition_id?: string;
  /** `batch`: `POST /sim/batch`; `schedule`: the daily batch. */
  trigger?: "batch" | "schedule";
}

/** A run of a saved item, started at `startedMs` for pricing day `day`. */
export function runOf(
  item: SavedLauncherItem,
  id: string,
  startedMs: number,
  day: string,
  trigger: "batch" | "schedule",
): LaunchedReport {
  return {
    id,
    report_type: item.report_type,
    report_name: item.report_name,
    portfolio_name: item.portfolio_name,
    portfolio_type: item.portfolio_type,
    reporting_currency: item.reporting_currency,
    market_data_environment_names: item.market_data_environment_names,
    pricing_date: wireDate(day),
    created_ms: startedMs,
    parameters: item.members,
    item_id: item.id,
    report_definition_id: item.report_definition_id,
    trigger,
  };
}

/**
 * The runs of the daily batch up to `nowMs`: every saved item, on each business day at
 * {@link DAILY_BATCH_HOUR_UTC}, from the day it was saved (derived, not stored: the same clock gives the same runs).
 * With `onlyDays` (`YYYY-MM-DD`), only the runs of those days, in the same order: an item's days are not all walked.
 */
export function scheduledRuns(
  seed: number,
  items: readonly SavedLauncherItem[],
  nowMs: number,
  onlyDays?: ReadonlySet<string>,
): LaunchedReport[] {
  const out: LaunchedReport[] = [];
  const today = new Date(nowMs).toISOString().slice(0, 10);
  // The business days asked for, ascending (as businessDays gives them).
  const wanted = onlyDays && [...onlyDays].filter(isBusinessDayName).sort((a, b) => dayMs(a) - dayMs(b));
  for (const item of items) {
    const first = new Date(item.created_ms).toISOString().slice(0, 10);
    if (first > today) continue;
    const days = wanted
      ? wanted.filter((d) => dayMs(d) >= dayMs(first) && dayMs(d) <= dayMs(today))
      : businessDays(first, today);
    for (const day of days) {
      const at = Date.parse(`${day}T${String(DAILY_BATCH_HOUR_UTC).padStart(2, "0")}:00:00Z`);
      if (at < item.created_ms || at > nowMs) continue;
      out.push(
        runOf(item, `rep-s${hash32(`${item.id}/${day}`, seed).toString(16).padStart(8, "0")}`, at, day, "schedule"),
      );
    }
  }
  return out;
}

/** Whether `day` is a business day spelled `YYYY-MM-DD`, as {@link businessDays} spells them. */
function isBusinessDayName(day: string): boolean {
  const ms = dayMs(day);
  return Number.isFinite(ms) && isoDate(ms) === day && isBusinessDay(ms);
}

export interface ReportInfoOut {
  id: string;
  report_definition_id: string;
  report_name: string;
  description: string;
  status: Status;
  status_message: string;
  portfolio_name: string;
  portfolio_type: string;
  reporting_currency: string;
  real_time_mkt_data: boolean;
  mkt_data_date: string;
  pricing_date: string;
  time_stamp: string;
}

export interface ReportTiming {
  /** Time a new report stays `none` (queued). Default 1,500 ms. */
  queuedMs: number;
  /** Time it then stays `running`. Default 4,000 ms. */
  runningMs: number;
}

export const DEFAULT_REPORT_TIMING: ReportTiming = { queuedMs: 1_500, runningMs: 4_000 };

/** Market-data environments the launcher knows. */
export const MARKET_DATA_ENVIRONMENTS = ["EOD", "INTRADAY", "STRESS-2020"] as const;

const WARNINGS = [
  "3 positions priced with stale market data",
  "Proxy curve used for 2 instruments",
  "Missing fixing for 1 floating leg; previous fixing used",
];
const FAILURES = [
  "Market data environment incomplete: no close for 4 instruments",
  "Pricing engine timed out after 600 s",
  "Position snapshot not available for the pricing date",
];

export function definitions(portfolios: readonly Portfolio[]): ReportDefinition[] {
  return portfolios.flatMap((p) => [
    {
      id: `def-var-${p.name.toLowerCase()}`,
      report_type: "var" as const,
      report_name: `${p.name} VaR 99% 1d`,
      description: `Historical VaR, 99%, 1-day horizon, 1Y look-back — ${p.description}`,
      portfolio: p,
    },
    {
      id: `def-pnl-${p.name.toLowerCase()}`,
      report_type: "risk" as const,
      report_name: `${p.name} Daily PnL`,
      description: `Daily PnL and risk explain — ${p.description}`,
      portfolio: p,
    },
  ]);
}

/** Deterministic end state of a report: mostly succeeded, some warnings, a few failures. */
function endState(seed: number, key: string): { status: Status; message: string } {
  const h = hash32(key, seed);
  const u = (h % 1000) / 1000;
  if (u < 0.82) return { status: "succeeded", message: "" };
  if (u < 0.94) return { status: "warning", message: WARNINGS[h % WARNINGS.length]! };
  return { status: "failed", message: FAILURES[h % FAILURES.length]! };
}

/** Infos of the historical (already finished) runs of every definition on each of the last `days` business days up to `asOf`. */
export function historicalInfos(
  seed: number,
  defs: readonly ReportDefinition[],
  asOf: string,
  days: number,
): ReportInfoOut[] {
  const dates = businessDays(addBusinessDays(asOf, -(days - 1)), asOf);
  const out: ReportInfoOut[] = [];
  for (const date of dates) {
    for (const def of defs) {
      const { status, message } = endState(seed, `${def.id}/${date}`);
      const minutes = 6 * 60 + 15 + (hash32(`${def.id}/${date}/t`, seed) % 90);
      out.push({
        id: `rep-${hash32(`${def.id}/${date}`, seed).toString(16).padStart(8, "0")}`,
        report_definition_id: def.id,
        report_name: def.report_name,
        description: def.description,
        status,
        status_message: message,
        portfolio_name: def.portfolio.name,
        portfolio_type: def.portfolio.type,
        reporting_currency: def.portfolio.reportingCurrency,
        real_time_mkt_data: false,
        mkt_data_date: wireDate(addBusinessDays(date, -1)),
        pricing_date: wireDate(date),
        time_stamp: new Date(Date.parse(`${date}T00:00:00Z`) + minutes * 60_000).toISOString().replace("Z", "+00:00"),
      });
    }
  }
  return out;
}

/** The info of a launched report at clock time `nowMs`. */
export function launchedInfo(seed: number, report: LaunchedReport, nowMs: number, timing: ReportTiming): ReportInfoOut {
  const elapsed = nowMs - report.created_ms;
  let status: Status;
  let message = "";
  if (elapsed < timing.queuedMs) {
    status = "none";
    message = "Queued";
  } else if (elapsed < timing.queuedMs + timing.runningMs) {
    status = "running";
    message = `Running: ${Math.min(99, Math.floor((100 * (elapsed - timing.queuedMs)) / Math.max(1, timing.runningMs)))}%`;
  } else {
    ({ status, message } = endState(seed, report.id));
  }
  const defId =
    report.report_definition_id ??
    `def-${report.report_type === "var" ? "var" : "pnl"}-${report.portfolio_name.toLowerCase()}`;
  const day = report.pricing_date.slice(0, 10);
  const launcher = report.report_type === "var" ? "VaR" : "PnL";
  return {
    id: report.id,
    report_definition_id: defId,
    report_name: report.report_name,
    description: report.item_id
      ? `Run of saved ${launcher} launcher item ${report.item_id} (${report.trigger === "schedule" ? `daily batch, ${DAILY_BATCH_HOUR_UTC}:00 UTC` : "batch run on request"})`
      : `Launched from the ${launcher} launcher`,
    status,
    status_message: message,
    portfolio_name: report.portfolio_name,
    portfolio_type: report.portfolio_type,
    reporting_currency: report.reporting_currency,
    real_time_mkt_data: report.market_data_environment_names.includes("INTRADAY"),
    mkt_data_date: wireDate(addBusinessDays(day, -1)),
    pricing_date: wireDate(day),
    time_stamp: new Date(
      report.created_ms + (REPORT_END_STATUSES.includes(status as never) ? timing.queuedMs + timing.runningMs : 0),
    )
      .toISOString()
      .replace("Z", "+00:00"),
  };
}
