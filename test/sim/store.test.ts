/**
 * A simulator whose cost does not grow with its data (issue 13): each change is one fsynced journal line
 * (the state is never rewritten per write), compaction in the background replays to the same state and
 * keeps changes made while it runs, a torn last line is ignored and cut off, the earlier `state.json`
 * still loads, curves are derived from an index (each stored price once, not once per query), and
 * acknowledged uploads survive `kill -9` of a simulator process.
 */
import { appendFileSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { uploadBondPriceDataRequest } from "../../src/api/market-data";
import { rateAssetRequest } from "../../src/api/rate-asset";
import { addBusinessDays } from "../../src/sim/calendar";
import { systemClock } from "../../src/sim/clock";
import { DEFAULT_REPORT_TIMING } from "../../src/sim/data/reports";
import { SimService } from "../../src/sim/service";
import { Store } from "../../src/sim/store";
import { cleanUp, price, startChild, tempDir } from "./store-helpers";

afterEach(cleanUp);

const journalLines = (dir: string, generation = 0) =>
  readFileSync(path.join(dir, `journal.${generation}.jsonl`), "utf8")
    .split("\n")
    .filter(Boolean);

describe("the journal", () => {
  it("one fsynced line per change; the state is never rewritten per write", async () => {
    const dir = tempDir();
    const store = await Store.open(dir);
    for (let i = 0; i < 5; i++) await store.update(() => ({ kind: "bondPrices", records: [price(i)] }));
    expect(journalLines(dir)).toHaveLength(5);
    const size = statSync(path.join(dir, "journal.0.jsonl")).size;
    await store.update(() => ({ kind: "bondPrices", records: [price(5)] }));
    // The write cost its own size, not the state's.
    expect(statSync(path.join(dir, "journal.0.jsonl")).size - size).toBe(
      Buffer.byteLength(`${JSON.stringify({ kind: "bondPrices", records: [price(5)] })}\n`),
    );
    expect(readdirSync(dir)).toEqual(["journal.0.jsonl"]);
    await store.close();
    const again = await Store.open(dir);
    expect(again.data.bondPrices).toEqual([0, 1, 2, 3, 4, 5].map((i) => price(i)));
    await again.close();
  });

  it("a torn last line (a crash mid-append, never acknowledged) is ignored and cut off", async () => {
    const dir = tempDir();
    const store = await Store.open(dir);
    await store.update(() => ({ kind: "bondPrices", records: [price(1)] }));
    await store.close();
    appendFileSync(path.join(dir, "journal.0.jsonl"), '{"kind":"bondPrices","records":[{"code":"DE00');
    const reopened = await Store.open(dir);
    expect(reopened.stats.tornLinesIgnored).toBe(1);
    expect(reopened.data.bondPrices).toHaveLength(1);
    await reopened.update(() => ({ kind: "bondPrices", records: [price(2)] }));
    await reopened.close();
    const third = await Store.open(dir);
    expect(third.data.bondPrices.map((p) => p.traded_price)).toEqual([95.01, 95.02]);
    await third.close();
  });

  it("damage before the last line is an error naming the file, not a silently shorter state", async () => {
    const dir = tempDir();
    writeFileSync(
      path.join(dir, "journal.0.jsonl"),
      `{"kind":"bondPr\n${JSON.stringify({ kind: "bondPrices", records: [price(1)] })}\n`,
    );
    await expect(Store.open(dir)).rejects.toThrow(/journal\.0\.jsonl is damaged/);
  });

  it("reads the earlier state.json once and makes it the first snapshot", async () => {
    const dir = tempDir();
    writeFileSync(
      path.join(dir, "state.json"),
      JSON.stringify({
        version: 1,
        bondPrices: [price(7)],
        volCurves: [],
        launcherItems: [],
        reports: [],
        nextReport: 4,
        nextItem: 9,
      }),
    );
    const store = await Store.open(dir);
    expect(store.data).toMatchObject({ bondPrices: [price(7)], nextReport: 4, nextItem: 9 });
    expect(readdirSync(dir).sort()).toEqual(["journal.1.jsonl", "snapshot.jsonl"]);
    await store.close();
    const again = await Store.open(dir);
    expect(again.data).toMatchObject({ bondPrices: [price(7)], nextReport: 4, nextItem: 9 });
    await again.close();
  });
});

describe("compaction", () => {
  it("runs in the background once the journal is large, keeps changes made meanwhile, and replays to the same state", async () => {
    const dir = tempDir();
    const store = await Store.open(dir, { journalBytes: 20_000, chunk: 7 });
    const writes = Array.from({ length: 200 }, (_, i) =>
      store.update(() => ({ kind: "bondPrices", records: [price(i)] })),
    );
    writes.push(
      store.update((s) => ({
        kind: "launcherItem",
        item: { id: `item-${s.nextItem}` } as never,
        nextItem: s.nextItem + 1,
      })),
    );
    await Promise.all(writes);
    await store.close();
    expect(store.stats.compactions).toBeGreaterThan(0);
    const names = readdirSync(dir);
    expect(names).toContain("snapshot.jsonl");
    expect(names.filter((n) => n.endsWith(".tmp"))).toEqual([]);
    const again = await Store.open(dir);
    expect(again.data.bondPrices).toEqual(store.data.bondPrices);
    expect(again.data.bondPrices).toHaveLength(200);
    expect(again.data.nextItem).toBe(2);
    await again.close();
  });

  it("a crash between the new journal and the new snapshot loses nothing (old snapshot + both journals)", async () => {
    const dir = tempDir();
    const store = await Store.open(dir);
    await store.update(() => ({ kind: "bondPrices", records: [price(1)] }));
    await store.compactNow(); // snapshot of generation 1
    await store.update(() => ({ kind: "bondPrices", records: [price(2)] }));
    await store.close();
    // As if the next compaction had switched journals and died before its snapshot was renamed in.
    writeFileSync(
      path.join(dir, "journal.2.jsonl"),
      `${JSON.stringify({ kind: "bondPrices", records: [price(3)] })}\n`,
    );
    writeFileSync(path.join(dir, "snapshot.jsonl.999.2.tmp"), "half a snapsh");
    const again = await Store.open(dir);
    expect(again.data.bondPrices.map((p) => p.traded_price)).toEqual([95.01, 95.02, 95.03]);
    await again.close();
  });
});

describe("curves from an index", () => {
  const service = async (dir?: string) => {
    const store = await Store.open(dir);
    const sim = new SimService(
      {
        seed: 1,
        asOf: "2026-11-20",
        historyDays: 520,
        transactionRows: 10,
        reportDays: 5,
        reportTiming: DEFAULT_REPORT_TIMING,
        bootstrapLagMs: 0,
        brand: "Service",
      },
      store,
      systemClock,
      [],
    );
    return { store, sim };
  };
  const upload = (prices: number[], date: string) =>
    uploadBondPriceDataRequest.parse({
      bond_data: prices.map((p) => ({
        date,
        bond_identifier: { code: "DE0001102580", identifier_type: "ISIN" },
        currency: "EUR",
        traded_price: p,
        is_percentage_of_par: true,
        is_currency_per_bond_unit: false,
      })),
      trigger_immediate_bootstrap: true,
    });

  it("derives each stored price once, however often the curves are read; the latest price of a bond and day wins", async () => {
    const { store, sim } = await service();
    for (let d = 0; d < 50; d++) await sim.uploadBondPriceData(upload([95, 96, 97], addBusinessDays("2026-11-20", -d)));
    for (let q = 0; q < 20; q++) sim.rateAsset(rateAssetRequest.parse({ currency: "EUR", market_date: "2026-11-20" }));
    expect(sim.stats.pricesIndexed).toBe(150);
    expect(sim.stats.pointsDerived).toBe(1); // one bond on one day was asked for: one yield solved
    const curve = sim.rateAsset(
      rateAssetRequest.parse({ currency: "EUR", market_date: "2026-11-20" }),
    ).yield_curve_model;
    const bonds = curve.data.filter((p) => p.fitted_instrument_name === "BOND DE0001102580");
    expect(bonds).toHaveLength(1);
    expect(bonds[0]!.fitted_instrument_rate).toBeLessThan(0.022 + 0.01); // priced at 97, the last upload
    await store.close();
  });

  it("a restart rebuilds the index from the stored prices", async () => {
    const dir = tempDir();
    const first = await service(dir);
    await first.sim.uploadBondPriceData(upload([95.5], "2026-11-20"));
    const before = first.sim.rateAsset(rateAssetRequest.parse({ currency: "EUR", market_date: "2026-11-20" }));
    await first.store.close();
    const second = await service(dir);
    expect(second.sim.rateAsset(rateAssetRequest.parse({ currency: "EUR", market_date: "2026-11-20" }))).toEqual(
      before,
    );
    await second.store.close();
  });
});

describe("kill -9", () => {
  it("every acknowledged upload is there after the process is killed and restarted", async () => {
    const dir = tempDir();
    const { child, rp } = await startChild(dir);
    const days = Array.from({ length: 24 }, (_, d) => addBusinessDays("2026-11-20", -d));
    const bund = (date: string, p: number) => ({
      date,
      bond_identifier: { code: "DE0001102580", identifier_type: "ISIN" },
      currency: "EUR",
      traded_price: p,
      is_percentage_of_par: true,
      is_currency_per_bond_unit: false,
    });
    // Twelve uploads one after another, twelve at once: all acknowledged, then kill -9 at once.
    for (const day of days.slice(0, 12))
      await rp.marketData.uploadBondPrices({ bond_data: [bund(day, 96)], trigger_immediate_bootstrap: true });
    await Promise.all(
      days
        .slice(12)
        .map((day) =>
          rp.marketData.uploadBondPrices({ bond_data: [bund(day, 96)], trigger_immediate_bootstrap: true }),
        ),
    );
    const dead = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await dead;

    const restarted = await startChild(dir);
    // A19: the bootstraps finish a second (the default lag) after their uploads.
    await new Promise((r) => setTimeout(r, 1_100));
    for (const day of days) {
      const curve = await restarted.rp.rateAsset.getCurve({ currency: "EUR", market_date: day });
      expect(
        curve.yield_curve_model.data.some((p) => p.fitted_instrument_name === "BOND DE0001102580"),
        day,
      ).toBe(true);
    }
  }, 30_000);
});
