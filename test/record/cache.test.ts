/**
 * The response cache against a real loopback server that counts what reaches it: hits and misses,
 * per-call bypass and refresh, TTL, which operations are cached, writes emptying it, the disk store
 * across clients, and keys that keep servers and credentials apart. Then a cache that is safe to share
 * (issue 13): concurrent identical reads share one request and one write, two caches (two clients, as
 * two processes would) on one directory never trip over each other's temporary files, files that are not
 * entries of ours are left alone and never answer, a directory that cannot be one is refused once, and a
 * read that started before a write does not store its older answer after the write emptied the cache.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { ConfigurationError, RiskPortalClient, provenanceOf } from "../../src";
import { ResponseCache } from "../../src/internals";
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
const client = (cache: RiskPortalClient["cache"] | boolean | object = true, key = apiKey) =>
  new RiskPortalClient({ baseUrl: server.url, auth: { apiKey: key }, cache: cache });
const usd = { currency: "USD", market_date: "2026-11-20" };
const served_ = (r: object) => (r as { served?: number }).served;
const tempDir = () => {
  const d = mkdtempSync(path.join(tmpdir(), "rpl-cache-share-"));
  dirs.push(d);
  return d;
};
const entryFiles = (dir: string) =>
  readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isFile() && /^[0-9a-f]{32}\.json$/.test(d.name))
    .map((d) => d.name);

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
    expect(provenanceOf(second)).toMatchObject({
      source: "cache",
      requestId: "req-1",
      receivedAt: provenanceOf(first)!.receivedAt,
    });

    await rp.rateAsset.getCurve({ currency: "EUR", market_date: "2026-11-20" });
    expect(rp.cache!.stats).toEqual({ hits: 1, misses: 2, entries: 2 });
  });

  it('is bypassed per call with cache: false, and refreshed with cache: "refresh"', async () => {
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
    for (const currency of ["USD", "EUR", "USD", "GBP", "USD", "EUR"])
      await rp.rateAsset.getCurve({ currency, market_date: "2026-11-20" });
    // USD stays (used most recently each time); EUR was evicted by GBP and fetched again.
    expect(server.to(CURVE).map((r) => (r.json as { currency: string }).currency)).toEqual([
      "USD",
      "EUR",
      "GBP",
      "EUR",
    ]);
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

describe("single flight", () => {
  it("64 concurrent identical reads: one request, one entry, 64 answers of their own", async () => {
    const dir = tempDir();
    const rp = client({ dir });
    server.on(CURVE, () => ({ body: { ...curveReply, served: ++served }, delayMs: 20 }));
    const results = await Promise.allSettled(Array.from({ length: 64 }, () => rp.rateAsset.getCurve(usd)));
    expect(results.filter((r) => r.status === "rejected")).toEqual([]);
    const values = results.map((r) => (r as PromiseFulfilledResult<Record<string, unknown>>).value);
    expect(server.to(CURVE)).toHaveLength(1);
    expect(new Set(values.map((v) => v.served))).toEqual(new Set([1]));
    expect(new Set(values).size).toBe(64); // each caller its own object
    expect(values.every((v) => provenanceOf(v)?.source === "live")).toBe(true);
    expect(rp.cache!.stats).toMatchObject({ hits: 63, misses: 1, entries: 1 });
    expect(entryFiles(dir)).toHaveLength(1);
    expect(readdirSync(dir).filter((n) => n.endsWith(".tmp"))).toEqual([]);
  });

  it("a joining call keeps its own deadline; the leading call's failure is not shared when it is its own timeout", async () => {
    const rp = client({});
    server.on(CURVE, () => ({ body: { ...curveReply, served: ++served }, delayMs: 150 }));
    const leader = rp.rateAsset.getCurve(usd, { timeoutMs: 60, retry: false });
    const joiner = rp.rateAsset.getCurve(usd, { timeoutMs: 5_000 });
    await expect(leader).rejects.toMatchObject({ name: "TimeoutError", timeoutMs: 60 });
    await expect(joiner).resolves.toMatchObject({ served: expect.any(Number) });
  });
});

describe("two caches on one directory", () => {
  it("write the same entries at once without failing (each write has a temporary file of its own)", async () => {
    const dir = tempDir();
    const a = client({ dir });
    const b = client({ dir });
    const calls = Array.from({ length: 64 }, (_, i) =>
      (i % 2 ? a : b).rateAsset.getCurve(
        { currency: ["USD", "EUR", "GBP", "JPY"][i % 4]!, market_date: "2026-11-20" },
        { cache: "refresh" },
      ),
    );
    const results = await Promise.allSettled(calls);
    expect(results.filter((r) => r.status === "rejected").map((r) => String(r.reason))).toEqual([]);
    expect(entryFiles(dir)).toHaveLength(4);
    expect(readdirSync(dir).filter((n) => n.endsWith(".tmp"))).toEqual([]);
    // A third client (a new session) is answered from the disk.
    const c = client({ dir });
    await c.rateAsset.getCurve(usd);
    expect(c.cache!.stats).toMatchObject({ hits: 1, misses: 0 });
  });
});

describe("what is not ours", () => {
  it("an upload empties the cache but leaves alone a sub-directory named *.json, and reports success", async () => {
    const dir = tempDir();
    mkdirSync(path.join(dir, "notes.json"));
    mkdirSync(path.join(dir, `${"a".repeat(32)}.json`));
    writeFileSync(path.join(dir, "README.txt"), "my notes");
    const rp = client({ dir });
    await rp.rateAsset.getCurve(usd);
    await expect(rp.marketData.uploadBondPrices({ bond_data: [bond] })).resolves.toMatchObject({ is_success: true });
    expect(entryFiles(dir)).toEqual([]);
    expect(readdirSync(dir).sort()).toEqual([`${"a".repeat(32)}.json`, "README.txt", "notes.json"].sort());
  });

  it("a corrupt or foreign file where an entry would be is a miss, then replaced", async () => {
    const dir = tempDir();
    const first = client({ dir });
    await first.rateAsset.getCurve(usd);
    const [file] = entryFiles(dir);
    for (const junk of ["{not json", JSON.stringify({ key: 1, text: 2 }), JSON.stringify(["x"])]) {
      writeFileSync(path.join(dir, file!), junk);
      const rp = client({ dir });
      await expect(rp.rateAsset.getCurve(usd)).resolves.toMatchObject({ yield_curve_model: { currency: "EUR" } });
      expect(rp.cache!.stats).toMatchObject({ hits: 0, misses: 1 });
    }
    expect(server.to(CURVE)).toHaveLength(4);
  });

  it("a cache path that is a file is refused once, when the client is made; nothing goes to the server", () => {
    const file = path.join(tempDir(), "cache-file");
    writeFileSync(file, "x");
    expect(() => client({ dir: file })).toThrow(ConfigurationError);
    expect(() => client({ dir: file })).toThrow(/cache-file/);
    expect(() => client({ dir: path.join(file, "below") })).toThrow(/cannot be used as the response cache's directory/);
    expect(server.requests).toHaveLength(0);
  });
});

describe("a read racing a write", () => {
  it("a read that started before an upload does not store its answer after the upload emptied the cache", async () => {
    const rp = client({});
    server.on(CURVE, () => ({ body: { ...curveReply, served: ++served }, delayMs: 100 }));
    const read = rp.rateAsset.getCurve(usd);
    await new Promise((r) => setTimeout(r, 20));
    await rp.marketData.uploadBondPrices({ bond_data: [bond] });
    expect((await read).served).toBe(1);
    expect((await rp.rateAsset.getCurve(usd)).served).toBe(2); // asked again: the first answer predates the upload
  });
});
