/** VolModelError: one error class, naming benchmark, field and condition. */
import { describe, expect, it } from "vitest";
import { VolModelError } from "../../src/vol";
import { fmt } from "../../src/vol/errors";

describe("VolModelError", () => {
  it("is an Error named VolModelError with benchmark, field and condition", () => {
    const e = new VolModelError("benchmark 2 (maturity 182 d): skew …", {
      benchmark: 2,
      field: "skews",
      condition: "-p < 2·psi < c",
    });
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe("VolModelError");
    expect(e).toMatchObject({ benchmark: 2, field: "skews", condition: "-p < 2·psi < c" });
    expect(String(e)).toBe("VolModelError: benchmark 2 (maturity 182 d): skew …");
  });
  it("leaves benchmark and field out when they do not apply", () => {
    const e = new VolModelError("x", { condition: "c" });
    expect("benchmark" in e).toBe(false);
    expect("field" in e).toBe(false);
  });
});

describe("fmt", () => {
  it("writes numbers to 10 significant digits in JavaScript's notation", () => {
    expect(fmt(0.2)).toBe("0.2");
    expect(fmt(1 / 3)).toBe("0.3333333333");
    expect(fmt(3e-6)).toBe("0.000003");
    expect(fmt(-1.5e-9)).toBe("-1.5e-9");
    expect(fmt(1e6)).toBe("1000000");
    expect(fmt(NaN)).toBe("NaN");
    expect(fmt(-Infinity)).toBe("-Infinity");
  });
});
