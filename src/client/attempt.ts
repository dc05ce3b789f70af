/**
 * The attempts of a call: a cassette answers first, else the server (recorded when recording); a success
 * answer's body is read whole or handed to the call's sink; a failure is retried while the retry settings
 * and the deadline allow.
 */
import { HEADERS } from "../api/assumptions";
import { replayResponse } from "../record/cassette";
import { CassetteError, NetworkError, ResponseValidationError, RiskPortalError, type WriteOutcome } from "./errors";
import { BodyTooLarge, ByteCounter, decodeForDisplay, decodeUtf8, InvalidUtf8, readBody, Utf8Checker } from "./body";
import { DEFAULT_RETRY, backoffDelayMs, isRetryable, protocolViolation } from "./retry";
import { type Received, PreparedCall } from "./call";
import {
  type AttemptFailure,
  httpFailure,
  transportFailure,
  bodyFailure,
  protocolFailure,
  formatBytes,
  stopped,
} from "./failures";
import { exchange } from "./exchange";
import { outcomeUnknown } from "./write-outcome";

/** How much of an error answer's body is kept (it is shown, not used): 1 MiB. */
const ERROR_BODY_BYTES = 2 ** 20;

/** How much of an answer of the wrong Content-Type is shown. */
const PREVIEW_BYTES = 200;

/** JSON media types: application/json, application/problem+json, application/vnd.x+json, text/json. */
const JSON_TYPE = /^\s*(application\/([\w.+-]*\+)?json|text\/json)\s*(;|$)/i;

/** Attempts until one succeeds, one fails for good, or the deadline leaves no room for another. */
export async function attempts(call: PreparedCall): Promise<Received> {
  const { retry, op } = call;
  for (let attempt = 1; ; attempt++) {
    const outcome = await attemptOnce(call, attempt);
    if ("text" in outcome) return outcome;
    const { failure, retryable, retryAfterMs } = outcome;
    if (!retryable || attempt > retry.limit) throw failure;
    if (retryAfterMs !== undefined && retryAfterMs > retry.maxRetryAfterMs) throw failure;
    const delayMs = retryAfterMs ?? backoffDelayMs(attempt, retry);
    // Waiting past the deadline only turns a clear error into a timeout.
    if (call.config.now() - call.startedMs + delayMs >= call.timeoutMs) throw failure;
    retry.onRetry?.({ operation: op.name, attempt, delayMs, status: failure.status, error: failure });
    await sleep(delayMs, call.signal).catch(() => {
      throw stopped(call, " (waiting to retry)");
    });
  }
}

/**
 * One attempt: a cassette answers first; what it cannot answer goes to the server (and is recorded),
 * unless replaying. Returns the success, or the failure and whether it may be retried; throws what must
 * end the call at once (local faults — a cassette's are CassetteErrors naming the file — the deadline).
 */
export async function attemptOnce(call: PreparedCall, attempt: number): Promise<Received | AttemptFailure> {
  const { cassette } = call.config;
  const replayed = cassette?.take(call.request());
  if (!replayed && cassette && !cassette.records) throw cassette.miss(call.op.name, call.request(), call.details());
  let status: number | undefined;
  const sendsBefore = call.sends;
  try {
    const response = replayed ? replayResponse(replayed) : await exchange(call);
    status = response.status;
    const refused = !replayed && response.ok ? refuseNonJson(call, response) : undefined;
    if (refused) await refused;
    const streamed = call.sink !== undefined && response.ok && !replayed && !cassette;
    const text = streamed
      ? (await streamBody(call, response), "")
      : response.ok
        ? decodeUtf8((await readBody(response, call.maxResponseBytes)).bytes)
        : await readErrorText(call, response);
    const receivedAt = replayed?.receivedAt ?? new Date(call.config.now()).toISOString();
    if (!replayed && cassette) record(call, response, text, receivedAt);
    const requestId = response.headers.get(HEADERS.requestId) ?? undefined;
    if (response.ok) return { status: response.status, text, receivedAt, requestId, replayed, streamed };
    return httpFailure(call, response, text, requestId);
  } catch (error) {
    if (error instanceof SinkFailure) throw error.error;
    if (error instanceof BodyTooLarge || error instanceof InvalidUtf8) throw bodyFailure(call, error, status);
    if (error instanceof RiskPortalError) {
      // A token request that failed in transit: this attempt sent nothing, so even a write may try again.
      if (error.operation === "token" && call.sends === sendsBefore && transientTokenFailure(error))
        return { failure: error, retryable: true };
      throw error;
    }
    if (call.signal.aborted) throw stopped(call, attempt > 1 ? ` (${attempt} attempts)` : "");
    if (replayed)
      throw new CassetteError(
        `${call.op.name}: the cassette ${cassette!.path} holds an exchange that cannot be replayed: ${(error as Error)?.message ?? error}`,
        call.details(),
        cassette!.path,
      );
    const violation = protocolViolation(error);
    if (violation) throw protocolFailure(call, error, violation, status);
    return {
      failure: transportFailure(call, error, status),
      retryable: isRetryable(call.op.retry, { networkError: error }, call.retry),
    };
  }
}

/**
 * An error answer's body as text, only to be shown: its first MiB is kept, and invalid UTF-8 in it is noted
 * with its offset. (A success answer's body is read against the call's size limit and decoded as strict
 * UTF-8, which throws BodyTooLarge or InvalidUtf8: in {@link attemptOnce}.)
 */
async function readErrorText(call: PreparedCall, response: Response): Promise<string> {
  const kept = Math.min(call.maxResponseBytes, ERROR_BODY_BYTES);
  const { bytes, truncated } = await readBody(response, kept, true);
  const { text, invalidAt } = decodeForDisplay(bytes);
  return `${text}${invalidAt === undefined ? "" : ` [not valid UTF-8 at byte ${invalidAt}]`}${truncated ? ` [cut at ${formatBytes(kept)}]` : ""}`;
}

/**
 * A success answer of a JSON operation must say JSON (or nothing): an HTML page that happens to parse is not
 * data. Undefined when it does (no promise, no await on the usual path), else the refusal.
 */
function refuseNonJson(call: PreparedCall, response: Response): Promise<never> | undefined {
  const type = response.headers.get("content-type");
  return type === null || JSON_TYPE.test(type) ? undefined : refuseAnswer(call, response, type);
}

async function refuseAnswer(call: PreparedCall, response: Response, type: string): Promise<never> {
  const { bytes, truncated } = await readBody(response, PREVIEW_BYTES, true);
  const preview = call.redactor.text(decodeForDisplay(bytes).text + (truncated ? "…" : ""));
  const after = outcomeUnknown(call, response.status);
  throw new ResponseValidationError(
    call.redactor.text(
      `${call.op.name}: the server answered HTTP ${response.status} with Content-Type ${type}, not JSON: ${preview}`,
    ) + after.note,
    call.details({ status: response.status, body: preview, ...after.extra }),
    [],
  );
}

/** Records a live exchange; a cassette that cannot be written is a local fault, and says what the server did. */
export function record(call: PreparedCall, response: Response, text: string, receivedAt: string): void {
  const cassette = call.config.cassette!;
  try {
    cassette.record(
      call.op.name,
      call.request(),
      { status: response.status, statusText: response.statusText, headers: response.headers, text },
      receivedAt,
      call.redactor,
    );
  } catch (error) {
    const done =
      call.write && response.ok
        ? ` The server answered HTTP ${response.status}: ${call.op.name} was applied; do not re-send it.`
        : "";
    const why = call.redactor.text((error as Error)?.message ?? String(error));
    const refused: WriteOutcome = response.status >= 500 ? "unknown" : "not-applied";
    const outcome = call.write ? { outcome: done ? ("applied" as const) : refused } : {};
    throw new CassetteError(
      `${call.op.name}: could not record to the cassette ${cassette.path}: ${why}.${done}`,
      call.details({ ...outcome, cause: call.redactor.cause(error) }),
      cassette.path,
    );
  }
}

/** The token endpoint could not be reached, or failed with a status worth another try. */
function transientTokenFailure(error: RiskPortalError): boolean {
  return error instanceof NetworkError || (error.status !== undefined && DEFAULT_RETRY.statuses.includes(error.status));
}

/** An error thrown by a {@link BodySink}: it ends the call as it is (it is not the network's). */
class SinkFailure {
  constructor(readonly error: unknown) {}
}

async function toSink(step: () => void | Promise<void>): Promise<void> {
  try {
    await step();
  } catch (error) {
    throw new SinkFailure(error);
  }
}

/** A success answer's body, chunk by chunk, into the call's sink. */
async function streamBody(call: PreparedCall, response: Response): Promise<void> {
  const sink = call.sink!;
  await toSink(() => sink.reset());
  if (!response.body) return;
  // The same limit and UTF-8 check as a body read whole: each chunk is counted and checked before the sink has it.
  const counter = new ByteCounter(call.streamBytes);
  const utf8 = new Utf8Checker();
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    counter.add(chunk);
    utf8.push(chunk);
    await toSink(() => sink.chunk(chunk));
  }
  utf8.end();
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
