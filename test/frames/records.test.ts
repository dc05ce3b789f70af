import { describe, expect, it } from "vitest";
import { otherFields, tableFromRecords } from "../../src/frames/records";

describe("tableFromRecords(records, specs, options)", () => {
  it("puts the known fields first with their hints, then extras in the order first seen", () => {
    const t = tableFromRecords(
      [
        { z: 1, id: "a" },
        { id: "b", y: "q", z: 2 },
      ],
      [{ name: "id", hint: "string" }],
      { source: "s" },
    );
    expect(t.columns).toEqual(["id", "z", "y"]);
    expect(t.data).toEqual({ id: ["a", "b"], z: [1, 2], y: [null, "q"] });
  });

  it("computes a column with get and leaves out excluded fields", () => {
    const t = tableFromRecords([{ c: { id: "x" } }], [{ name: "c_id", get: (r) => (r.c as { id: string }).id }], {
      source: "s",
      exclude: ["c"],
    });
    expect(t.columns).toEqual(["c_id"]);
  });

  it("reads a record that is not an object as empty and says so", () => {
    const t = tableFromRecords([{ a: 1 }, "oops"], [{ name: "a" }], { source: "s" });
    expect(t.data.a).toEqual([1, NaN]);
    expect(t.meta.warnings[0]?.message).toMatch(/record 1 is not an object \("oops"\)/);
  });

  it("otherFields keeps a response's fields except the listed ones", () => {
    expect(otherFields({ a: 1, b: 2 }, ["a"])).toEqual({ b: 2 });
    expect(otherFields([1], [])).toEqual({});
  });
});
