/**
 * A success answer's body, parsed and checked against the operation's schema, and a write's reported
 * failure (`is_success: false`) as the error that says what was stored.
 */
import { isRecord, toFieldIssues, type OperationDef, type ResponseOf } from "../api/operation";
import { OperationFailedError, ResponseValidationError, formatIssues, type ErrorDetails } from "./errors";
import { checkResponse } from "./response-check";
import type { PreparedCall } from "./call";
import { failedWrite, outcomeUnknown, type FailedWrite } from "./write-outcome";

/** The required top-level fields of an object schema, by schema (undefined: not an object schema). */
const requiredFields = new WeakMap<object, readonly string[] | undefined>();

/** `json` is an object with every required top-level field of `schema` (an object schema). */
function topLevelFits(schema: OperationDef["response"], json: unknown): boolean {
  if (!requiredFields.has(schema)) {
    const shape = (schema as { shape?: Record<string, { safeParse(v: unknown): { success: boolean } }> }).shape;
    const required = shape && Object.keys(shape).filter((key) => !shape[key]!.safeParse(undefined).success);
    requiredFields.set(schema, required);
  }
  const required = requiredFields.get(schema);
  return required !== undefined && isRecord(json) && required.every((key) => key in json);
}

/**
 * A success answer's body, parsed and checked against the operation's schema. What an error adds for a
 * write (the outcome, how to check) is worked out only when there is an error: this runs on every answer.
 */
export function decodeResponse<Op extends OperationDef>(
  call: PreparedCall<Op>,
  got: { status: number; text: string; requestId?: string },
): ResponseOf<Op> {
  const { op, redactor, options } = call;
  const text = got.text;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    const { note, details } = decodeFailure(call, got);
    const preview = text.length > 200 ? `${text.slice(0, 200)}…` : text;
    throw new ResponseValidationError(
      redactor.text(`${op.name}: the server's response is not JSON${text ? `: ${preview}` : " (empty body)"}`) + note,
      { ...details, body: redactor.text(text) },
      [],
    );
  }
  const parsed =
    options.responseCheck === "top-level" && topLevelFits(op.response, json)
      ? { success: true as const, data: json }
      : checkResponse(op.response, json, text);
  if (!parsed.success) {
    const { note, details } = decodeFailure(call, got);
    const issues = toFieldIssues(parsed.error);
    throw new ResponseValidationError(
      redactor.text(`${op.name}: the server's response does not fit the schema — ${formatIssues(issues)}`) + note,
      { ...details, body: redactor.value(json) },
      issues,
    );
  }
  const data = parsed.data as ResponseOf<Op>;
  const outcome = data as { is_success?: boolean; error_messages?: string[] };
  if (op.outcome && outcome.is_success === false && options.throwOnFailure !== false) {
    const { note, details } = decodeFailure(call, got);
    const messages = redactor.value(outcome.error_messages ?? []);
    const failed = failedWrite(call, messages);
    throw new OperationFailedError(
      redactor.text(failureMessage(op.name, messages, failed, note)),
      { ...details, ...(failed ? { outcome: failed.outcome } : {}), body: redactor.value(json) },
      messages,
      failed?.report,
    );
  }
  return data;
}

/** What a decoding error of this answer says of the call. */
function decodeFailure(
  call: PreparedCall,
  got: { status: number; requestId?: string },
): { note: string; details: ErrorDetails } {
  const after = outcomeUnknown(call, got.status);
  return { note: after.note, details: call.details({ status: got.status, requestId: got.requestId, ...after.extra }) };
}

/** Up to `max` messages in one line, and how many more. */
export function listMessages(messages: readonly string[], max = 5): string {
  if (messages.length === 0) return "no message given";
  return messages.slice(0, max).join("; ") + (messages.length > max ? ` … and ${messages.length - max} more` : "");
}

/** A reported failure's message: what the server said, and what was stored (or that it is not known). */
function failureMessage(
  name: string,
  messages: readonly string[],
  failed: FailedWrite | undefined,
  note: string,
): string {
  const said = listMessages(messages);
  const report = failed?.report;
  if (report && report.stored > 0) {
    const indices = report.rejected.map((r) => r.index);
    const shown = indices.slice(0, 20).join(", ") + (indices.length > 20 ? ", …" : "");
    return (
      `${name} partially applied: ${report.stored} of the ${report.sent} records were stored, ${report.rejected.length} rejected — ${said}. ` +
      `The ${report.stored} stored are on the service now: re-sending the same request would store the ${report.stored} again; send only the rejected records (indices ${shown}), fixed.`
    );
  }
  if (report) return `${name} reported failure: none of the ${report.sent} records was stored (all rejected) — ${said}`;
  if (failed?.outcome === "unknown")
    return `${name} reported failure: ${said}. With use_best_effort the records not named may have been stored.${note}`;
  if (failed)
    return `${name} reported failure: ${said}. It was not applied (without use_best_effort a write is all or nothing).`;
  return `${name} reported failure: ${said}`;
}
