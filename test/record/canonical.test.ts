/** The canonical request (cassette and cache keys), the differences a replay miss shows, and the provenance line. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatProvenance, type Provenance } from "../../src";
import { canonicalRequest, canonicalValue, describeDifferences, requestKey } from "../../src/internals";
import { canonicalString } from "../../src/record/canonical";

describe("canonical form", () => {
  it("spells every date and date-time as one UTC instant", () => {
    for (const s of [
      "2026-11-20",
      "2026-11-20T00:00:00Z",
      "2026-11-20T00:00:00.000Z",
      "2026-11-20T01:00:00+01:00",
      "2026-11-19T19:00:00-0500",
      "2026-11-20 00:00:00z",
    ]) {
      expect(canonicalString(s), s).toBe("2026-11-20T00:00:00Z");
    }
    expect(canonicalString("2026-11-20T10:30:00.250+00:00")).toBe("2026-11-20T10:30:00.250Z");
    // Not dates: left alone (a local time without an offset is ambiguous, so it is not guessed).
    for (const s of ["USD", "2026-11-20T10:30:00", "2026-13-45", "20261120", "AAPL.XNAS"])
      expect(canonicalString(s)).toBe(s);
  });

  it("sorts keys at every depth, keeps array order, drops undefined", () => {
    expect(JSON.stringify(canonicalValue({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: undefined } }))).toBe(
      '{"a":{"d":[3,{"y":2,"z":1}]},"b":1}',
    );
  });

  it("gives one key to requests the server cannot tell apart, and different keys otherwise", () => {
    const a = canonicalRequest("post", "/api/RateAsset", undefined, { currency: "USD", market_date: "2026-11-20" });
    const b = canonicalRequest(
      "POST",
      "/api/RateAsset",
      {},
      { market_date: "2026-11-20T00:00:00+00:00", currency: "USD" },
    );
    expect(requestKey(a)).toBe(requestKey(b));
    expect(requestKey(a)).not.toBe(
      requestKey(canonicalRequest("POST", "/api/RateAsset", undefined, { currency: "USD", market_date: "2026-11-21" })),
    );
    const q1 = canonicalRequest("GET", "/api/Tradable/GetTradableBrief", { tradableId: "A", x: "1" });
    const q2 = canonicalRequest("GET", "/api/Tradable/GetTradableBrief", { x: "1", tradableId: "A" });
    expect(requestKey(q1)).toBe(requestKey(q2));
  });

  it("key order never changes the key, and the form is a fixed point (property)", () => {
    const json = fc.jsonValue({ maxDepth: 4 });
    fc.assert(
      fc.property(fc.dictionary(fc.string(), json), (body) => {
        const shuffled = Object.fromEntries(Object.entries(body).reverse());
        const a = canonicalRequest("POST", "/p", undefined, body);
        expect(requestKey(a)).toBe(requestKey(canonicalRequest("POST", "/p", undefined, shuffled)));
        expect(canonicalValue(a.body)).toEqual(a.body);
      }),
      { numRuns: 200 },
    );
  });
});

describe("describeDifferences", () => {
  const rec = canonicalRequest("POST", "/api/Tradable/GetVol", undefined, {
    maturity: 91,
    strikes: [80, 100, 120],
    surface: { spot_ref: 100 },
  });
  it("names each differing field with both values", () => {
    const now = canonicalRequest("POST", "/api/Tradable/GetVol", undefined, {
      maturity: 90,
      strikes: [80, 100, 125],
      surface: { spot_ref: 100 },
    });
    expect(describeDifferences(rec, now)).toEqual([
      "body.maturity: recorded 91, now 90",
      "body.strikes[2]: recorded 120, now 125",
    ]);
  });
  it("says when arrays differ in length, fields are absent, or the path differs", () => {
    const now = canonicalRequest("GET", "/api/Other", { a: "1" }, { strikes: [80, 100] });
    expect(describeDifferences(rec, now)).toEqual([
      "method: recorded POST, now GET",
      "path: recorded /api/Tradable/GetVol, now /api/Other",
      'query.a: recorded (absent), now "1"',
      "body.maturity: recorded 91, now (absent)",
      "body.strikes: 3 values recorded, 2 now",
      'body.surface: recorded {"spot_ref":100}, now (absent)',
    ]);
  });
  it("stops after max lines and says how many more", () => {
    const many = (k: number) =>
      canonicalRequest(
        "POST",
        "/p",
        undefined,
        Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`f${String(i).padStart(2, "0")}`, i + k])),
      );
    const lines = describeDifferences(many(0), many(1), 3);
    expect(lines).toHaveLength(4);
    expect(lines[3]).toBe("… and 9 more");
  });
});

describe("formatProvenance", () => {
  const one = (over: Partial<Provenance> = {}): Provenance => ({
    operation: "RateAsset",
    request: canonicalRequest("POST", "/api/RateAsset", undefined, {
      currency: "USD",
      market_date: "2026-11-20",
      $type: "X",
    }),
    receivedAt: "2026-11-22T01:40:12.345Z",
    source: "live",
    baseUrl: "http://127.0.0.1:4321",
    ...over,
  });
  it("says operation, request, source, server and time in one line", () => {
    expect(formatProvenance([one()])).toBe(
      'RateAsset {"currency":"USD","market_date":"2026-11-20"} · live from http://127.0.0.1:4321 · received 2026-11-22 01:40:12Z',
    );
    expect(formatProvenance([one({ source: "cassette", cassette: "/x/01.json" })])).toBe(
      'RateAsset {"currency":"USD","market_date":"2026-11-20"} · cassette from http://127.0.0.1:4321 (cassette 01.json) · recorded 2026-11-22 01:40:12Z',
    );
    expect(formatProvenance([])).toBe("");
  });
  it("summarises many responses: count, sources, time range", () => {
    const line = formatProvenance([
      one(),
      one({ source: "cache", receivedAt: "2026-11-22T01:40:10.000Z" }),
      one({ receivedAt: "2026-11-22T01:41:00.000Z" }),
    ]);
    expect(line).toBe(
      "RateAsset ×3 · live 2, cache 1 from http://127.0.0.1:4321 · received 2026-11-22 01:40:10Z … 2026-11-22 01:41:00Z",
    );
    expect(line).not.toContain("\n");
  });
});
