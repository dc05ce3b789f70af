/**
 * What a write may have done on the server when its call fails: not sent, unknown (and how to check), or,
 * for a failure the server reported, what it says was stored.
 */
import type { ErrorDetails, WriteOutcome, WriteReport } from "./errors";
import type { PreparedCall } from "./call";

/** How to tell whether a write whose answer was lost was applied (the operation declares it). */
export function howToCheck(call: PreparedCall): string {
  return call.op.whenOutcomeUnknown ? ` ${call.op.whenOutcomeUnknown}` : "";
}

/**
 * A write whose request left but whose answer could not be taken (a 2xx that cannot be read, an answer
 * that broke HTTP): its outcome is unknown, and the note says how to check. Nothing for reads; a
 * write that was never sent (a cassette answered) is not-applied.
 */
export function outcomeUnknown(call: PreparedCall, status?: number): { extra: Partial<ErrorDetails>; note: string } {
  if (!call.write) return { extra: {}, note: "" };
  if (call.sends === 0)
    return { extra: { outcome: "not-applied" }, note: ` ${call.op.name} was not sent (a cassette answered).` };
  const said = status === undefined ? "The request was sent" : `The server answered HTTP ${status}`;
  return {
    extra: { outcome: "unknown" },
    note: ` ${said}, so it may have applied it.${howToCheck(call)} Re-sending it unchecked may apply it twice.`,
  };
}

/**
 * A write the server reported failed (`is_success: false`): all or nothing, unless it asked for best
 * effort. Then the messages say what was stored when each names one rejected record (`bond_data[3]: …`);
 * a refusal of the whole request says "nothing was stored"; anything else leaves it unknown.
 */
export function failedWrite(call: PreparedCall, messages: readonly string[]): FailedWrite | undefined {
  if (!call.write) return undefined;
  const body = call.encodedBody;
  if (body?.use_best_effort !== true) return { outcome: "not-applied" };
  const report = bestEffortReport(body, messages);
  if (report) return { outcome: report.stored > 0 ? "partially-applied" : "not-applied", report };
  if (messages.some((m) => /\bnothing was stored\b/i.test(m))) return { outcome: "not-applied" };
  return { outcome: "unknown" };
}

/** What a write the server reported failed did: its outcome, and for best effort what was stored. */
export interface FailedWrite {
  outcome: WriteOutcome;
  report?: WriteReport;
}

/** `bond_data[3]: …`: a message about one record of an array of the request. */
const RECORD_MESSAGE = /^\s*([A-Za-z_$][\w$]*)\[(\d+)\]/;

/**
 * What a best-effort write's answer says was stored, when every message names one record of the same
 * array of the request (`bond_data[3]: unknown bond`): the records named were rejected, the others
 * stored. Undefined when any message names no record (the answer does not say).
 */
export function bestEffortReport(body: Record<string, unknown>, messages: readonly string[]): WriteReport | undefined {
  let field: string | undefined;
  const rejected = new Map<number, string[]>();
  for (const message of messages) {
    const named = RECORD_MESSAGE.exec(message);
    if (!named || (field !== undefined && named[1] !== field)) return undefined;
    const records = body[named[1]!];
    const index = Number(named[2]);
    if (!Array.isArray(records) || index >= records.length) return undefined;
    field = named[1];
    const said = rejected.get(index) ?? [];
    said.push(message);
    rejected.set(index, said);
  }
  if (field === undefined) return undefined;
  const sent = (body[field] as unknown[]).length;
  const list = [...rejected].sort((a, b) => a[0] - b[0]).map(([index, said]) => ({ index, messages: said }));
  return { sent, stored: sent - rejected.size, rejected: list };
}
