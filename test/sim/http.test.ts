/**
 * The simulator over raw HTTP (no client): content types, every error status with problem details,
 * the token endpoint, rate limiting, `/openapi.json`, and a fuzz run of malformed bodies.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../src/sim";
import { OPERATIONS } from "../../src/api";
import { raw } from "./helpers";

let sim: Simulator;
let key: Record<string, string>;
const LOOKBACKS = "/api/Report/LookBacks";
const RATE = "/api/RateAsset";

beforeAll(async () => {
  sim = await startSimulator({ rateLimit: false, bodyLimitBytes: 64 * 1024 });
  key = { "x-api-key": sim.credentials.apiKey };
});
afterAll(() => sim.close());

const rateBody = JSON.stringify({ currency: "USD", market_date: "2026-11-20" });

describe("content types", () => {
  it.each([
    "application/json-patch+json",
    "application/json",
    "text/json",
    "application/*+json",
    "application/json; charset=utf-8",
    "application/vnd.risk+json",
  ])("accepts %s", async (type) => {
    const res = await raw(sim.url + RATE, {
      method: "POST",
      headers: { ...key, "content-type": type },
      body: rateBody,
    });
    expect(res.status).toBe(200);
    expect((res.body as { yield_curve_model: { currency: string } }).yield_curve_model.currency).toBe("USD");
  });

  it.each(["text/plain", "application/xml", "multipart/form-data; boundary=x", "application/x-www-form-urlencoded"])(
    "answers %s with 415 problem details",
    async (type) => {
      const res = await raw(sim.url + RATE, {
        method: "POST",
        headers: { ...key, "content-type": type },
        body: rateBody,
      });
      expect(res.status).toBe(415);
      expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ status: 415, title: "Unsupported Media Type" });
    },
  );

  it("answers a body over the limit with 413", async () => {
    const big = JSON.stringify({ currency: "USD", market_date: "2026-11-20", pad: "x".repeat(70 * 1024) });
    const res = await raw(sim.url + RATE, {
      method: "POST",
      headers: { ...key, "content-type": "application/json" },
      body: big,
    });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ status: 413, detail: "request body over the limit of 65536 bytes" });
  });
});

describe("credentials", () => {
  it("missing, wrong and malformed credentials are 401 with a WWW-Authenticate challenge", async () => {
    const attempts: Record<string, string>[] = [
      {},
      { "x-api-key": "nope" },
      { authorization: "Bearer nope" },
      { authorization: "Basic abc" },
      { authorization: `Bearer ${sim.credentials.bearerToken}x` },
    ];
    for (const headers of attempts) {
      const res = await raw(sim.url + LOOKBACKS, { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(res.body).toMatchObject({ status: 401, title: "Unauthorized", instance: LOOKBACKS });
    }
  });

  it("a wrong Authorization header is refused even beside a good API key", async () => {
    expect((await raw(sim.url + LOOKBACKS, { headers: { ...key, authorization: "Bearer nope" } })).status).toBe(401);
  });

  it("the token endpoint issues expiring bearer tokens for HTTP Basic and for form credentials, and refuses others", async () => {
    const { clientId, clientSecret, tokenUrl } = sim.credentials;
    const form = { "content-type": "application/x-www-form-urlencoded" };
    const basic = await raw(tokenUrl, {
      method: "POST",
      headers: { ...form, authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString("base64")}` },
      body: "grant_type=client_credentials",
    });
    expect(basic.status).toBe(200);
    expect(basic.body).toMatchObject({ token_type: "Bearer", expires_in: 3600 });
    const token = (basic.body as { access_token: string }).access_token;
    expect((await raw(sim.url + LOOKBACKS, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);

    const inForm = await raw(tokenUrl, {
      method: "POST",
      headers: form,
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: clientId,
        client_secret: clientSecret,
      }).toString(),
    });
    expect(inForm.status).toBe(200);

    const wrong = await raw(tokenUrl, {
      method: "POST",
      headers: form,
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: clientId,
        client_secret: "guess",
      }).toString(),
    });
    expect([wrong.status, wrong.body]).toEqual([
      401,
      { error: "invalid_client", error_description: "client authentication failed" },
    ]);
    const grant = await raw(tokenUrl, { method: "POST", headers: form, body: "grant_type=password" });
    expect(grant.status).toBe(400);
  });
});

describe("problem details", () => {
  it("a schema violation is a 400 naming each bad field path", async () => {
    const res = await raw(sim.url + "/api/Tradable/GetVol", {
      method: "POST",
      headers: key,
      json: {
        surface: {
          benchmark_fwd_factors: [1, 1],
          smiles: [0.3],
          benchmark_maturities: [30, 60],
          vols: [0.2, "x"],
          call_wings: [1, 1],
          put_wings: [1, 1],
          skews: [0, 0],
          reference_date: "2026-11-20",
          spot_ref: -1,
        },
        maturity: 30,
        strikes: [],
        strike_type: 7,
      },
    });
    expect(res.status).toBe(400);
    const body = res.body as { errors: Record<string, string[]>; title: string };
    expect(body.title).toBe("One or more validation errors occurred.");
    expect(Object.keys(body.errors).sort()).toEqual(
      ["strike_type", "strikes", "surface.spot_ref", "surface.vols[1]"].sort(),
    );
  });

  it("a surface the vol model refuses is a 400 naming the benchmark and condition", async () => {
    const res = await raw(sim.url + "/api/Tradable/GetVol", {
      method: "POST",
      headers: key,
      json: {
        surface: {
          benchmark_fwd_factors: [1],
          smiles: [0.3],
          benchmark_maturities: [30],
          vols: [0.2],
          call_wings: [0.5],
          put_wings: [1],
          skews: [0.4],
          reference_date: "2026-11-20",
          spot_ref: 100,
        },
        maturity: 30,
        strikes: [100],
        strike_type: 1,
      },
    });
    expect(res.status).toBe(400);
    expect((res.body as { detail: string }).detail).toMatch(/benchmark 0/);
  });

  it("a wrong $type is a 400; a missing one is fine", async () => {
    const body = { pricing_date: "2026-11-20", portfolio_names: [] };
    const wrong = await raw(sim.url + "/api/Report/GetReportInfos", {
      method: "POST",
      headers: key,
      json: { $type: "Acme.Web.Core.Reports.ApiGetReportInfosRequest, Acme.Web.Core", ...body },
    });
    expect(wrong.status).toBe(400);
    expect((wrong.body as { errors: Record<string, unknown> }).errors).toHaveProperty("$type");
    expect(
      (await raw(sim.url + "/api/Report/GetReportInfos", { method: "POST", headers: key, json: body })).status,
    ).toBe(200);
  });

  it("the launcher takes its members flat on the body, as the pages show, and the spec's nested parameters too (A11)", async () => {
    const common = {
      report_name: "GLOBAL-MACRO VaR 99% 1d",
      reporting_currency: "USD",
      market_data_environment_names: ["EOD"],
      portfolio_name: "GLOBAL-MACRO",
      portfolio_type: "provider",
    };
    const members = {
      horizon: 1,
      historical_look_back_period: "1Y",
      confidence_level: 0.99,
      run_date: "2026-11-20T00:00:00Z",
    };
    for (const json of [
      { ...common, ...members },
      { ...common, parameters: members },
    ]) {
      const res = await raw(sim.url + "/api/ReportLauncher/VarReportLauncherItemCreate", {
        method: "POST",
        headers: key,
        json,
      });
      expect([res.status, (res.body as { is_success: boolean }).is_success]).toEqual([200, true]);
    }
  });

  it("unknown paths and wrong methods are 404 problems; request ids are echoed", async () => {
    const res = await raw(sim.url + "/api/Nope", { headers: key });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ status: 404 });
    expect(res.headers.get("x-request-id")).toMatch(/^sim-/);
    expect((await raw(sim.url + RATE, { headers: key })).status).toBe(404);
  });

  it("a missing tradableId on GetTradableBrief is a 400 naming it", async () => {
    const res = await raw(sim.url + "/api/Tradable/GetTradableBrief", { headers: key });
    expect(res.status).toBe(400);
    expect(Object.keys((res.body as { errors: object }).errors)).toEqual(["tradableId"]);
  });
});

describe("rate limiting", () => {
  it("answers 429 with Retry-After once a credential's bucket is empty, without touching other credentials", async () => {
    const limited = await startSimulator({ rateLimit: { requestsPerSecond: 1, burst: 5 } });
    try {
      const statuses: number[] = [];
      let retryAfter: string | null = null;
      for (let i = 0; i < 8; i++) {
        const res = await raw(limited.url + LOOKBACKS, { headers: { "x-api-key": limited.credentials.apiKey } });
        statuses.push(res.status);
        if (res.status === 429) retryAfter = res.headers.get("retry-after");
      }
      expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
      expect(statuses.slice(5)).toEqual([429, 429, 429]);
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
      expect(
        (
          await raw(limited.url + LOOKBACKS, {
            headers: { authorization: `Bearer ${limited.credentials.bearerToken}` },
          })
        ).status,
      ).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe("/openapi.json", () => {
  it("describes all 13 operations from the client's schemas, with $type constants", async () => {
    const res = await raw(sim.url + "/openapi.json");
    const doc = res.body as {
      openapi: string;
      paths: Record<
        string,
        Record<
          string,
          {
            operationId: string;
            responses: Record<string, unknown>;
            requestBody?: { content: Record<string, { schema: { properties: Record<string, { const?: string }> } }> };
          }
        >
      >;
    };
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toHaveLength(13);
    for (const op of OPERATIONS) expect(doc.paths[op.path]![op.method.toLowerCase()]!.operationId).toBe(op.name);
    // 404 only where an unknown subject is one (GetTradableBrief's unknown tradable).
    const notFound = OPERATIONS.filter((op) => "404" in doc.paths[op.path]![op.method.toLowerCase()]!.responses);
    expect(notFound.map((op) => op.name)).toEqual(["GetTradableBrief"]);
    const getVol = doc.paths["/api/Tradable/GetVol"]!.post!.requestBody!.content;
    expect(Object.keys(getVol)).toEqual([
      "application/json-patch+json",
      "application/json",
      "text/json",
      "application/*+json",
    ]);
    expect(getVol["application/json"]!.schema.properties.$type!.const).toBe(
      "Service.Web.Core.Tradables.ApiGetVolRequest, Service.Web.Core",
    );
  });
});

describe("robustness", () => {
  const bodyPaths = OPERATIONS.filter((op) => op.requestIn === "body").map((op) => op.path);
  const nasty = fc.oneof(
    fc.string().map((s) => s), // arbitrary text, mostly not JSON
    fc.json().map((j) => j.slice(0, Math.max(1, Math.floor(j.length / 2)))), // truncated JSON
    fc.jsonValue().map((v) => JSON.stringify(v)), // valid JSON of any shape
    fc.integer({ min: 1, max: 5_000 }).map((n) => "[".repeat(n) + "]".repeat(n)), // deep nesting
    fc.integer({ min: 1, max: 5_000 }).map((n) => `{"a":`.repeat(n) + "1" + "}".repeat(n)),
    fc.constantFrom(
      '{"currency":"USD","market_date":"2026-11-20","x":1e999}',
      '{"maturity":1e400}',
      '{"strikes":[1e308,1e308]}',
      "\u0000\u0001",
      '{"currency":"\uD800"}',
      '{"__proto__":{"polluted":1}}',
      '{"constructor":{"prototype":{"polluted":1}}}',
      '{"constructor":1,"toString":2,"hasOwnProperty":3}',
      "null",
      "[]",
      '"str"',
      "123",
    ),
    fc
      .record({
        currency: fc.string(),
        market_date: fc.oneof(
          fc.string(),
          fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
        ),
      })
      .map((v) => JSON.stringify(v)),
  );

  it("answers hundreds of malformed bodies with 4xx and keeps serving", async () => {
    let sent = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...bodyPaths), nasty, async (path, body) => {
        sent++;
        const res = await raw(sim.url + path, {
          method: "POST",
          headers: { ...key, "content-type": "application/json" },
          body,
        });
        if (res.status === 200) return; // some random JSON happens to be valid (e.g. a GetReportInfos)
        expect(res.status, `${path} ${body.slice(0, 80)} → ${res.text.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
        expect(res.status).toBeLessThan(500);
        expect(res.body).toHaveProperty("status", res.status);
      }),
      { numRuns: 400, seed: 20261121 },
    );
    expect(sent).toBe(400);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await raw(sim.url + LOOKBACKS, { headers: key })).status).toBe(200);
  });
});

describe("options the simulator cannot honour", () => {
  it.each([
    ["tokenTtlSeconds 0", { tokenTtlSeconds: 0 }, /tokenTtlSeconds must be a number of seconds > 0/],
    ["tokenTtlSeconds NaN", { tokenTtlSeconds: NaN }, /tokenTtlSeconds must be a number of seconds > 0/],
    ["fault rates over 1 in all", { faults: { errorRate: 0.6, dropRate: 0.6 } }, /must be at most 1/],
    ["a negative latency", { faults: { latencyMs: -1 } }, /faults.latencyMs/],
    ["a latency range upside down", { faults: { latencyMs: [50, 10] as [number, number] } }, /faults.latencyMs/],
    ["a latency Node's timers cannot wait", { faults: { latencyMs: 2 ** 40 } }, /faults.latencyMs/],
    ["a fractional fault seed", { faults: { seed: 1.5 } }, /faults.seed must be a whole number/],
  ])("startSimulator refuses %s up front", async (_what, options, message) => {
    await expect(startSimulator({ rateLimit: false, ...options })).rejects.toThrow(message);
  });

  it("faults.seed, not the data seed, draws the faults", async () => {
    const statuses = async (seed: number) => {
      const s = await startSimulator({ rateLimit: false, seed, faults: { errorRate: 0.5, seed: 3 } });
      try {
        const out: number[] = [];
        for (let i = 0; i < 16; i++)
          out.push((await raw(s.url + LOOKBACKS, { headers: { "x-api-key": s.credentials.apiKey } })).status);
        return out;
      } finally {
        await s.close();
      }
    };
    const [a, b] = [await statuses(1), await statuses(2)];
    expect(a).toEqual(b);
    expect(a).toContain(200);
    expect(a.some((status) => status >= 500)).toBe(true);
  });
});
