/** curves/linear.ts: the one piecewise-linear lookup behind plot's curves at tenors and the simulator's vol curves. */
import { describe, expect, it } from "vitest";
import { linearAt } from "../../src/curves/linear";

describe("linearAt", () => {
  const xs = [0.25, 1, 2, 10];
  const ys = [0.031, 0.0342, 0.0361, 0.0413];

  it("is exact at the nodes and linear between them", () => {
    xs.forEach((x, i) => expect(linearAt(xs, ys, x)).toBe(ys[i]));
    expect(linearAt(xs, ys, 1.5)).toBeCloseTo((0.0342 + 0.0361) / 2, 15);
    expect(linearAt(xs, ys, 6)).toBeCloseTo(0.0361 + 0.5 * (0.0413 - 0.0361), 15);
  });

  it('outside the nodes: NaN by default ("none"), the nearer end with "flat"', () => {
    expect(linearAt(xs, ys, 0.1)).toBeNaN();
    expect(linearAt(xs, ys, 30)).toBeNaN();
    expect(linearAt(xs, ys, 0.1, "flat")).toBe(0.031);
    expect(linearAt(xs, ys, 30, "flat")).toBe(0.0413);
    expect(linearAt(xs, ys, NaN, "flat")).toBeNaN();
  });

  it("has no value without nodes, and one node is flat or a point", () => {
    expect(linearAt([], [], 1, "flat")).toBeNaN();
    expect(linearAt([2], [5], 2)).toBe(5);
    expect(linearAt([2], [5], 3)).toBeNaN();
    expect(linearAt([2], [5], 3, "flat")).toBe(5);
  });

  it("takes typed arrays", () => {
    expect(linearAt(Float64Array.from(xs), Float64Array.from(ys), 2)).toBe(0.0361);
  });
});
