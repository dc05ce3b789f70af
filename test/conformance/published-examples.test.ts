/**
 * Conformance with the service's public API reference: every request example the pages publish (both
 * page generations, placeholders replaced with values the simulator knows; see fixtures/) goes through
 * the client and raw over HTTP to the simulator, for the neutral brand and for the published one, and
 * the answer carries every response field the pages publish.
 *
 * The fixtures hold the bodies as published (brand `Derivitec`); the neutral brand's body is the same
 * body re-spelled (`Service.Web.Core.…`, `Provider` / `provider`, `service_created`, …).
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RequestValidationError, RiskPortalClient } from "../../src";
import { OPERATIONS, type OperationDef } from "../../src/api";
import { PUBLISHED_BRAND, brandOf, toBrand, toNeutral } from "../../src/api/brand";
import { startSimulator, type Simulator } from "../../src/sim";

interface Fixture {
  operation: string;
  generation: "v1" | "v2";
  /** The page the example is published on. */
  page: string;
  /** Set when the pages publish no example for the operation: why this body stands in for one. */
  derived?: string;
  /** Where the fixture departs from the published example, and why. */
  note?: string;
  method: "GET" | "POST";
  path: string;
  query?: Record<string, string>;
  /** The body as published (brand Derivitec), placeholders replaced. */
  request?: Record<string, unknown>;
  /** The response fields the pages publish (for an array answer: the fields of each element). */
  responseFields: string[];
}

const FIXTURE_DIR = path.join(__dirname, "fixtures");
const FIXTURES: { file: string; fixture: Fixture }[] = readdirSync(FIXTURE_DIR)
  .filter((f) => f.endsWith(".json"))
  .sort()
  .map((file) => ({ file, fixture: JSON.parse(readFileSync(path.join(FIXTURE_DIR, file), "utf8")) as Fixture }));

const BRANDS = ["Service", PUBLISHED_BRAND] as const;
type BrandName = (typeof BRANDS)[number];

/** The fixture's body spelled for `brand` (the fixtures are spelled for the published brand). */
function bodyFor(fixture: Fixture, brand: BrandName): Record<string, unknown> | undefined {
  if (!fixture.request) return undefined;
  return toBrand(toNeutral(fixture.request, brandOf(PUBLISHED_BRAND)), brandOf(brand)) as Record<string, unknown>;
}

function operationOf(fixture: Fixture): OperationDef {
  const op = OPERATIONS.find((o) => o.name === fixture.operation);
  if (!op) throw new Error(`${fixture.operation}: no such operation in OPERATIONS`);
  return op;
}

/** The objects that must carry the published fields: the answer, or each element of an array answer (at least one). */
function records(answer: unknown): Record<string, unknown>[] {
  if (Array.isArray(answer)) {
    expect(answer.length, "an array answer with no element proves nothing").toBeGreaterThan(0);
    return answer as Record<string, unknown>[];
  }
  expect(answer, "the answer is a JSON object").toBeTypeOf("object");
  expect(answer).not.toBeNull();
  return [answer as Record<string, unknown>];
}

/**
 * Every published field is a key of every record; a published `$type` is spelled in the brand; an
 * outcome is a success. Soft: the client's and the raw call's findings are reported together.
 */
function expectPublishedFields(answer: unknown, fixture: Fixture, brand: BrandName, who: string): void {
  for (const [i, record] of records(answer).entries()) {
    const where = `${who}${Array.isArray(answer) ? `[${i}]` : ""}`;
    expect
      .soft(
        fixture.responseFields.filter((field) => !(field in record)),
        `${where}: published fields missing (keys: ${Object.keys(record).join(", ")})`,
      )
      .toEqual([]);
    if (fixture.responseFields.includes("$type"))
      expect.soft(String(record.$type), `${where}: $type in the brand ${brand}`).toMatch(new RegExp(`^${brand}\\.`));
    if ("is_success" in record)
      expect
        .soft(record.is_success, `${where}: is_success (error_messages: ${JSON.stringify(record.error_messages)})`)
        .toBe(true);
  }
}

/** Placeholders of the published examples: `"code": "code"`, `"<string>"`, `123`, the pages' sample dates, … */
function placeholders(value: unknown, key = "", at = "request"): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => placeholders(v, key, `${at}[${i}]`));
  if (value !== null && typeof value === "object")
    return Object.entries(value).flatMap(([k, v]) => placeholders(v, k, `${at}.${k}`));
  const placeholder =
    typeof value === "string"
      ? value === key ||
        value === "<string>" ||
        value === "{}" ||
        value === "Example market data" ||
        /^(2000-01-23|2023-11-07)T/.test(value)
      : value === 123 || value === 0.8008281904610115;
  return placeholder ? [`${at}: ${JSON.stringify(value)}`] : [];
}

/** `UploadBondPriceData v2 (store-contributed-bond-prices)`; a derived example says so. */
function title(fixture: Fixture): string {
  const page = fixture.page.replace(/\.md$/, "").split("/").at(-1);
  return `${fixture.operation} ${fixture.generation} (${page}${fixture.derived ? ", derived" : ""})`;
}

async function rawCall(
  sim: Simulator,
  method: string,
  urlPath: string,
  options: { query?: Record<string, string>; body?: unknown } = {},
) {
  const url = sim.url + urlPath + (options.query ? `?${new URLSearchParams(options.query)}` : "");
  const headers: Record<string, string> = { "x-api-key": sim.credentials.apiKey, accept: "application/json" };
  if (options.body !== undefined) headers["content-type"] = "application/json-patch+json";
  const res = await fetch(url, {
    method,
    headers,
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, contentType: res.headers.get("content-type") ?? "", text, json };
}

it("the fixtures cover every published example, and each names a known operation", () => {
  expect(FIXTURES.map((f) => f.file)).toEqual([
    "01-upload-bond-price-data.v1.json",
    "01-upload-bond-price-data.v2.json",
    "02-upload-equity-vol-curves.v2.json",
    "03-get-vol.v1.json",
    "03-get-vol.v2.json",
    "04-rate-asset.v1.json",
    "05-get-trade-event-position-effects.v1.json",
    "05-get-trade-event-position-effects.v2.json",
    "06-get-tradable-brief.v1.json",
    "06-get-tradable-brief.v2.json",
    "07-var-report-launcher-item-create.v1.json",
    "08-risk-report-launcher-item-create.v1.json",
    "09-get-report-infos.v1.json",
    "10-report-infos.v1.json",
    "11-look-backs.v1.json",
    "12-get-transaction-table.v1.json",
    "13-api-keys.v1.json",
  ]);
  for (const { file, fixture } of FIXTURES) {
    const op = operationOf(fixture);
    expect([fixture.method, fixture.path], file).toEqual([op.method, op.path]);
    expect(fixture.request === undefined, `${file}: a body exactly when the operation takes one`).toBe(
      op.requestIn !== "body",
    );
    expect(fixture.responseFields.length, file).toBeGreaterThan(0);
    expect(placeholders(fixture.request), `${file}: placeholders left`).toEqual([]);
  }
  expect(FIXTURES.filter((f) => f.fixture.derived).map((f) => f.fixture.operation)).toEqual([
    "VarReportLauncherItemCreate",
    "GetReportInfos",
  ]);
});

for (const brand of BRANDS) {
  describe(`brand ${brand}`, () => {
    let sim: Simulator;
    let rp: RiskPortalClient;

    beforeAll(async () => {
      sim = await startSimulator({ brand, rateLimit: false, bootstrapLagMs: 0 });
      rp = new RiskPortalClient({ baseUrl: sim.url, auth: { apiKey: sim.credentials.apiKey }, brand });
    });
    afterAll(async () => {
      await sim?.close();
    });

    for (const { fixture } of FIXTURES) {
      it(`${title(fixture)}, brand ${brand}: accepted by the client and the simulator, answered with ${fixture.responseFields.join(", ")}`, async () => {
        const op = operationOf(fixture);
        const body = bodyFor(fixture, brand);

        // (a) Through the client.
        const client = await rp.request(op, (body ?? fixture.query ?? {}) as never).then(
          (answer: unknown) => ({ answer }),
          (error: unknown) => ({ error }),
        );
        if ("error" in client) expect.soft(String(client.error), "the client refused or failed").toBe("no error");
        else expectPublishedFields(client.answer, fixture, brand, "client");

        // (b) Raw over HTTP, as the pages' curl examples send it.
        const res = await rawCall(sim, fixture.method, fixture.path, { query: fixture.query, body });
        expect.soft(res.status, `raw ${fixture.method} ${fixture.path}: ${res.text.slice(0, 500)}`).toBe(200);
        if (res.status === 200) expectPublishedFields(res.json, fixture, brand, "raw");
      });
    }
  });
}

describe("a body spelled for the published brand, to the neutral brand", () => {
  const fixture = FIXTURES.find((f) => f.file === "03-get-vol.v2.json")!.fixture;
  let sim: Simulator;

  beforeAll(async () => {
    sim = await startSimulator({ brand: "Service", rateLimit: false, bootstrapLagMs: 0 });
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('a Service client refuses the GetVol v2 example as published (brand Derivitec) before sending it, and says to set brand "Derivitec"', async () => {
    let calls = 0;
    const countingFetch: typeof fetch = (input, init) => {
      calls++;
      return fetch(input, init);
    };
    const rp = new RiskPortalClient({
      baseUrl: sim.url,
      auth: { apiKey: sim.credentials.apiKey },
      brand: "Service",
      fetch: countingFetch,
    });
    const error = await rp.request(operationOf(fixture), fixture.request as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).message).toMatch(/set brand: "Derivitec"/);
    expect((error as RequestValidationError).issues.map((i) => i.path)).toContain("$type");
    expect(calls, "nothing went on the wire").toBe(0);
  });

  it("a Service simulator answers the same body, sent raw, with 400 problem details naming $type", async () => {
    const res = await rawCall(sim, fixture.method, fixture.path, { body: fixture.request });
    expect(res.status).toBe(400);
    expect(res.contentType).toMatch(/^application\/problem\+json/);
    const problem = res.json as { status: number; detail: string; errors?: Record<string, string[]> };
    expect(problem.status).toBe(400);
    expect(Object.keys(problem.errors ?? {})).toContain("$type");
    expect(problem.detail).toMatch(/^\$type: .*Derivitec/);
  });
});
