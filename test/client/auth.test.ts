/** Auth modes: bearer, API key, OAuth2 client credentials (cache, shared refresh, expiry, 401 resend). */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { AuthenticationError, ConfigurationError, RiskPortalClient } from "../../src";
import { bond, outcomeOk } from "../helpers/samples";
import { startLoopback, tokenEndpoint, type Loopback } from "../helpers/loopback";
import { FAKE_TIME, until } from "../helpers/wait";

const LOOKBACKS = "/api/Report/LookBacks";
const TOKEN = "/oauth2/token";
const CLIENT_ID = "quant-desk";
const CLIENT_SECRET = "s3cr3t-client-secret-value";

let server: Loopback;
let tokens: ReturnType<typeof tokenEndpoint>;

beforeEach(async () => {
  tokens = tokenEndpoint({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, expiresIn: 3600 });
  server = await startLoopback({ [LOOKBACKS]: { body: { look_backs: ["1Y"] } }, [TOKEN]: tokens.handler });
});
afterEach(async () => {
  vi.useRealTimers();
  await server.close();
});

const oauthClient = (extra: Partial<ConstructorParameters<typeof RiskPortalClient>[0]> = {}) =>
  new RiskPortalClient({
    baseUrl: server.url,
    auth: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, tokenUrl: server.url + TOKEN },
    ...extra,
  });

describe("static credentials", () => {
  it("a bearer token goes in Authorization: Bearer", async () => {
    await new RiskPortalClient({ baseUrl: server.url, auth: { token: "abc-token-1" } }).report.lookBacks();
    const req = server.to(LOOKBACKS)[0]!;
    expect(req.headers.authorization).toBe("Bearer abc-token-1");
    expect(req.headers["x-api-key"]).toBeUndefined();
  });

  it("an API key goes in x-api-key and nothing in Authorization", async () => {
    await new RiskPortalClient({ baseUrl: server.url, auth: { apiKey: "key-abc-123" } }).report.lookBacks();
    const req = server.to(LOOKBACKS)[0]!;
    expect(req.headers["x-api-key"]).toBe("key-abc-123");
    expect(req.headers.authorization).toBeUndefined();
  });

  it("a 401 with a static token is not re-sent", async () => {
    server.on(LOOKBACKS, { status: 401, body: { title: "Unauthorized", status: 401 } });
    const rp = new RiskPortalClient({ baseUrl: server.url, auth: { token: "expired-token" } });
    await expect(rp.report.lookBacks()).rejects.toBeInstanceOf(AuthenticationError);
    expect(server.to(LOOKBACKS)).toHaveLength(1);
  });

  it("rejects auth options that name two methods or none", () => {
    expect(() => new RiskPortalClient({ baseUrl: server.url, auth: { token: "a-token", apiKey: "a-key" } })).toThrow(
      /exactly one of token, apiKey/,
    );
    expect(() => new RiskPortalClient({ baseUrl: server.url, auth: {} as never })).toThrow(ConfigurationError);
    expect(() => new RiskPortalClient({ baseUrl: server.url, auth: { token: "  " } })).toThrow(
      /auth.token must be a non-empty string/,
    );
  });
});

describe("OAuth2 client credentials", () => {
  it("fetches a token with the client-credentials grant and HTTP Basic, then sends it as Bearer", async () => {
    await oauthClient().report.lookBacks();
    const tokenReq = server.to(TOKEN)[0]!;
    expect(tokenReq.method).toBe("POST");
    expect(tokenReq.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(tokenReq.text).toBe("grant_type=client_credentials");
    const basic = Buffer.from(String(tokenReq.headers.authorization).replace("Basic ", ""), "base64").toString();
    expect(basic).toBe(`${CLIENT_ID}:${CLIENT_SECRET}`);
    expect(server.to(LOOKBACKS)[0]!.headers.authorization).toBe(`Bearer ${"tok-1-" + "x".repeat(12)}`);
  });

  it("sends the scope when one is configured", async () => {
    const rp = new RiskPortalClient({
      baseUrl: server.url,
      auth: {
        clientId: CLIENT_ID,
        clientSecret: CLIENT_SECRET,
        tokenUrl: server.url + TOKEN,
        scope: "risk.read risk.write",
      },
    });
    await rp.report.lookBacks();
    expect(new URLSearchParams(server.to(TOKEN)[0]!.text).get("scope")).toBe("risk.read risk.write");
  });

  it("N concurrent calls on a cold client cause exactly one token request", async () => {
    const rp = oauthClient();
    const results = await Promise.all(Array.from({ length: 25 }, () => rp.report.lookBacks()));
    expect(results).toHaveLength(25);
    expect(tokens.issued).toBe(1);
    expect(server.to(TOKEN)).toHaveLength(1);
    expect(new Set(server.to(LOOKBACKS).map((r) => r.headers.authorization)).size).toBe(1);
  });

  it("reuses the cached token until shortly before expiry, then refreshes once", async () => {
    vi.useFakeTimers(FAKE_TIME);
    const rp = oauthClient();
    await rp.report.lookBacks();
    await vi.advanceTimersByTimeAsync(3_600_000 - 60_000 - 1); // just inside the refresh margin
    await rp.report.lookBacks();
    expect(tokens.issued).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    await Promise.all([rp.report.lookBacks(), rp.report.lookBacks(), rp.report.lookBacks()]);
    expect(tokens.issued).toBe(2);
    const auths = server.to(LOOKBACKS).map((r) => r.headers.authorization);
    expect(auths.slice(-3)).toEqual(Array(3).fill(`Bearer tok-2-${"x".repeat(12)}`));
  });

  it("a short-lived token refreshes a tenth of its lifetime early", async () => {
    tokens = tokenEndpoint({ expiresIn: 100 });
    server.on(TOKEN, tokens.handler);
    vi.useFakeTimers(FAKE_TIME);
    const rp = oauthClient();
    await rp.report.lookBacks();
    await vi.advanceTimersByTimeAsync(89_999);
    await rp.report.lookBacks();
    expect(tokens.issued).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    await rp.report.lookBacks();
    expect(tokens.issued).toBe(2);
  });

  it("on a 401 refreshes the token once and re-sends, even an upload", async () => {
    const upload = "/api/MarketData/UploadBondPriceData";
    server.on(upload, (req) =>
      req.headers.authorization === `Bearer tok-1-${"x".repeat(12)}`
        ? { status: 401, body: { title: "token revoked" } }
        : { body: outcomeOk("x") },
    );
    const out = await oauthClient().marketData.uploadBondPrices({ bond_data: [bond] });
    expect(out.is_success).toBe(true);
    expect(tokens.issued).toBe(2);
    expect(server.to(upload).map((r) => r.headers.authorization)).toEqual([
      `Bearer tok-1-${"x".repeat(12)}`,
      `Bearer tok-2-${"x".repeat(12)}`,
    ]);
  });

  it("concurrent 401s with the same stale token share one refresh", async () => {
    const revoked = new Set<string>();
    server.on(LOOKBACKS, (req) =>
      revoked.has(String(req.headers.authorization)) ? { status: 401, body: {} } : { body: { look_backs: [] } },
    );
    const rp = oauthClient();
    await rp.report.lookBacks(); // caches tok-1
    revoked.add(`Bearer tok-1-${"x".repeat(12)}`); // the server revokes it behind the client's back
    await Promise.all(Array.from({ length: 10 }, () => rp.report.lookBacks()));
    expect(tokens.issued).toBe(2);
    const auths = server.to(LOOKBACKS).map((r) => r.headers.authorization);
    expect(auths.filter((a) => a === `Bearer tok-1-${"x".repeat(12)}`)).toHaveLength(11);
    expect(auths.filter((a) => a === `Bearer tok-2-${"x".repeat(12)}`)).toHaveLength(10);
  });

  it("a second 401 after the refresh is an AuthenticationError, not a loop", async () => {
    server.on(LOOKBACKS, { status: 401, body: { title: "Unauthorized", detail: "audience mismatch" } });
    const error = await oauthClient()
      .report.lookBacks()
      .catch((e) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.message).toContain("audience mismatch");
    expect(server.to(LOOKBACKS)).toHaveLength(2);
    expect(tokens.issued).toBe(2);
  });

  it("wrong client credentials fail with AuthenticationError from the token endpoint", async () => {
    const rp = new RiskPortalClient({
      baseUrl: server.url,
      auth: { clientId: CLIENT_ID, clientSecret: "wrong-secret-value", tokenUrl: server.url + TOKEN },
    });
    const error = await rp.report.lookBacks().catch((e) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.operation).toBe("token");
    expect(error.status).toBe(401);
    expect(server.to(LOOKBACKS)).toHaveLength(0);
  });

  it("an unusable token reply names the field", async () => {
    server.on(TOKEN, { body: { token_type: "Bearer", expires_in: 3600 } });
    await expect(oauthClient().report.lookBacks()).rejects.toThrow(/access_token/);
  });

  it("a failed token request is not cached: the next call asks again", async () => {
    server.on(TOKEN, [
      { status: 503, body: { title: "down" } },
      { body: { access_token: "tok-after-outage", token_type: "Bearer", expires_in: 3600 } },
    ]);
    const rp = oauthClient({ retry: false });
    await expect(rp.report.lookBacks()).rejects.toMatchObject({ operation: "token", status: 503 });
    await rp.report.lookBacks();
    expect(server.to(LOOKBACKS)[0]!.headers.authorization).toBe("Bearer tok-after-outage");
  });

  it("a caller who aborts while the shared refresh runs does not cancel it for the others", async () => {
    server.on(TOKEN, async (req) => {
      await new Promise((r) => setTimeout(r, 50));
      return tokens.handler(req);
    });
    const rp = oauthClient();
    const controller = new AbortController();
    const aborted = rp.report.lookBacks({ signal: controller.signal });
    const other = rp.report.lookBacks();
    await until(() => server.to(TOKEN).length === 1, "token request");
    controller.abort();
    await expect(aborted).rejects.toMatchObject({ name: "AbortError" });
    await expect(other).resolves.toEqual({ look_backs: ["1Y"] });
    expect(tokens.issued).toBe(1);
  });
});

describe("auth: { getToken } (tokens obtained elsewhere, e.g. SSO)", () => {
  /** A loopback service that accepts only the bearer tokens in `valid`. */
  function guard(valid: Set<string>) {
    server.on(LOOKBACKS, (req) =>
      valid.has(String(req.headers.authorization).replace(/^Bearer /, ""))
        ? { body: { look_backs: ["1Y"] } }
        : { status: 401, body: { title: "Unauthorized", status: 401 } },
    );
  }
  const bearers = () => server.to(LOOKBACKS).map((r) => r.headers.authorization);

  it("sends the callback's token as a bearer, and 20 concurrent cold calls share one getToken call", async () => {
    guard(new Set(["sso-token-aaaa-1111"]));
    const reasons: string[] = [];
    const rp = new RiskPortalClient({
      baseUrl: server.url,
      auth: {
        getToken: async ({ reason }) => {
          reasons.push(reason);
          await new Promise((r) => setTimeout(r, 20));
          return "sso-token-aaaa-1111";
        },
      },
    });
    await Promise.all(Array.from({ length: 20 }, () => rp.report.lookBacks()));
    expect(reasons).toEqual(["initial"]);
    expect(new Set(bearers())).toEqual(new Set(["Bearer sso-token-aaaa-1111"]));
    expect(String(rp)).not.toContain("sso-token");
  });

  it("asks again shortly before the stated expiry, with reason expired", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const t0 = Date.now();
    guard(new Set(["tok-one-xxxxxxxx", "tok-two-xxxxxxxx"]));
    const reasons: string[] = [];
    const rp = new RiskPortalClient({
      baseUrl: server.url,
      auth: {
        getToken: ({ reason }) => (
          reasons.push(reason),
          { token: reasons.length === 1 ? "tok-one-xxxxxxxx" : "tok-two-xxxxxxxx", expiresInSeconds: 600 }
        ),
      },
    });
    await rp.report.lookBacks();
    vi.setSystemTime(t0 + 530_000); // within 60 s of expiry (a tenth of 600 s)
    await rp.report.lookBacks();
    vi.setSystemTime(t0 + 545_000);
    await rp.report.lookBacks();
    expect(reasons).toEqual(["initial", "expired"]);
    expect(bearers()).toEqual(["Bearer tok-one-xxxxxxxx", "Bearer tok-one-xxxxxxxx", "Bearer tok-two-xxxxxxxx"]);
  });

  it("after a 401 asks with reason unauthorized and re-sends once with the new token; the same token again lets the 401 stand", async () => {
    const valid = new Set(["fresh-token-yyyyyyy"]);
    guard(valid);
    const given = ["stale-token-zzzzzzz", "fresh-token-yyyyyyy"];
    const reasons: string[] = [];
    const rp = new RiskPortalClient({
      baseUrl: server.url,
      auth: { getToken: ({ reason }) => (reasons.push(reason), given.shift() ?? "fresh-token-yyyyyyy") },
    });
    expect((await rp.report.lookBacks()).look_backs).toEqual(["1Y"]);
    expect(reasons).toEqual(["initial", "unauthorized"]);
    expect(bearers()).toEqual(["Bearer stale-token-zzzzzzz", "Bearer fresh-token-yyyyyyy"]);

    valid.clear(); // the service now refuses it, and the callback has nothing better
    const error = await rp.report.lookBacks().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(reasons).toEqual(["initial", "unauthorized", "unauthorized"]);
    expect(bearers().slice(2)).toEqual(["Bearer fresh-token-yyyyyyy"]); // not re-sent with the same token
  });

  it("a callback that throws is an AuthenticationError saying nothing was sent", async () => {
    guard(new Set());
    const rp = new RiskPortalClient({
      baseUrl: server.url,
      auth: {
        getToken: () => {
          throw new Error("SSO session expired");
        },
      },
    });
    const error = await rp.report.lookBacks().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as Error).message).toMatch(/^getToken\(\) failed, nothing was sent: SSO session expired/);
    expect(server.to(LOOKBACKS)).toHaveLength(0);
  });

  it("never shows a token it was given in an error, its JSON or inspect output", async () => {
    guard(new Set()); // every token refused
    const rp = new RiskPortalClient({ baseUrl: server.url, auth: { getToken: () => "secret-sso-token-kkkkkkk" } });
    const error = await rp.report.lookBacks().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    const { inspect } = await import("node:util");
    for (const text of [(error as Error).message, JSON.stringify(error), inspect(error, { depth: 8 }), inspect(rp)])
      expect(text).not.toContain("secret-sso-token-kkkkkkk");
  });

  it("a callback returning no usable token, or a getToken that is not a function, is a ConfigurationError", async () => {
    for (const bad of [undefined, "", { token: 42 }, null]) {
      const rp = new RiskPortalClient({ baseUrl: server.url, auth: { getToken: () => bad as never } });
      const error = await rp.report.lookBacks().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as Error).message).toMatch(
        /^auth\.getToken must return a non-empty token string or \{ token, expiresAt\?, expiresInSeconds\? \}; it returned /,
      );
    }
    expect(() => new RiskPortalClient({ baseUrl: server.url, auth: { getToken: "tok" as never } })).toThrow(
      /^auth\.getToken must be a function, got string$/,
    );
    expect(() => new RiskPortalClient({ baseUrl: server.url, auth: { getToken: () => "t", apiKey: "k" } })).toThrow(
      /exactly one of token, apiKey, clientId\/clientSecret\/tokenUrl or getToken; got apiKey and getToken/,
    );
  });
});
