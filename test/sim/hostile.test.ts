/**
 * Hostile requests the simulator must answer with problem details, never a 500, a crash or a bare
 * transport answer (issue 13): bodies nested thousands deep, header fields over the limit, broken HTTP
 * framing over a raw socket, GetVol model errors named by their request field, and position effects
 * beyond double precision (a 400, not `null` on the wire). Also keys that name the prototype
 * (`__proto__`, `constructor`), field names and objects no request has, and the requests Node or
 * fastify would otherwise answer themselves (no Host, a URL that does not decode, `Expect`, CONNECT).
 */
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../src/sim";
import { surface } from "../helpers/samples";
import { raw } from "./helpers";

let sim: Simulator;
let headers: Record<string, string>;
beforeAll(async () => {
  sim = await startSimulator({ rateLimit: false });
  headers = { "x-api-key": sim.credentials.apiKey, "content-type": "application/json" };
});
afterAll(() => sim.close());

const EFFECTS = "/api/Tradable/GetTradeEventPositionEffects";
const nested = (depth: number, inner = '{"leaf":1}') => {
  let text = inner;
  for (let i = 0; i < depth; i++) text = `{"$type":"Service.Tradables.FutureEvent, Service","inner":${text}}`;
  return text;
};

/** Sends bytes over a raw socket and returns everything the server wrote before closing. */
function rawSocket(text: string): Promise<string> {
  const { port, hostname } = new URL(sim.url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(text));
    let out = "";
    socket.on("data", (d) => (out += d));
    socket.on("close", () => resolve(out));
    socket.on("error", () => resolve(out));
  });
}
const problemOf = (response: string) => ({
  head: response.split("\r\n\r\n")[0]!,
  body: JSON.parse(response.slice(response.indexOf("\r\n\r\n") + 4)) as Record<string, unknown>,
});

describe("bodies nested deep", () => {
  it.each([100, 10_000, 100_000])(
    "a $type nested %i deep is a 400 naming where the limit was passed",
    async (depth) => {
      const body = `{"tradable_id":"AAPL.XNAS","pricing_date":"2026-11-20","next_trade_event":${nested(depth)}}`;
      const res = await raw(sim.url + EFFECTS, { method: "POST", headers, body });
      expect(res.status).toBe(400);
      expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      expect(String((res.body as { detail: string }).detail)).toMatch(
        /^next_trade_event(\.inner)+: nested deeper than 64 levels/,
      );
    },
  );

  it.each([
    [
      "objects",
      (depth: number) => '{"a":'.repeat(depth) + "1" + "}".repeat(depth),
      /^a(\.a)+: nested deeper than 64 levels/,
    ],
    ["arrays", (depth: number) => "[".repeat(depth) + "]".repeat(depth), /^(\[0\])+: nested deeper than 64 levels/],
  ])("plain %s nested 10,000 deep are a 400 too", async (_what, body, detail) => {
    const res = await raw(sim.url + EFFECTS, { method: "POST", headers, body: body(10_000) });
    expect(res.status).toBe(400);
    expect(String((res.body as { detail: string }).detail)).toMatch(detail);
  });

  it("nesting within the limit is read as before", async () => {
    const body = `{"tradable_id":"AAPL.XNAS","pricing_date":"2026-11-20","next_trade_event":${nested(30)}}`;
    expect((await raw(sim.url + EFFECTS, { method: "POST", headers, body })).status).toBe(200);
  });
});

describe("transport-level refusals are problem details", () => {
  it("header fields over the limit: 431", async () => {
    const { head, body } = problemOf(
      await rawSocket(`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`),
    );
    expect(head).toMatch(/^HTTP\/1.1 431 /);
    expect(head).toMatch(/content-type: application\/problem\+json/i);
    expect(body).toMatchObject({ status: 431, title: "Request Header Fields Too Large" });
  });

  it.each([
    [
      "an invalid Content-Length",
      "POST /api/RateAsset HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
      /Content-Length/,
    ],
    ["a garbage request line", "HELLO\r\n\r\n", /method/i],
    [
      "both Content-Length and chunked",
      "POST /api/RateAsset HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\nabc",
      /not valid HTTP/,
    ],
  ])("%s: 400 naming the parser's reason", async (_what, text, reason) => {
    const { head, body } = problemOf(await rawSocket(text));
    expect(head).toMatch(/^HTTP\/1.1 400 /);
    expect(head).toMatch(/content-type: application\/problem\+json/i);
    expect(body).toMatchObject({ status: 400, title: "Bad Request" });
    expect(String(body.detail)).toMatch(reason);
  });

  it("a request without Host: 400", async () => {
    const { head, body } = problemOf(await rawSocket("GET /health HTTP/1.1\r\n\r\n"));
    expect(head).toMatch(/^HTTP\/1.1 400 /);
    expect(head).toMatch(/content-type: application\/problem\+json/i);
    expect(body).toMatchObject({ status: 400, title: "Bad Request" });
    expect(String(body.detail)).toMatch(/Host/);
  });

  it("a URL whose percent-encoding does not decode: 400", async () => {
    const { head, body } = problemOf(await rawSocket("GET /api/%ZZ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
    expect(head).toMatch(/^HTTP\/1.1 400 /);
    expect(head).toMatch(/content-type: application\/problem\+json/i);
    expect(body).toMatchObject({ status: 400, instance: "/api/%ZZ" });
    expect(String(body.detail)).toMatch(/percent-encoding/);
  });

  it("an Expect the server cannot meet: 417", async () => {
    const { head, body } = problemOf(
      await rawSocket(
        "POST /api/RateAsset HTTP/1.1\r\nHost: x\r\nExpect: 999-bogus\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
      ),
    );
    expect(head).toMatch(/^HTTP\/1.1 417 /);
    expect(head).toMatch(/content-type: application\/problem\+json/i);
    expect(body).toMatchObject({ status: 417, title: "Expectation Failed" });
    expect(String(body.detail)).toMatch(/999-bogus/);
  });

  it("CONNECT: 405, the simulator is no proxy", async () => {
    const { head, body } = problemOf(
      await rawSocket("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n"),
    );
    expect(head).toMatch(/^HTTP\/1.1 405 /);
    expect(head).toMatch(/content-type: application\/problem\+json/i);
    expect(body).toMatchObject({ status: 405, title: "Method Not Allowed" });
  });

  it("the server still answers afterwards", async () => {
    expect((await raw(`${sim.url}/health`)).status).toBe(200);
  });
});

describe("keys that name the prototype", () => {
  it("a body key __proto__ is a 400 naming where it is, never the object's prototype", async () => {
    // Copied by assignment, {"__proto__":{"quantity":5}} would make the event's quantity 5.
    const body = `{"tradable_id":"AAPL.XNAS","pricing_date":"2026-11-20","next_trade_event":{"$type":"BuyEvent","unit_price":1,"__proto__":{"quantity":5}}}`;
    const res = await raw(sim.url + EFFECTS, { method: "POST", headers, body });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ errors: { "next_trade_event.__proto__": [expect.stringMatching(/prototype/)] } });
  });

  it("constructor.prototype in a body is a 400", async () => {
    const res = await raw(`${sim.url}/api/Tradable/GetVol`, {
      method: "POST",
      headers,
      body: `{"constructor":{"prototype":{"polluted":true}}}`,
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errors: { "constructor.prototype": [expect.stringMatching(/prototype/)] } });
  });

  it("an unknown body field named constructor or toString is reported like any other", async () => {
    const res = await raw(`${sim.url}/api/Tradable/GetVol`, {
      method: "POST",
      headers,
      body: JSON.stringify({ surface, maturity: 60, strikes: [5000], constructor: 1, toString: 2 }),
    });
    expect(res.status).toBe(400);
    const errors = (res.body as { errors: Record<string, string[]> }).errors;
    expect(Object.keys(errors).sort()).toEqual(["constructor", "toString"]);
    expect(Object.entries(errors)).toContainEqual(["constructor", [expect.stringMatching(/unknown field/)]]);
  });

  it.each(["constructor", "__proto__", "hasOwnProperty"])(
    "an unknown query parameter %s is a 400 naming it",
    async (name) => {
      const res = await raw(`${sim.url}/api/Tradable/GetTradableBrief?tradableId=AAPL.XNAS&${name}=1`, { headers });
      expect(res.status).toBe(400);
      expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      expect(Object.keys((res.body as { errors: object }).errors)).toEqual([name]);
    },
  );
});

describe("field names and objects no request has", () => {
  it("a field name over 256 characters is a 400 naming the limit", async () => {
    const res = await raw(`${sim.url}/api/Tradable/GetVol`, {
      method: "POST",
      headers,
      body: `{"surface":{"${"x".repeat(100_000)}":1}}`,
    });
    expect(res.status).toBe(400);
    expect(String((res.body as { detail: string }).detail)).toMatch(
      /^surface: a field name of 100000 characters; field names are at most 256/,
    );
    expect(res.text.length).toBeLessThan(2_000);
  });

  it("an object with more than 1,000 fields is a 400 naming the limit", async () => {
    const fields = Array.from({ length: 200_000 }, (_, i) => `"k${i}":1`).join(",");
    const started = Date.now();
    const res = await raw(`${sim.url}/api/Tradable/GetVol`, {
      method: "POST",
      headers,
      body: `{"surface":{${fields}}}`,
    });
    expect(res.status).toBe(400);
    expect(String((res.body as { detail: string }).detail)).toMatch(
      /^surface: an object with 200000 fields; objects have at most 1000/,
    );
    // Each unknown field would be reported with the closest known name: seconds of work for nothing.
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe("GetVol model errors name the request field", () => {
  it.each([
    ["surface.vols[1]", { surface: { ...surface, vols: [0.24, -0.225, 0.215, 0.205] }, maturity: 60, strikes: [5000] }],
    [
      "surface.put_wings[2]",
      { surface: { ...surface, put_wings: [1.2, 1.15, 0, 1.05] }, maturity: 60, strikes: [5000] },
    ],
    ["strikes[1]", { surface, maturity: 60, strikes: [5000, -1] }],
  ])("%s", async (path, body) => {
    const res = await raw(`${sim.url}/api/Tradable/GetVol`, { method: "POST", headers, body: JSON.stringify(body) });
    expect(res.status).toBe(400);
    const problem = res.body as { detail: string; errors: Record<string, string[]> };
    expect(problem.detail.startsWith(`${path}: `)).toBe(true);
    expect(Object.keys(problem.errors)).toEqual([path]);
  });
});

describe("position effects beyond double precision", () => {
  const event = (quantity: number, unit_price = 190) => ({
    tradable_id: "AAPL.XNAS",
    pricing_date: "2026-11-20",
    next_trade_event: { $type: "BuyEvent", unit_price, quantity },
  });
  it("a finite 1e308 quantity is answered as 1e308, never null", async () => {
    const res = await raw(`${sim.url}${EFFECTS}`, {
      method: "POST",
      headers,
      body: JSON.stringify(event(1e308, 1e-300)),
    });
    expect(res.status).toBe(200);
    expect(res.text).not.toMatch(/null/);
    expect((res.body as { position_effects: { quantity: number }[] }).position_effects[0]!.quantity).toBe(1e308);
  });

  it("an effect that overflows is a 400 naming the trade event, not null", async () => {
    const res = await raw(`${sim.url}${EFFECTS}`, { method: "POST", headers, body: JSON.stringify(event(1e308)) });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      errors: { next_trade_event: [expect.stringMatching(/outside double precision/)] },
    });
  });
});
