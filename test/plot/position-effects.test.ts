/** plot.positionEffects of a trade event priced by the simulator. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as frames from "../../src/frames";
import { positionEffects } from "../../src/plot";
import { AS_OF, simData, type SimData } from "./sim-data";

let d: SimData;
beforeAll(async () => {
  d = await simData();
});
afterAll(() => d.close());

describe("positionEffects", () => {
  it("draws before and after bars per contract touched, after = before + the effect", async () => {
    const effects = await d.effects();
    expect(effects.position_effects.map((e) => e.contract.identifier)).toEqual(["SX5E.XEUR", "EUR"]);
    const fig = positionEffects(effects, { before: { "SX5E.XEUR": 10_000, EUR: 5e6 } });
    expect(fig.data).toHaveLength(4);
    expect(fig.data.map((t) => t.name)).toEqual(["before", "after", "before", "after"]);
    const [units, cash] = effects.position_effects;
    expect(fig.data[0]!.y).toEqual([10_000]);
    expect(fig.data[1]!.y).toEqual([10_000 + units!.quantity]);
    expect(fig.data[3]!.y).toEqual([5e6 + cash!.quantity]);
    expect(fig.data.map((t) => t.xaxis)).toEqual(["x", "x", "x2", "x2"]);
    expect(fig.data.map((t) => t.showlegend)).toEqual([true, true, false, false]);
    // An increase is blue, a decrease red.
    expect((fig.data[1]!.marker as { color: string }).color).toBe("#4e79a7");
    expect((fig.data[3]!.marker as { color: string }).color).toBe("#e15759");
    expect(fig.layout.title?.text).toBe(`Position effects · ${AS_OF}`);
  });

  it("writes each contract's change above its panel, and titles the first axis with units", async () => {
    const effects = await d.effects();
    const fig = positionEffects(frames.positionEffectsColumns(effects), { labels: { EUR: "EUR cash" } });
    const notes = (fig.layout.annotations as { text: string }[]).map((a) => a.text);
    expect(notes[0]).toContain("<b>SX5E.XEUR</b>");
    expect(notes[0]).toContain("+1,900");
    expect(notes[1]).toContain("<b>EUR cash</b>");
    expect(notes[1]).toMatch(/−[\d,]+/);
    expect((fig.layout.yaxis as { title: { text: string } }).title.text).toBe("Position (units; cash in its currency)");
    expect((fig.layout.yaxis2 as { title?: unknown }).title).toBeUndefined();
    // No positions given: everything starts at 0.
    expect(fig.data[0]!.y).toEqual([0]);
  });

  it("says so when the event changes no position", () => {
    const fig = positionEffects({ position_effects: [], pricing_date: "2026-11-20T00:00:00+00:00" });
    expect(fig.data).toEqual([]);
    expect((fig.layout.annotations as { text: string }[])[0]!.text).toBe("This event changes no position");
  });
});
