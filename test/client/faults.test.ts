/**
 * Errors say what happened (issue 13): against a real loopback server that breaks connections, cuts
 * bodies off and fails, each failure is labelled for what it is — a transport failure before anything
 * left, an answer lost after a write went out (`outcome: "unknown"`, never "could not reach"), a local
 * fault — and call options that would silently drop the deadline are refused before anything is sent.
 */
import { createServer } from "node:net";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import {
  ConfigurationError,
  NetworkError,
  RequestValidationError,
  RiskPortalClient,
  ServerError,
  TimeoutError,
  BadRequestError,
} from "../../src";
import { parseRetryAfterMs, Redactor, REDACTED } from "../../src/internals";
import { startLoopback, type Loopback } from "../helpers/loopback";
import { bond, curveReply, outcomeOk } from "../helpers/samples";

const UPLOAD = "/api/MarketData/UploadBondPriceData";
const CURVE = "/api/RateAsset";
const EFFECTS = "/api/Tradable/GetTradeEventPositionEffects";
const OK = outcomeOk("Service.Web.Core.ApiOperationOutcome, Service.Web.Core");

let server: Loopback;
beforeEach(async () => {
  await server?.close();
  server = await startLoopback({ [UPLOAD]: { body: OK }, [CURVE]: { body: curveReply } });
});
afterAll(() => server?.close());

const client = (extra: Partial<ConstructorParameters<typeof RiskPortalClient>[0]> = {}) =>
  new RiskPortalClient({
    baseUrl: server.url,
    auth: { apiKey: "k-faults-0123456789" },
    retry: { baseDelayMs: 1, jitter: 0 },
    ...extra,
  });
const upload = (rp: RiskPortalClient, options = {}) => rp.marketData.uploadBondPrices({ bond_data: [bond] }, options);
const failure = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (error) {
    return error as Error & { outcome?: string; status?: number };
  }
  throw new Error("expected the call to fail");
};

describe("a write whose answer was lost", () => {
  it("is outcome unknown, says the server may have applied it and how to check, and is not re-sent", async () => {
    server.on(UPLOAD, { destroy: true });
    const error = await failure(upload(client()));
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.outcome).toBe("unknown");
    expect(error.message).not.toMatch(/could not reach/);
    expect(error.message).toMatch(/may have applied it/);
    expect(error.message).toMatch(/RateAsset/); // how to check
    expect(error.message).toMatch(/twice/);
    expect(server.to(UPLOAD)).toHaveLength(1);
  });

  it("after a 200 whose body was cut off: most likely applied, outcome unknown, not re-sent", async () => {
    server.on(UPLOAD, { body: OK, truncate: true });
    const error = await failure(upload(client()));
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.outcome).toBe("unknown");
    expect(error.status).toBe(200);
    expect(error.message).toMatch(/answered HTTP 200 but the connection broke/);
    expect(error.message).toMatch(/most likely applied/);
    expect(server.to(UPLOAD)).toHaveLength(1);
  });

  it("a timeout after the request went out says the server may have applied it", async () => {
    server.on(UPLOAD, { body: OK, delayMs: 400 });
    const error = await failure(upload(client(), { timeoutMs: 100 }));
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.outcome).toBe("unknown");
    expect(error.message).toMatch(/had been sent, so the server may have applied it/);
  });

  it("a 5xx is outcome unknown, a 4xx not applied", async () => {
    server.on(UPLOAD, { status: 502, body: { title: "Bad Gateway", status: 502 } });
    const bad = await failure(upload(client()));
    expect(bad).toBeInstanceOf(ServerError);
    expect(bad.outcome).toBe("unknown");
    expect(bad.message).toMatch(/may have applied it/);
    server.on(UPLOAD, { status: 400, body: { title: "Bad Request", status: 400, detail: "bond_data[0].currency" } });
    const refused = await failure(upload(client()));
    expect(refused).toBeInstanceOf(BadRequestError);
    expect(refused.outcome).toBe("not-applied");
    expect(server.to(UPLOAD)).toHaveLength(2);
  });

  it('a refused connection is "could not reach", outcome not applied', async () => {
    const port = await freePort();
    const rp = new RiskPortalClient({
      baseUrl: `http://127.0.0.1:${port}`,
      auth: { apiKey: "k-faults-0123456789" },
      retry: { limit: 1, baseDelayMs: 1 },
    });
    const error = await failure(upload(rp));
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.outcome).toBe("not-applied");
    expect(error.message).toMatch(/could not reach .*nothing was sent/);
  });
});

describe("a read whose connection broke", () => {
  it('says the answer was cut off (not "could not reach") and is retried', async () => {
    server.on(CURVE, [{ body: curveReply, truncate: true }, { body: curveReply }]);
    const retried: string[] = [];
    const rp = client({ retry: { baseDelayMs: 1, onRetry: (i) => retried.push((i.error as Error).message) } });
    await rp.rateAsset.getCurve({ currency: "EUR" });
    expect(server.to(CURVE)).toHaveLength(2);
    expect(retried).toHaveLength(1);
    expect(retried[0]).toMatch(/broke while the HTTP 200 answer was arriving/);
    expect(retried[0]).not.toMatch(/could not reach/);
  });
});

describe("call options that would drop the deadline", () => {
  it.each([NaN, -1, 0, "5000", true])("timeoutMs %s is refused before anything is sent", async (timeoutMs) => {
    const error = await failure(client().rateAsset.getCurve({ currency: "EUR" }, { timeoutMs: timeoutMs as number }));
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error.message).toMatch(/timeoutMs must be a number of milliseconds > 0.*nothing was sent/);
    expect(server.requests).toHaveLength(0);
  });

  it("a deadline beyond what a timer can hold is no deadline, not an instant timeout", async () => {
    await expect(client().rateAsset.getCurve({ currency: "EUR" }, { timeoutMs: 3e9 })).resolves.toMatchObject({
      yield_curve_model: { currency: "EUR" },
    });
    await expect(client().rateAsset.getCurve({ currency: "EUR" }, { timeoutMs: Infinity })).resolves.toBeTruthy();
  });

  it("bad per-call retry settings are a ConfigurationError naming the operation, nothing sent", async () => {
    const error = await failure(client().rateAsset.getCurve({ currency: "EUR" }, { retry: { limit: -1 } }));
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error.message).toMatch(/^RateAsset: retry.limit/);
    expect(server.requests).toHaveLength(0);
  });
});

describe("Retry-After", () => {
  it("a negative or malformed value is ignored (the client's backoff applies), not read as a date in 2001", () => {
    const now = Date.parse("2026-11-24T12:00:00Z");
    expect(parseRetryAfterMs("-5", now)).toBeUndefined();
    expect(parseRetryAfterMs("5 seconds", now)).toBeUndefined();
    expect(parseRetryAfterMs("2026-11-24", now)).toBeUndefined();
    expect(parseRetryAfterMs("3", now)).toBe(3000);
    expect(parseRetryAfterMs("Tue, 24 Nov 2026 12:00:07 GMT", now)).toBe(7000);
    expect(parseRetryAfterMs("Tuesday, 24-Nov-26 12:00:02 GMT", now)).toBe(2000);
    expect(parseRetryAfterMs("Tue Nov 24 12:00:01 2026", now)).toBe(1000);
  });

  it("a 503 with Retry-After: -5 is retried after the backoff", async () => {
    server.on(CURVE, [
      { status: 503, headers: { "retry-after": "-5" }, body: { title: "busy", status: 503 } },
      { body: curveReply },
    ]);
    const delays: number[] = [];
    await client({ retry: { baseDelayMs: 20, jitter: 0, onRetry: (i) => delays.push(i.delayMs) } }).rateAsset.getCurve({
      currency: "EUR",
    });
    expect(delays).toEqual([20]);
  });
});

describe("what goes on the wire is what the caller gave", () => {
  const event = (extra: Record<string, unknown>) => ({
    tradable_id: "AAPL",
    pricing_date: "2026-11-20",
    next_trade_event: { $type: "FutureEvent", ...extra },
  });
  it.each([
    [NaN, "NaN"],
    [Infinity, "Infinity"],
    [-Infinity, "-Infinity"],
  ])("%s in an unknown trade-event variant is refused, naming the field, not sent as null", async (value, shown) => {
    const error = await failure(client().tradable.positionEffects(event({ notional: { amount: value } })));
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(error.message).toContain(`next_trade_event.notional.amount: ${shown} is not a finite number`);
    expect(server.requests).toHaveLength(0);
  });

  it("a value nested 10,000 deep is a validation error, not a stack overflow", async () => {
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 10_000; i++) deep = { inner: deep };
    const error = await failure(client().tradable.positionEffects(event({ detail: deep })));
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(error.message).toMatch(/nested deeper than 64 levels/);
    expect(server.requests).toHaveLength(0);
  });

  it("a finite 1e308 goes out as 1e308", async () => {
    server.on(EFFECTS, { body: { $type: "x", position_effects: [] } });
    await client()
      .tradable.positionEffects({
        tradable_id: "AAPL",
        pricing_date: "2026-11-20",
        next_trade_event: { $type: "BuyEvent", unit_price: 1e308, quantity: 1e308 },
      })
      .catch(() => undefined);
    expect(server.to(EFFECTS)[0]!.text).toMatch(/"quantity":1e\+308/);
  });
});

describe("redaction", () => {
  it("scrubs secrets however deep they are nested", () => {
    const secret = "s3cr3t-token-0123456789";
    const redactor = new Redactor([secret]);
    let body: Record<string, unknown> = { note: `Bearer ${secret}`, token: "abc" };
    for (let i = 0; i < 1_000; i++) body = { inner: body, list: [i] };
    const text = JSON.stringify(redactor.value(body));
    // A body nested deeper than JSON.stringify can write is still copied without a stack overflow.
    for (let i = 0; i < 20_000; i++) body = { inner: body };
    expect(() => redactor.value(body)).not.toThrow();
    expect(text).not.toContain(secret);
    expect(text).toContain(REDACTED);
    expect(text).not.toContain('"token":"abc"');
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}
