import { describe, expect, it } from "vitest";
import {
  volGrid,
  volGridColumns,
  volGridWide,
  volGridWideColumns,
  volResults,
  volResultsColumns,
  volResultsWide,
  volResultsWideColumns,
  type GetVolResult,
} from "../../src/frames/vol";
import { fixture } from "./helpers/fixtures";

const calls = () => fixture<{ calls: GetVolResult[] }>("get-vol.json").calls;

/** A 2 × 3 grid as the local model returns it (Float64Arrays, row-major). */
const grid = {
  maturities: Float64Array.from([30, 91]),
  strikes: Float64Array.from([90, 100, 110]),
  strikeType: 1,
  vols: Float64Array.from([0.26, 0.24, 0.235, 0.25, 0.23, 0.228]),
};

describe("volResultsColumns", () => {
  it("labels one GetVol response with its request: maturity, strike, vol, strike_type", () => {
    const [first] = calls();
    const t = volResultsColumns(first!.response, first!.request);
    expect(t.columns).toEqual(["maturity", "strike", "vol", "strike_type"]);
    expect(t.data.strike).toEqual([80, 90, 100, 110, 120]);
    expect(t.data.vol).toEqual([0.3021, 0.2688, 0.2412, 0.2301, 0.2375]);
    expect(new Set(t.data.maturity)).toEqual(new Set([30]));
  });

  it("stacks many calls, in call then strike order", () => {
    const t = volResultsColumns(calls());
    expect(t.rowCount).toBe(13);
    expect(t.data.maturity!.slice(9)).toEqual([91, 365, 365, 365]);
  });

  it("refuses a response with a different number of vols than strikes", () => {
    expect(() => volResultsColumns({ vols: [0.2] }, { maturity: 30, strikes: [90, 100] })).toThrow(
      /returned 1 vols for 2 strikes/,
    );
    expect(() => (volResultsColumns as (r: unknown) => unknown)({ vols: [0.2] })).toThrow(
      /the request \(maturity and strikes\) is needed/,
    );
  });
});

describe("volResultsWideColumns", () => {
  it("pivots to maturities × strikes, both ascending, with missing cells where a call had no such strike", () => {
    const t = volResultsWideColumns(calls());
    expect(t.columns).toEqual(["maturity", "70", "80", "90", "100", "110", "120", "130"]);
    expect(t.data.maturity).toEqual([30, 91, 365]);
    expect(t.data["100"]).toEqual([0.2412, 0.2301, 0.2104]);
    expect(t.data["70"]).toEqual([NaN, NaN, 0.2705]);
  });
});

describe("volGridColumns / volGridWideColumns (local-model grids)", () => {
  it("reads the row-major grid long: maturity-major, strike_type in meta", () => {
    const t = volGridColumns(grid);
    expect(t.data.maturity).toEqual([30, 30, 30, 91, 91, 91]);
    expect(t.data.strike).toEqual([90, 100, 110, 90, 100, 110]);
    expect(t.data.vol).toEqual([0.26, 0.24, 0.235, 0.25, 0.23, 0.228]);
    expect(t.meta.fields.strike_type).toBe(1);
  });

  it("reads it wide: one row per maturity, one column per strike", () => {
    const t = volGridWideColumns(grid);
    expect(t.columns).toEqual(["maturity", "90", "100", "110"]);
    expect(t.data["110"]).toEqual([0.235, 0.228]);
  });

  it("refuses a grid whose vols do not fill maturities × strikes", () => {
    expect(() => volGridColumns({ ...grid, vols: new Float64Array(5) })).toThrow(/5 vols for 2 maturities × 3 strikes/);
  });
});

describe("the DataFrame versions", () => {
  it("volResults, volResultsWide, volGrid and volGridWide are danfo frames of the tables", () => {
    const [first] = calls();
    expect(volResults(first!.response, first!.request).shape).toEqual([5, 4]);
    expect(volResults(calls()).shape).toEqual([13, 4]);
    expect(volResultsWide(calls()).columns).toEqual(["maturity", "70", "80", "90", "100", "110", "120", "130"]);
    expect(volGrid(grid).shape).toEqual([6, 3]);
    const wide = volGridWide(grid);
    expect(wide.shape).toEqual([2, 4]);
    expect(wide.column("100").values).toEqual([0.24, 0.23]);
  });
});
