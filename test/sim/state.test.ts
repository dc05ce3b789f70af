/**
 * The simulator's state: uploads change later answers (A18 best effort, A19 bootstrap), launched reports
 * move through their lifecycle on the simulator's clock (A10), tokens expire, state survives a restart
 * with a data directory, and injected faults reach the client as the errors they should.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { manualClock, startSimulator, type Simulator, type SimulatorOptions } from "../../src/sim";
import { NetworkError, RiskPortalClient, ServerError } from "../../src";
import { raw } from "./helpers";

const open: Simulator[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function start(options: SimulatorOptions = {}) {
  const sim = await startSimulator({ rateLimit: false, ...options });
  open.push(sim);
  const rp = new RiskPortalClient({ baseUrl: sim.url, auth: { apiKey: sim.credentials.apiKey }, retry: false });
  return { sim, rp };
}

const bund = (price: number, date = "2026-11-20") => ({
  date,
  bond_identifier: { code: "DE0001102580", market_identification_code: "XETR", identifier_type: "ISIN" },
  is_currency_per_bond_unit: false,
  currency: "EUR",
  traded_price: price,
  is_percentage_of_par: true,
});
const unknownBond = {
  ...bund(99),
  bond_identifier: { code: "XS0000000000", market_identification_code: "XLON", identifier_type: "ISIN" },
};

describe("bond uploads", () => {
  it("with trigger_immediate_bootstrap the bond's yield enters the curve of that date, replacing nearby swaps", async () => {
    const { rp } = await start({ bootstrapLagMs: 0 });
    const before = await rp.rateAsset.getCurve({ currency: "EUR", market_date: "2026-11-20" });
    await rp.marketData.uploadBondPrices({ bond_data: [bund(95.5)], trigger_immediate_bootstrap: true });
    const after = await rp.rateAsset.getCurve({ currency: "EUR", market_date: "2026-11-20" });
    const point = after.yield_curve_model.data.find((p) => p.fitted_instrument_name === "BOND DE0001102580")!;
    expect(point).toBeDefined();
    expect(point.expiry).toBe("2034-02-15T00:00:00+00:00");
    // Priced below par with a 2.2% coupon, the bond yields more than its coupon.
    expect(point.fitted_instrument_rate).toBeGreaterThan(0.022);
    expect(point.rate).toBeCloseTo(Math.log(1 + point.fitted_instrument_rate!), 7);
    expect(after.yield_curve_model.data.some((p) => p.fitted_instrument_name === "EUR SWAP 7Y")).toBe(false);
    expect(before.yield_curve_model.data.some((p) => p.fitted_instrument_name === "EUR SWAP 7Y")).toBe(true);
    // Other dates are untouched.
    const otherDay = await rp.rateAsset.getCurve({ currency: "EUR", market_date: "2026-11-19" });
    expect(otherDay.yield_curve_model.data.some((p) => p.fitted_instrument_name!.startsWith("BOND"))).toBe(false);
  });

  it("the bootstrap finishes after the response (A19: it defaults to true, and need not finish before the answer)", async () => {
    const clock = manualClock(Date.parse("2026-11-20T08:00:00Z"));
    const { rp } = await start({ clock, bootstrapLagMs: 2_000 });
    const hasBond = async () =>
      (await rp.rateAsset.getCurve({ currency: "EUR", market_date: "2026-11-20" })).yield_curve_model.data.some(
        (p) => p.fitted_instrument_name === "BOND DE0001102580",
      );
    await rp.marketData.uploadBondPrices({ bond_data: [bund(95.5)] }); // no trigger given: the service's default, true
    expect(await hasBond()).toBe(false);
    expect((await rp.tradable.brief({ tradableId: "DE0001102580" })).brief).toContain("(bootstrap in progress)");
    clock.advance(1_999);
    expect(await hasBond()).toBe(false);
    clock.advance(1);
    expect(await hasBond()).toBe(true);
    expect((await rp.tradable.brief({ tradableId: "DE0001102580" })).brief).toContain("(in the curve)");
  });

  it("without the trigger the price is stored (the brief shows it) but the curve is unchanged", async () => {
    const { rp } = await start({ bootstrapLagMs: 0 });
    const before = await rp.rateAsset.getCurve({ currency: "EUR", market_date: "2026-11-20" });
    await rp.marketData.uploadBondPrices({ bond_data: [bund(97.25)], trigger_immediate_bootstrap: false });
    expect(await rp.rateAsset.getCurve({ currency: "EUR", market_date: "2026-11-20" })).toEqual(before);
    expect((await rp.tradable.brief({ tradableId: "DE0001102580" })).brief).toContain(
      "Last uploaded price 97.25 on 2026-11-20.",
    );
  });

  it("all-or-nothing without best effort: one bad record rejects the upload and stores nothing (A18)", async () => {
    const { rp } = await start();
    const out = await rp.marketData.uploadBondPrices(
      { bond_data: [bund(96), unknownBond], trigger_immediate_bootstrap: true },
      { throwOnFailure: false },
    );
    expect(out.is_success).toBe(false);
    expect(out.error_messages[0]).toMatch(/^bond_data\[1\]: unknown bond "XS0000000000"/);
    expect(out.error_messages.at(-1)).toMatch(/nothing was stored/);
    const curve = await rp.rateAsset.getCurve({ currency: "EUR", market_date: "2026-11-20" });
    expect(curve.yield_curve_model.data.some((p) => p.fitted_instrument_name === "BOND DE0001102580")).toBe(false);
  });

  it("best effort stores the valid records and names each rejected one by index (A18)", async () => {
    const { rp } = await start({ bootstrapLagMs: 0 });
    const out = await rp.marketData.uploadBondPrices(
      {
        bond_data: [
          unknownBond,
          bund(96),
          { ...bund(96), currency: "USD" },
          { ...bund(96), is_percentage_of_par: false },
        ],
        use_best_effort: true,
        trigger_immediate_bootstrap: true,
      },
      { throwOnFailure: false },
    );
    expect(out.is_success).toBe(false);
    expect(out.error_messages.map((m) => m.slice(0, 13))).toEqual(["bond_data[0]:", "bond_data[2]:", "bond_data[3]:"]);
    const curve = await rp.rateAsset.getCurve({ currency: "EUR", market_date: "2026-11-20" });
    expect(curve.yield_curve_model.data.some((p) => p.fitted_instrument_name === "BOND DE0001102580")).toBe(true);
  });
});

describe("equity vol curve uploads", () => {
  it("become visible in the brief and in the simulator's surface of the asset", async () => {
    const { sim, rp } = await start();
    const curve = {
      asset_id: { code: "SAP", market_identification_code: "XETR" },
      reference_date: "2026-11-20",
      maturities: [30, 91, 365],
      vols: [0.31, 0.29, 0.27],
    };
    const out = await rp.marketData.uploadEquityVolCurves({ equity_vol_curves: [curve] });
    expect(out.is_success).toBe(true);
    expect((await rp.tradable.brief({ tradableId: "SAP.XETR" })).brief).toContain(
      "Uploaded ATM vol curve of 2026-11-20: 30d 31.0%, 91d 29.0%, 365d 27.0%.",
    );
    const surface = (
      await raw(`${sim.url}/sim/surface?asset=SAP`, { headers: { "x-api-key": sim.credentials.apiKey } })
    ).body as {
      vols: number[];
      benchmark_maturities: number[];
    };
    expect(surface.vols[surface.benchmark_maturities.indexOf(91)]).toBeCloseTo(0.29, 12);
  });

  it("an unknown asset is rejected with its index", async () => {
    const { rp } = await start();
    const out = await rp.marketData.uploadEquityVolCurves(
      {
        equity_vol_curves: [
          {
            asset_id: { code: "ZZZ", market_identification_code: "XNAS" },
            reference_date: "2026-11-20",
            maturities: [30],
            vols: [0.2],
          },
        ],
      },
      { throwOnFailure: false },
    );
    expect(out.error_messages[0]).toMatch(/^equity_vol_curves\[0\]: unknown asset "ZZZ"/);
  });
});

describe("launcher items and report runs (A21, A10) on a manual clock", () => {
  const saveVar = (rp: RiskPortalClient, id?: string) =>
    rp.reportLauncher.createVar({
      ...(id ? { id } : {}),
      report_name: "GLOBAL-MACRO VaR 99% 1d",
      reporting_currency: "USD",
      market_data_environment_names: ["EOD"],
      portfolio_name: "GLOBAL-MACRO",
      horizon: 1,
      historical_look_back_period: "1Y",
      confidence_level: 0.99,
      run_date: "2026-11-20",
    });
  const runIds = async (rp: RiskPortalClient) =>
    (await rp.report.infos({ pricing_date: "2026-11-20", portfolio_name: "GLOBAL-MACRO" })).report_infos.filter((r) =>
      /^rep-[ls]/.test(r.id),
    );

  it("saving an item launches nothing; POST /sim/batch runs every saved item, and the runs move none → running → an end state", async () => {
    const clock = manualClock(Date.parse("2026-11-20T08:00:00Z"));
    const { sim, rp } = await start({ clock, reportTiming: { queuedMs: 1_000, runningMs: 5_000 } });
    for (let i = 0; i < 6; i++) expect((await saveVar(rp)).is_success).toBe(true);
    clock.advance(60_000);
    expect(await runIds(rp)).toEqual([]); // "Saving does not launch a report or create a report-run identifier"
    const batch = await raw(`${sim.url}/sim/batch`, {
      method: "POST",
      headers: { "x-api-key": sim.credentials.apiKey },
    });
    expect(batch.status).toBe(200);
    const runs = (batch.body as { runs: { id: string; item_id: string; pricing_date: string }[] }).runs;
    expect(runs.map((r) => r.item_id)).toEqual([
      "item-000001",
      "item-000002",
      "item-000003",
      "item-000004",
      "item-000005",
      "item-000006",
    ]);
    expect(new Set(runs.map((r) => r.pricing_date))).toEqual(new Set(["2026-11-20T00:00:00+00:00"]));
    const statuses = async () => (await runIds(rp)).map((r) => r.status);
    expect(await statuses()).toEqual(Array(6).fill("none"));
    clock.advance(1_000);
    expect(await statuses()).toEqual(Array(6).fill("running"));
    clock.advance(5_000);
    const ended = await statuses();
    for (const s of ended) expect(["succeeded", "warning", "failed"]).toContain(s);
    clock.advance(3_600_000);
    expect(await statuses()).toEqual(ended);
  });

  it("the daily batch runs every saved item at 22:00 UTC on business days, from the day it was saved", async () => {
    const clock = manualClock(Date.parse("2026-11-19T21:59:00Z"));
    const { rp } = await start({ clock });
    expect((await saveVar(rp, "desk-var")).is_success).toBe(true);
    const runsOn = async (day: string) =>
      (await rp.report.infos({ pricing_date: day, portfolio_name: "GLOBAL-MACRO" })).report_infos.filter((r) =>
        r.id.startsWith("rep-s"),
      );
    expect(await runsOn("2026-11-19")).toEqual([]);
    clock.advance(60_000); // 22:00
    expect((await runsOn("2026-11-19")).map((r) => r.description)).toEqual([
      "Run of saved VaR launcher item desk-var (daily batch, 22:00 UTC)",
    ]);
    clock.set(Date.parse("2026-11-23T23:00:00Z")); // Friday 20th and Monday 23rd; no weekend runs
    expect((await runsOn("2026-11-20")).length).toBe(1);
    expect((await runsOn("2026-11-21")).length).toBe(0);
    expect((await runsOn("2026-11-23")).length).toBe(1);
  });

  it("a saved item must name a report definition, a known portfolio and environments; its id is unique", async () => {
    const { rp } = await start();
    const fail = (body: Parameters<typeof rp.reportLauncher.createRisk>[0]) =>
      rp.reportLauncher.createRisk(body, { throwOnFailure: false });
    expect((await fail({ report_name: "No such report", portfolio_name: "RATES-EU" })).error_messages[0]).toMatch(
      /^Report 'No such report' is not a risk report definition you can use; known: RATES-EU Daily PnL/,
    );
    expect(
      (
        await fail({
          report_name: "RATES-EU Daily PnL",
          portfolio_name: "RATES-EU",
          market_data_environment_names: ["Example market data"],
        })
      ).error_messages,
    ).toEqual(["Unknown market data environment 'Example market data'; known: EOD, INTRADAY, STRESS-2020"]);
    expect((await fail({ id: "mine", report_name: "RATES-EU Daily PnL", portfolio_name: "RATES-EU" })).is_success).toBe(
      true,
    );
    expect(
      (await fail({ id: "mine", report_name: "RATES-EU Daily PnL", portfolio_name: "RATES-EU" })).error_messages,
    ).toEqual(["A saved launcher item with id 'mine' exists already"]);
  });
});

describe("OAuth2 tokens on the simulator's clock", () => {
  it("expire after their lifetime; the client then fetches a new one by itself", async () => {
    const clock = manualClock();
    const { sim } = await start({ clock, tokenTtlSeconds: 600 });
    const { clientId, clientSecret, tokenUrl } = sim.credentials;
    const form = new URLSearchParams({
      grant_type: "client_credentials",
      client_id: clientId,
      client_secret: clientSecret,
    }).toString();
    const token = (
      (
        await raw(tokenUrl, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: form,
        })
      ).body as { access_token: string }
    ).access_token;
    const use = () => raw(`${sim.url}/api/Report/LookBacks`, { headers: { authorization: `Bearer ${token}` } });
    expect((await use()).status).toBe(200);
    clock.advance(600_000);
    const expired = await use();
    expect(expired.status).toBe(401);
    expect((expired.body as { detail: string }).detail).toBe("the access token has expired");
  });
});

describe("persistence with a data directory", () => {
  it("keeps accepted uploads and launched reports across a restart, one journal line per change", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "rpl-sim-"));
    dirs.push(dataDir);
    const first = await start({ dataDir, bootstrapLagMs: 0 });
    await first.rp.marketData.uploadBondPrices({ bond_data: [bund(95.5)], trigger_immediate_bootstrap: true });
    await first.rp.reportLauncher.createRisk({
      report_name: "RATES-EU Daily PnL",
      reporting_currency: "EUR",
      market_data_environment_names: ["EOD"],
      portfolio_name: "RATES-EU",
      report_cutoff: "1Y",
      run_date: "2026-11-20",
    });
    expect(
      (
        await raw(`${first.sim.url}/sim/batch`, {
          method: "POST",
          headers: { "x-api-key": first.sim.credentials.apiKey },
        })
      ).status,
    ).toBe(200);
    await first.sim.close();
    open.splice(open.indexOf(first.sim), 1);
    expect(readdirSync(dataDir)).toEqual(["journal.0.jsonl"]); // one journal, no temporary file left behind
    const changes = readFileSync(path.join(dataDir, "journal.0.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { kind: string });
    expect(changes.map((c) => c.kind)).toEqual(["bondPrices", "launcherItem", "reports"]);

    const second = await start({ dataDir });
    const curve = await second.rp.rateAsset.getCurve({ currency: "EUR", market_date: "2026-11-20" });
    expect(curve.yield_curve_model.data.some((p) => p.fitted_instrument_name === "BOND DE0001102580")).toBe(true);
    const infos = await second.rp.report.infos({ pricing_date: "2026-11-20", portfolio_names: ["RATES-EU"] });
    expect(infos.report_infos.filter((r) => r.id.startsWith("rep-l")).map((r) => r.description)).toEqual([
      "Run of saved PnL launcher item item-000001 (batch run on request)",
    ]);
  });

  it("concurrent uploads are all kept", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "rpl-sim-"));
    dirs.push(dataDir);
    const { rp } = await start({ dataDir });
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => rp.marketData.uploadBondPrices({ bond_data: [bund(95 + i / 10)] })),
    );
    const lines = readFileSync(path.join(dataDir, "journal.0.jsonl"), "utf8").trim().split("\n");
    expect(lines.flatMap((l) => (JSON.parse(l) as { records: unknown[] }).records)).toHaveLength(20);
  });
});

describe("fault injection", () => {
  it("an error rate of 1 answers 500 or 503 problem details", async () => {
    const { sim } = await start({ faults: { errorRate: 1 } });
    const res = await raw(`${sim.url}/api/Report/LookBacks`, { headers: { "x-api-key": sim.credentials.apiKey } });
    expect([500, 503]).toContain(res.status);
    expect(res.body).toMatchObject({ detail: "injected fault" });
  });

  it("dropped connections and truncated bodies reach the client as NetworkErrors", async () => {
    for (const faults of [{ dropRate: 1 }, { truncateRate: 1 }]) {
      const { rp } = await start({ faults });
      await expect(rp.report.lookBacks()).rejects.toBeInstanceOf(NetworkError);
    }
  });

  it("with half the answers failing, the client's retries still get every read through", async () => {
    const { sim } = await start({ faults: { errorRate: 0.3, dropRate: 0.2, latencyMs: [0, 5] } });
    const rp = new RiskPortalClient({
      baseUrl: sim.url,
      auth: { apiKey: sim.credentials.apiKey },
      retry: { limit: 10, baseDelayMs: 1, maxDelayMs: 5 },
    });
    const results = await Promise.all(Array.from({ length: 30 }, () => rp.report.lookBacks()));
    expect(results.every((r) => r.look_backs.length === 11)).toBe(true);
  });

  it("writes are not retried through injected failures, reads are", async () => {
    const { sim } = await start({ faults: { errorRate: 1 } });
    let retries = 0;
    const rp = new RiskPortalClient({
      baseUrl: sim.url,
      auth: { apiKey: sim.credentials.apiKey },
      retry: { limit: 3, baseDelayMs: 1, onRetry: () => retries++ },
    });
    await expect(rp.marketData.uploadBondPrices({ bond_data: [bund(96)] })).rejects.toBeInstanceOf(ServerError);
    expect(retries).toBe(0);
    await expect(rp.report.lookBacks()).rejects.toBeInstanceOf(ServerError);
    expect(retries).toBe(3);
  });
});
