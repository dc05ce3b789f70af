/** Retries: counts, backoff timing (fake timers), Retry-After, and never re-sending writes. */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { NetworkError, RateLimitError, RiskPortalClient, ServerError, type RetryInfo } from "../../src";
import { backoffDelayMs, parseRetryAfterMs } from "../../src/internals";
import { DEFAULT_RETRY } from "../../src/client/retry";
import { outcomeOk, bond } from "../helpers/samples";
import { startLoopback, type Loopback } from "../helpers/loopback";
import { FAKE_TIME, settle, until } from "../helpers/wait";

const LOOKBACKS = "/api/Report/LookBacks";
const UPLOAD = "/api/MarketData/UploadBondPriceData";
const ok = { body: { look_backs: ["1Y"] } };
const unavailable = { status: 503, body: { title: "Service Unavailable", status: 503 } };

let server: Loopback;
beforeEach(async () => {
  server = await startLoopback();
});
afterEach(async () => {
  vi.useRealTimers();
  await server.close();
});

const client = (retry: ConstructorParameters<typeof RiskPortalClient>[0]["retry"] = { baseDelayMs: 1, jitter: 0 }) =>
  new RiskPortalClient({ baseUrl: server.url, auth: { token: "tok-retry-0001" }, retry });

describe("retry of reads", () => {
  it("retries 503 twice and returns the third answer", async () => {
    server.on(LOOKBACKS, [unavailable, unavailable, ok]);
    const out = await client().report.lookBacks();
    expect(out.look_backs).toEqual(["1Y"]);
    expect(server.to(LOOKBACKS)).toHaveLength(3);
  });

  it("gives up after `limit` retries and throws the last ServerError", async () => {
    server.on(LOOKBACKS, unavailable);
    await expect(client({ limit: 3, baseDelayMs: 1, jitter: 0 }).report.lookBacks()).rejects.toBeInstanceOf(
      ServerError,
    );
    expect(server.to(LOOKBACKS)).toHaveLength(4);
  });

  it.each([408, 429, 500, 502, 504])("retries HTTP %i", async (status) => {
    server.on(LOOKBACKS, [{ status, body: { title: "transient" } }, ok]);
    await client().report.lookBacks();
    expect(server.to(LOOKBACKS)).toHaveLength(2);
  });

  it.each([400, 403, 404, 409, 422, 501])("does not retry HTTP %i", async (status) => {
    server.on(LOOKBACKS, [{ status, body: { title: "final" } }, ok]);
    await expect(client().report.lookBacks()).rejects.toMatchObject({ status });
    expect(server.to(LOOKBACKS)).toHaveLength(1);
  });

  it("retries a read-only POST after the connection is dropped mid-request", async () => {
    server.on("/api/RateAsset", [
      { destroy: true },
      { body: { yield_curve_model: { currency: "USD", market_date: "2026-11-20T00:00:00Z", data: [] } } },
    ]);
    const out = await client().rateAsset.getCurve({ currency: "USD", market_date: "2026-11-20" });
    expect(out.yield_curve_model.currency).toBe("USD");
    expect(server.to("/api/RateAsset")).toHaveLength(2);
  });

  it("retry: false sends exactly once", async () => {
    server.on(LOOKBACKS, [unavailable, ok]);
    await expect(client(false).report.lookBacks()).rejects.toBeInstanceOf(ServerError);
    expect(server.to(LOOKBACKS)).toHaveLength(1);
  });

  it("a per-call retry setting overrides the client's", async () => {
    server.on(LOOKBACKS, [unavailable, unavailable, ok]);
    await expect(client().report.lookBacks({ retry: { limit: 1 } })).rejects.toBeInstanceOf(ServerError);
    expect(server.to(LOOKBACKS)).toHaveLength(2);
  });

  it("reports each retry to onRetry with the attempt, status and delay", async () => {
    server.on(LOOKBACKS, [unavailable, { status: 502, body: "" }, ok]);
    const seen: RetryInfo[] = [];
    await client({ baseDelayMs: 2, jitter: 0, onRetry: (i) => seen.push(i) }).report.lookBacks();
    expect(seen.map((s) => [s.operation, s.attempt, s.status, s.delayMs])).toEqual([
      ["LookBacks", 1, 503, 2],
      ["LookBacks", 2, 502, 4],
    ]);
  });
});

describe("backoff timing (fake timers)", () => {
  it("waits base·2^(n−1) before each retry, not a millisecond less", async () => {
    vi.useFakeTimers(FAKE_TIME);
    server.on(LOOKBACKS, [unavailable, unavailable, ok]);
    const retries: RetryInfo[] = [];
    const call = client({ baseDelayMs: 1_000, jitter: 0, onRetry: (i) => retries.push(i) }).report.lookBacks();

    await until(() => retries.length === 1, "first retry");
    await vi.advanceTimersByTimeAsync(999);
    await settle();
    expect(server.to(LOOKBACKS)).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await until(() => retries.length === 2, "second retry");
    expect(server.to(LOOKBACKS)).toHaveLength(2);

    await vi.advanceTimersByTimeAsync(1_999);
    await settle();
    expect(server.to(LOOKBACKS)).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    await expect(call).resolves.toEqual({ look_backs: ["1Y"] });
    expect(server.to(LOOKBACKS)).toHaveLength(3);
  });

  it("obeys Retry-After in seconds over its own backoff", async () => {
    vi.useFakeTimers(FAKE_TIME);
    server.on(LOOKBACKS, [{ status: 429, headers: { "retry-after": "7" }, body: { title: "Too Many Requests" } }, ok]);
    const retries: RetryInfo[] = [];
    const call = client({ baseDelayMs: 10, jitter: 0, onRetry: (i) => retries.push(i) }).report.lookBacks();
    await until(() => retries.length === 1, "retry");
    expect(retries[0]!.delayMs).toBe(7_000);
    await vi.advanceTimersByTimeAsync(6_999);
    await settle();
    expect(server.to(LOOKBACKS)).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await expect(call).resolves.toBeDefined();
    expect(server.to(LOOKBACKS)).toHaveLength(2);
  });

  it("caps the exponential delay at maxDelayMs", () => {
    const options = { ...DEFAULT_RETRY, baseDelayMs: 1_000, maxDelayMs: 5_000, jitter: 0 };
    expect([1, 2, 3, 4, 5, 10].map((n) => backoffDelayMs(n, options))).toEqual([
      1_000, 2_000, 4_000, 5_000, 5_000, 5_000,
    ]);
  });

  it("jitter takes at most the configured share off the delay", () => {
    const options = { ...DEFAULT_RETRY, baseDelayMs: 1_000, jitter: 0.25 };
    expect(backoffDelayMs(1, { ...options, random: () => 0 })).toBe(1_000);
    expect(backoffDelayMs(1, { ...options, random: () => 0.999_999 })).toBe(750);
    expect(backoffDelayMs(2, { ...options, random: () => 0.5 })).toBe(1_750);
  });
});

describe("Retry-After", () => {
  it("parses delta-seconds and HTTP dates, and ignores garbage", () => {
    const now = Date.parse("2026-11-21T12:00:00Z");
    expect(parseRetryAfterMs("3", now)).toBe(3_000);
    expect(parseRetryAfterMs("0.5", now)).toBe(500);
    expect(parseRetryAfterMs("Sat, 21 Nov 2026 12:00:10 GMT", now)).toBe(10_000);
    expect(parseRetryAfterMs("Sat, 21 Nov 2026 11:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfterMs("soon", now)).toBeUndefined();
    expect(parseRetryAfterMs(null, now)).toBeUndefined();
  });

  it("does not wait for a Retry-After beyond maxRetryAfterMs: the RateLimitError carries the hint", async () => {
    server.on(LOOKBACKS, [
      { status: 429, headers: { "retry-after": "3600" }, body: { title: "Too Many Requests" } },
      ok,
    ]);
    const error = await client({ maxRetryAfterMs: 60_000 })
      .report.lookBacks()
      .catch((e) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.retryAfterMs).toBe(3_600_000);
    expect(server.to(LOOKBACKS)).toHaveLength(1);
  });
});

describe("writes are never re-sent", () => {
  it.each([500, 502, 503, 504, 429, 408])("an upload answered %i is sent once", async (status) => {
    server.on(UPLOAD, [{ status, body: { title: "failure" } }, { body: outcomeOk("x") }]);
    await expect(client().marketData.uploadBondPrices({ bond_data: [bond] })).rejects.toMatchObject({ status });
    expect(server.to(UPLOAD)).toHaveLength(1);
  });

  it("a launcher create whose connection drops is sent once and fails with NetworkError", async () => {
    const path = "/api/ReportLauncher/VarReportLauncherItemCreate";
    server.on(path, [{ destroy: true }, { body: outcomeOk("x") }]);
    const error = await client()
      .reportLauncher.createVar({
        report_name: "VaR",
        reporting_currency: "USD",
        market_data_environment_names: ["EOD"],
        portfolio_name: "P1",
        parameters: { horizon: 1, historical_look_back_period: "1Y", confidence_level: 0.99, run_date: "2026-11-20" },
      })
      .catch((e) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(server.to(path)).toHaveLength(1);
  });

  it("a write IS retried when the connection was refused, since it never reached a server", async () => {
    const closed = await startLoopback();
    const deadUrl = closed.url;
    await closed.close();
    const attempts: RetryInfo[] = [];
    const rp = new RiskPortalClient({
      baseUrl: deadUrl,
      auth: { token: "tok-retry-0001" },
      retry: { limit: 2, baseDelayMs: 1, jitter: 0, onRetry: (i) => attempts.push(i) },
    });
    const error = await rp.marketData.uploadBondPrices({ bond_data: [bond] }).catch((e) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.message).toMatch(/ECONNREFUSED/);
    expect(attempts).toHaveLength(2);
  });
});
