/**
 * Record/replay against the real simulator over HTTP: record every operation, stop the server, replay
 * with no network and no credentials, and get the same responses and frames. A changed request fails
 * with the closest recorded request and the difference; no cassette holds a secret.
 */
import { simHelpers } from "../../src/notebook/sim-helpers";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { inspect } from "node:util";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import {
  CassetteError,
  CassetteMissError,
  ConfigurationError,
  RiskPortalClient,
  provenanceOf,
  type AuthOptions,
} from "../../src";
import { Cassette } from "../../src/internals";
import * as frames from "../../src/frames";
import { startSimulator, type Simulator } from "../../src/sim";
import { bond, surface } from "../helpers/samples";

const dir = mkdtempSync(path.join(tmpdir(), "rpl-cassette-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const file = () => path.join(dir, `c${++n}.json`);

const open: Simulator[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});
async function simulator(): Promise<Simulator> {
  const sim = await startSimulator({
    rateLimit: false,
    transactionRows: 300,
    reportTiming: { queuedMs: 50, runningMs: 100 },
  });
  open.push(sim);
  return sim;
}

const bund = {
  ...bond,
  bond_identifier: { code: "DE0001102580", market_identification_code: "XETR", identifier_type: "ISIN" },
  currency: "EUR",
  traded_price: 96.5,
};

/** Every operation once (uploads and launches included), and the frames a notebook would make. */
async function session(rp: RiskPortalClient) {
  const curve = await rp.rateAsset.getCurve({ currency: "USD", market_date: "2026-11-20" });
  const volRequest = { surface, maturity: 91, strikes: [80, 100, 120], strike_type: 1 as const };
  const vols = await rp.tradable.getVol(volRequest);
  const brief = await rp.tradable.brief({ tradableId: "AAPL.XNAS" });
  const effects = await rp.tradable.positionEffects({
    tradable_id: "AAPL.XNAS",
    pricing_date: "2026-11-20",
    next_trade_event: { $type: "BuyEvent", unit_price: 190, quantity: 10 },
  });
  const bonds = await rp.marketData.uploadBondPrices({ bond_data: [bund], trigger_immediate_bootstrap: true });
  const equityVols = await rp.marketData.uploadEquityVolCurves({
    equity_vol_curves: [
      {
        asset_id: { code: "SAP", market_identification_code: "XETR" },
        reference_date: "2026-11-20",
        maturities: [30, 91],
        vols: [0.3, 0.28],
      },
    ],
  });
  const varItem = await rp.reportLauncher.createVar({
    report_name: "GLOBAL-MACRO VaR 99% 1d",
    reporting_currency: "USD",
    market_data_environment_names: ["EOD"],
    portfolio_name: "GLOBAL-MACRO",
    portfolio_type: "provider",
    parameters: { horizon: 1, historical_look_back_period: "1Y", confidence_level: 0.99, run_date: "2026-11-20" },
  });
  const riskItem = await rp.reportLauncher.createRisk({
    report_name: "GLOBAL-MACRO Daily PnL",
    reporting_currency: "USD",
    market_data_environment_names: ["EOD"],
    portfolio_name: "GLOBAL-MACRO",
    portfolio_type: "provider",
    parameters: { report_cutoff: "EOD", is_druid_report: false, run_date: "2026-11-20" },
  });
  const infos = await rp.report.infos({ pricing_date: "2026-11-20", portfolio_names: ["GLOBAL-MACRO"] });
  const list = await rp.report.list();
  const lookBacks = await rp.report.lookBacks();
  const table = await rp.position.transactionTable({
    portfolio_name: "GLOBAL-MACRO",
    start_date: "2026-01-01",
    end_date: "2026-11-20",
  });
  const keys = await rp.user.apiKeys();
  const responses = {
    curve,
    vols,
    brief,
    effects,
    bonds,
    equityVols,
    varItem,
    riskItem,
    infos,
    list,
    lookBacks,
    table,
    keys,
  };
  const tables = {
    curve: frames.yieldCurveColumns(curve),
    vols: frames.volResultsColumns(vols, volRequest),
    effects: frames.positionEffectsColumns(effects),
    bonds: frames.operationOutcomeColumns(bonds),
    infos: frames.reportInfosColumns(infos),
    list: frames.reportListColumns(list),
    lookBacks: frames.lookBacksColumns(lookBacks),
    table: frames.transactionTableColumns(table),
    keys: frames.apiKeysColumns(keys),
  };
  return { responses, tables };
}

/** What a frame shows: columns, kinds and values (not where it came from). */
const shown = (tables: Record<string, { columns: string[]; kinds: unknown; data: unknown; rowCount: number }>) =>
  Object.fromEntries(
    Object.entries(tables).map(([k, t]) => [k, { columns: t.columns, kinds: t.kinds, data: t.data, rows: t.rowCount }]),
  );

describe("record against the simulator, stop it, replay", () => {
  it("every operation replays to identical responses and frames, with no server and no credentials", async () => {
    const sim = await simulator();
    const cassette = file();
    const recorder = new RiskPortalClient({
      baseUrl: sim.url,
      auth: { apiKey: sim.credentials.apiKey },
      cassette: { path: cassette, mode: "record", meta: { source: "simulator" } },
    });
    const live = await session(recorder);
    expect(recorder.cassette!.stats).toEqual({ recorded: 13, replayed: 0 });
    expect(provenanceOf(live.responses.curve)).toMatchObject({
      source: "live",
      operation: "RateAsset",
      baseUrl: sim.url,
    });
    recorder.cassette!.finish(); // the recording replaces the cassette (issue 44)
    await sim.close();

    // The server is gone; the replaying client has no credentials, and a fetch that would fail loudly.
    const fetchCalls: string[] = [];
    const noNetwork = (async (url: string) => {
      fetchCalls.push(String(url));
      throw new Error("the network was used during replay");
    }) as unknown as typeof fetch;
    const player = new RiskPortalClient({
      baseUrl: sim.url,
      cassette: { path: cassette, mode: "replay" },
      fetch: noNetwork,
    });
    const replayed = await session(player);
    expect(fetchCalls).toEqual([]);
    expect(player.cassette!.stats).toEqual({ recorded: 0, replayed: 13 });
    expect(player.cassette!.meta).toEqual({ source: "simulator" });

    // The frames are the same, cell for cell (API keys included: the recording keeps what the frame shows).
    expect(shown(replayed.tables)).toEqual(shown(live.tables));
    expect(replayed.responses.brief).toEqual(live.responses.brief);
    expect(replayed.responses.vols).toEqual(live.responses.vols);
    expect(replayed.responses.table).toEqual(live.responses.table);

    const p = provenanceOf(replayed.responses.curve)!;
    expect(p).toMatchObject({
      source: "cassette",
      operation: "RateAsset",
      baseUrl: sim.url,
      cassette,
      receivedAt: provenanceOf(live.responses.curve)!.receivedAt,
    });
    expect(p.request).toBe(p.request); // built once, on first look
    expect(p.request).toEqual({
      method: "POST",
      path: "/api/RateAsset",
      body: expect.objectContaining({ currency: "USD", market_date: "2026-11-20T00:00:00Z" }),
    });
  });

  it("a request that was not recorded fails in replay, naming the closest recorded request and the difference", async () => {
    const sim = await simulator();
    const cassette = file();
    const recorder = new RiskPortalClient({
      baseUrl: sim.url,
      auth: { apiKey: sim.credentials.apiKey },
      cassette: { path: cassette, mode: "record" },
    });
    await recorder.rateAsset.getCurve({ currency: "USD", market_date: "2026-11-20" });
    await recorder.rateAsset.getCurve({ currency: "EUR", market_date: "2026-11-20" });
    await recorder.report.lookBacks();
    recorder.cassette!.finish(); // the recording replaces the cassette (issue 44)
    await sim.close();

    const player = new RiskPortalClient({ baseUrl: sim.url, cassette: { path: cassette, mode: "replay" } });
    const error = await player.rateAsset
      .getCurve({ currency: "EUR", market_date: "2026-11-19" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CassetteMissError);
    const miss = error as CassetteMissError;
    expect(miss.operation).toBe("RateAsset");
    expect(miss.closest?.body).toMatchObject({ currency: "EUR", market_date: "2026-11-20T00:00:00Z" });
    expect(miss.differences).toEqual(['body.market_date: recorded "2026-11-20T00:00:00Z", now "2026-11-19T00:00:00Z"']);
    expect(miss.message).toContain(cassette);
    expect(miss.message).toContain('body.market_date: recorded "2026-11-20T00:00:00Z", now "2026-11-19T00:00:00Z"');

    const other = (await player.tradable
      .brief({ tradableId: "AAPL.XNAS" })
      .catch((e: unknown) => e)) as CassetteMissError;
    expect(other).toBeInstanceOf(CassetteMissError);
    expect(other.differences.some((d) => d.startsWith("path: recorded"))).toBe(true);
  });

  it("batch helpers throw a replay miss instead of listing it as one failed date", async () => {
    const sim = await simulator();
    const cassette = file();
    const recorder = new RiskPortalClient({
      baseUrl: sim.url,
      auth: { apiKey: sim.credentials.apiKey },
      cassette: { path: cassette, mode: "record" },
    });
    const recorded = await frames.fetchYieldCurvesColumns(recorder, {
      currencies: ["USD"],
      marketDates: ["2026-11-19", "2026-11-20"],
      progress: "none",
    });
    expect(recorded.failures).toEqual([]);
    recorder.cassette!.finish(); // the recording replaces the cassette (issue 44)
    await sim.close();
    const player = new RiskPortalClient({ baseUrl: sim.url, cassette: { path: cassette, mode: "replay" } });
    const again = await frames.fetchYieldCurvesColumns(player, {
      currencies: ["USD"],
      marketDates: ["2026-11-19", "2026-11-20"],
      progress: "none",
    });
    expect(again.table.data).toEqual(recorded.table.data);
    await expect(
      frames.fetchYieldCurvesColumns(player, {
        currencies: ["USD"],
        marketDates: ["2026-11-19", "2026-11-18"],
        progress: "none",
      }),
    ).rejects.toThrow(CassetteMissError);
    await expect(
      frames.fetchReportInfosByDateColumns(player, { pricingDates: ["2026-11-20"], progress: "none" }),
    ).rejects.toThrow(/closest recorded request \(RateAsset\)/);
  });

  it("matches on the canonical request: key order and date spellings do not matter", async () => {
    const sim = await simulator();
    const cassette = file();
    const recorder = new RiskPortalClient({
      baseUrl: sim.url,
      auth: { apiKey: sim.credentials.apiKey },
      cassette: { path: cassette, mode: "record" },
    });
    const recorded = await recorder.report.infos({ pricing_date: "2026-11-20", portfolio_names: ["GLOBAL-MACRO"] });
    recorder.cassette!.finish(); // the recording replaces the cassette (issue 44)
    await sim.close();
    const player = new RiskPortalClient({ baseUrl: sim.url, cassette: { path: cassette, mode: "replay" } });
    for (const pricing_date of [
      new Date(Date.UTC(2026, 10, 20)),
      "2026-11-20T00:00:00.000Z",
      "2026-11-20T01:00:00+01:00",
    ]) {
      expect(await player.report.infos({ portfolio_names: ["GLOBAL-MACRO"], pricing_date })).toEqual(recorded);
    }
  });

  it("the same request recorded several times (a poll loop) replays in recorded order, and the last answer repeats", async () => {
    const sim = await simulator();
    const cassette = file();
    const recorder = new RiskPortalClient({
      baseUrl: sim.url,
      auth: { apiKey: sim.credentials.apiKey },
      cassette: { path: cassette, mode: "record" },
    });
    const first = await recorder.report.list();
    await recorder.reportLauncher.createVar({
      report_name: "GLOBAL-MACRO VaR 99% 1d",
      reporting_currency: "USD",
      market_data_environment_names: ["EOD"],
      portfolio_name: "GLOBAL-MACRO",
      portfolio_type: "provider",
      parameters: { horizon: 1, historical_look_back_period: "1Y", confidence_level: 0.99, run_date: "2026-11-20" },
    });
    const [run] = await simHelpers(recorder).runBatch();
    const second = await recorder.report.infos({ pricing_date: "2026-11-20", portfolio_names: ["GLOBAL-MACRO"] });
    await new Promise((r) => setTimeout(r, 250));
    const third = await recorder.report.infos({ pricing_date: "2026-11-20", portfolio_names: ["GLOBAL-MACRO"] });
    const status = (r: typeof second) => r.report_infos.find((i) => i.id === run!.id)?.status;
    expect(status(second)).not.toBe(status(third)); // the report moved on between the two polls
    recorder.cassette!.finish(); // the recording replaces the cassette (issue 44)
    await sim.close();

    const player = new RiskPortalClient({ baseUrl: sim.url, cassette: { path: cassette, mode: "replay" } });
    expect(await player.report.list()).toEqual(first);
    const polls = [];
    for (let i = 0; i < 4; i++)
      polls.push(status(await player.report.infos({ pricing_date: "2026-11-20", portfolio_names: ["GLOBAL-MACRO"] })));
    expect(polls).toEqual([status(second), status(third), status(third), status(third)]);
  });

  it("auto replays what the cassette has and records the rest", async () => {
    const sim = await simulator();
    const cassette = file();
    const auth = { apiKey: sim.credentials.apiKey };
    const first = new RiskPortalClient({ baseUrl: sim.url, auth, cassette: { path: cassette, mode: "auto" } });
    await first.report.lookBacks();
    expect(first.cassette!.stats).toEqual({ recorded: 1, replayed: 0 });
    // Recorded in this session, not replayed in it: a second call goes to the server again.
    await first.report.lookBacks();
    expect(first.cassette!.stats).toEqual({ recorded: 2, replayed: 0 });

    const second = new RiskPortalClient({ baseUrl: sim.url, auth, cassette: { path: cassette, mode: "auto" } });
    await second.report.lookBacks();
    await second.rateAsset.getCurve({ currency: "CHF", market_date: "2026-11-20" });
    expect(second.cassette!.stats).toEqual({ recorded: 1, replayed: 1 });
    expect(second.toJSON().cassette).toEqual({ path: cassette, mode: "auto", recorded: 1, replayed: 1 });
    expect(inspect(second)).toContain(
      `cassette: {"path":${JSON.stringify(cassette)},"mode":"auto","replayed":1,"recorded":1}`,
    );
    expect(Cassette.read(cassette)!.exchanges.map((e) => e.operation)).toEqual(["LookBacks", "LookBacks", "RateAsset"]);
    // One exchange per line: a re-recording diffs exchange by exchange.
    const lines = readFileSync(cassette, "utf8").split("\n");
    expect(
      lines.filter((l) => l.startsWith('  {"operation":')).map((l) => JSON.parse(l.replace(/,$/, "")).operation),
    ).toEqual(["LookBacks", "LookBacks", "RateAsset"]);

    // "record" starts afresh, beside the cassette, which it replaces when it finishes.
    const third = new RiskPortalClient({ baseUrl: sim.url, auth, cassette: { path: cassette, mode: "record" } });
    await third.report.lookBacks();
    expect(Cassette.read(cassette)!.exchanges).toHaveLength(3);
    third.cassette!.finish();
    expect(Cassette.read(cassette)!.exchanges).toHaveLength(1);
  });

  it("error answers are recorded and replay as the same error", async () => {
    const sim = await simulator();
    const cassette = file();
    const recorder = new RiskPortalClient({
      baseUrl: sim.url,
      auth: { apiKey: sim.credentials.apiKey },
      cassette: { path: cassette, mode: "record" },
    });
    const live = await recorder.tradable.brief({ tradableId: "NOPE.XXXX" }).catch((e: Error) => e);
    recorder.cassette!.finish(); // the recording replaces the cassette (issue 44)
    await sim.close();
    const player = new RiskPortalClient({ baseUrl: sim.url, cassette: { path: cassette, mode: "replay" } });
    const replayed = await player.tradable.brief({ tradableId: "NOPE.XXXX" }).catch((e: Error) => e);
    expect(replayed.name).toBe("NotFoundError");
    expect(replayed.message).toBe(live.message);
  });

  it("replay needs the file, and says so; a file that is not a cassette is refused", () => {
    const missing = path.join(dir, "nope.json");
    expect(
      () => new RiskPortalClient({ baseUrl: "http://127.0.0.1:9", cassette: { path: missing, mode: "replay" } }),
    ).toThrow(ConfigurationError);
    expect(
      () => new RiskPortalClient({ baseUrl: "http://127.0.0.1:9", cassette: { path: missing, mode: "replay" } }),
    ).toThrow(CassetteError);
    expect(
      () => new RiskPortalClient({ baseUrl: "http://127.0.0.1:9", cassette: { path: missing, mode: "replay" } }),
    ).toThrow(/nope\.json: it does not exist/);
    const bogus = path.join(dir, "bogus.json");
    writeFileSync(bogus, JSON.stringify({ hello: 1 }));
    expect(
      () => new RiskPortalClient({ baseUrl: "http://127.0.0.1:9", cassette: { path: bogus, mode: "replay" } }),
    ).toThrow(/not a risk-portal-lab cassette/);
    // Without a cassette to replay, credentials are required as before.
    expect(() => new RiskPortalClient({ baseUrl: "http://127.0.0.1:9" })).toThrow(/auth is required/);
  });
});

describe("cassettes hold no secret", () => {
  it("whatever the auth mode, no credential, token or API key value reaches the file", async () => {
    const sim = await simulator();
    const { apiKey, bearerToken, clientId, clientSecret, tokenUrl } = sim.credentials;
    // Every credential header the client actually sent, read off the wire on the way out.
    const sent = new Set<string>();
    const watching = (async (url: string, init: RequestInit) => {
      for (const [name, value] of Object.entries((init.headers ?? {}) as Record<string, string>)) {
        if (/authorization|api-key/i.test(name)) sent.add(value.replace(/^(Bearer|Basic) /, ""));
      }
      return fetch(url, init);
    }) as typeof fetch;
    const modes: AuthOptions[] = [{ apiKey }, { token: bearerToken }, { clientId, clientSecret, tokenUrl }];
    const cassettes: string[] = [];
    for (const auth of modes) {
      const cassette = file();
      cassettes.push(cassette);
      const rp = new RiskPortalClient({
        baseUrl: sim.url,
        auth,
        fetch: watching,
        cassette: { path: cassette, mode: "record" },
      });
      await session(rp);
      rp.cassette!.finish();
    }
    const secrets = [apiKey, bearerToken, clientSecret, ...sent];
    // The simulator's API keys (the caller's and a second one) come back in GetApiKeys: they are secrets too.
    const keys = await new RiskPortalClient({ baseUrl: sim.url, auth: { apiKey } }).user.apiKeys();
    secrets.push(...keys.map((k) => k.exposed_value ?? ""));
    expect(sent.size).toBeGreaterThanOrEqual(4); // api key, bearer, Basic client credentials, an OAuth2 access token
    for (const cassette of cassettes) {
      const text = readFileSync(cassette, "utf8");
      for (const secret of secrets) {
        expect(secret.length).toBeGreaterThan(8);
        expect(text.includes(secret), `${path.basename(cassette)} contains a secret`).toBe(false);
        expect(text.includes(encodeURIComponent(secret))).toBe(false);
      }
      expect(text).not.toMatch(/authorization|x-api-key/i);
      // The API key entries keep only what the frame shows: the last four characters.
      expect(text).toContain(`"exposed_value":"••••${apiKey.slice(-4)}"`);
    }
  });
});
