/** plot.figure: the library's look on a figure built by hand, what the user sets winning. */
import { describe, expect, it } from "vitest";
import { figure, PALETTE } from "../../src/plot";

describe("plot.figure", () => {
  it("gives a hand-made figure the theme: font, palette, axes, legend, config", () => {
    const fig = figure({ data: [{ type: "bar", x: ["MS", "JPM"], y: [12.5, 9.1] }] });
    expect(fig.layout.colorway).toEqual([...PALETTE]);
    expect(fig.layout.font).toMatchObject({ size: 13 });
    expect(fig.layout.xaxis).toMatchObject({ showgrid: true, showline: true, ticks: "outside" });
    expect(fig.layout.yaxis).toMatchObject({ showgrid: true });
    expect(fig.layout.legend).toMatchObject({ orientation: "h" });
    expect(fig.config).toMatchObject({ responsive: true, displaylogo: false });
    expect(typeof (fig as unknown as Record<symbol, unknown>)[Symbol.for("Jupyter.display")]).toBe("function");
  });

  it("keeps what the user set: titles as plain strings, extra axes themed too, layout and config values win, input untouched", () => {
    const spec = {
      data: [
        { type: "scatter", x: [1, 2], y: [3, 4] },
        { type: "scatter", x: [1, 2], y: [30, 40], yaxis: "y2" },
      ],
      layout: {
        title: "Gross notional",
        height: 320,
        xaxis: { title: "Counterparty", tickangle: -30 },
        yaxis2: { title: { text: "Trades" }, overlaying: "y", side: "right" },
        legend: { x: 0.5 },
      },
      config: { displaylogo: true },
    };
    const before = JSON.stringify(spec);
    const fig = figure(spec);
    expect(fig.layout.title).toMatchObject({ text: "Gross notional", x: 0.01 });
    expect(fig.layout.height).toBe(320);
    expect(fig.layout.xaxis).toMatchObject({
      title: { text: "Counterparty", standoff: 10 },
      tickangle: -30,
      showgrid: true,
    });
    expect(fig.layout.yaxis2).toMatchObject({
      title: { text: "Trades" },
      overlaying: "y",
      side: "right",
      showline: true,
    });
    expect(fig.layout.legend).toMatchObject({ x: 0.5, orientation: "h" });
    expect(fig.config).toMatchObject({ displaylogo: true, responsive: true });
    expect(JSON.stringify(spec)).toBe(before);
  });

  it("says what it expected when given something else", () => {
    expect(() => figure({ layout: {} } as never)).toThrow(/plot\.figure expects a plotly figure/);
  });
});
