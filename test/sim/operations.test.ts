/**
 * The simulator through the project's own client: every operation, each auth mode, and data that a
 * quant would find plausible (curves built from named instruments, filters honoured, lifecycles).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NotFoundError, OperationFailedError, RiskPortalClient, TRANSACTION_COLUMNS_FOR_TESTS } from "./helpers";
import { startSimulator, type Simulator } from "../../src/sim";

let sim: Simulator;
let rp: RiskPortalClient;

beforeAll(async () => {
  sim = await startSimulator({ rateLimit: false });
  rp = new RiskPortalClient({ baseUrl: sim.url, auth: { apiKey: sim.credentials.apiKey } });
});
afterAll(() => sim.close());

describe("auth modes against the simulator", () => {
  it("the bearer token, the API key and OAuth2 client credentials all work", async () => {
    const { bearerToken, apiKey, clientId, clientSecret, tokenUrl } = sim.credentials;
    for (const auth of [{ token: bearerToken }, { apiKey }, { clientId, clientSecret, tokenUrl }]) {
      const client = new RiskPortalClient({ baseUrl: sim.url, auth });
      expect((await client.report.lookBacks()).look_backs).toContain("1Y");
    }
  });
});

describe("discount curves", () => {
  it("exist for USD, EUR, GBP, JPY and CHF, each point fitted to a named instrument", async () => {
    for (const currency of ["USD", "EUR", "GBP", "JPY", "CHF"]) {
      const { yield_curve_model: curve } = await rp.rateAsset.getCurve({ currency, market_date: "2026-11-20" });
      expect(curve.currency).toBe(currency);
      expect(curve.market_date).toBe("2026-11-20T00:00:00+00:00");
      expect(curve.data.length).toBeGreaterThanOrEqual(15);
      const names = curve.data.map((p) => p.fitted_instrument_name!);
      expect(names.some((n) => n.includes("DEPO"))).toBe(true);
      expect(names.some((n) => n.includes("SWAP 10Y"))).toBe(true);
      expect(names.some((n) => /FRA|FUT/.test(n))).toBe(true);
      const maturities = curve.data.map((p) => p.maturity);
      expect([...maturities].sort((a, b) => a - b)).toEqual(maturities);
      for (const p of curve.data) {
        expect(p.rate).toBeGreaterThan(-0.01);
        expect(p.rate).toBeLessThan(0.15);
        // The expiry and the maturity agree (ACT/365 from the market date).
        expect(
          Math.abs((Date.parse(p.expiry!) - Date.parse(curve.market_date)) / (365 * 86_400_000) - p.maturity),
        ).toBeLessThan(1e-5);
        // A deposit quote is the simple-rate twin of the zero rate: close, never identical in general.
        expect(Math.abs(p.fitted_instrument_rate! - p.rate)).toBeLessThan(0.01);
      }
    }
  });

  it("moves by basis points, not percent, from one business day to the next", async () => {
    const days = ["2026-11-16", "2026-11-17", "2026-11-18", "2026-11-19", "2026-11-20"];
    const curves = await Promise.all(days.map((d) => rp.rateAsset.getCurve({ currency: "EUR", market_date: d })));
    for (let i = 1; i < curves.length; i++) {
      const a = curves[i - 1]!.yield_curve_model.data;
      const b = curves[i]!.yield_curve_model.data;
      const tenY = (pts: typeof a) => pts.find((p) => p.fitted_instrument_name === "EUR SWAP 10Y")!.rate;
      const move = Math.abs(tenY(b) - tenY(a));
      expect(move).toBeGreaterThan(0);
      expect(move).toBeLessThan(0.004);
    }
  });

  it("covers two years of business days and answers a weekend with the Friday curve", async () => {
    const saturday = await rp.rateAsset.getCurve({ currency: "GBP", market_date: "2026-11-21" });
    expect(saturday.yield_curve_model.market_date).toBe("2026-11-20T00:00:00+00:00");
    const old = await rp.rateAsset.getCurve({ currency: "GBP", market_date: "2024-12-02" });
    expect(old.yield_curve_model.market_date).toBe("2024-12-02T00:00:00+00:00");
    await expect(rp.rateAsset.getCurve({ currency: "GBP", market_date: "2020-01-02" })).rejects.toBeInstanceOf(
      NotFoundError,
    );
    await expect(rp.rateAsset.getCurve({ currency: "SEK", market_date: "2026-11-20" })).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });

  it("is the same data for the same seed and different data for another seed", async () => {
    const twin = await startSimulator({ rateLimit: false, seed: 1 });
    const other = await startSimulator({ rateLimit: false, seed: 2 });
    try {
      const get = (s: Simulator) =>
        new RiskPortalClient({ baseUrl: s.url, auth: { apiKey: s.credentials.apiKey } }).rateAsset.getCurve({
          currency: "USD",
          market_date: "2026-06-01",
        });
      const [a, b, c] = await Promise.all([
        rp.rateAsset.getCurve({ currency: "USD", market_date: "2026-06-01" }),
        get(twin),
        get(other),
      ]);
      expect(b).toEqual(a);
      expect(c.yield_curve_model.data[5]!.rate).not.toBe(a.yield_curve_model.data[5]!.rate);
    } finally {
      await Promise.all([twin.close(), other.close()]);
    }
  });
});

describe("tradables", () => {
  it("GetVol uses the project's vol model: ATM-forward at a benchmark is the benchmark's vol", async () => {
    const surface = await (
      await fetch(`${sim.url}/sim/surface?asset=SPX`, { headers: { "x-api-key": sim.credentials.apiKey } })
    ).json();
    const { vols, strike_type } = await rp.tradable.getVol({
      surface,
      maturity: surface.benchmark_maturities[3],
      strikes: [80, 100, 120],
      strike_type: 1,
    });
    expect(strike_type).toBe(1);
    expect(vols[1]).toBeCloseTo(surface.vols[3], 12);
    expect(vols[0]).toBeGreaterThan(vols[1]!); // equity skew: puts richer
    expect(vols[1]).toBeGreaterThan(vols[2]!);
  });

  it("serves equity surfaces free of static arbitrage, for every seed tried", async () => {
    const { diagnose } = await import("../../src/vol");
    for (const seed of [1, 2, 3]) {
      const other = seed === 1 ? sim : await startSimulator({ rateLimit: false, seed });
      try {
        const tradables = (await (
          await fetch(`${other.url}/sim/tradables`, { headers: { "x-api-key": other.credentials.apiKey } })
        ).json()) as {
          id: string;
          kind: string;
        }[];
        for (const t of tradables.filter((x) => x.kind === "equity")) {
          const report = diagnose(
            await (
              await fetch(`${other.url}/sim/surface?asset=${t.id}`, {
                headers: { "x-api-key": other.credentials.apiKey },
              })
            ).json(),
          );
          expect(report.ok, `${t.id} (seed ${seed}): ${JSON.stringify(report).slice(0, 300)}`).toBe(true);
        }
      } finally {
        if (other !== sim) await other.close();
      }
    }
  });

  it("briefs every tradable it lists, and an unknown tradable is a 404 with problem details", async () => {
    const tradables = (await (
      await fetch(`${sim.url}/sim/tradables`, { headers: { "x-api-key": sim.credentials.apiKey } })
    ).json()) as {
      id: string;
      kind: string;
    }[];
    expect(new Set(tradables.map((t) => t.kind))).toEqual(new Set(["bond", "equity", "option"]));
    for (const t of tradables) expect((await rp.tradable.brief({ tradableId: t.id })).brief).toContain(t.id);
    const error = await rp.tradable.brief({ tradableId: "NOPE.XX" }).catch((e) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.problem).toMatchObject({
      status: 404,
      title: "Tradable not found",
      detail: "No tradable with id 'NOPE.XX'",
      instance: "/api/Tradable/GetTradableBrief?tradableId=NOPE.XX",
    });
  });

  it("position effects make sense: a buy adds quantity and pays cash, a coupon adds cash, a redemption removes the bond", async () => {
    const effects = async (tradable_id: string, next_trade_event: Record<string, unknown> & { $type: string }) =>
      (
        await rp.tradable.positionEffects({ tradable_id, next_trade_event, pricing_date: "2026-11-20" })
      ).position_effects.map((e) => [e.contract.identifier, e.quantity]);
    expect(await effects("AAPL.XNAS", { $type: "BuyEvent", unit_price: 200, quantity: 50 })).toEqual([
      ["AAPL.XNAS", 50],
      ["USD", -10_000],
    ]);
    expect(await effects("DE0001102580", { $type: "CouponEvent", amount_per_unit: 2.2, quantity: 1_000_000 })).toEqual([
      ["EUR", 22_000],
    ]);
    expect(
      await effects("US91282CFX42", { $type: "RedemptionEvent", redemption_price: 100, quantity: 2_000_000 }),
    ).toEqual([
      ["US91282CFX42", -2_000_000],
      ["USD", 2_000_000],
    ]);
    expect(await effects("SAP.XETR", { $type: "StockSplitEvent", ratio: 2, quantity: 300 })).toEqual([
      ["SAP.XETR", 300],
    ]);
  });

  it("every tradable's own next event yields effects through the client", async () => {
    const tradables = (await (
      await fetch(`${sim.url}/sim/tradables`, { headers: { "x-api-key": sim.credentials.apiKey } })
    ).json()) as {
      id: string;
      next_trade_event: { date: string; event: Record<string, unknown> & { $type: string } };
    }[];
    for (const t of tradables) {
      const out = await rp.tradable.positionEffects({
        tradable_id: t.id,
        next_trade_event: t.next_trade_event.event,
        pricing_date: t.next_trade_event.date,
      });
      expect(out.position_effects.length).toBeGreaterThan(0);
      for (const e of out.position_effects) expect(Number.isFinite(e.quantity)).toBe(true);
    }
  });
});

describe("transaction tables", () => {
  it("has the A13 columns, thousands of rows by default, in trade-date order", async () => {
    const { data_table } = await rp.position.transactionTable({
      portfolio_name: "GLOBAL-MACRO",
      include_zero_quantities: true,
    });
    const rows = data_table as Record<string, unknown>[];
    expect(rows.length).toBe(5_000);
    expect(Object.keys(rows[0]!)).toEqual([...TRANSACTION_COLUMNS_FOR_TESTS]);
    const dates = rows.map((r) => String(r.trade_date));
    expect([...dates].sort()).toEqual(dates);
    for (const r of rows.slice(0, 200))
      expect(r.notional).toBeCloseTo(
        Number(r.quantity) * Number(r.price) * (r.asset_class === "Bond" ? 0.01 : r.asset_class === "Option" ? 100 : 1),
        2,
      );
  });

  it("respects start_date, end_date, include_zero_quantities and counterparties", async () => {
    const all = (await rp.position.transactionTable({ portfolio_name: "EQ-LONG-SHORT", include_zero_quantities: true }))
      .data_table as Record<string, unknown>[];
    const zeros = all.filter((r) => r.quantity === 0).length;
    expect(zeros).toBeGreaterThan(0);
    const nonZero = (await rp.position.transactionTable({ portfolio_name: "EQ-LONG-SHORT" })).data_table as Record<
      string,
      unknown
    >[];
    expect(nonZero.length).toBe(all.length - zeros);

    const window = (
      await rp.position.transactionTable({
        portfolio_name: "EQ-LONG-SHORT",
        start_date: "2026-10-01",
        end_date: "2026-10-31",
        counterparties: ["GS", "JPM"],
        include_zero_quantities: true,
      })
    ).data_table as Record<string, unknown>[];
    const expected = all.filter(
      (r) =>
        String(r.trade_date) >= "2026-10-01" &&
        String(r.trade_date) < "2026-11-01" &&
        ["GS", "JPM"].includes(String(r.counterparty)),
    );
    expect(window).toEqual(expected);
    expect(window.length).toBeGreaterThan(10);
  });

  it("an unknown portfolio is a 404", async () => {
    await expect(rp.position.transactionTable({ portfolio_name: "NOPE" })).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe("reports and users", () => {
  it("report infos over past dates, filtered by date, portfolio and type", async () => {
    const { report_infos } = await rp.report.infos({
      pricing_dates: ["2026-11-19", "2026-11-20"],
      portfolio_names: ["RATES-EU", "GLOBAL-MACRO"],
    });
    expect(report_infos).toHaveLength(8);
    expect(new Set(report_infos.map((r) => r.portfolio_name))).toEqual(new Set(["RATES-EU", "GLOBAL-MACRO"]));
    const external = await rp.report.infos({ pricing_date: "2026-11-20", portfolio_type: "external" });
    expect(external.report_infos.every((r) => r.portfolio_type === "external")).toBe(true);
    expect(external.report_infos.length).toBe(2);
  });

  it("over sixty business days the statuses are mostly succeeded, with some warnings and failures", async () => {
    const dates = Array.from({ length: 60 }, (_, i) =>
      new Date(Date.parse("2026-11-20") - i * 86_400_000).toISOString().slice(0, 10),
    );
    const { report_infos } = await rp.report.infos({ pricing_dates: dates });
    const having = (status: string) => report_infos.filter((r) => r.status === status);
    expect(report_infos.length).toBe(44 * 8); // 44 business days in those 60 calendar days, 8 definitions
    expect(having("succeeded").length / report_infos.length).toBeGreaterThan(0.7);
    expect(having("warning").length).toBeGreaterThan(0);
    expect(having("failed").length).toBeGreaterThan(0);
    for (const r of [...having("failed"), ...having("warning")]) expect(r.status_message).not.toBe("");
  });

  it("lists report definitions, look-backs and two API keys", async () => {
    const list = await rp.report.list();
    expect(list.report_infos.some((r) => r.report_type === "risk")).toBe(true);
    expect((await rp.report.lookBacks()).look_backs).toEqual([
      "6M",
      "1Y",
      "2Y",
      "3Y",
      "4Y",
      "5Y",
      "6Y",
      "7Y",
      "8Y",
      "9Y",
      "10Y",
    ]);
    const keys = await rp.user.apiKeys();
    expect(keys).toHaveLength(2);
    expect(keys.map((k) => k.exposed_value)).toContain(sim.credentials.apiKey);
  });

  it("a launch for an unknown portfolio fails as an operation, naming why", async () => {
    const error = await rp.reportLauncher
      .createRisk({
        report_name: "x",
        reporting_currency: "USD",
        market_data_environment_names: ["EOD"],
        portfolio_name: "NOPE",
        parameters: { report_cutoff: "1Y", run_date: "2026-11-20" },
      })
      .catch((e) => e);
    expect(error).toBeInstanceOf(OperationFailedError);
    expect(error.errorMessages[0]).toMatch(/Portfolio 'NOPE' not found/);
  });
});
