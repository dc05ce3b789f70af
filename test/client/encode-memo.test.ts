/**
 * A request's encoding is remembered only for inputs that are plain data, keyed by their JSON text
 * (src/client/encode-memo.ts): the same input reuses its encoding, a changed input (the same object
 * edited between calls included) is encoded afresh, and anything JSON does not spell exactly (Dates,
 * getters, undefined, NaN, -0, class instances, proxies, null prototypes) is encoded every time, as before.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RiskPortalClient, RequestValidationError } from "../../src";
import { brandOf } from "../../src/api/brand";
import { encodeRequest } from "../../src/api/operation";
import { getRateAsset } from "../../src/api/rate-asset";
import { encodeCall, plainJson } from "../../src/client/encode-memo";
import { curveReply } from "../helpers/samples";
import { startLoopback, type Loopback } from "../helpers/loopback";

const brand = brandOf(undefined);

describe("which inputs are keyed", () => {
  it("plain data is, by its JSON text", () => {
    expect(plainJson({ currency: "EUR", market_date: "2026-11-20", n: [1, null, true] })).toBe(
      '{"currency":"EUR","market_date":"2026-11-20","n":[1,null,true]}',
    );
  });

  it("anything JSON would not spell exactly is not", () => {
    const getter = Object.defineProperty({}, "currency", { get: () => "EUR", enumerable: true });
    const hidden = Object.defineProperty({ currency: "EUR" }, "market_date", { value: "2026-11-20" });
    class Input {
      currency = "EUR";
    }
    for (const input of [
      { currency: "EUR", market_date: new Date("2026-11-20") },
      { currency: "EUR", market_date: undefined },
      { currency: "EUR", x: NaN },
      { currency: "EUR", x: -0 },
      { currency: "EUR", x: Infinity },
      { currency: "EUR", x: 1n },
      getter,
      hidden,
      new Input(),
      new Proxy({ currency: "EUR" }, {}),
      Object.assign(Object.create(null) as object, { currency: "EUR" }),
      // eslint-disable-next-line no-sparse-arrays
      { list: [1, , 3] },
    ])
      expect(plainJson(input), JSON.stringify(String(Object.keys(input)))).toBeUndefined();
  });
});

describe("encodeCall", () => {
  it("gives what encodeRequest gives, and the same encoding again for the same input", () => {
    const input = { currency: "EUR", market_date: "2026-11-20" };
    const first = encodeCall(getRateAsset, input, brand, "refuse");
    const direct = encodeRequest(getRateAsset, input, { brand, unknownFields: "refuse" });
    expect(first.encoded).toEqual(direct);
    expect(first.body).toBe(JSON.stringify(direct.ok && direct.body));
    expect(encodeCall(getRateAsset, { ...input }, brand, "refuse")).toBe(first);
    // Frozen: a caller cannot change what the next call sends.
    expect(Object.isFrozen(first.encoded.ok && first.encoded.body)).toBe(true);
  });

  it("encodes a changed input, another brand or another policy afresh, and does not remember refusals", () => {
    const input = { currency: "EUR", market_date: "2026-11-20" };
    const eur = encodeCall(getRateAsset, input, brand, "refuse");
    input.currency = "USD";
    const usd = encodeCall(getRateAsset, input, brand, "refuse");
    expect(usd.body).toContain('"currency":"USD"');
    expect(eur.body).toContain('"currency":"EUR"');
    const acme = encodeCall(getRateAsset, input, brandOf("Acme"), "refuse");
    expect(acme.body).toContain("Acme.Web.Core");
    expect(encodeCall(getRateAsset, input, brand, "send")).not.toBe(usd);
    const bad = { currency: "EUR", market_dat: "2026-11-20" };
    const refused = encodeCall(getRateAsset, bad, brand, "refuse");
    expect(refused.encoded.ok).toBe(false);
    expect(encodeCall(getRateAsset, bad, brand, "refuse")).not.toBe(refused);
  });
});

describe("flat inputs, found by their names and values", () => {
  const input = () => ({ currency: "EUR", market_date: "2026-11-19" });

  it("another object with the same names and values gets the same encoding; a changed value does not", () => {
    const first = encodeCall(getRateAsset, input(), brand, "refuse");
    expect(encodeCall(getRateAsset, input(), brand, "refuse")).toBe(first);
    const usd = encodeCall(getRateAsset, { ...input(), currency: "USD" }, brand, "refuse");
    expect(usd.body).toContain('"currency":"USD"');
    // The same fields in another order: another entry, the same request.
    const swapped = encodeCall(getRateAsset, { market_date: "2026-11-19", currency: "EUR" }, brand, "refuse");
    expect(swapped.body).toBe(first.body);
    // A value of another type is another value ("1" is not 1).
    const typed = encodeCall(getRateAsset, { ...input(), extra: 1 }, brand, "send");
    expect(encodeCall(getRateAsset, { ...input(), extra: "1" }, brand, "send").body).not.toBe(typed.body);
  });

  it("reads each field once, and remembers only what was checked as plain data", () => {
    let reads = 0;
    const getter = () =>
      Object.defineProperty({ market_date: "2026-11-18" }, "currency", {
        get: () => (reads++, "EUR"),
        enumerable: true,
      });
    const a = encodeCall(getRateAsset, getter(), brand, "refuse");
    const b = encodeCall(getRateAsset, getter(), brand, "refuse");
    // Not plain: not remembered, encoded each time.
    expect(b).not.toBe(a);
    expect(b.body).toBe(a.body);
    const plain = encodeCall(getRateAsset, { market_date: "2026-11-18", currency: "EUR" }, brand, "refuse");
    reads = 0;
    // The same names and values as the plain one: its encoding, the getter read once.
    expect(encodeCall(getRateAsset, getter(), brand, "refuse")).toBe(plain);
    expect(reads).toBe(1);
  });

  it("a hidden own field, an inherited enumerable one or a prototype other than Object's is not flat", () => {
    const hidden = () => Object.defineProperty(input(), "extra", { value: "x", enumerable: false });
    expect(encodeCall(getRateAsset, hidden(), brand, "send")).not.toBe(
      encodeCall(getRateAsset, hidden(), brand, "send"),
    );
    const nullProto = () => Object.assign(Object.create(null) as object, input());
    expect(encodeCall(getRateAsset, nullProto(), brand, "refuse")).not.toBe(
      encodeCall(getRateAsset, nullProto(), brand, "refuse"),
    );
    const proto = Object.prototype as Record<string, unknown>;
    proto.polluted = "x";
    try {
      // What encoding the input directly gives (the flat path steps aside).
      const direct = encodeRequest(getRateAsset, input(), { brand, unknownFields: "refuse" });
      expect(encodeCall(getRateAsset, input(), brand, "refuse").encoded).toEqual(direct);
    } finally {
      delete proto.polluted;
    }
  });

  it("past its limit the operation's tree starts again, and answers stay right", () => {
    const dates = Array.from({ length: 300 }, (_, i) =>
      new Date(Date.UTC(2026, 0, 1) + i * 86_400_000).toISOString().slice(0, 10),
    );
    for (const market_date of dates) encodeCall(getRateAsset, { currency: "EUR", market_date }, brand, "refuse");
    for (const market_date of [dates[0]!, dates[299]!]) {
      const got = encodeCall(getRateAsset, { currency: "EUR", market_date }, brand, "refuse");
      expect(got.body).toContain(`"market_date":"${market_date}T00:00:00Z"`);
      expect(encodeCall(getRateAsset, { currency: "EUR", market_date }, brand, "refuse")).toBe(got);
    }
  });
});

describe("through the client, over HTTP", () => {
  let server: Loopback;
  beforeAll(async () => {
    server = await startLoopback({ "/api/RateAsset": { body: curveReply } });
  });
  afterAll(() => server.close());

  it("an input object edited between calls sends what it holds at each call; a Date is still read as a date", async () => {
    const rp = new RiskPortalClient({ baseUrl: server.url, auth: { token: "t-memo-0001" } });
    const input: { currency: string; market_date: string | Date } = { currency: "EUR", market_date: "2026-11-20" };
    await rp.rateAsset.getCurve(input);
    input.currency = "GBP";
    await rp.rateAsset.getCurve(input);
    input.market_date = new Date("2026-11-21T00:00:00Z");
    await rp.rateAsset.getCurve(input);
    const sent = server.to("/api/RateAsset").map((r) => r.json as Record<string, unknown>);
    expect(sent.map((b) => [b.currency, b.market_date])).toEqual([
      ["EUR", "2026-11-20T00:00:00Z"],
      ["GBP", "2026-11-20T00:00:00Z"],
      ["GBP", "2026-11-21T00:00:00.000Z"],
    ]);
    // A refused input is refused every time, with the same error.
    const typo = { currency: "EUR", market_dat: "2026-11-20" } as never;
    const first = await rp.rateAsset.getCurve(typo).catch((e: unknown) => e);
    const again = await rp.rateAsset.getCurve(typo).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(RequestValidationError);
    expect((again as Error).message).toBe((first as Error).message);
    expect(server.to("/api/RateAsset")).toHaveLength(3);
  });
});
