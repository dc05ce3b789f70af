/**
 * Issue 33: credentials never follow a redirect to another origin. A loopback server answers with a
 * redirect to a second one (another port, another host name, or both) that records what reaches it;
 * under every fetch the client may be given and every auth form, nothing does. Same-origin redirects
 * are followed by the pipeline, which adds the credential again itself.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { provenanceOf, RedirectError, RiskPortalClient, type AuthOptions } from "../../src";
import { startLoopback, tokenEndpoint, type Loopback } from "../helpers/loopback";
import { bond, outcomeOk } from "../helpers/samples";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const crossFetch = require("cross-fetch") as typeof fetch;

const LOOKBACKS = "/api/Report/LookBacks";
const INFOS = "/api/Report/GetReportInfos";
const UPLOAD = "/api/MarketData/UploadBondPriceData";
const TOKEN = "/oauth2/token";
const API_KEY = "key-redirect-test-0123456789";
const BEARER = "bearer-redirect-test-0123456789";
const CLIENT_SECRET = "client-secret-redirect-test-0123";
const STATUSES = [301, 302, 303, 307, 308] as const;

let server: Loopback;
let other: Loopback;
let tokens: ReturnType<typeof tokenEndpoint>;

beforeEach(async () => {
  tokens = tokenEndpoint({ clientId: "desk", clientSecret: CLIENT_SECRET });
  server = await startLoopback({ [TOKEN]: tokens.handler });
  other = await startLoopback();
  other.on(LOOKBACKS, { body: { look_backs: ["from elsewhere"] } });
  other.on(TOKEN, { body: { access_token: "stolen-origin-token-000", token_type: "Bearer" } });
});
afterEach(async () => {
  await server.close();
  await other.close();
});

const port = (lb: Loopback) => new URL(lb.url).port;
/** Other origins: another port; another host name (localhost, same port: the same server!); both. */
const targets = {
  "another port": () => `${other.url}${LOOKBACKS}`,
  "another host name": () => `http://localhost:${port(server)}${LOOKBACKS}`,
  "another host and port": () => `http://localhost:${port(other)}${LOOKBACKS}`,
};

const auths: Record<string, () => AuthOptions> = {
  apiKey: () => ({ apiKey: API_KEY }),
  token: () => ({ token: BEARER }),
  "client credentials": () => ({ clientId: "desk", clientSecret: CLIENT_SECRET, tokenUrl: server.url + TOKEN }),
  getToken: () => ({ getToken: () => BEARER }),
};

const fetches: Record<string, typeof fetch | undefined> = { "globalThis.fetch": undefined, "cross-fetch": crossFetch };

/** Every request that carried a credential of any kind, on any server, other than to `allowedPath` on the first. */
function credentialsSeenElsewhere(): string[] {
  const seen: string[] = [];
  for (const [name, lb] of [
    ["first", server],
    ["other", other],
  ] as const) {
    for (const r of lb.requests) {
      const sameServerFirstHop = name === "first" && String(r.headers.host).startsWith("127.0.0.1:");
      if (sameServerFirstHop) continue;
      if (r.headers["x-api-key"] || r.headers.authorization) seen.push(`${name} ${r.headers.host} ${r.path}`);
    }
  }
  return seen;
}

describe("a redirect to another origin is not followed", () => {
  for (const [fetchName, fetchImpl] of Object.entries(fetches)) {
    for (const [authName, auth] of Object.entries(auths)) {
      for (const status of STATUSES) {
        it(`${fetchName}, ${authName}: HTTP ${status} to another host and port stops with a RedirectError`, async () => {
          const location = targets["another host and port"]();
          server.on(LOOKBACKS, { status, headers: { location } });
          const rp = new RiskPortalClient({ baseUrl: server.url, auth: auth(), fetch: fetchImpl, retry: false });
          const error = await rp.report.lookBacks().catch((e: unknown) => e);
          expect(error).toBeInstanceOf(RedirectError);
          expect((error as RedirectError).status).toBe(status);
          expect((error as RedirectError).location).toBe(location);
          expect((error as Error).message).toContain(`HTTP ${status}`);
          expect((error as Error).message).toContain(location);
          expect((error as Error).message).toMatch(/credential was not sent there/);
          expect(other.requests).toHaveLength(0);
          expect(server.to(LOOKBACKS)).toHaveLength(1);
          expect(credentialsSeenElsewhere()).toEqual([]);
        });
      }
    }
  }

  for (const [targetName, target] of Object.entries(targets)) {
    for (const status of STATUSES) {
      it(`apiKey: HTTP ${status} to ${targetName} — nothing reaches it`, async () => {
        server.on(LOOKBACKS, { status, headers: { location: target() } });
        const rp = new RiskPortalClient({ baseUrl: server.url, auth: { apiKey: API_KEY } });
        await expect(rp.report.lookBacks()).rejects.toBeInstanceOf(RedirectError);
        expect(other.requests).toHaveLength(0);
        expect(server.requests.filter((r) => String(r.headers.host).startsWith("localhost"))).toEqual([]);
      });
    }
  }

  it("a POST read and a write stop too; the write's outcome is not-applied (a 303 may have applied it)", async () => {
    server.on(INFOS, { status: 307, headers: { location: `${other.url}${INFOS}` } });
    server.on(UPLOAD, { status: 308, headers: { location: `${other.url}${UPLOAD}` } });
    const rp = new RiskPortalClient({ baseUrl: server.url, auth: { apiKey: API_KEY } });
    await expect(rp.report.infos({ pricing_date: "2026-11-20" })).rejects.toBeInstanceOf(RedirectError);
    const write = await rp.marketData.uploadBondPrices({ bond_data: [bond] }).catch((e: RedirectError) => e);
    expect(write).toBeInstanceOf(RedirectError);
    expect(write.outcome).toBe("not-applied");
    server.on(UPLOAD, { status: 303, headers: { location: `${other.url}/done` } });
    const seeOther = await rp.marketData.uploadBondPrices({ bond_data: [bond] }).catch((e: RedirectError) => e);
    expect(seeOther.outcome).toBe("unknown");
    expect(seeOther.message).toMatch(/may have applied it/);
    expect(other.requests).toHaveLength(0);
  });

  it("the message says where the service may have moved, and names no secret", async () => {
    server.on(LOOKBACKS, {
      status: 301,
      headers: { location: `http://localhost:${port(other)}${LOOKBACKS}?key=${API_KEY}` },
    });
    const rp = new RiskPortalClient({ baseUrl: server.url, auth: { apiKey: API_KEY } });
    const error = (await rp.report.lookBacks().catch((e: unknown) => e)) as RedirectError;
    expect(error.message).toContain(
      `LookBacks: the server answered HTTP 301 with a redirect to another origin, http://localhost:${port(other)}`,
    );
    expect(error.message).not.toContain(API_KEY);
    expect(JSON.stringify(error)).not.toContain(API_KEY);
  });
});

describe("the OAuth2 token request", () => {
  for (const [fetchName, fetchImpl] of Object.entries(fetches)) {
    for (const status of STATUSES) {
      it(`${fetchName}: HTTP ${status} from the token endpoint to another origin stops; the client secret stays`, async () => {
        server.on(TOKEN, { status, headers: { location: `http://localhost:${port(other)}${TOKEN}` } });
        const rp = new RiskPortalClient({
          baseUrl: server.url,
          auth: { clientId: "desk", clientSecret: CLIENT_SECRET, tokenUrl: server.url + TOKEN },
          fetch: fetchImpl,
        });
        const error = (await rp.report.lookBacks().catch((e: unknown) => e)) as RedirectError;
        expect(error).toBeInstanceOf(RedirectError);
        expect(error.operation).toBe("token");
        expect(error.message).toContain(`HTTP ${status}`);
        expect(error.message).toMatch(/credential was not sent there/);
        expect(other.requests).toHaveLength(0);
        expect(server.to(LOOKBACKS)).toHaveLength(0);
      });
    }
  }

  it("a same-origin 307 from the token endpoint is followed, the Basic credentials added again", async () => {
    server.on(TOKEN, (req) =>
      req.query.moved ? tokens.handler(req) : { status: 307, headers: { location: `${TOKEN}?moved=1` } },
    );
    const rp = new RiskPortalClient({
      baseUrl: server.url,
      auth: { clientId: "desk", clientSecret: CLIENT_SECRET, tokenUrl: server.url + TOKEN },
    });
    server.on(LOOKBACKS, { body: { look_backs: ["1Y"] } });
    expect(await rp.report.lookBacks()).toEqual({ look_backs: ["1Y"] });
    const [first, second] = server.to(TOKEN);
    expect(second!.headers.authorization).toBe(first!.headers.authorization);
    expect(second!.text).toBe("grant_type=client_credentials");
  });
});

describe("a redirect to the same origin is followed by the pipeline", () => {
  for (const [fetchName, fetchImpl] of Object.entries(fetches)) {
    for (const status of STATUSES) {
      it(`${fetchName}: GET, HTTP ${status}: the credential is added again, provenance names the final URL`, async () => {
        server.on(LOOKBACKS, { status, headers: { location: "/api/v2/Report/LookBacks" } });
        server.on("/api/v2/Report/LookBacks", { body: { look_backs: ["1Y"] } });
        const rp = new RiskPortalClient({ baseUrl: server.url, auth: { apiKey: API_KEY }, fetch: fetchImpl });
        const got = await rp.report.lookBacks();
        expect(got).toEqual({ look_backs: ["1Y"] });
        expect(server.to("/api/v2/Report/LookBacks")[0]!.headers["x-api-key"]).toBe(API_KEY);
        expect(provenanceOf(got)!.url).toBe(`${server.url}/api/v2/Report/LookBacks`);
      });
    }
  }

  it("a POST keeps its method and body on 307/308 (and 301/302: an API call is not a form)", async () => {
    for (const status of [301, 302, 307, 308]) {
      server.on(INFOS, { status, headers: { location: `${server.url}/api/v2/infos` } });
      server.on("/api/v2/infos", { body: { report_infos: [] } });
      const rp = new RiskPortalClient({ baseUrl: server.url, auth: { token: BEARER } });
      await rp.report.infos({ pricing_date: "2026-11-20" });
      const moved = server.to("/api/v2/infos").at(-1)!;
      expect(moved.method).toBe("POST");
      expect(moved.headers.authorization).toBe(`Bearer ${BEARER}`);
      expect(moved.json).toEqual(server.to(INFOS).at(-1)!.json);
    }
  });

  it("a 303 after a write is fetched with GET and without the body (the write is not sent twice)", async () => {
    server.on(UPLOAD, { status: 303, headers: { location: "/api/result/42" } });
    server.on("/api/result/42", {
      body: outcomeOk("Service.Web.Core.MarketData.ApiUploadBondPriceDataResponse, Service.Web.Core"),
    });
    const rp = new RiskPortalClient({ baseUrl: server.url, auth: { apiKey: API_KEY } });
    const got = await rp.marketData.uploadBondPrices({ bond_data: [bond] });
    expect(got.is_success).toBe(true);
    const result = server.to("/api/result/42")[0]!;
    expect(result.method).toBe("GET");
    expect(result.text).toBe("");
    expect(result.headers["content-type"]).toBeUndefined();
    expect(result.headers["x-api-key"]).toBe(API_KEY);
    expect(server.to(UPLOAD)).toHaveLength(1);
  });

  it("a redirect loop ends after 5 redirects with an error naming the last location", async () => {
    server.on(LOOKBACKS, { status: 302, headers: { location: LOOKBACKS } });
    const rp = new RiskPortalClient({ baseUrl: server.url, auth: { apiKey: API_KEY } });
    const error = (await rp.report.lookBacks().catch((e: unknown) => e)) as RedirectError;
    expect(error).toBeInstanceOf(RedirectError);
    expect(error.message).toMatch(/more than 5 redirects/);
    expect(server.to(LOOKBACKS)).toHaveLength(6);
  });

  it("a redirect without a Location is an error naming the status", async () => {
    server.on(LOOKBACKS, { status: 302 });
    const rp = new RiskPortalClient({ baseUrl: server.url, auth: { apiKey: API_KEY }, retry: false });
    await expect(rp.report.lookBacks()).rejects.toThrow(/HTTP 302 without a Location/);
  });
});

describe("a fetch that follows redirects itself (one that overrides redirect: 'manual')", () => {
  for (const [fetchName, base] of Object.entries({ "globalThis.fetch": globalThis.fetch, "cross-fetch": crossFetch })) {
    it(`${fetchName}: the answer it followed to is refused, naming where it came from`, async () => {
      server.on(LOOKBACKS, { status: 307, headers: { location: `${other.url}${LOOKBACKS}` } });
      const following: typeof fetch = (url, init) => base(url, { ...init, redirect: "follow" });
      const rp = new RiskPortalClient({ baseUrl: server.url, auth: { token: BEARER }, fetch: following });
      const error = await rp.report.lookBacks().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RedirectError);
      expect((error as Error).message).toMatch(/follow/i);
      expect((error as RedirectError).location).toBe(`${other.url}${LOOKBACKS}`);
    });
  }
});
