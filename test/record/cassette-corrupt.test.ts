/**
 * Corrupt cassettes say so (issue 13): every exchange is checked when the cassette is opened, and a bad one
 * is a CassetteError naming the file, the exchange's index and what is wrong, before anything is sent. A
 * response that still cannot be replayed is a CassetteError too, never a TypeError read as a network
 * failure and retried.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CassetteError,
  ConfigurationError,
  NetworkError,
  RiskPortalClient,
  RiskPortalError,
  startSimulator,
} from "../../src";
import { Cassette } from "../../src/internals";
import { replayResponse, type Exchange } from "../../src/record/cassette";
import { startLoopback, type Loopback } from "../helpers/loopback";

/** A recorded exchange as a test mangles it. */
type Loose = Record<string, unknown> & { request?: Record<string, unknown>; response?: Record<string, unknown> };

let dir: string;
let server: Loopback;
/** A good cassette: LookBacks, then RateAsset. */
let recorded: string;
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "rpl-cassette-corrupt-"));
  server = await startLoopback();
  const sim = await startSimulator();
  try {
    recorded = path.join(dir, "good.json");
    const rp = new RiskPortalClient({
      baseUrl: sim.url,
      auth: { apiKey: sim.credentials.apiKey },
      cassette: { path: recorded, mode: "record" },
    });
    await rp.report.lookBacks();
    await rp.rateAsset.getCurve({ currency: "USD" });
    rp.cassette!.finish();
  } finally {
    await sim.close();
  }
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

let files = 0;
/** A copy of the good cassette with its text, or its second exchange, changed. */
function corrupt(change: ((exchange: Loose) => void) | string): string {
  const file = path.join(dir, `corrupt-${++files}.json`);
  if (typeof change === "string") {
    writeFileSync(file, change);
    return file;
  }
  const data = JSON.parse(readFileSync(recorded, "utf8")) as { exchanges: Loose[] };
  change(data.exchanges[1]!);
  writeFileSync(file, JSON.stringify(data));
  return file;
}

/** Opens the cassette through a client pointed at the loopback server, and calls it: what was thrown, and what was sent. */
async function replayThrough(file: string, mode: "replay" | "auto") {
  let retries = 0;
  const sentBefore = server.requests.length;
  const error = await (async () => {
    const rp = new RiskPortalClient({
      baseUrl: server.url,
      auth: { apiKey: "rpk_test_unused" },
      cassette: { path: file, mode },
      retry: { baseDelayMs: 1, onRetry: () => retries++ },
    });
    await rp.report.lookBacks();
    await rp.rateAsset.getCurve({ currency: "USD" });
  })().catch((e: unknown) => e);
  return { error, retries, sent: server.requests.length - sentBefore };
}

describe("a corrupt cassette", () => {
  it.each<[string, (exchange: Loose) => void, RegExp]>([
    ["no operation", (e) => delete e.operation, /exchange 1: operation must be a non-empty string/],
    [
      "request not an object",
      (e) => (e.request = "GET /api/RateAsset" as never),
      /exchange 1: request must be an object/,
    ],
    [
      "a request without its method",
      (e) => delete e.request!.method,
      /exchange 1: request.method and request.path must be strings/,
    ],
    [
      "a query value that is not text",
      (e) => (e.request!.query = { currency: 5 }),
      /exchange 1: request.query must map names to strings/,
    ],
    ["no response", (e) => delete e.response, /exchange 1: response must be an object/],
    [
      "status 999",
      (e) => (e.response!.status = 999),
      /exchange 1: response.status must be an HTTP status 200-599, got 999/,
    ],
    [
      "status 101",
      (e) => (e.response!.status = 101),
      /exchange 1: response.status must be an HTTP status 200-599, got 101/,
    ],
    [
      "status as text",
      (e) => (e.response!.status = "200"),
      /exchange 1: response.status must be an HTTP status 200-599, got "200"/,
    ],
    [
      "a status text fetch refuses",
      (e) => (e.response!.statusText = "OK\r\nx-injected: 1"),
      /exchange 1: response.statusText must be a reason phrase/,
    ],
    [
      "a header that is not text",
      (e) => (e.response!.headers = { "content-type": 5 }),
      /exchange 1: response.headers must map names to strings/,
    ],
    [
      "headers as a list",
      (e) => (e.response!.headers = ["content-type", "application/json"]),
      /exchange 1: response.headers must map names to strings/,
    ],
    [
      "a header name fetch refuses",
      (e) => (e.response!.headers = { "content type": "application/json" }),
      /exchange 1: response.headers: fetch refuses the header "content type": "application\/json"/,
    ],
    [
      "a header value fetch refuses",
      (e) => (e.response!.headers = { "content-type": "application/json\r\nx: y" }),
      /exchange 1: response.headers: fetch refuses the header "content-type": "application\/json\\r\\nx: y"/,
    ],
    [
      "neither body nor text",
      (e) => delete e.response!.body,
      /exchange 1: response must have a body \(JSON\) or a text/,
    ],
    ["text that is not text", (e) => (e.response!.text = { a: 1 }), /exchange 1: response.text must be a string/],
    ["no receivedAt", (e) => delete e.receivedAt, /exchange 1: receivedAt must be an ISO 8601 date-time/],
  ])(
    "%s: a CassetteError naming the file and the exchange, in replay and auto, with nothing sent or retried",
    async (_what, change, message) => {
      const file = corrupt(change);
      for (const mode of ["replay", "auto"] as const) {
        const { error, retries, sent } = await replayThrough(file, mode);
        expect(error).toBeInstanceOf(CassetteError);
        expect(error).toBeInstanceOf(ConfigurationError);
        expect(error).not.toBeInstanceOf(NetworkError);
        expect((error as Error).message).toMatch(message);
        expect((error as Error).message).toContain(`the cassette ${file} is corrupt`);
        expect(error).toMatchObject({ file, exchange: 1 });
        expect({ retries, sent }).toEqual({ retries: 0, sent: 0 });
      }
    },
  );

  it.each([
    ["not JSON", () => corrupt('{ "format": "risk-portal-lab cassette", '), /is not JSON/],
    [
      "not a cassette",
      () => corrupt(JSON.stringify({ exchanges: [] })),
      /is not a risk-portal-lab cassette \(version 1\)/,
    ],
    [
      "exchanges that are not a list",
      () => corrupt(JSON.stringify({ format: "risk-portal-lab cassette", version: 1, baseUrl: "", exchanges: {} })),
      /is not a risk-portal-lab cassette/,
    ],
    [
      "meta that is not an object",
      () => corrupt(readFileSync(recorded, "utf8").replace(/"meta": \{[^\n]*\},/, '"meta": "simulator",')),
      /is not a risk-portal-lab cassette/,
    ],
    [
      "an exchange that is null",
      () => corrupt(readFileSync(recorded, "utf8").replace(/\n {2}\{"operation":"RateAsset"[^\n]*/, "\n  null")),
      /exchange 1: not an object/,
    ],
  ])("%s: a CassetteError (a ConfigurationError) naming the file, with nothing sent", async (_what, make, message) => {
    const file = make();
    const { error, retries, sent } = await replayThrough(file, "replay");
    expect(error).toBeInstanceOf(CassetteError);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toMatch(message);
    expect((error as CassetteError).file).toBe(file);
    expect({ retries, sent }).toEqual({ retries: 0, sent: 0 });
  });

  it("an exchange spoiled after it was read is a CassetteError when replayed, naming the file and the exchange; not retried, nothing sent", async () => {
    const file = corrupt(() => undefined);
    let retries = 0;
    const player = new RiskPortalClient({
      baseUrl: server.url,
      cassette: { path: file, mode: "replay" },
      retry: { baseDelayMs: 1, onRetry: () => retries++ },
    });
    // The cassette's own copy of exchange 1, as `take` hands it to the pipeline.
    const held = player.cassette!.take(Cassette.read(file)!.exchanges[1]!.request)!;
    (held.response as { headers: unknown }).headers = { "content type": "application/json" };
    const sentBefore = server.requests.length;
    const error = await player.rateAsset.getCurve({ currency: "USD" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CassetteError);
    expect(error).toMatchObject({ file, exchange: 1, operation: "RateAsset" });
    expect(
      (error as Error).message.startsWith(`the cassette ${file}: exchange 1 cannot be replayed: response.headers: `),
    ).toBe(true);
    expect((error as Error).message).toContain('fetch refuses the header "content type"');
    expect({ retries, sent: server.requests.length - sentBefore }).toEqual({ retries: 0, sent: 0 });
  });

  it("replayResponse never throws a raw error, whatever it is given", () => {
    const spoilt: unknown[] = [
      {
        operation: "X",
        request: { method: "GET", path: "/" },
        response: { status: 999, headers: {}, text: "" },
        receivedAt: "2026-01-01T00:00:00Z",
      },
      {
        operation: "X",
        request: { method: "GET", path: "/" },
        response: { status: 200, headers: { "a b": "c" }, text: "" },
        receivedAt: "",
      },
      { operation: "X", request: { method: "GET", path: "/" }, response: 5, receivedAt: "" },
      { operation: "X" },
      null,
    ];
    for (const exchange of spoilt) {
      expect(() => replayResponse(exchange as Exchange)).toThrow(CassetteError);
      expect(() => replayResponse(exchange as Exchange)).toThrow(RiskPortalError);
    }
  });

  it("responses without a body (204, 205, 304) replay, whatever text was recorded", async () => {
    for (const status of [204, 205, 304]) {
      const response = replayResponse({
        operation: "X",
        request: { method: "POST", path: "/" },
        response: { status, headers: {}, text: "" },
        receivedAt: "2026-01-01T00:00:00Z",
      });
      expect(response.status).toBe(status);
      expect(await response.text()).toBe("");
    }
  });

  it("the committed cassettes pass every check, and the good one leaves no stray files", () => {
    const committed = path.join(__dirname, "..", "..", "fixtures", "cassettes");
    for (const name of readdirSync(committed).filter((n) => n.endsWith(".json")))
      expect(Cassette.read(path.join(committed, name))!.exchanges.length).toBeGreaterThan(0);
    expect(readdirSync(dir).filter((n) => !n.endsWith(".json"))).toEqual([]);
  });
});
