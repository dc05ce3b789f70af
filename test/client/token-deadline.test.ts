/**
 * A call waiting for a shared token request keeps its own deadline (issue 13): the token request lasts
 * as long as the latest deadline among the calls waiting for it, and each call stops at its own.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RiskPortalClient, TimeoutError } from "../../src";
import { startLoopback, tokenEndpoint, type Loopback } from "../helpers/loopback";
import { bond, curveReply } from "../helpers/samples";

const CURVE = "/api/RateAsset";
let server: Loopback;
beforeAll(async () => {
  server = await startLoopback({ [CURVE]: { body: curveReply } });
});
afterAll(() => server?.close());

const slowToken = (ms: number) => async () => {
  await new Promise((r) => setTimeout(r, ms));
  return { token: "tok-slow-0123456789", expiresInSeconds: 3600 };
};

describe("a call joining a shared token request", () => {
  it("with a longer deadline than the client's waits for the token (getToken)", async () => {
    const rp = new RiskPortalClient({ baseUrl: server.url, auth: { getToken: slowToken(250) }, timeoutMs: 100 });
    await expect(rp.rateAsset.getCurve({ currency: "EUR" }, { timeoutMs: 2_000 })).resolves.toMatchObject({
      yield_curve_model: { currency: "EUR" },
    });
  });

  it("with a longer deadline than the client's waits for the token (client credentials)", async () => {
    const tokens = tokenEndpoint();
    server.on("/token", async (req) => ({ ...(await tokens.handler(req)), delayMs: 250 }));
    const rp = new RiskPortalClient({
      baseUrl: server.url,
      auth: { clientId: "id", clientSecret: "secret-0123456789", tokenUrl: `${server.url}/token` },
      timeoutMs: 100,
    });
    await expect(rp.rateAsset.getCurve({ currency: "EUR" }, { timeoutMs: 2_000 })).resolves.toBeTruthy();
    expect(tokens.issued).toBe(1);
  });

  it("a short call joining a long one times out at its own deadline; the long one gets the token", async () => {
    const rp = new RiskPortalClient({ baseUrl: server.url, auth: { getToken: slowToken(250) }, timeoutMs: 5_000 });
    const long = rp.rateAsset.getCurve({ currency: "EUR" });
    const started = Date.now();
    const short = rp.rateAsset.getCurve({ currency: "USD" }, { timeoutMs: 50 });
    const error = await short.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).timeoutMs).toBe(50);
    expect(Date.now() - started).toBeLessThan(240);
    await expect(long).resolves.toBeTruthy();
  });
});

describe("a token request that fails in transit", () => {
  it("is tried again for a read and for a write (nothing of the call was sent); a refused credential is not", async () => {
    const tokens = tokenEndpoint();
    let calls = 0;
    server.on("/token2", async (req) =>
      ++calls % 2 ? { status: 503, body: { error: "temporarily_unavailable" } } : tokens.handler(req),
    );
    server.on("/api/MarketData/UploadBondPriceData", {
      body: { $type: "Service.Web.Core.ApiOperationOutcome, Service.Web.Core", is_success: true, error_messages: [] },
    });
    const auth = { clientId: "id", clientSecret: "secret-0123456789", tokenUrl: `${server.url}/token2` };
    const rp = new RiskPortalClient({ baseUrl: server.url, auth, retry: { baseDelayMs: 1 }, cache: false });
    await expect(rp.rateAsset.getCurve({ currency: "EUR" })).resolves.toBeTruthy();
    const writer = new RiskPortalClient({ baseUrl: server.url, auth, retry: { baseDelayMs: 1 } });
    await expect(writer.marketData.uploadBondPrices({ bond_data: [bond] })).resolves.toMatchObject({
      is_success: true,
    });
    expect(calls).toBe(4);
    expect(server.to("/api/MarketData/UploadBondPriceData")).toHaveLength(1);

    server.on("/token3", { status: 401, body: { error: "invalid_client" } });
    const refused = new RiskPortalClient({
      baseUrl: server.url,
      auth: { ...auth, tokenUrl: `${server.url}/token3` },
      retry: { baseDelayMs: 1 },
    });
    await expect(refused.rateAsset.getCurve({ currency: "EUR" })).rejects.toMatchObject({
      name: "AuthenticationError",
    });
    expect(server.to("/token3")).toHaveLength(1);
  });
});
