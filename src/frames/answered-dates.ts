/**
 * The date asked and the date answered, on tables (issue 41): a table built from an answer for another
 * date than its request asked for carries a warning naming both (the request is read from the answer's
 * provenance, so an answer that did not come through the client carries none), and a batch over dates
 * says which dates asked came back as another date's data and whose rows are then duplicates. The
 * check runs here, when a table is built, never on the client's calls (`dateMismatch: "error"` is the
 * client's own step: `refuseOtherDate`).
 */
import { answeredDates, answerLabel, type AnsweredDates } from "../api/answered-dates";
import { provenanceOf } from "../client/provenance";
import type { ColumnTable, TableWarning } from "../table/column-table";

/** The warnings this module wrote on single answers' tables (a batch replaces them with its summary). */
const written = new WeakSet<TableWarning>();

/** What `answer` says of the dates asked and answered, read with its provenance's request; undefined without one. */
export function datesOf(answer: unknown): AnsweredDates | undefined {
  const provenance = provenanceOf(answer);
  if (!provenance) return undefined;
  return answeredDates(provenance.operation, provenance.request.body, answer);
}

/** `a`, `a and b`, `a, b and c`. */
function list(items: readonly string[]): string {
  return items.length < 2 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

/**
 * The warning for a table built from `answer` when the answer is for another date than asked, e.g.
 * `market_date: asked for 2026-11-21, answered with 2026-11-20 (RateAsset EUR): these rows are
 * 2026-11-20's data, not 2026-11-21's`; none when the dates agree or nothing says what was asked.
 */
export function dateWarnings(answer: unknown): TableWarning[] {
  const dates = datesOf(answer);
  if (!dates || dates.other.length === 0) return [];
  const asked = dates.asked.join(", ");
  const other = dates.other.join(", ");
  const rows =
    dates.other.length === dates.answered.length
      ? `these rows are ${list(dates.other)}'s data, not ${list(dates.asked)}'s`
      : `the rows of ${list(dates.other)} are not of a date asked`;
  const warning: TableWarning = {
    column: dates.field,
    message: `${dates.field}: asked for ${asked}, answered with ${other} (${answerLabel(dates)}): ${rows}`,
  };
  written.add(warning);
  return [warning];
}

/** Adds {@link dateWarnings} of `answer` to `table` (first, before the adapter's own) and returns it. */
export function withDateWarnings<T extends ColumnTable>(table: T, answer: unknown): T {
  const warnings = dateWarnings(answer);
  if (warnings.length) table.meta.warnings.unshift(...warnings);
  return table;
}

/** The table without the single-answer date warnings (a batch says it once for all its answers). */
export function withoutDateWarnings<T extends ColumnTable>(table: T): T {
  table.meta.warnings = table.meta.warnings.filter((w) => !written.has(w));
  return table;
}

/**
 * The date warnings of a table built from `answers`: one answer's own ({@link dateWarnings}), or for
 * several the batch's summary ({@link batchDateWarnings}).
 */
export function answersDateWarnings(answers: readonly unknown[]): TableWarning[] {
  return answers.length === 1 ? dateWarnings(answers[0]) : batchDateWarnings(answers.map(datesOf));
}

/**
 * One warning per operation and subject (`RateAsset EUR`) of a batch whose answers include another
 * date's data than asked: which dates asked came back as which, and which rows are then duplicates,
 * e.g. `market_date (RateAsset EUR): 2 of 3 dates asked came back as another date's data: 2026-11-21 →
 * 2026-11-20, 2026-11-22 → 2026-11-20; the rows of 2026-11-20, 2026-11-21 and 2026-11-22 are
 * duplicates, all 2026-11-20's data`. `answers` are the batch's answers' dates (see {@link datesOf}).
 */
export function batchDateWarnings(answers: readonly (AnsweredDates | undefined)[]): TableWarning[] {
  const groups = new Map<string, AnsweredDates[]>();
  for (const a of answers) {
    if (!a) continue;
    const key = `${a.field} (${answerLabel(a)})`;
    const group = groups.get(key);
    if (group) group.push(a);
    else groups.set(key, [a]);
  }
  const out: TableWarning[] = [];
  for (const [key, group] of groups) {
    const moved = group.filter((a) => a.other.length > 0);
    if (moved.length === 0) continue;
    const pairs = moved.map((a) => `${a.asked.join("/")} → ${a.other.join("/")}`);
    out.push({
      column: group[0]!.field,
      message: `${key}: ${moved.length} of ${group.length} dates asked came back as another date's data: ${pairs.join(", ")}; ${duplicates(group, moved)}`,
    });
  }
  return out;
}

/** Which rows of a batch group hold the same date's data: per date answered for another date, the dates asked that brought it. */
function duplicates(group: readonly AnsweredDates[], moved: readonly AnsweredDates[]): string {
  const targets = [...new Set(moved.flatMap((a) => a.other))];
  return targets
    .map((day) => {
      const askedFor = [...new Set(group.filter((a) => a.answered.includes(day)).flatMap((a) => a.asked))].sort();
      return askedFor.length > 1
        ? `the rows of ${list(askedFor)} are duplicates, all ${day}'s data`
        : `the rows of ${list(askedFor)} are ${day}'s data, which no other date asked returned: no duplicates`;
    })
    .join("; ");
}
