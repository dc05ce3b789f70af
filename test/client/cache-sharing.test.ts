/**
 * A disk cache that is safe to share (issue 13): concurrent identical reads share one request and one
 * write, two caches (two clients, as two processes would) on one directory never trip over each
 * other's temporary files, files that are not entries of ours are left alone and never answer, a
 * directory that cannot be one is refused once, and a read that started before a write does not store
 * its older answer after the write emptied the cache. Real loopback HTTP throughout.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { ConfigurationError, ResponseCache, RiskPortalClient, provenanceOf } from "../../src";
import { startLoopback, type Loopback } from "../helpers/loopback";
import { bond, curveReply, outcomeOk } from "../helpers/samples";

const CURVE = "/api/RateAsset";
const UPLOAD = "/api/MarketData/UploadBondPriceData";

let server: Loopback;
let served = 0;
beforeEach(async () => {
  await server?.close();
  served = 0;
  server = await startLoopback({
    [CURVE]: () => ({ body: { ...curveReply, served: ++served }, delayMs: 20 }),
    [UPLOAD]: { body: outcomeOk("Service.Web.Core.ApiOperationOutcome, Service.Web.Core") },
  });
});
const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(path.join(tmpdir(), "rpl-cache-share-"));
  dirs.push(d);
  return d;
};
afterAll(async () => {
  await server?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const client = (cache: object | ResponseCache) => new RiskPortalClient({ baseUrl: server.url, auth: { apiKey: "k-share-0123456789" }, cache: cache as never });
const usd = { currency: "USD", market_date: "2026-11-20" };
const entryFiles = (dir: string) =>
  readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isFile() && /^[0-9a-f]{32}\.json$/.test(d.name))
    .map((d) => d.name);

describe("single flight", () => {
  it("64 concurrent identical reads: one request, one entry, 64 answers of their own", async () => {
    const dir = tempDir();
    const rp = client({ dir });
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
    const calls = Array.from({ length: 64 }, (_, i) => (i % 2 ? a : b).rateAsset.getCurve({ currency: ["USD", "EUR", "GBP", "JPY"][i % 4]!, market_date: "2026-11-20" }, { cache: "refresh" }));
    const results = await Promise.allSettled(calls);
    expect(results.filter((r) => r.status === "rejected").map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
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
