/** Strike conventions: the wire strike types, log-moneyness and forward call delta. */
import { describe, expect, it } from "vitest";
import { STRIKE_TYPE } from "../../src/api/assumptions";
import { LOCAL_STRIKE_TYPES, PERCENT_REFERENCE, VolModelError, fromSurface, normInv } from "../../src/vol";
import { checkStrikeType, logShift } from "../../src/vol/strikes";
import { SAMPLE, oneYear } from "./reference-model";

describe("checkStrikeType", () => {
  it("accepts the three wire values and the two local conventions", () => {
    for (const t of [STRIKE_TYPE.Absolute, STRIKE_TYPE.PercentForward, STRIKE_TYPE.PercentSpot, ...LOCAL_STRIKE_TYPES])
      expect(() => checkStrikeType(t)).not.toThrow();
  });
  it("refuses anything else with a VolModelError on strike_type", () => {
    for (const t of [3, -1, "1", null, undefined, "Absolute"]) expect(() => checkStrikeType(t)).toThrow(VolModelError);
  });
});

describe("logShift", () => {
  it("maps Absolute to −ln F, PercentForward to −ln 100, PercentSpot to ln S − ln 100 − ln F", () => {
    expect(logShift(STRIKE_TYPE.Absolute, 4.5, 4.4)).toBe(-4.5);
    expect(logShift(STRIKE_TYPE.PercentForward, 4.5, 4.4)).toBe(-Math.log(PERCENT_REFERENCE));
    expect(logShift(STRIKE_TYPE.PercentSpot, 4.5, 4.4)).toBeCloseTo(4.4 - Math.log(100) - 4.5, 15);
    expect(logShift("delta", 4.5, 4.4)).toBeUndefined();
    expect(logShift("logMoneyness", 4.5, 4.4)).toBeUndefined();
  });
});

describe("forward call delta", () => {
  it("is 0.5 + something at the money and the flat-vol strike for a flat smile", () => {
    const flat = fromSurface(oneYear({ vol: 0.2, skew: 0, smile: 1e6, putWing: 1e-6, callWing: 1e-6 }));
    // With an almost flat smile, k(delta) = −sqrt(w)·N⁻¹(delta) + w/2 with w = 0.04.
    const k = flat.logMoneyness(365, [0.25, 0.5, 0.75], "delta");
    [0.25, 0.5, 0.75].forEach((d, j) => expect(k[j]).toBeCloseTo(-0.2 * normInv(d) + 0.02, 6));
  });

  it("falls as the strike rises, from near 1 deep in the money to near 0 far out", () => {
    const s = fromSurface(SAMPLE);
    const d = s.callDelta(91, [10, 50, 80, 100, 120, 200, 1000], STRIKE_TYPE.PercentForward);
    for (let j = 1; j < d.length; j++) expect(d[j]).toBeLessThan(d[j - 1]!);
    expect(d[0]).toBeGreaterThan(0.999999);
    expect(d[6]).toBeLessThan(1e-6);
  });
});
