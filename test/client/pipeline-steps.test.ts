/**
 * The pipeline's steps one at a time (src/client/pipeline.ts): prepare (validate, encode, resolve
 * options) → the cache → a shared call in flight → one attempt, and the attempts with retries → the
 * answers that fail (HTTP, transport) → decode → record → remember. Each is called directly on a
 * PreparedCall, against a real loopback server (real fetch; no stub), so a step can fail on its own.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { uploadBondPriceData } from "../../src/api/market-data";
import { getRateAsset } from "../../src/api/rate-asset";
import { getTradableBrief } from "../../src/api/tradable";
import { brandOf } from "../../src/api/brand";
import { createAuthProvider } from "../../src/client/auth";
import { ResponseCache } from "../../src/record/cache";
import { Cassette } from "../../src/record/cassette";
import {
  CassetteError,
  ConfigurationError,
  NetworkError,
  OperationFailedError,
  RateLimitError,
  RequestValidationError,
  ResponseValidationError,
  ServerError,
} from "../../src/client/errors";
import { attemptOnce, attempts, record } from "../../src/client/attempt";
import { PreparedCall, type PipelineConfig, type Received } from "../../src/client/call";
import { decodeResponse } from "../../src/client/decode";
import { httpFailure, transportFailure } from "../../src/client/failures";
import { fromCache, joinInFlight, remember } from "../../src/client/pipeline";
import { provenanceOf } from "../../src/client/provenance";
import { Redactor } from "../../src/record/redact";
import { resolveRetry } from "../../src/client/retry";
import type { OperationDef } from "../../src/api/operation";
import { startLoopback, type Loopback } from "../helpers/loopback";
import { bond, curveReply, outcomeOk } from "../helpers/samples";

const API_KEY = "rpk_test_0123456789abcdef";
let server: Loopback;
const dirs: string[] = [];
beforeAll(async () => {
  server = await startLoopback();
});
afterAll(() => server.close());
afterEach(() => {
  server.requests.length = 0;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function config(extra: Partial<PipelineConfig> = {}): PipelineConfig {
  const redactor = new Redactor();
  return {
    baseUrl: server.url,
    fetch: globalThis.fetch,
    auth: createAuthProvider(
      { apiKey: API_KEY },
      { fetch: globalThis.fetch, redactor, timeoutMs: 5_000, now: Date.now },
    ),
    redactor,
    timeoutMs: 5_000,
    retry: resolveRetry({ limit: 2, baseDelayMs: 1, maxDelayMs: 2, jitter: 0 }),
    brand: brandOf(),
    unknownFields: "refuse",
    headers: { accept: "application/json" },
    now: Date.now,
    ...extra,
  };
}

const curveInput = { currency: "EUR", market_date: "2026-11-19" };
const uploadInput = { bond_data: [bond] };
const uploadType = uploadBondPriceData.responseType ?? "Service.Web.Core.OperationOutcome, Service.Web.Core";

/** A call whose clock runs (as send starts it), stopped after the test body. */
async function withCall<Op extends OperationDef, T>(
  call: PreparedCall<Op>,
  body: (call: PreparedCall<Op>) => Promise<T>,
): Promise<T> {
  call.startClock();
  try {
    return await body(call);
  } finally {
    call.stopClock();
  }
}

const received = (text: string, extra: Partial<Received> = {}): Received => ({
  status: 200,
  text,
  receivedAt: "2026-11-20T10:00:00.000Z",
  ...extra,
});

describe("prepare: new PreparedCall(config, op, input, options)", () => {
  it("validates and encodes before anything is sent: a bad field is a RequestValidationError naming it, and the server sees nothing", () => {
    expect(() => new PreparedCall(config(), getRateAsset, { currency: "EUR", market_dat: "2026-11-19" }, {})).toThrow(
      RequestValidationError,
    );
    expect(() => new PreparedCall(config(), getRateAsset, { currency: "EUR", market_dat: "2026-11-19" }, {})).toThrow(
      /market_dat.*market_date/,
    );
    const write = (() => {
      try {
        new PreparedCall(config(), uploadBondPriceData, { bond_data: [{ ...bond, traded_price: "abc" }] }, {});
      } catch (error) {
        return error as RequestValidationError;
      }
    })();
    expect(write?.outcome).toBe("not-applied");
    expect(write?.message).toMatch(/bond_data\[0\]\.traded_price/);
    expect(server.requests).toHaveLength(0);
  });

  it("encodes a body (its $type first), a query string, and a cache key that names the server and the credential", () => {
    const cache = new ResponseCache();
    const call = new PreparedCall(config({ cache }), getRateAsset, curveInput, {});
    expect(call.url).toBe(`${server.url}/api/RateAsset`);
    expect(Object.keys(JSON.parse(call.body!) as object)[0]).toBe("$type");
    expect(call.cacheKey.startsWith(`${server.url} `)).toBe(true);
    expect(call.cacheKey).not.toContain(API_KEY);
    expect(call.shareable).toBe(true);
    const brief = new PreparedCall(config(), getTradableBrief, { tradableId: "AAPL.XNAS" }, {});
    expect(brief.url).toBe(`${server.url}/api/Tradable/GetTradableBrief?tradableId=AAPL.XNAS`);
    expect(brief.body).toBeUndefined();
  });

  it("resolves the call's options against the client's and refuses bad ones before sending", () => {
    expect(new PreparedCall(config(), getRateAsset, curveInput, { timeoutMs: 250 }).timeoutMs).toBe(250);
    expect(new PreparedCall(config(), getRateAsset, curveInput, { retry: false }).retry.limit).toBe(0);
    expect(() => new PreparedCall(config(), getRateAsset, curveInput, { timeoutMs: Number.NaN })).toThrow(
      ConfigurationError,
    );
    expect(
      new PreparedCall(config({ cache: new ResponseCache() }), getRateAsset, curveInput, { cache: false }).cache,
    ).toBeUndefined();
    expect(server.requests).toHaveLength(0);
  });
});

describe("the cache: fromCache(call)", () => {
  it("answers a fresh entry, decoded for this caller, with provenance 'cache'; nothing is sent", async () => {
    const cache = new ResponseCache();
    const call = new PreparedCall(config({ cache }), getRateAsset, curveInput, {});
    expect(await fromCache(call)).toBeUndefined();
    await cache.set(call.cacheKey, {
      text: JSON.stringify(curveReply),
      receivedAt: "2026-11-20T09:00:00.000Z",
      requestId: "r-1",
    });
    const hit = await fromCache(call);
    expect(hit?.yield_curve_model?.currency).toBe("EUR");
    expect(provenanceOf(hit!)).toMatchObject({
      source: "cache",
      receivedAt: "2026-11-20T09:00:00.000Z",
      requestId: "r-1",
      operation: "RateAsset",
    });
    expect(server.requests).toHaveLength(0);
  });

  it("is skipped by { cache: 'refresh' } and by a client without a cache", async () => {
    const cache = new ResponseCache();
    const refresh = new PreparedCall(config({ cache }), getRateAsset, curveInput, { cache: "refresh" });
    await cache.set(refresh.cacheKey, { text: JSON.stringify(curveReply), receivedAt: "2026-11-20T09:00:00.000Z" });
    expect(await fromCache(refresh)).toBeUndefined();
    expect(await fromCache(new PreparedCall(config(), getRateAsset, curveInput, {}))).toBeUndefined();
  });
});

describe("single flight: joinInFlight(call)", () => {
  it("shares the answer of an identical call in flight, and is undefined when there is none", async () => {
    const cache = new ResponseCache();
    const call = new PreparedCall(config({ cache }), getRateAsset, curveInput, {});
    await withCall(call, async (c) => expect(await joinInFlight(c)).toBeUndefined());
    cache.lead(
      call.cacheKey,
      Promise.resolve({ text: JSON.stringify(curveReply), receivedAt: "2026-11-20T09:30:00.000Z" }),
    );
    const shared = await withCall(call, (c) => joinInFlight(c));
    expect(shared?.yield_curve_model?.market_date).toBeDefined();
    expect(provenanceOf(shared!)).toMatchObject({ source: "live", receivedAt: "2026-11-20T09:30:00.000Z" });
    expect(server.requests).toHaveLength(0);
  });
});

describe("one attempt: attemptOnce(call, attempt)", () => {
  it("a 200 is what was received, with the request id, and the credential went in its header", async () => {
    server.on("/api/RateAsset", { status: 200, body: curveReply, headers: { "x-request-id": "req-42" } });
    const got = await withCall(new PreparedCall(config(), getRateAsset, curveInput, {}), (c) => attemptOnce(c, 1));
    expect(got).toMatchObject({ status: 200, requestId: "req-42" });
    expect(JSON.parse((got as Received).text)).toEqual(curveReply);
    expect(server.to("/api/RateAsset")[0]!.headers["x-api-key"]).toBe(API_KEY);
  });

  it("a 503 with Retry-After is a retryable ServerError with the wait; a 400 is not retryable", async () => {
    server.on("/api/RateAsset", { status: 503, headers: { "retry-after": "2" }, body: { title: "busy" } });
    const busy = await withCall(new PreparedCall(config(), getRateAsset, curveInput, {}), (c) => attemptOnce(c, 1));
    expect(busy).toMatchObject({ retryable: true, retryAfterMs: 2_000 });
    expect((busy as { failure: unknown }).failure).toBeInstanceOf(ServerError);
    server.on("/api/RateAsset", { status: 400, body: { title: "bad", detail: "currency: unknown" } });
    const bad = await withCall(new PreparedCall(config(), getRateAsset, curveInput, {}), (c) => attemptOnce(c, 1));
    expect(bad).toMatchObject({ retryable: false });
  });
});

describe("the retry loop: attempts(call)", () => {
  it("tries again after a transient failure and returns the success; onRetry hears of each wait", async () => {
    server.on("/api/RateAsset", [{ status: 500 }, { status: 200, body: curveReply }]);
    const retries: number[] = [];
    const cfg = config({
      retry: resolveRetry({
        limit: 2,
        baseDelayMs: 1,
        maxDelayMs: 2,
        jitter: 0,
        onRetry: (r) => retries.push(r.attempt),
      }),
    });
    const got = await withCall(new PreparedCall(cfg, getRateAsset, curveInput, {}), (c) => attempts(c));
    expect(got.status).toBe(200);
    expect(server.to("/api/RateAsset")).toHaveLength(2);
    expect(retries).toEqual([1]);
  });

  it("never re-sends a write: one 503 is the answer, its outcome unknown", async () => {
    server.on("/api/MarketData/UploadBondPriceData", [{ status: 503 }, { status: 200, body: outcomeOk(uploadType) }]);
    const call = new PreparedCall(config(), uploadBondPriceData, uploadInput, {});
    await expect(withCall(call, (c) => attempts(c))).rejects.toMatchObject({ outcome: "unknown", status: 503 });
    expect(server.to("/api/MarketData/UploadBondPriceData")).toHaveLength(1);
  });
});

describe("failures: httpFailure(call, response, text, requestId) and transportFailure(call, error, status)", () => {
  it("a 5xx after a write says it may have been applied; a 4xx says it was not; a 429 carries its wait", () => {
    const write = new PreparedCall(config(), uploadBondPriceData, uploadInput, {});
    const failed = httpFailure(write, new Response("oops", { status: 500 }), "oops", "r-5");
    expect(failed.failure).toMatchObject({ outcome: "unknown", status: 500, requestId: "r-5" });
    expect(failed.failure.message).toMatch(/may have applied it/);
    expect(httpFailure(write, new Response("{}", { status: 422 }), "{}", undefined).failure).toMatchObject({
      outcome: "not-applied",
    });
    const read = new PreparedCall(config(), getRateAsset, curveInput, {});
    const limited = httpFailure(
      read,
      new Response("", { status: 429, headers: { "retry-after": "3" } }),
      "",
      undefined,
    );
    expect(limited.failure).toBeInstanceOf(RateLimitError);
    expect(limited).toMatchObject({ retryable: true, retryAfterMs: 3_000 });
    expect((limited.failure as RateLimitError).retryAfterMs).toBe(3_000);
  });

  it("nothing sent: 'could not reach', a write not applied; sent and no answer: a write's outcome is unknown", () => {
    const cause = Object.assign(new TypeError("fetch failed"), {
      cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }),
    });
    const write = new PreparedCall(config(), uploadBondPriceData, uploadInput, {});
    const unsent = transportFailure(write, cause, undefined);
    expect(unsent).toBeInstanceOf(NetworkError);
    expect(unsent).toMatchObject({ outcome: "not-applied" });
    expect(unsent.message).toMatch(/could not reach .*ECONNREFUSED.*nothing was sent/);
    // Whatever the error, a call that sent nothing (the credential could not be had, say) sent nothing.
    expect(transportFailure(write, new TypeError("terminated"), undefined)).toMatchObject({ outcome: "not-applied" });
    write.sends = 1;
    const lost = transportFailure(write, new TypeError("terminated"), undefined);
    expect(lost).toMatchObject({ outcome: "unknown" });
    expect(lost.message).toMatch(/outcome unknown.*may have applied it.*Re-sending it unchecked may apply it twice/);
    const read = new PreparedCall(config(), getRateAsset, curveInput, {});
    read.sends = 1;
    expect(transportFailure(read, new TypeError("terminated"), 200).message).toMatch(
      /broke while the HTTP 200 answer was arriving/,
    );
  });
});

describe("decode: decodeResponse(call, received)", () => {
  it("a body that is not JSON or does not fit the schema is a ResponseValidationError; is_success false an OperationFailedError unless asked not to throw", () => {
    const read = new PreparedCall(config(), getRateAsset, curveInput, {});
    expect(() => decodeResponse(read, received("<html>"))).toThrow(ResponseValidationError);
    expect(() => decodeResponse(read, received(JSON.stringify({ yield_curve_model: { data: "none" } })))).toThrow(
      /does not fit the schema/,
    );
    expect(decodeResponse(read, received(JSON.stringify(curveReply))).yield_curve_model?.currency).toBe("EUR");
    const failed = JSON.stringify({
      ...outcomeOk(uploadType),
      is_success: false,
      error_messages: ["bond_data[0]: unknown bond"],
    });
    const write = new PreparedCall(config(), uploadBondPriceData, uploadInput, {});
    expect(() => decodeResponse(write, received(failed))).toThrow(OperationFailedError);
    const told = new PreparedCall(config(), uploadBondPriceData, uploadInput, { throwOnFailure: false });
    expect(decodeResponse(told, received(failed))).toMatchObject({
      is_success: false,
      error_messages: ["bond_data[0]: unknown bond"],
    });
  });
});

describe("record: record(call, response, text, receivedAt)", () => {
  const tempCassette = () => {
    const dir = mkdtempSync(path.join(tmpdir(), "rpl-steps-"));
    dirs.push(dir);
    return path.join(dir, "steps.json");
  };

  it("writes the exchange to the cassette, without the credential", () => {
    const file = tempCassette();
    // auto: writes go to the cassette itself (a record one's go to its recording, until it finishes).
    const cassette = new Cassette({ path: file, mode: "auto", baseUrl: server.url });
    const call = new PreparedCall(config({ cassette }), getRateAsset, curveInput, {});
    record(call, new Response("", { status: 200 }), JSON.stringify(curveReply), "2026-11-20T10:00:00.000Z");
    const saved = Cassette.read(file)!;
    expect(saved.exchanges).toHaveLength(1);
    expect(saved.exchanges[0]).toMatchObject({
      operation: "RateAsset",
      receivedAt: "2026-11-20T10:00:00.000Z",
      response: { status: 200 },
    });
    expect(readFileSync(file, "utf8")).not.toContain(API_KEY);
  });

  it("a cassette that cannot be written after a successful write: a CassetteError saying it was applied", () => {
    const file = tempCassette();
    const cassette = new Cassette({ path: file, mode: "auto", baseUrl: server.url });
    // The cassette's path is now a directory: the rename into place fails.
    rmSync(file, { force: true });
    mkdirSync(file);
    const call = new PreparedCall(config({ cassette }), uploadBondPriceData, uploadInput, {});
    let error: unknown;
    try {
      record(
        call,
        new Response("", { status: 200 }),
        JSON.stringify(outcomeOk(uploadType)),
        "2026-11-20T10:00:00.000Z",
      );
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CassetteError);
    expect(error).toMatchObject({ outcome: "applied" });
    expect((error as Error).message).toMatch(/was applied; do not re-send it/);
  });
});

describe("remember: remember(call, received, generation)", () => {
  it("keeps a live read in the cache; a replayed one is not kept", async () => {
    const cache = new ResponseCache();
    const call = new PreparedCall(config({ cache }), getRateAsset, curveInput, {});
    await remember(call, received(JSON.stringify(curveReply), { requestId: "r-9" }), cache.generation);
    expect(await cache.get(call.cacheKey)).toMatchObject({ requestId: "r-9", receivedAt: "2026-11-20T10:00:00.000Z" });
    const other = new PreparedCall(config({ cache }), getRateAsset, { currency: "USD", market_date: "2026-11-19" }, {});
    await remember(other, received("{}", { replayed: {} as never }), cache.generation);
    expect(await cache.get(other.cacheKey)).toBeUndefined();
  });

  it("a write that changes data empties the cache; an answer from before a change is not put back", async () => {
    const cache = new ResponseCache();
    const read = new PreparedCall(config({ cache }), getRateAsset, curveInput, {});
    const before = cache.generation;
    await cache.set(read.cacheKey, { text: JSON.stringify(curveReply), receivedAt: "2026-11-20T09:00:00.000Z" });
    await remember(
      new PreparedCall(config({ cache }), uploadBondPriceData, uploadInput, {}),
      received(JSON.stringify(outcomeOk(uploadType))),
      undefined,
    );
    expect(cache.stats.entries).toBe(0);
    await remember(read, received(JSON.stringify(curveReply)), before);
    expect(await cache.get(read.cacheKey)).toBeUndefined();
  });
});
