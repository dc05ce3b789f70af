/** plot.transactions over the simulator's GLOBAL-MACRO transaction table. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as frames from "../../src/frames";
import { transactions } from "../../src/plot";
import { simData, type SimData } from "./sim-data";

let d: SimData;
beforeAll(async () => {
  d = await simData();
});
afterAll(() => d.close());

function grossBy(table: frames.ColumnTable, currency: string, counterparty: string): number {
  let s = 0;
  for (let i = 0; i < table.rowCount; i++)
    if (table.data.currency![i] === currency && table.data.counterparty![i] === counterparty)
      s += Math.abs(table.data.notional![i] as number);
  return s;
}

describe("transactions", () => {
  it("draws gross notional by counterparty as horizontal bars, one trace per currency, never adding currencies", async () => {
    const table = await d.trades();
    const fig = transactions(table);
    const currencies = [...new Set(table.data.currency as string[])];
    const bars = fig.data.filter((t) => t.type === "bar");
    expect(bars.map((t) => t.name).sort()).toEqual(currencies.sort());
    for (const bar of bars) {
      expect(bar.orientation).toBe("h");
      (bar.y as string[]).forEach((cp, i) =>
        expect((bar.x as number[])[i]).toBeCloseTo(grossBy(table, bar.name!, cp), 4),
      );
    }
    // Largest counterparty at the top (the last category of the axis), ranked by its share of each
    // currency's gross: amounts in different currencies are never added.
    const ccyTotal = (b: (typeof bars)[number]) => (b.x as number[]).reduce((s, v) => s + v, 0);
    const total = (cp: string) =>
      bars.reduce((s, b) => s + (b.x as number[])[(b.y as string[]).indexOf(cp)]! / ccyTotal(b), 0);
    const order = bars[0]!.y as string[];
    expect(order.map(total)).toEqual([...order.map(total)].sort((a, b) => a - b));
    // One axis per currency: JPY amounts never squash USD ones.
    const axes = bars.map((b) => b.xaxis as string);
    expect(new Set(axes).size).toBe(bars.length);
    expect(axes).not.toContain("x2");
    const layout = fig.layout as Record<string, { title?: { text?: string }; domain?: number[] }>;
    bars.forEach((b) => expect(layout[`xaxis${axes[bars.indexOf(b)]!.slice(1)}`]!.title?.text).toBe(b.name));
    const domains = axes.map((a) => layout[`xaxis${a.slice(1)}`]!.domain!);
    domains.forEach(([lo, hi], i) => {
      expect(lo).toBeGreaterThanOrEqual(0);
      expect(hi).toBeLessThanOrEqual(0.42 + 1e-12);
      if (i > 0) expect(lo).toBeGreaterThan(domains[i - 1]![1]!);
    });
  });

  it("or converts to one reporting currency with the rates given, and names a currency without one", async () => {
    const table = await d.trades();
    const currencies = [...new Set(table.data.currency as string[])];
    const rates = Object.fromEntries(currencies.map((c, i) => [c, c === "USD" ? 1 : 0.5 + i / 10]));
    const fig = transactions(table, { reportingCurrency: { currency: "USD", rates } });
    const bars = fig.data.filter((t) => t.type === "bar");
    expect(new Set(bars.map((b) => b.xaxis))).toEqual(new Set(["x"]));
    expect(fig.layout.xaxis?.title?.text).toBe("Gross notional (USD)");
    for (const bar of bars)
      (bar.y as string[]).forEach((cp, i) =>
        expect((bar.x as number[])[i]).toBeCloseTo(grossBy(table, bar.name!, cp) * rates[bar.name!]!, 2),
      );
    const { [currencies.find((c) => c !== "USD")!]: _dropped, ...partial } = rates;
    expect(() => transactions(table, { reportingCurrency: { currency: "USD", rates: partial } })).toThrow(
      /reportingCurrency\.rates has no rate for [A-Z]{3} \(USD per 1 [A-Z]{3}\)/,
    );
  });

  it("draws the cumulative quantity of the largest instruments of one asset class as step lines", async () => {
    const table = await d.trades();
    const fig = transactions(table);
    const lines = fig.data.filter((t) => t.type === "scatter");
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.length).toBeLessThanOrEqual(5);
    const classes = new Set(
      lines.map((l) => table.data.asset_class![(table.data.instrument_name as string[]).indexOf(l.name!)]),
    );
    expect(classes.size).toBe(1);
    for (const line of lines) {
      expect(line.line).toMatchObject({ shape: "hv" });
      expect(line.xaxis).toBe("x2");
      const sum = (table.data.quantity as number[]).reduce(
        (s, q, i) => (table.data.instrument_name![i] === line.name ? s + q : s),
        0,
      );
      expect((line.y as number[]).at(-1)).toBeCloseTo(sum, 6);
      const x = line.x as string[];
      expect([...x].sort()).toEqual(x);
    }
    expect(fig.layout.yaxis2).toMatchObject({ title: { text: "Cumulative quantity (units)" }, anchor: "x2" });
    expect(fig.layout.xaxis2).toMatchObject({ title: { text: "Trade date" }, type: "date" });
  });

  it("draws the instruments asked for, by name or tradable id, and names an unknown one", async () => {
    const table = await d.trades();
    const id = table.data.tradable_id![0] as string;
    const name = table.data.instrument_name![0] as string;
    const fig = transactions(frames.toDataFrame(table), { instruments: [id] });
    expect(fig.data.filter((t) => t.type === "scatter").map((t) => t.name)).toEqual([name]);
    expect(() => transactions(table, { instruments: ["NOPE"] })).toThrow(/no trade of instrument "NOPE"/);
  });

  it("titles the chart with the trade count, counterparties and date span", async () => {
    const table = await d.trades();
    const count = table.rowCount.toLocaleString("en-US");
    expect(transactions(table).layout.title?.text).toMatch(
      new RegExp(`^Transactions · ${count} trades, 10 counterparties · \\d{4}-\\d{2}-\\d{2} to \\d{4}-\\d{2}-\\d{2}$`),
    );
  });
});
