/**
 * The pipeline attaches a provenance to every answer as a record of its raw parts (src/client/provenance.ts):
 * read through provenanceOf it is the plain provenance it always was — the same fields in the same order,
 * `request` named only when read, the same object at each read — and the record itself reads alike.
 */
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import type { CanonicalRequest } from "../../src/record/canonical";
import {
  attachProvenance,
  attachToAnswer,
  formatProvenance,
  provenanceOf,
  ProvenanceRecord,
} from "../../src/client/provenance";
import { startSimulator } from "../../src/sim";

const REQUEST: CanonicalRequest = {
  method: "POST",
  path: "/api/RateAsset",
  body: { currency: "EUR", market_date: "2026-11-20T00:00:00Z" },
};

function namer() {
  const named = { count: 0, maskedRequest: () => (named.count++, REQUEST) };
  return named;
}

describe("a provenance record", () => {
  it("reads as the plain provenance, in the same order, the request named only when read", () => {
    const n = namer();
    const record = new ProvenanceRecord(
      "RateAsset",
      "2026-11-22T01:40:12.345Z",
      "live",
      "http://h",
      "req-1",
      undefined,
      undefined,
      n,
    );
    const answer = attachProvenance({ points: [] }, record);
    expect(n.count).toBe(0);
    const p = provenanceOf(answer)!;
    expect(n.count).toBe(0);
    expect(Object.keys(p)).toEqual(["operation", "request", "receivedAt", "source", "baseUrl", "requestId"]);
    expect({ ...p }).toEqual({
      operation: "RateAsset",
      request: REQUEST,
      receivedAt: "2026-11-22T01:40:12.345Z",
      source: "live",
      baseUrl: "http://h",
      requestId: "req-1",
    });
    expect(provenanceOf(answer)).toBe(p);
    expect(Object.keys(answer)).toEqual(["points"]);
    expect(JSON.stringify(answer)).toBe('{"points":[]}');
    expect(formatProvenance([p])).toBe(
      'RateAsset {"currency":"EUR","market_date":"2026-11-20"} · live from http://h · received 2026-11-22 01:40:12Z',
    );
  });

  it("leaves out what a call did not have, keeps a cassette's and a redirect's, and reads directly alike", () => {
    const record = new ProvenanceRecord(
      "RateAsset",
      "t",
      "cassette",
      "http://h",
      undefined,
      "/x/c.json",
      "http://h/moved",
      namer(),
    );
    expect(Object.keys(provenanceOf(attachProvenance({}, record))!)).toEqual([
      "operation",
      "request",
      "receivedAt",
      "source",
      "baseUrl",
      "cassette",
      "url",
    ]);
    expect([record.operation, record.source, record.cassette, record.url, record.request]).toEqual([
      "RateAsset",
      "cassette",
      "/x/c.json",
      "http://h/moved",
      REQUEST,
    ]);
  });
});

/** A live record of RateAsset with this request id (or source of one). */
function liveRecord(requestId: ConstructorParameters<typeof ProvenanceRecord>[4]): ProvenanceRecord {
  return new ProvenanceRecord(
    "RateAsset",
    "2026-11-22T01:40:12.345Z",
    "live",
    "http://h",
    requestId,
    undefined,
    undefined,
    namer(),
  );
}

describe("attaching to an answer the pipeline has just decoded", () => {
  it("hides the record from keys, JSON and spreads, and leaves a frozen answer and a primitive as they are", () => {
    const record = liveRecord(undefined);
    const answer = attachToAnswer(JSON.parse('{"a":1}') as Record<string, unknown>, record);
    expect(provenanceOf(answer)?.operation).toBe("RateAsset");
    expect([Object.keys(answer), JSON.stringify(answer), provenanceOf({ ...answer })]).toEqual([
      ["a"],
      '{"a":1}',
      undefined,
    ]);
    const frozen = Object.freeze({ a: 1 });
    expect(attachToAnswer(frozen, record)).toBe(frozen);
    expect(provenanceOf(frozen)).toBeUndefined();
    expect(attachToAnswer(42, record)).toBe(42);
  });
});

describe("a request id", () => {
  it("is the provenance's when the server sent one; absent, the provenance has none", () => {
    const answer = attachToAnswer({ a: 1 }, liveRecord("req-7"));
    expect(provenanceOf(answer)?.requestId).toBe("req-7");
    const none = liveRecord(undefined);
    expect("requestId" in provenanceOf(attachToAnswer({ a: 1 }, none))!).toBe(false);
  });
});

describe("an answer's provenance between two copies of the package in one process", () => {
  // The built bundle (test/global-setup.ts builds it) is another copy of every module than src/ here.
  const bundle = createRequire(__filename)("../../dist/index.js") as typeof import("../../src/index");

  it("is read by the other copy, both ways, and a second attach replaces the first", async () => {
    const answer = attachToAnswer(JSON.parse('{"a":1}') as Record<string, unknown>, liveRecord(undefined));
    expect(bundle.frames.provenance(answer).map((p) => p.operation)).toEqual(["RateAsset"]);
    const sim = await startSimulator();
    try {
      const rp = new bundle.RiskPortalClient({ baseUrl: sim.url, auth: { apiKey: sim.credentials.apiKey } });
      const curve = await rp.rateAsset.getCurve({ currency: "USD", market_date: "2026-11-20" });
      expect([provenanceOf(curve)?.operation, provenanceOf(curve)?.requestId]).toEqual(["RateAsset", "sim-000001"]);
    } finally {
      await sim.close();
    }
    const again = new ProvenanceRecord(
      "GetVol",
      "2026-11-26T00:00:00.000Z",
      "cache",
      "http://x",
      undefined,
      undefined,
      undefined,
      namer(),
    );
    attachToAnswer(answer, again);
    expect([provenanceOf(answer)?.operation, bundle.frames.provenance(answer)[0]?.source]).toEqual(["GetVol", "cache"]);
  });
});
