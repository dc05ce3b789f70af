/**
 * The response cache against a real loopback server that counts what reaches it: hits and misses,
 * per-call bypass and refresh, TTL, which operations are cached, writes emptying it, the disk store
 * across clients, and keys that keep servers and credentials apart.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { ConfigurationError, ResponseCache, RiskPortalClient, provenanceOf } from "../../src";
import { startLoopback, type Loopback } from "../helpers/loopback";
import { bond, curveReply, outcomeOk, reportInfoReply } from "../helpers/samples";

const CURVE = "/api/RateAsset";
const INFOS = "/api/Report/GetReportInfos";
const UPLOAD = "/api/MarketData/UploadBondPriceData";

let server: Loopback;
let served = 0;
beforeEach(async () => {
  await server?.close();
  served = 0;
  server = await startLoopback({
    // Each answer is numbered, so a test can tell a cached answer from a fresh one.
    [CURVE]: () => ({ body: { ...curveReply, served: ++served }, headers: { "x-request-id": `req-${served}` } }),
    [INFOS]: { body: reportInfoReply },
    [UPLOAD]: { body: outcomeOk("Service.Web.Core.ApiOperationOutcome, Service.Web.Core") },
  });
});
const dirs: string[] = [];
afterAll(async () => {
  await server?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const apiKey = "k-cache-test-0123456789";
const client = (cache: RiskPortalClient["cache"] | boolean | object = true, key = apiKey) => new RiskPortalClient({ baseUrl: server.url, auth: { apiKey: key }, cache: cache as never });
const usd = { currency: "USD", market_date: "2026-11-20" };
const served_ = (r: object) => (r as { served?: number }).served;

describe("response cache", () => {
  it("answers a repeated read from memory, counting hits and misses", async () => {
    const rp = client();
    const first = await rp.rateAsset.getCurve(usd);
    const second = await rp.rateAsset.getCurve({ market_date: "2026-11-20T00:00:00Z", currency: "USD" }); // same canonical request
    expect(server.to(CURVE)).toHaveLength(1);
    expect(second).toEqual(first);
    expect(second).not.toBe(first); // each caller gets its own copy
    expect(rp.cache!.stats).toEqual({ hits: 1, misses: 1, entries: 1 });
    expect(provenanceOf(first)).toMatchObject({ source: "live", requestId: "req-1" });
    expect(provenanceOf(second)).toMatchObject({ source: "cache", requestId: "req-1", receivedAt: provenanceOf(first)!.receivedAt });

    await rp.rateAsset.getCurve({ currency: "EUR", market_date: "2026-11-20" });
    expect(rp.cache!.stats).toEqual({ hits: 1, misses: 2, entries: 2 });
  });

  it("is bypassed per call with cache: false, and refreshed with cache: \"refresh\"", async () => {
    const rp = client();
    await rp.rateAsset.getCurve(usd);
    expect(served_(await rp.rateAsset.getCurve(usd, { cache: false }))).toBe(2);
    expect(rp.cache!.stats).toEqual({ hits: 0, misses: 1, entries: 1 });
    expect(served_(await rp.rateAsset.getCurve(usd))).toBe(1); // the bypass did not replace the entry
    expect(served_(await rp.rateAsset.getCurve(usd, { cache: "refresh" }))).toBe(3);
    expect(served_(await rp.rateAsset.getCurve(usd))).toBe(3);
    expect(server.to(CURVE)).toHaveLength(3);
    expect(rp.cache!.stats).toEqual({ hits: 2, misses: 1, entries: 1 });
  });

  it("forgets entries older than ttlMs", async () => {
    let now = 1_000_000;
    const rp = client(new ResponseCache({ ttlMs: 60_000 }, () => now));
    await rp.rateAsset.getCurve(usd);
    now += 59_999;
    expect(served_(await rp.rateAsset.getCurve(usd))).toBe(1);
    now += 1;
    expect(served_(await rp.rateAsset.getCurve(usd))).toBe(2);
    expect(rp.cache!.stats).toMatchObject({ hits: 1, misses: 2 });
  });

  it("keeps at most maxEntries, dropping the least recently used", async () => {
    const rp = client({ maxEntries: 2 });
    for (const currency of ["USD", "EUR", "USD", "GBP", "USD", "EUR"]) await rp.rateAsset.getCurve({ currency, market_date: "2026-11-20" });
    // USD stays (used most recently each time); EUR was evicted by GBP and fetched again.
    expect(server.to(CURVE).map((r) => (r.json as { currency: string }).currency)).toEqual(["USD", "EUR", "GBP", "EUR"]);
    expect(rp.cache!.stats.entries).toBe(2);
  });

  it("never caches report statuses, and a write empties the cache", async () => {
    const rp = client();
    await rp.report.infos({ pricing_date: "2026-11-20" });
    await rp.report.infos({ pricing_date: "2026-11-20" });
    expect(server.to(INFOS)).toHaveLength(2);
    expect(rp.cache!.stats).toEqual({ hits: 0, misses: 0, entries: 0 });

    await rp.rateAsset.getCurve(usd);
    await rp.marketData.uploadBondPrices({ bond_data: [bond] });
    expect(rp.cache!.stats.entries).toBe(0);
    expect(served_(await rp.rateAsset.getCurve(usd))).toBe(2);
  });

  it("keeps servers and credentials apart", async () => {
    const shared = new ResponseCache();
    await client(shared).rateAsset.getCurve(usd);
    await client(shared, "k-another-user-987654321").rateAsset.getCurve(usd);
    expect(server.to(CURVE)).toHaveLength(2);
    await client(shared).rateAsset.getCurve(usd);
    expect(shared.stats).toEqual({ hits: 1, misses: 2, entries: 2 });
  });

  it("on disk, answers a new client in a new session, and holds no credential", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "rpl-cache-"));
    dirs.push(dir);
    const first = await client({ dir }).rateAsset.getCurve(usd);
    const later = client({ dir });
    const again = await later.rateAsset.getCurve(usd);
    expect(server.to(CURVE)).toHaveLength(1);
    expect(again).toEqual(first);
    expect(later.cache!.stats).toEqual({ hits: 1, misses: 0, entries: 1 });
    expect(provenanceOf(again)?.source).toBe("cache");
    const files = readdirSync(dir);
    expect(files).toHaveLength(1);
    expect(readFileSync(path.join(dir, files[0]!), "utf8")).not.toContain(apiKey);
    // A write empties the directory too: other sessions must not read what the upload made stale.
    await later.marketData.uploadBondPrices({ bond_data: [bond] });
    expect(readdirSync(dir)).toEqual([]);
  });

  it("rejects nonsense settings with the field and the reason", () => {
    expect(() => client({ ttlMs: 0 })).toThrow(ConfigurationError);
    expect(() => client({ ttlMs: -5 })).toThrow(/cache\.ttlMs must be > 0/);
    expect(() => client({ maxEntries: 1.5 })).toThrow(/cache\.maxEntries must be a positive integer/);
    expect(() => client({ dir: "" })).toThrow(/cache\.dir/);
  });

  it("is off unless asked for", async () => {
    const rp = new RiskPortalClient({ baseUrl: server.url, auth: { apiKey } });
    expect(rp.cache).toBeUndefined();
    await rp.rateAsset.getCurve(usd);
    await rp.rateAsset.getCurve(usd);
    expect(server.to(CURVE)).toHaveLength(2);
  });
});
