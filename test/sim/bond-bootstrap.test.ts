/**
 * Issue 41: the simulator's bootstrap says what an uploaded bond price does to a curve (the pillar it
 * replaces, in the upload's answer) and reads `traded_price` as a clean price (accrued interest added
 * before the yield is solved), as documented in src/api/assumptions.ts (TRADED_PRICE). Real HTTP.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RiskPortalClient } from "../../src";
import { startSimulator, type Simulator } from "../../src/sim";

const price = (code: string, currency: string, traded_price: number) => ({
  date: "2026-11-20T00:00:00Z",
  bond_identifier: { code },
  is_currency_per_bond_unit: false,
  currency,
  traded_price,
  is_percentage_of_par: true,
});

describe("bond uploads in the simulator's curves", () => {
  let dir: string;
  let sim: Simulator;
  let rp: RiskPortalClient;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "bond-bootstrap-"));
    sim = await startSimulator({ dataDir: path.join(dir, "sim"), rateLimit: false, bootstrapLagMs: 0 });
    rp = new RiskPortalClient({ baseUrl: sim.url, auth: { apiKey: sim.credentials.apiKey } });
  });
  afterAll(async () => {
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("the upload's answer names the pillar each bond replaces, and one that replaces none", async () => {
    const outcome = await rp.marketData.uploadBondPrices({
      bond_data: [price("DE0001102580", "EUR", 97.43), price("GB00BMBL1G81", "GBP", 96.25)],
    });
    expect(outcome.is_success).toBe(true);
    expect(outcome.error_messages).toHaveLength(2);
    expect(outcome.error_messages[0]).toMatch(
      /^note: bond DE0001102580 \(7\.2Y\) replaces pillar EUR SWAP 7Y in the EUR curve of 2026-11-20 \(rule: a bond replaces the swap pillars within six months of its maturity\); yield \d\.\d{3}% from traded_price 97\.43 read as a clean price \+ accrued \d\.\d{3}$/,
    );
    expect(outcome.error_messages[1]).toMatch(
      /^note: bond GB00BMBL1G81 \(1\.0Y\) adds a pillar to the GBP curve of 2026-11-20, replacing none \(no swap pillar within six months of its maturity\); yield 8\.216% from traded_price 96\.25 read as a clean price \+ accrued 1\.928$/,
    );
  });

  it("a gilt at 96.25 clean becomes an 8.22% pillar (10.35% is its yield read as a dirty price)", async () => {
    // GB00BMBL1G81: 4.25% semi-annual to 2027-12-07. On 2026-11-20 its flows are 2.125 in 17 and 199 days
    // and 102.125 in 382; the last coupon was 166 days ago in a 183-day period.
    const accrued = (2.125 * 166) / 183;
    const value = (y: number) =>
      2.125 / (1 + y) ** (17 / 365) + 2.125 / (1 + y) ** (199 / 365) + 102.125 / (1 + y) ** (382 / 365);
    const yieldAt = (price: number) => {
      let lo = -0.5;
      let hi = 1;
      for (let i = 0; i < 100; i++)
        if (value((lo + hi) / 2) > price) lo = (lo + hi) / 2;
        else hi = (lo + hi) / 2;
      return lo;
    };
    const curve = await rp.rateAsset.getCurve({ currency: "GBP", market_date: "2026-11-20" });
    const point = curve.yield_curve_model.data.find((p) => p.fitted_instrument_name === "BOND GB00BMBL1G81");
    expect(point?.fitted_instrument_rate).toBeCloseTo(yieldAt(96.25 + accrued), 7);
    expect(yieldAt(96.25 + accrued)).toBeCloseTo(0.08216, 5);
    expect(yieldAt(96.25)).toBeCloseTo(0.10352, 5);
    const eur = await rp.rateAsset.getCurve({ currency: "EUR", market_date: "2026-11-20" });
    const names = eur.yield_curve_model.data.map((p) => p.fitted_instrument_name);
    expect(names).toContain("BOND DE0001102580");
    expect(names).not.toContain("EUR SWAP 7Y");
  });

  it("without a bootstrap, no note: nothing enters a curve", async () => {
    const outcome = await rp.marketData.uploadBondPrices({
      trigger_immediate_bootstrap: false,
      bond_data: [price("DE0001102580", "EUR", 97.5)],
    });
    expect(outcome).toMatchObject({ is_success: true, error_messages: [] });
  });
});
