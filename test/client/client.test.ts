/** Client construction: options, fromEnv, base URL handling, injected fetch. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import crossFetch from "cross-fetch";
import { ConfigurationError, RiskPortalClient } from "../../src";
import { optionsFromEnv } from "../../src/internals";
import { startLoopback, type Loopback } from "../helpers/loopback";

let server: Loopback;
beforeAll(async () => {
  server = await startLoopback({
    "/risk/api/Report/LookBacks": { body: { look_backs: ["2Y"] } },
    "/api/Report/LookBacks": { body: { look_backs: ["1Y"] } },
  });
});
afterAll(() => server.close());

describe("fromEnv", () => {
  const base = { RISK_PORTAL_BASE_URL: "https://risk.example.com" };

  it("reads a bearer token", () => {
    expect(optionsFromEnv({ ...base, RISK_PORTAL_TOKEN: "t-1" })).toEqual({
      baseUrl: "https://risk.example.com",
      auth: { token: "t-1" },
    });
  });
  it("reads an API key", () => {
    expect(optionsFromEnv({ ...base, RISK_PORTAL_API_KEY: "k-1" }).auth).toEqual({ apiKey: "k-1" });
  });
  it("reads client credentials, scope, brand (by its old name too) and timeout", () => {
    expect(
      optionsFromEnv({
        ...base,
        RISK_PORTAL_CLIENT_ID: "id",
        RISK_PORTAL_CLIENT_SECRET: "secret",
        RISK_PORTAL_TOKEN_URL: "https://idp.example.com/token",
        RISK_PORTAL_SCOPE: "risk",
        RISK_PORTAL_TYPE_NAMESPACE: "Acme",
        RISK_PORTAL_TIMEOUT_MS: "15000",
      }),
    ).toEqual({
      baseUrl: "https://risk.example.com",
      auth: { clientId: "id", clientSecret: "secret", tokenUrl: "https://idp.example.com/token", scope: "risk" },
      brand: "Acme",
      timeoutMs: 15_000,
    });
    expect(
      optionsFromEnv({
        ...base,
        RISK_PORTAL_API_KEY: "k-1",
        RISK_PORTAL_BRAND: "Derivitec",
        RISK_PORTAL_TYPE_NAMESPACE: "Acme",
      }).brand,
    ).toBe("Derivitec");
  });
  it("names what is missing", () => {
    expect(() => optionsFromEnv({})).toThrow(/RISK_PORTAL_BASE_URL is not set/);
    expect(() => optionsFromEnv(base)).toThrow(
      /no credentials in the environment: set RISK_PORTAL_TOKEN, RISK_PORTAL_API_KEY, or RISK_PORTAL_CLIENT_ID/,
    );
    expect(() => optionsFromEnv({ ...base, RISK_PORTAL_CLIENT_ID: "id" })).toThrow(
      "RISK_PORTAL_CLIENT_ID is set but RISK_PORTAL_CLIENT_SECRET and RISK_PORTAL_TOKEN_URL are not",
    );
    expect(() => optionsFromEnv({ ...base, RISK_PORTAL_TOKEN: "t", RISK_PORTAL_TIMEOUT_MS: "soon" })).toThrow(
      /RISK_PORTAL_TIMEOUT_MS must be a positive number/,
    );
  });
  it("builds a working client, overrides winning over the environment", async () => {
    const rp = RiskPortalClient.fromEnv(
      { RISK_PORTAL_BASE_URL: "http://127.0.0.1:1", RISK_PORTAL_TOKEN: "t-env" },
      { baseUrl: server.url },
    );
    expect(await rp.report.lookBacks()).toEqual({ look_backs: ["1Y"] });
    expect(server.to("/api/Report/LookBacks").at(-1)!.headers.authorization).toBe("Bearer t-env");
  });
});

describe("options", () => {
  it("keeps a base path and drops trailing slashes", async () => {
    const rp = new RiskPortalClient({ baseUrl: `${server.url}/risk///`, auth: { token: "t-path" } });
    expect(rp.baseUrl).toBe(`${server.url}/risk`);
    expect(await rp.report.lookBacks()).toEqual({ look_backs: ["2Y"] });
  });

  it("rejects bad base URLs, namespaces and timeouts with ConfigurationError", () => {
    const auth = { token: "t-1234" };
    expect(() => new RiskPortalClient({ baseUrl: "risk.example.com", auth })).toThrow(/baseUrl is not an absolute URL/);
    expect(() => new RiskPortalClient({ baseUrl: "ftp://x", auth })).toThrow(/http or https/);
    expect(() => new RiskPortalClient({ baseUrl: "https://x?a=1", auth })).toThrow(/query/);
    expect(() => new RiskPortalClient({ baseUrl: "https://x", auth, typeNamespace: "Bad Space" })).toThrow(
      ConfigurationError,
    );
    expect(() => new RiskPortalClient({ baseUrl: "https://x", auth, timeoutMs: 0 })).toThrow(/timeoutMs must be > 0/);
  });

  it("uses an injected fetch (cross-fetch here) for every call", async () => {
    let calls = 0;
    const counting: typeof fetch = (input, init) => {
      calls++;
      return crossFetch(input, init);
    };
    const rp = new RiskPortalClient({ baseUrl: server.url, auth: { token: "t-cf" }, fetch: counting });
    expect(await rp.report.lookBacks()).toEqual({ look_backs: ["1Y"] });
    expect(calls).toBe(1);
  });

  it("sends extra headers from the client and the call, never letting them drop auth", async () => {
    const rp = new RiskPortalClient({ baseUrl: server.url, auth: { token: "t-hdr" }, headers: { "x-desk": "rates" } });
    await rp.report.lookBacks({ headers: { "x-notebook": "01-yield-curves" } });
    const req = server.to("/api/Report/LookBacks").at(-1)!;
    expect([req.headers["x-desk"], req.headers["x-notebook"], req.headers.authorization]).toEqual([
      "rates",
      "01-yield-curves",
      "Bearer t-hdr",
    ]);
  });
});
