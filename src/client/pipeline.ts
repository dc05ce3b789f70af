/**
 * The one request pipeline every operation goes through, in named steps (see {@link send}): validate and
 * encode → response cache → a shared identical call in flight, or attempts with retries (cassette or auth
 * → fetch with deadline and caller's signal → 401 refresh-and-resend once → record; errors labelled for
 * what happened) → decode → remember → provenance.
 *
 * Here: the call from end to end, the response cache and single flight. Beside it, one file for each
 * thing the steps do: the call and its options ({@link PreparedCall}, call.ts), the attempts (attempt.ts),
 * one HTTP exchange with its redirects and 401 refresh (exchange.ts), what went wrong as errors
 * (failures.ts), the answer checked against its schema (decode.ts). The steps are exported for their own
 * tests (test/client/pipeline-steps.test.ts); the package exports none of them: `RiskPortalClient` is
 * the way in.
 */
import type { OperationDef, ResponseOf } from "../api/operation";
import { raceAbort } from "./auth";
import type { CacheEntry } from "../record/cache";
import { AbortError, ConfigurationError, RiskPortalError, TimeoutError, withOutcome } from "./errors";
import { refuseOtherDate } from "./date-mismatch";
import { attachToAnswer } from "./provenance";
import {
  type CallOptions,
  type PipelineConfig,
  type Received,
  type BodySink,
  type Streamed,
  PreparedCall,
} from "./call";
import { decodeResponse } from "./decode";
import { attempts } from "./attempt";
import { stopped } from "./failures";
import { howToCheck } from "./write-outcome";

export type { BodySink, CallOptions, PipelineConfig, Received, Streamed } from "./call";
export { checkLimit, defaultMaxResponseBytes, PreparedCall } from "./call";

/**
 * Sends one operation and returns its validated response, in named steps: prepare (validate, encode) →
 * the cache → a shared in-flight call, or attempts with retries (each: cassette or auth → fetch → read,
 * recorded) → decode → remember (cache, emptied after a change) → provenance.
 */
export async function send<Op extends OperationDef>(
  config: PipelineConfig,
  op: Op,
  input: unknown,
  options: CallOptions = {},
): Promise<ResponseOf<Op>> {
  return sendPrepared(prepare(config, op, input, options));
}

/** The call, its input and options checked; a write refused here was not sent (`not-applied`). */
function prepare<Op extends OperationDef>(
  config: PipelineConfig,
  op: Op,
  input: unknown,
  options: CallOptions,
): PreparedCall<Op> {
  try {
    return new PreparedCall(config, op, input, options);
  } catch (error) {
    if (op.retry === "write" && error instanceof RiskPortalError && error.outcome === undefined)
      throw withOutcome(error, "not-applied");
    throw error;
  }
}

/**
 * A write's error always says what the write did: one thrown without an `outcome` (a token request's, a
 * cassette's, the caller's abort) gets `not-applied` when nothing was sent, else `unknown`.
 */
function withWriteOutcome(call: PreparedCall, error: unknown): unknown {
  if (!call.write || !(error instanceof RiskPortalError) || error.outcome !== undefined) return error;
  if (call.sends === 0) return withOutcome(error, "not-applied", ` ${call.op.name} was not sent.`);
  return withOutcome(
    error,
    "unknown",
    ` ${call.op.name} had been sent: the server may have applied it.${howToCheck(call)}`,
  );
}

async function sendPrepared<Op extends OperationDef>(call: PreparedCall<Op>): Promise<ResponseOf<Op>> {
  try {
    const hit = call.cache ? await fromCache(call) : undefined;
    if (hit) return checkDate(call, hit);
    call.startClock();
    const shared = call.shareable ? await joinInFlight(call) : undefined;
    if (shared) return checkDate(call, shared);
    const generation = call.cache?.generation;
    const answer = attempts(call);
    if (call.shareable)
      call.cache!.lead(
        call.cacheKey,
        answer.then((got) => (decodeResponse(call, got), entryOf(got))),
      );
    const got = await answer;
    const data = decodeResponse(call, got);
    if (call.cache || (call.op.mutates && call.config.cache)) await remember(call, got, generation);
    return checkDate(
      call,
      attachToAnswer(
        data,
        call.provenanceRecord(got.replayed ? "cassette" : "live", got.receivedAt, got.requestId, got.replayed),
      ),
    );
  } catch (error) {
    throw withWriteOutcome(call, error);
  } finally {
    call.stopClock();
  }
}

/** The answer, or with `dateMismatch: "error"` a `DateMismatchError` when it is for another date than asked. */
function checkDate<T>(call: PreparedCall, answer: T): T {
  if ((call.options.dateMismatch ?? call.config.dateMismatch) === "error") refuseOtherDate(call, answer);
  return answer;
}

/**
 * Sends one operation and hands the body of its success answer to `sink` as it arrives, so a large
 * answer is never held whole; same validation, auth, retries (an attempt whose body broke off resets
 * the sink and starts again), deadline and errors as {@link send}. The response cache is not used. With
 * a cassette the body is held (recording keeps it; replaying has it) and handed to the sink in one chunk.
 */
export async function sendStreaming<Op extends OperationDef>(
  config: PipelineConfig,
  op: Op,
  input: unknown,
  sink: BodySink,
  options: CallOptions = {},
): Promise<Streamed> {
  const call = prepare(config, op, input, { ...options, cache: false });
  call.sink = sink;
  call.startClock();
  try {
    const got = await attempts(call);
    if (!got.streamed) {
      await sink.reset();
      await sink.chunk(new TextEncoder().encode(got.text));
    }
    return {
      status: got.status,
      provenance: call.provenance(got.replayed ? "cassette" : "live", got.receivedAt, got.requestId, got.replayed),
    };
  } finally {
    call.stopClock();
  }
}

/** A fresh cached answer, decoded for this caller; undefined when the cache has none (or is not used). */
export async function fromCache<Op extends OperationDef>(call: PreparedCall<Op>): Promise<ResponseOf<Op> | undefined> {
  if (!call.cache || call.options.cache === "refresh") return undefined;
  const hit = await call.cache.get(call.cacheKey);
  return (
    hit &&
    attachToAnswer(
      decodeResponse(call, { status: 200, ...hit }),
      call.provenanceRecord("cache", hit.receivedAt, hit.requestId),
    )
  );
}

/**
 * Single flight: the answer of an identical call in flight, decoded for this caller. The leading call's
 * own timeout or abort is not this caller's: then it asks for itself (undefined).
 */
export async function joinInFlight<Op extends OperationDef>(
  call: PreparedCall<Op>,
): Promise<ResponseOf<Op> | undefined> {
  if (!call.shareable || call.options.cache === "refresh") return undefined;
  const pending = call.cache!.joinInFlight(call.cacheKey);
  if (!pending) return undefined;
  let shared: CacheEntry;
  try {
    shared = await raceAbort(pending, call.signal);
  } catch (error) {
    if (call.signal.aborted) throw stopped(call, "");
    if (error instanceof TimeoutError || error instanceof AbortError) return undefined;
    throw error;
  }
  return attachToAnswer(
    decodeResponse(call, { status: 200, ...shared }),
    call.provenanceRecord("live", shared.receivedAt, shared.requestId),
  );
}

/** Keeps a live answer in the cache (unless a change emptied it since `generation`); a change empties it. */
export async function remember(call: PreparedCall, got: Received, generation: number | undefined): Promise<void> {
  if (call.cache && !got.replayed)
    await call.cache.set(call.cacheKey, { ...entryOf(got), text: call.redactor.text(got.text) }, generation);
  // A call that changes the service's data may change what reads return.
  if (call.op.mutates && call.config.cache) {
    await call.config.cache.clear().catch((error: Error) => {
      throw new ConfigurationError(
        `${call.op.name} was applied (HTTP ${got.status}), but ${error.message}: reads may return answers from before it. Do not re-send it; clear or remove the cache directory.`,
        call.details({ outcome: "applied", cause: error }),
      );
    });
  }
}

function entryOf(got: Received): CacheEntry {
  return {
    text: got.text,
    receivedAt: got.receivedAt,
    ...(got.requestId === undefined ? {} : { requestId: got.requestId }),
  };
}
