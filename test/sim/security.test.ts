/**
 * Who may reach what (issue 28): auth, the rate limit and faults are decided on the path the router
 * sees, and a request target whose decoded form differs from the raw one in a way that matters (an
 * encoded unreserved character, slash or backslash, a dot segment, an empty segment, absolute-form) is
 * refused; `/sim/*` needs the simulator's credentials; a `Host` that is not a loopback name or address
 * is refused on every route (DNS rebinding). Raw requests over node:http, so the client cannot hide
 * anything.
 */
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../src/sim";
import { extraHostNames, isAllowedHost } from "../../src/sim/gate";

let sim: Simulator;
let key: Record<string, string>;
beforeAll(async () => {
  sim = await startSimulator({ rateLimit: false });
  key = { "x-api-key": sim.credentials.apiKey };
});
afterAll(() => sim.close());

interface Answer {
  status: number;
  type: string;
  body: Record<string, unknown>;
}

/** One raw request: `target` is sent as it is (no normalisation); `host` replaces the Host header. */
function send(
  url: string,
  method: string,
  target: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Answer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    // setHost: false, so that a Host given here is sent as it is (even an empty one).
    const options = {
      hostname,
      port,
      method,
      path: target,
      headers: { connection: "close", ...headers },
      agent: false,
      setHost: !("host" in headers),
    };
    const req = http.request(options, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (text += d));
      res.on("end", () => {
        let parsed: Record<string, unknown> = {};
        try {
          parsed = JSON.parse(text) as Record<string, unknown>;
        } catch {
          parsed = { text };
        }
        resolve({ status: res.statusCode ?? 0, type: String(res.headers["content-type"] ?? ""), body: parsed });
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}
const get = (target: string, headers: Record<string, string> = {}) => send(sim.url, "GET", target, headers);

const KEYS = "/api/User/me/ApiKeys";
const LOOKBACKS = "/api/Report/LookBacks";

/** Spellings of the API keys route the router would match, or nearly, none of them the plain one. */
const SPELLINGS = [
  "/%61pi/User/me/ApiKeys",
  "/%61%70%69/User/me/ApiKeys",
  "/api/User/me/ApiKey%73",
  "/api/User/me/ApiKey%53",
  "/api/User%2Fme/ApiKeys",
  "/api/User%2fme/ApiKeys",
  "/api/User%5Cme/ApiKeys",
  "/api/User\\me/ApiKeys",
  "/api/User/./me/ApiKeys",
  "/api/User/x/../me/ApiKeys",
  "/api/User/%2e%2e/User/me/ApiKeys",
  "/api//User/me/ApiKeys",
  "//api/User/me/ApiKeys",
  "/api/User/me/ApiKeys/.",
  "/api/User/me/ApiKeys#frag",
  "http://127.0.0.1/api/User/me/ApiKeys",
  "http://evil.example/api/User/me/ApiKeys",
];

describe("the path that decides is the path that routes", () => {
  it("GET /%61pi/User/me/ApiKeys without credentials is no longer 200 with the keys", async () => {
    const res = await get("/%61pi/User/me/ApiKeys");
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).not.toContain(sim.credentials.apiKey);
  });

  it.each(SPELLINGS)("%s: 400 problem details, with or without credentials", async (target) => {
    for (const headers of [{}, key]) {
      const res = await get(target, headers);
      expect(res.status).toBe(400);
      expect(res.type).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ status: 400, title: "Bad Request" });
      expect(String(res.body.detail)).toMatch(/path|request target/);
      expect(JSON.stringify(res.body)).not.toContain(sim.credentials.apiKey);
    }
  });

  it("an encoded spelling cannot reach an upload without credentials", async () => {
    const res = await send(
      sim.url,
      "POST",
      "/api/MarketData/Upload%42ondPriceData",
      { "content-type": "application/json" },
      "{}",
    );
    expect(res.status).toBe(400);
    expect(String(res.body.detail)).toMatch(/path/);
  });

  it("percent-encoding of other characters is left to the router, behind the credentials (401, then 404)", async () => {
    expect((await get("/api/Report/LookBacks%3F")).status).toBe(401);
    expect((await get("/api/Report/LookBacks%3F", key)).status).toBe(404);
    expect((await get("/api/Report/LookBacks?x=%61", key)).status).toBe(200); // the query is not the path
  });

  it("every route but /health, /openapi.json and the token endpoint needs credentials, unknown ones too", async () => {
    expect((await get("/health")).status).toBe(200);
    expect((await get("/openapi.json")).status).toBe(200);
    for (const target of [KEYS, LOOKBACKS, "/nope", "/api/Nope", "/sim/nope"])
      expect([target, (await get(target)).status]).toEqual([target, 401]);
    expect((await get("/nope", key)).status).toBe(404);
  });

  it("an encoded spelling skips neither the rate limit nor injected faults", async () => {
    const limited = await startSimulator({ rateLimit: { requestsPerSecond: 0.001, burst: 1 } });
    const faulty = await startSimulator({ rateLimit: false, faults: { errorRate: 1 } });
    try {
      const k = { "x-api-key": limited.credentials.apiKey };
      expect((await send(limited.url, "GET", LOOKBACKS, k)).status).toBe(200);
      expect((await send(limited.url, "GET", LOOKBACKS, k)).status).toBe(429);
      expect((await send(limited.url, "GET", "/api/Report/LookBack%73", k)).status).toBe(400);
      const f = { "x-api-key": faulty.credentials.apiKey };
      expect([500, 503]).toContain((await send(faulty.url, "GET", LOOKBACKS, f)).status);
      expect((await send(faulty.url, "GET", "/%61pi/Report/LookBacks", f)).status).toBe(400);
    } finally {
      await limited.close();
      await faulty.close();
    }
  });
});

describe("/sim/* needs the simulator's credentials", () => {
  const ROUTES: [string, string][] = [
    ["GET", "/sim/tradables"],
    ["GET", "/sim/portfolios"],
    ["GET", "/sim/surface?asset=SPX"],
    ["POST", "/sim/batch"],
  ];

  it("a bodiless POST /sim/batch (a no-cors fetch from any page) is 401 and runs nothing", async () => {
    const item = {
      report_name: "GLOBAL-MACRO VaR 99% 1d",
      reporting_currency: "USD",
      market_data_environment_names: ["EOD"],
      portfolio_name: "GLOBAL-MACRO",
      portfolio_type: "provider",
      horizon: 1,
      historical_look_back_period: "1Y",
      confidence_level: 0.99,
      run_date: "2026-11-20T00:00:00Z",
    };
    const json = { ...key, "content-type": "application/json" };
    expect(
      (await send(sim.url, "POST", "/api/ReportLauncher/VarReportLauncherItemCreate", json, JSON.stringify(item)))
        .status,
    ).toBe(200);
    const infos = JSON.stringify({ pricing_date: "2026-11-20", portfolio_names: ["GLOBAL-MACRO"] });
    const batchRuns = async () =>
      (
        JSON.stringify((await send(sim.url, "POST", "/api/Report/GetReportInfos", json, infos)).body).match(
          /rep-l\d+/g,
        ) ?? []
      ).length;
    const before = await batchRuns();
    const res = await send(sim.url, "POST", "/sim/batch", { "content-type": "text/plain" });
    expect(res.status).toBe(401);
    expect(res.type).toMatch(/^application\/problem\+json/);
    expect(await batchRuns()).toBe(before);
    const keyed = await send(sim.url, "POST", "/sim/batch", key);
    expect([keyed.status, (keyed.body.runs as unknown[]).length]).toEqual([200, 1]);
    expect(await batchRuns()).toBeGreaterThan(before);
  });

  it.each(ROUTES)(
    "%s %s: 401 without credentials, 401 with wrong ones, 200 with an API key or the bearer token",
    async (method, target) => {
      expect((await send(sim.url, method, target)).status).toBe(401);
      expect((await send(sim.url, method, target, { "x-api-key": "rpk_sim_wrong" })).status).toBe(401);
      expect((await send(sim.url, method, target, key)).status).toBe(200);
      expect(
        (await send(sim.url, method, target, { authorization: `Bearer ${sim.credentials.bearerToken}` })).status,
      ).toBe(200);
    },
  );
});

describe("only loopback Host values", () => {
  const refused = [
    "evil.example",
    "evil.example:80",
    "127.0.0.1.evil.example",
    "localhost.evil.example",
    "evil.localhost.example",
    "0.0.0.0",
    "10.0.0.1",
    "128.0.0.1",
    "127.0.0.256",
    "127.1",
    "[::2]",
    "[::ffff:8.8.8.8]",
    "evil.example@127.0.0.1",
    "127.0.0.1/x",
    "localhost:abc",
    "",
  ];
  const accepted = [
    "localhost",
    "LocalHost:8787",
    "127.0.0.1",
    "127.0.0.1:1",
    "127.255.0.9:65535",
    "[::1]",
    "[::1]:8787",
    "[0:0:0:0:0:0:0:1]:80",
  ];

  it.each(refused)("Host %j: 421 problem details on every route", async (host) => {
    for (const [method, target, headers] of [
      ["GET", "/health", {}],
      ["GET", "/openapi.json", {}],
      ["GET", LOOKBACKS, key],
      ["GET", "/sim/tradables", key],
      ["POST", "/sim/batch", key],
      ["POST", "/oauth2/token", { "content-type": "application/x-www-form-urlencoded" }],
    ] as const) {
      const res = await send(sim.url, method, target, { ...headers, host });
      expect([host, target, res.status]).toEqual([host, target, 421]);
      expect(res.type).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ status: 421, title: "Misdirected Request" });
      expect(String(res.body.detail)).toMatch(/loopback/);
    }
  });

  it.each(accepted)("Host %j is served", async (host) => {
    expect((await get("/health", { host })).status).toBe(200);
    expect((await get(LOOKBACKS, { ...key, host })).status).toBe(200);
  });

  it("the name the simulator was bound to is served too, a wildcard bind names none", () => {
    expect(extraHostNames("Sim.Lan")).toEqual(["sim.lan"]);
    expect(extraHostNames("fd00::5")).toEqual(["[fd00::5]"]);
    for (const wildcard of ["0.0.0.0", "::", undefined]) expect(extraHostNames(wildcard)).toEqual([]);
    expect(isAllowedHost("sim.lan:8787", extraHostNames("sim.lan"))).toBe(true);
    expect(isAllowedHost("[FD00::5]:1", extraHostNames("fd00::5"))).toBe(true);
    expect(isAllowedHost("evil.example", extraHostNames("sim.lan"))).toBe(false);
    expect(isAllowedHost("0.0.0.0:8787", extraHostNames("0.0.0.0"))).toBe(false);
  });
});
