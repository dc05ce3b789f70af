/**
 * The journal when things go wrong (issue 13): a failed write changes nothing, in memory or on disk; a
 * last line cut anywhere (even just its newline) is ignored; a snapshot is complete or an error; lines
 * longer than a read are replayed whole; compactions never overlap; a kill -9 in the middle of a stream
 * of uploads keeps every acknowledged one. And the indexes answer as the state would, whatever order the
 * bootstraps finish in and whichever pricing days are asked for.
 */
import { appendFileSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { uploadBondPriceDataRequest } from "../../src/api/market-data";
import { rateAssetRequest } from "../../src/api/rate-asset";
import { getReportInfosRequest } from "../../src/api/report";
import { varLauncherItemCreateRequest } from "../../src/api/report-launcher";
import fc from "fast-check";
import { addBusinessDays, previousBusinessDay, utcDateOf } from "../../src/sim/calendar";
import { manualClock, type Clock } from "../../src/sim/clock";
import type { BondCurveOverride } from "../../src/sim/data/curves";
import { DEFAULT_REPORT_TIMING } from "../../src/sim/data/reports";
import { round } from "../../src/sim/round";
import { SimService } from "../../src/sim/service";
import { Store } from "../../src/sim/store";
import { Universe, yieldToMaturity } from "../../src/sim/data/universe";
import { cleanUp, price, startChild, tempDir } from "./store-helpers";

afterEach(cleanUp);

const journal = (dir: string, generation = 0) => path.join(dir, `journal.${generation}.jsonl`);

/** The prototype of node's FileHandle, to make one of its calls fail once. */
async function fileHandlePrototype<T>(dir: string): Promise<T> {
  const handle = await open(path.join(dir, "probe"), "w");
  await handle.close();
  rmSync(path.join(dir, "probe"));
  return Object.getPrototypeOf(handle) as T;
}

describe("a failed write", () => {
  it("half a line written, then an error: the change is not applied, the journal is cut back, later writes replay", async () => {
    const dir = tempDir();
    const store = await Store.open(dir);
    await store.update(() => ({ kind: "bondPrices", records: [price(1)] }));
    const before = statSync(journal(dir)).size;
    const proto = await fileHandlePrototype<{
      appendFile(this: unknown, data: string, encoding: string): Promise<void>;
    }>(dir);
    const appendFile = proto.appendFile;
    vi.spyOn(proto, "appendFile").mockImplementationOnce(async function (
      this: unknown,
      data: string,
      encoding: string,
    ) {
      await appendFile.call(this, data.slice(0, 40), encoding); // the disk filled up part of the way
      throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
    });
    await expect(store.update(() => ({ kind: "bondPrices", records: [price(2)] }))).rejects.toThrow(/ENOSPC/);
    expect(store.data.bondPrices).toEqual([price(1)]);
    expect(statSync(journal(dir)).size).toBe(before);
    expect(store.stats.failedWrites).toBe(1);
    await store.update(() => ({ kind: "bondPrices", records: [price(3)] }));
    await store.close();
    const again = await Store.open(dir);
    expect(again.data.bondPrices).toEqual([price(1), price(3)]);
    expect(again.stats.tornLinesIgnored).toBe(0);
    await again.close();
  });

  it("a failed flush (fsync) takes the whole line back off: an unacknowledged change never comes back after a restart", async () => {
    const dir = tempDir();
    const store = await Store.open(dir);
    const proto = await fileHandlePrototype<{ datasync(): Promise<void> }>(dir);
    vi.spyOn(proto, "datasync").mockRejectedValueOnce(
      Object.assign(new Error("EIO: i/o error, fsync"), { code: "EIO" }),
    );
    await expect(store.update(() => ({ kind: "bondPrices", records: [price(1)] }))).rejects.toThrow(/EIO/);
    expect(store.data.bondPrices).toEqual([]);
    await store.close();
    expect(statSync(journal(dir)).size).toBe(0);
    const again = await Store.open(dir);
    expect(again.data.bondPrices).toEqual([]);
    await again.close();
  });

  it("when the journal cannot even be cut back, every later write is refused rather than written after half a line", async () => {
    const dir = tempDir();
    const store = await Store.open(dir);
    const proto = await fileHandlePrototype<{ datasync(): Promise<void>; truncate(): Promise<void> }>(dir);
    vi.spyOn(proto, "datasync").mockRejectedValueOnce(new Error("EIO: i/o error, fsync"));
    vi.spyOn(proto, "truncate").mockRejectedValueOnce(new Error("EIO: i/o error, ftruncate"));
    await expect(store.update(() => ({ kind: "bondPrices", records: [price(1)] }))).rejects.toThrow(
      /EIO: i\/o error, fsync/,
    );
    await expect(store.update(() => ({ kind: "bondPrices", records: [price(2)] }))).rejects.toThrow(
      /could not be cut back after a failed write/,
    );
    expect(store.data.bondPrices).toEqual([]);
    await store.close();
  });
});

describe("replay", () => {
  it("a last line cut just before its newline is torn too: ignored and cut off, so the next change starts a line of its own", async () => {
    const dir = tempDir();
    const store = await Store.open(dir);
    await store.update(() => ({ kind: "bondPrices", records: [price(1)] }));
    await store.close();
    appendFileSync(journal(dir), JSON.stringify({ kind: "bondPrices", records: [price(2)] })); // every byte but the "\n"
    const reopened = await Store.open(dir);
    expect(reopened.stats.tornLinesIgnored).toBe(1);
    expect(reopened.data.bondPrices).toEqual([price(1)]);
    await reopened.update(() => ({ kind: "bondPrices", records: [price(3)] }));
    await reopened.close();
    const third = await Store.open(dir);
    expect(third.data.bondPrices).toEqual([price(1), price(3)]);
    await third.close();
  });

  it("lines longer than a read (a 40,000-record upload, characters split between reads) come back whole", async () => {
    const dir = tempDir();
    const store = await Store.open(dir);
    const records = Array.from({ length: 40_000 }, (_, i) => price(i, { provider_id: `Fournisseur données € ${i}` }));
    await store.update(() => ({ kind: "bondPrices", records }));
    await store.update(() => ({ kind: "bondPrices", records: [price(7)] }));
    await store.close();
    expect(statSync(journal(dir)).size).toBeGreaterThan(3 * (1 << 20));
    const again = await Store.open(dir);
    expect(again.data.bondPrices).toEqual([...records, price(7)]);
    await again.close();
  });

  it("a snapshot without its closing line is an error naming the file (it is renamed into place only when complete)", async () => {
    const dir = tempDir();
    const store = await Store.open(dir);
    await store.update(() => ({ kind: "bondPrices", records: [price(1)] }));
    await store.compactNow();
    await store.close();
    const snapshot = path.join(dir, "snapshot.jsonl");
    const lines = readFileSync(snapshot, "utf8").split("\n").filter(Boolean);
    expect(JSON.parse(lines.at(-1)!)).toEqual({ counters: { nextItem: 1, nextReport: 1 } });
    writeFileSync(snapshot, `${lines.slice(0, -1).join("\n")}\n`);
    await expect(Store.open(dir)).rejects.toThrow(/snapshot\.jsonl is damaged: it ends before its closing line/);
  });

  it("leftovers of a snapshot a crash interrupted are removed on open", async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, "snapshot.jsonl.4242.3.tmp"), '{"snapshot":1,"generation":3}\n{"kind":"bondPr');
    const store = await Store.open(dir);
    expect(readdirSync(dir)).toEqual(["journal.0.jsonl"]);
    await store.close();
  });
});

describe("compaction", () => {
  it("a slow compactNow holds off the background compactions: the older snapshot never lands over a newer one's journals", async () => {
    const dir = tempDir();
    const store = await Store.open(dir, { journalBytes: 2_000 });
    for (let i = 0; i < 5; i++) await store.update(() => ({ kind: "bondPrices", records: [price(i)] }));
    const proto = await fileHandlePrototype<{ write(this: unknown, ...args: unknown[]): Promise<unknown> }>(dir);
    const write = proto.write;
    // The first snapshot write (compactNow's) waits while the journal grows far past journalBytes.
    vi.spyOn(proto, "write").mockImplementationOnce(async function (this: unknown, ...args: unknown[]) {
      await new Promise((r) => setTimeout(r, 300));
      return write.apply(this, args);
    });
    const compacted = store.compactNow();
    for (let i = 5; i < 100; i++) await store.update(() => ({ kind: "bondPrices", records: [price(i)] }));
    await compacted;
    await store.close();
    const again = await Store.open(dir);
    expect(again.data.bondPrices).toEqual(Array.from({ length: 100 }, (_, i) => price(i)));
    await again.close();
  });

  it("one at a time: compactNow during background compactions and writes loses nothing", async () => {
    const dir = tempDir();
    const store = await Store.open(dir, { journalBytes: 4_000, chunk: 3 });
    const writes: Promise<void>[] = [];
    for (let i = 0; i < 300; i++) {
      writes.push(store.update(() => ({ kind: "bondPrices", records: [price(i)] })));
      if (i % 25 === 0) writes.push(store.compactNow());
    }
    await Promise.all(writes);
    await store.compactNow();
    await store.close();
    expect(store.stats.compactions).toBeGreaterThanOrEqual(13);
    // The snapshot and the one journal of its generation; the older ones and every temporary file are gone.
    expect(readdirSync(dir).sort()).toEqual([`journal.${snapshotGeneration(dir)}.jsonl`, "snapshot.jsonl"]);
    const again = await Store.open(dir);
    expect(again.data.bondPrices).toEqual(Array.from({ length: 300 }, (_, i) => price(i)));
    await again.close();
  });
});

function snapshotGeneration(dir: string): number {
  const header = JSON.parse(readFileSync(path.join(dir, "snapshot.jsonl"), "utf8").split("\n")[0]!) as {
    generation: number;
  };
  return header.generation;
}

describe("indexes beside the state", () => {
  const service = (store: Store, clock: Clock, bootstrapLagMs = 0) =>
    new SimService(
      {
        seed: 1,
        asOf: "2026-11-20",
        historyDays: 520,
        transactionRows: 10,
        reportDays: 10,
        reportTiming: DEFAULT_REPORT_TIMING,
        bootstrapLagMs,
        brand: "Service",
      },
      store,
      clock,
      [],
    );
  const upload = (traded_price: number) =>
    uploadBondPriceDataRequest.parse({
      bond_data: [
        {
          date: "2026-11-20",
          bond_identifier: { code: "DE0001102580", identifier_type: "ISIN" },
          currency: "EUR",
          traded_price,
          is_percentage_of_par: true,
          is_currency_per_bond_unit: false,
        },
      ],
      trigger_immediate_bootstrap: true,
    });
  const curve = (sim: SimService) =>
    JSON.stringify(sim.rateAsset(rateAssetRequest.parse({ currency: "EUR", market_date: "2026-11-20" })));

  it("the price stored last wins, even when an earlier one's bootstrap finishes later (a restart with a shorter lag); a restart agrees", async () => {
    const dir = tempDir();
    const clock = manualClock(Date.parse("2026-11-20T08:00:00Z"));
    const first = await Store.open(dir);
    await service(first, clock, 10_000).uploadBondPriceData(upload(95)); // in the curves at 08:00:10
    await first.close();
    const second = await Store.open(dir);
    const sim = service(second, clock, 0);
    await sim.uploadBondPriceData(upload(97)); // in the curves at once
    const at97 = curve(sim);
    clock.advance(10_000); // the 95 finishes its bootstrap now, but it was stored first
    expect(curve(sim)).toBe(at97);
    await second.close();
    const third = await Store.open(dir);
    expect(curve(service(third, clock, 0))).toBe(at97);
    await third.close();
  });

  it("curves from the index are those derived from every stored price (of a bond's prices of a day, the one stored last), whatever was uploaded when", async () => {
    const universe = new Universe(1, "2026-11-20");
    const days = ["2026-11-20", "2026-11-19", "2026-11-21T10:00:00Z", "2026-11-16"];
    const upload = fc.record({
      records: fc.array(
        fc.record({
          bond: fc.constantFrom(...universe.bonds.slice(0, 6)),
          date: fc.constantFrom(...days),
          price: fc.integer({ min: 9_000, max: 10_500 }),
        }),
        { minLength: 1, maxLength: 4 },
      ),
      bootstrap: fc.boolean(),
      thenMs: fc.constantFrom(0, 400, 1_000),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(upload, { minLength: 1, maxLength: 8 }), async (uploads) => {
        const clock = manualClock(Date.parse("2026-11-20T08:00:00Z"));
        const store = await Store.open();
        const sim = service(store, clock, 1_000);
        for (const u of uploads) {
          await sim.uploadBondPriceData(
            uploadBondPriceDataRequest.parse({
              bond_data: u.records.map((r) => ({
                date: r.date,
                bond_identifier: { code: r.bond.id, identifier_type: "ISIN" },
                currency: r.bond.currency,
                traded_price: r.price / 100,
                is_percentage_of_par: true,
                is_currency_per_bond_unit: false,
              })),
              trigger_immediate_bootstrap: u.bootstrap,
            }),
          );
          clock.advance(u.thenMs);
          for (const currency of ["EUR", "USD", "GBP"])
            for (const day of ["2026-11-20", "2026-11-19", "2026-11-16"]) {
              const got = sim.rateAsset(rateAssetRequest.parse({ currency, market_date: day })).yield_curve_model;
              // The derivation the index replaces: a walk over every stored price.
              const last = new Map<string, BondCurveOverride>();
              for (const p of store.data.bondPrices) {
                if (!p.bootstrapped || (p.bootstrapped_at_ms !== undefined && clock.now() < p.bootstrapped_at_ms))
                  continue;
                const bond = universe.bond(p.code)!;
                const d = previousBusinessDay(utcDateOf(p.date));
                last.set(`${bond.id}/${d}`, {
                  currency: bond.currency,
                  date: d,
                  name: `BOND ${bond.id}`,
                  expiry: bond.maturity,
                  yieldRate: yieldToMaturity(bond, d, p.traded_price),
                });
              }
              expect(JSON.stringify(got)).toBe(
                JSON.stringify(sim.curves.curve(currency as "EUR", day, [...last.values()])),
              );
            }
        }
      }),
      { numRuns: 40 },
    );
  });

  it("report infos of the days asked for are those of all days, filtered: same runs, same order", async () => {
    const clock = manualClock(Date.parse("2026-11-02T08:00:00Z"));
    const store = await Store.open();
    const sim = service(store, clock);
    const save = (name: string, run_date?: string) =>
      sim.launch(
        "var",
        varLauncherItemCreateRequest.parse({
          report_name: `${name} VaR 99% 1d`,
          portfolio_name: name,
          market_data_environment_names: ["EOD"],
          ...(run_date ? { run_date } : {}),
        }),
      );
    for (let day = 0; day < 15; day++) {
      expect((await save(day % 2 ? "GLOBAL-MACRO" : "RATES-EU", day % 3 ? undefined : "2026-11-13")).is_success).toBe(
        true,
      );
      if (day % 4 === 0) await sim.runBatch();
      clock.advance(86_400_000);
    }
    const asked = [
      ["2026-11-13"],
      ["2026-11-20", "2026-11-06"],
      ["2026-11-14"],
      ["2026-11-03", "2026-11-13", "2026-11-16", "2026-11-17"],
      ["2026-12-01"],
    ];
    for (const pricing_dates of asked) {
      const all = sim.allReportInfos().filter((i) => pricing_dates.includes(i.pricing_date.slice(0, 10)));
      expect(sim.reportInfos(getReportInfosRequest.parse({ pricing_dates })).report_infos).toEqual(all);
    }
    const friday = sim
      .reportInfos(getReportInfosRequest.parse({ pricing_date: "2026-11-13" }))
      .report_infos.map((i) => i.id.slice(0, 5));
    expect(friday.filter((p) => p === "rep-s")).toHaveLength(12); // items saved by Friday 08:00, each run at 22:00
    expect(friday.filter((p) => p === "rep-l").length).toBeGreaterThan(0); // batch runs priced on their run_date
  });
});

describe("kill -9 in the middle of a stream of uploads", () => {
  it("every upload acknowledged before the kill is there after a restart, each on its own day", async () => {
    const bund = new Universe(1, "2026-11-20").bond("DE0001102580")!;
    const dir = tempDir();
    const { child, rp } = await startChild(dir);
    const days = Array.from({ length: 80 }, (_, d) => addBusinessDays("2026-11-20", -d));
    const acknowledged: string[] = [];
    const dead = new Promise((resolve) => child.once("exit", resolve));
    // Eight at a time, a few hundred records each; the process is killed as the 30th acknowledgement arrives.
    let next = 0;
    const worker = async () => {
      while (next < days.length) {
        const day = days[next++]!;
        const bond_data = Array.from({ length: 300 }, (_, k) => ({
          date: day,
          bond_identifier: { code: "DE0001102580", identifier_type: "ISIN" },
          currency: "EUR",
          traded_price: 90 + k / 100,
          is_percentage_of_par: true,
          is_currency_per_bond_unit: false,
        }));
        try {
          await rp.marketData.uploadBondPrices({ bond_data, trigger_immediate_bootstrap: true });
        } catch {
          return; // the process is gone
        }
        acknowledged.push(day);
        if (acknowledged.length === 30) child.kill("SIGKILL");
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    await dead;
    expect(acknowledged.length).toBeGreaterThanOrEqual(30);

    const restarted = await startChild(dir);
    await new Promise((r) => setTimeout(r, 1_100)); // A19: the bootstraps finish a second after their uploads
    for (const day of acknowledged) {
      const curve = await restarted.rp.rateAsset.getCurve({ currency: "EUR", market_date: day });
      const bond = curve.yield_curve_model.data.filter((p) => p.fitted_instrument_name === "BOND DE0001102580");
      // The upload's last record (92.99) is the one in the curve: the whole upload is there.
      expect(
        bond.map((p) => p.fitted_instrument_rate),
        day,
      ).toEqual([round(yieldToMaturity(bund, day, 92.99), 8)]);
    }
  }, 30_000);
});
