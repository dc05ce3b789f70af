/**
 * connect(): the cassette mode (`mode` > `replay: true` > RISK_PORTAL_CASSETTE_MODE > `off`); replaying
 * a committed cassette with no server, no credentials and no network; recording against the embedded
 * simulator or a configured service (facts in the cassette's meta, never a secret); and the
 * simulator-only helpers (`conn.sim`), which go through the client's pipeline, so they are recorded
 * and replayed like every call. Real simulators over HTTP; the only fetch replaced is one that fails
 * loudly, to prove a replay does not use the network.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { ConfigurationError, provenanceOf, RequestValidationError } from "../../src";
import { Cassette } from "../../src/internals";
import { cassettePath, connect, resolveCassetteMode, type Connection } from "../../src/notebook/connect";
import { startSimulator, type Simulator } from "../../src/sim";
import { CASSETTE_DIR, NOTEBOOKS } from "./expected";

const dir = mkdtempSync(path.join(tmpdir(), "rpl-connect-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close()));
});
async function open(options: Parameters<typeof connect>[0]): Promise<{ conn: Connection; lines: string[] }> {
  const lines: string[] = [];
  const conn = await connect({ log: (l) => lines.push(l), ...options });
  opened.push(conn);
  return { conn, lines };
}
/** A fetch that fails the test if anything is sent: a replay must not touch the network. */
const noNetwork = (async (url: string) => {
  throw new Error(`the network was used during replay: ${url}`);
}) as unknown as typeof fetch;

describe("the cassette mode", () => {
  it("is mode, else replay: true, else RISK_PORTAL_CASSETTE_MODE, else off", () => {
    const cassette = "x.json";
    const env = { RISK_PORTAL_CASSETTE_MODE: "record" };
    expect(resolveCassetteMode({ cassette, mode: "auto", replay: true }, env)).toBe("auto");
    expect(resolveCassetteMode({ cassette, replay: true }, env)).toBe("replay");
    expect(resolveCassetteMode({ cassette, replay: false }, env)).toBe("record");
    expect(resolveCassetteMode({ cassette }, { RISK_PORTAL_CASSETTE_MODE: " Replay " })).toBe("replay");
    expect(resolveCassetteMode({ cassette }, {})).toBe("off");
    expect(resolveCassetteMode({ cassette, mode: "off" }, env)).toBe("off");
    // The environment is for notebooks that name a cassette; one that does not is not affected.
    expect(resolveCassetteMode({}, env)).toBe("off");
  });

  it("refuses an unknown mode, naming where it came from, and a mode without a cassette", () => {
    expect(() => resolveCassetteMode({ cassette: "x.json" }, { RISK_PORTAL_CASSETTE_MODE: "replya" })).toThrow(
      /^RISK_PORTAL_CASSETTE_MODE must be one of record, replay, auto, off; got "replya"$/,
    );
    expect(() => resolveCassetteMode({ cassette: "x.json", mode: "on" as never }, {})).toThrow(ConfigurationError);
    expect(() => resolveCassetteMode({ replay: true }, {})).toThrow(/cassette mode "replay" needs a cassette file/);
  });

  it("RISK_PORTAL_CASSETTE_DIR moves every cassette to that directory, same file name", () => {
    expect(cassettePath("../fixtures/cassettes/01-yield-curves.json", {})).toBe(
      "../fixtures/cassettes/01-yield-curves.json",
    );
    expect(cassettePath("../fixtures/cassettes/01-yield-curves.json", { RISK_PORTAL_CASSETTE_DIR: "/tmp/set" })).toBe(
      path.join("/tmp/set", "01-yield-curves.json"),
    );
  });
});

describe("replaying a committed cassette", () => {
  it("contacts no server and needs no credentials; the simulator helpers replay too, and sleep does not wait", async () => {
    const file = path.join(CASSETTE_DIR, "02-vol-surface-crosscheck.json");
    const recorded = Cassette.read(file)!;
    const { conn, lines } = await open({ cassette: file, replay: true, env: {}, client: { fetch: noNetwork } });
    expect(lines).toEqual([
      `Replaying ${file}: ${recorded.exchanges.length} exchanges recorded ${recorded.recordedAt.slice(0, 10)} from the simulator (seed 1, data as of 2026-11-20); no server is contacted.`,
    ]);
    expect(conn).toMatchObject({ source: "cassette", mode: "replay", baseUrl: recorded.baseUrl, cassette: file });
    expect(conn.simulator).toBeUndefined();
    expect(conn.rp.baseUrl).toBe(recorded.baseUrl);

    const surface = await conn.sim!.surface("SPX");
    expect(surface).toEqual(recorded.exchanges.find((e) => e.operation === "SimSurface")!.response.body);
    expect(provenanceOf(surface)).toMatchObject({
      source: "cassette",
      operation: "SimSurface",
      baseUrl: recorded.baseUrl,
    });
    expect(conn.rp.cassette!.stats).toEqual({ replayed: 1, recorded: 0 });

    const t0 = performance.now();
    await conn.sleep(10_000);
    expect(performance.now() - t0).toBeLessThan(100);
  });

  it("a cassette that does not exist is a clear error", async () => {
    await expect(
      connect({ cassette: path.join(dir, "none.json"), replay: true, env: {}, log: () => {} }),
    ).rejects.toThrow(/cannot replay the cassette .*none\.json: it does not exist \(record it first/);
  });
});

describe("recording", () => {
  it("against the embedded simulator: meta says so (seed, data date), the simulator helpers are recorded and replay offline", async () => {
    const file = path.join(dir, "sim.json");
    const { conn, lines } = await open({
      cassette: file,
      env: { RISK_PORTAL_CASSETTE_MODE: "record" },
      simulator: { transactionRows: 20 },
    });
    expect(conn).toMatchObject({ source: "simulator", mode: "record", cassette: file });
    expect(lines).toEqual([
      `No RISK_PORTAL_BASE_URL set: started the embedded simulator at ${conn.baseUrl} (seed 1, data as of 2026-11-20); recording every exchange to ${file}.`,
    ]);
    const tradables = await conn.sim!.tradables();
    expect(tradables.find((t) => t.id === "AAPL.XNAS")?.next_trade_event.event.$type).toMatch(/Event$/);
    const portfolios = await conn.sim!.portfolios();
    expect(portfolios.map((p) => p.name)).toContain("GLOBAL-MACRO");
    // The helper answers as the raw route does (AAPL.XNAS and AAPL name one equity); the old path form is gone.
    const surface = await conn.sim!.surface("AAPL.XNAS");
    const simKey = { headers: { "x-api-key": conn.simulator!.credentials.apiKey } };
    const raw = (await (await fetch(`${conn.baseUrl}/sim/surface?asset=AAPL`, simKey)).json()) as unknown;
    expect(surface).toEqual(raw);
    expect((await fetch(`${conn.baseUrl}/sim/surface`, simKey)).status).toBe(400);
    expect((await fetch(`${conn.baseUrl}/sim/surfaces/AAPL`, simKey)).status).toBe(404);
    await expect(conn.sim!.surface(" ")).rejects.toThrow(RequestValidationError);
    const t0 = performance.now();
    await conn.sleep(60);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(50);
    await conn.close();

    const saved = Cassette.read(file)!;
    expect(saved.meta).toEqual({ source: "simulator", seed: 1, asOf: "2026-11-20" });
    expect(saved.baseUrl).toBe(conn.baseUrl);
    expect(saved.exchanges.map((e) => e.operation)).toEqual(["SimTradables", "SimPortfolios", "SimSurface"]);
    expect(saved.exchanges[2]!.request).toEqual({ method: "GET", path: "/sim/surface", query: { asset: "AAPL.XNAS" } });

    const { conn: again } = await open({ cassette: file, replay: true, env: {}, client: { fetch: noNetwork } });
    expect(await again.sim!.tradables()).toEqual(tradables);
    expect(await again.sim!.surface("AAPL.XNAS")).toEqual(surface);
    expect(again.rp.cassette!.stats).toEqual({ replayed: 2, recorded: 0 });
  });

  it("against a configured service: meta says service, no simulator helpers, and the replay says where it was recorded", async () => {
    const sim: Simulator = await startSimulator({ transactionRows: 20 });
    opened.push(sim);
    const file = path.join(dir, "service.json");
    const env = {
      RISK_PORTAL_BASE_URL: sim.url,
      RISK_PORTAL_API_KEY: sim.credentials.apiKey,
      RISK_PORTAL_CASSETTE_MODE: "record",
    };
    const { conn, lines } = await open({ cassette: file, env });
    expect(conn).toMatchObject({ source: "service", mode: "record", baseUrl: sim.url });
    expect(conn.sim).toBeUndefined();
    expect(lines[0]).toBe(
      `Connected to the risk service at ${sim.url} (API key); recording every exchange to ${file}.`,
    );
    const looks = await conn.rp.report.lookBacks();
    await conn.close(); // the recording replaces the cassette (issue 44)
    const saved = readFileSync(file, "utf8");
    expect(Cassette.read(file)!.meta).toEqual({ source: "service" });
    expect(saved).not.toContain(sim.credentials.apiKey);

    const { conn: again, lines: replayed } = await open({
      cassette: file,
      replay: true,
      env: { RISK_PORTAL_API_KEY: "unused" },
      client: { fetch: noNetwork },
    });
    expect(replayed[0]).toMatch(
      new RegExp(
        `^Replaying .*service\\.json: 1 exchange recorded \\d{4}-\\d{2}-\\d{2} from the risk service at ${sim.url.replace(/\./g, "\\.")}; no server is contacted\\.$`,
      ),
    );
    expect(again.sim).toBeUndefined();
    expect(await again.rp.report.lookBacks()).toEqual(looks);
  });
});

describe("the committed cassettes (fixtures/cassettes)", () => {
  it("one per showcase notebook, recorded from the simulator with seed 1 and the data of 2026-11-20", () => {
    expect(
      readdirSync(CASSETTE_DIR)
        .filter((f) => f.endsWith(".json"))
        .sort(),
    ).toEqual(NOTEBOOKS.map((n) => `${n}.json`));
    for (const name of NOTEBOOKS) {
      const cassette = Cassette.read(path.join(CASSETTE_DIR, `${name}.json`))!;
      expect(cassette.meta, name).toEqual({ source: "simulator", seed: 1, asOf: "2026-11-20" });
      expect(cassette.exchanges.length, name).toBeGreaterThan(0);
    }
  });

  it("hold none of the credentials they were recorded with, and no request header", async () => {
    // connect() records against a simulator whose credentials derive from the seed: these ones.
    const sim = await startSimulator({ seed: 1, fixedCredentials: true });
    opened.push(sim);
    const { bearerToken, apiKey, clientSecret } = sim.credentials;
    for (const name of NOTEBOOKS) {
      const text = readFileSync(path.join(CASSETTE_DIR, `${name}.json`), "utf8");
      for (const secret of [bearerToken, apiKey, clientSecret])
        expect(text.includes(secret), `${name} holds ${secret.slice(0, 8)}…`).toBe(false);
      expect(text, name).not.toMatch(/"(authorization|x-api-key)"/i);
    }
  });
});

describe("the brand", () => {
  it("RISK_PORTAL_BRAND sets the simulator's and the client's brand; a recording keeps it, and its replay spells requests the same way", async () => {
    const file = path.join(dir, "brand.json");
    const env = { RISK_PORTAL_BRAND: "Derivitec" };
    const { conn, lines } = await open({ env, cassette: file, mode: "record" });
    expect([conn.rp.brand, conn.simulator!.brand]).toEqual(["Derivitec", "Derivitec"]);
    expect(lines[0]).toContain("brand Derivitec");
    const looks = await conn.rp.report.lookBacks();
    expect(looks.$type).toBe("Derivitec.Web.Core.Reports.ApiGetReportLookBacksResponse, Derivitec.Web.Core");
    const curve = await conn.rp.rateAsset.getCurve({ currency: "USD", market_date: "2026-11-20" });
    await conn.close();
    expect(new Cassette({ path: file, mode: "replay", baseUrl: "" }).meta).toMatchObject({
      source: "simulator",
      brand: "Derivitec",
    });
    const { conn: replayed } = await open({ cassette: file, replay: true, env: {}, client: { fetch: noNetwork } });
    expect(replayed.rp.brand).toBe("Derivitec");
    expect(await replayed.rp.rateAsset.getCurve({ currency: "USD", market_date: "2026-11-20" })).toEqual(curve);
  });
});
