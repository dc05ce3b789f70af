/**
 * Cassettes safe to share, and corrupt ones that say so (issue 13): two processes and 64 concurrent
 * in-process recordings into one cassette keep every exchange; a corrupt exchange is a CassetteError
 * naming the file and the exchange, in replay, with nothing sent to any server and nothing retried.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Cassette, CassetteError, ConfigurationError, RiskPortalClient, startSimulator, type Simulator } from "../../src";
import { bond } from "../helpers/samples";

const run = promisify(execFile);
/** A recorded exchange as a test mangles it. */
interface Loose {
  response?: { status?: unknown; headers?: unknown };
  request?: unknown;
  receivedAt?: unknown;
}
let sim: Simulator;
let dir: string;
beforeAll(async () => {
  sim = await startSimulator({ rateLimit: false });
  dir = mkdtempSync(path.join(tmpdir(), "rpl-cassette-share-"));
});
afterAll(async () => {
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

const day = (i: number) => new Date(Date.UTC(2026, 0, 5) + i * 86_400_000).toISOString().slice(0, 10);
const keys = (file: string) => new Set(Cassette.read(file)!.exchanges.map((e) => JSON.stringify(e.request)));

describe("recording from several writers", () => {
  it("two processes recording one cassette at once keep every exchange", async () => {
    const file = path.join(dir, "two-processes.json");
    const child = path.join(__dirname, "fixtures", "record-child.mjs");
    const N = 40;
    const results = await Promise.all(
      [0, 1000].map((offset) => run(process.execPath, [child, sim.url, sim.credentials.apiKey, file, String(offset), String(N)])),
    );
    expect(results.map((r) => JSON.parse(r.stdout))).toEqual([
      { replayed: 0, recorded: N },
      { replayed: 0, recorded: N },
    ]);
    expect(Cassette.read(file)!.exchanges).toHaveLength(2 * N);
    expect(keys(file).size).toBe(2 * N);
    expect(readdirSync(dir).filter((n) => n.endsWith(".tmp") || n.endsWith(".lock"))).toEqual([]);
    // And every one replays.
    const player = new RiskPortalClient({ baseUrl: sim.url, cassette: { path: file, mode: "replay" } });
    for (const offset of [0, 1000]) for (let i = 0; i < N; i += 7) await player.rateAsset.getCurve({ currency: "USD", market_date: day(offset + i) });
    expect(player.cassette!.stats.replayed).toBe(12);
  }, 60_000);

  it("two clients with cassettes of their own on one file, 64 recordings at once: all 64 kept", async () => {
    const file = path.join(dir, "two-clients.json");
    const auth = { apiKey: sim.credentials.apiKey };
    const first = new RiskPortalClient({ baseUrl: sim.url, auth, cassette: { path: file, mode: "record" } });
    const second = new RiskPortalClient({ baseUrl: sim.url, auth, cassette: { path: file, mode: "auto" } });
    await Promise.all(Array.from({ length: 64 }, (_, i) => (i % 2 ? first : second).rateAsset.getCurve({ currency: "EUR", market_date: day(i) })));
    expect(Cassette.read(file)!.exchanges).toHaveLength(64);
    expect(keys(file).size).toBe(64);
  });

  it("record empties the cassette when opened; what is recorded after that, by anyone, stays", async () => {
    const file = path.join(dir, "record-afresh.json");
    const auth = { apiKey: sim.credentials.apiKey };
    await new RiskPortalClient({ baseUrl: sim.url, auth, cassette: { path: file, mode: "auto" } }).report.lookBacks();
    const recorder = new RiskPortalClient({ baseUrl: sim.url, auth, cassette: { path: file, mode: "record" } });
    expect(Cassette.read(file)!.exchanges).toHaveLength(0);
    const other = new RiskPortalClient({ baseUrl: sim.url, auth, cassette: { path: file, mode: "auto" } });
    await other.rateAsset.getCurve({ currency: "CHF" });
    await recorder.report.lookBacks();
    expect(Cassette.read(file)!.exchanges.map((e) => e.operation)).toEqual(["RateAsset", "LookBacks"]);
  });

  it("a lock left by a dead process is taken over", async () => {
    const file = path.join(dir, "stale-lock.json");
    writeFileSync(`${file}.lock`, "999999999 0");
    const rp = new RiskPortalClient({ baseUrl: sim.url, auth: { apiKey: sim.credentials.apiKey }, cassette: { path: file, mode: "record" } });
    await rp.report.lookBacks();
    expect(Cassette.read(file)!.exchanges).toHaveLength(1);
  });

  it("a cassette that cannot be written is a CassetteError naming the file; after a write, its message says it was applied", async () => {
    const blocker = path.join(dir, "blocker");
    writeFileSync(blocker, "a file, not a directory");
    const file = path.join(blocker, "cassette.json");
    const auth = { apiKey: sim.credentials.apiKey };
    expect(() => new RiskPortalClient({ baseUrl: sim.url, auth, cassette: { path: file, mode: "record" } })).toThrow(CassetteError);

    const later = path.join(dir, "later", "cassette.json");
    const rp = new RiskPortalClient({ baseUrl: sim.url, auth, cassette: { path: later, mode: "auto" } });
    writeFileSync(path.join(dir, "later"), "the directory became a file");
    const read = await rp.report.lookBacks().catch((e: unknown) => e);
    expect(read).toBeInstanceOf(CassetteError);
    expect((read as CassetteError).file).toBe(later);
    const upload = await rp.marketData.uploadBondPrices({ bond_data: [bond] }).catch((e: unknown) => e);
    expect(upload).toBeInstanceOf(CassetteError);
    expect(upload).toMatchObject({ outcome: "applied" });
    expect(String((upload as Error).message)).toMatch(/UploadBondPriceData was applied; do not re-send it/);
  });
});

describe("a corrupt cassette", () => {
  const good = () => {
    const file = path.join(dir, `good-${Math.random().toString(36).slice(2)}.json`);
    return file;
  };
  let recorded: string;
  beforeAll(async () => {
    recorded = good();
    const rp = new RiskPortalClient({ baseUrl: sim.url, auth: { apiKey: sim.credentials.apiKey }, cassette: { path: recorded, mode: "record" } });
    await rp.report.lookBacks();
    await rp.rateAsset.getCurve({ currency: "USD" });
  });

  const corrupt = (change: (exchange: Loose) => void) => {
    const data = JSON.parse(readFileSync(recorded, "utf8")) as { exchanges: Loose[] };
    change(data.exchanges[1]!);
    const file = good();
    writeFileSync(file, JSON.stringify(data));
    return file;
  };

  it.each([
    ["no response", (e: Loose) => delete e.response, /exchange 1: response must be an object/],
    ["status 999", (e: Loose) => (e.response!.status = 999), /exchange 1: response.status must be an HTTP status 200-599, got 999/],
    ["status as text", (e: Loose) => (e.response!.status = "200"), /exchange 1: response.status/],
    ["request not an object", (e: Loose) => (e.request = "GET /api/RateAsset"), /exchange 1: request must be an object/],
    ["a header that is not text", (e: Loose) => (e.response!.headers = { "content-type": 5 }), /exchange 1: response.headers/],
    ["no receivedAt", (e: Loose) => delete e.receivedAt, /exchange 1: receivedAt/],
  ])("%s: CassetteError naming the file and the exchange, nothing sent", async (_what, change, message) => {
    const file = corrupt(change);
    const attempt = () => new RiskPortalClient({ baseUrl: "http://127.0.0.1:9", cassette: { path: file, mode: "replay" } });
    expect(attempt).toThrow(CassetteError);
    expect(attempt).toThrow(message);
    try {
      attempt();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as CassetteError).file).toBe(file);
      expect((error as CassetteError).exchange).toBe(1);
    }
  });

  it("an exchange the platform cannot turn into a response is a CassetteError on replay, not a retried network error", async () => {
    const file = corrupt((e) => (e.response!.headers = { "content-type": "application/json\r\nx: y" }));
    let retries = 0;
    const player = new RiskPortalClient({
      baseUrl: "http://127.0.0.1:9",
      cassette: { path: file, mode: "replay" },
      retry: { baseDelayMs: 1, onRetry: () => retries++ },
    });
    const error = await player.rateAsset.getCurve({ currency: "USD" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CassetteError);
    expect(String((error as Error).message)).toMatch(/holds an exchange that cannot be replayed/);
    expect(retries).toBe(0);
  });
});
