import { describe, expect, it } from "vitest";
import { positionEffects, positionEffectsColumns } from "../../src/frames/position-effects";
import { fixture } from "./helpers/fixtures";

const effects = () => fixture<Parameters<typeof positionEffectsColumns>[0]>("position-effects.json");

describe("positionEffectsColumns(response)", () => {
  it("has one row per effect with the contract identifier flattened and the pricing date on every row", () => {
    const t = positionEffectsColumns(effects());
    expect(t.columns).toEqual([
      "pricing_date",
      "quantity",
      "contract_identifier",
      "contract_currency",
      "contract_kind",
      "settlement",
    ]);
    expect(t.data.contract_identifier).toEqual(["AAPL.XNAS", "USD", "AAPL-DIV-2026Q4"]);
    expect(t.data.quantity).toEqual([100, -18950, 0.25]);
    expect((t.data.pricing_date as Date[]).map((d) => d.toISOString())).toEqual(
      Array(3).fill("2026-11-20T05:00:00.000Z"),
    );
  });

  it("keeps other contract fields and effect fields, missing where absent", () => {
    const t = positionEffectsColumns(effects());
    expect(t.data.contract_currency).toEqual(["USD", null, "USD"]);
    expect(t.data.settlement).toEqual([null, "T+2", null]);
  });

  it("gives an empty frame for no effects", () => {
    expect(positionEffects({ position_effects: [], pricing_date: "2026-11-20T00:00:00Z" }).shape).toEqual([0, 3]);
  });

  it("positionEffects is the DataFrame", () => {
    expect(positionEffects(effects()).dtypes.slice(0, 3)).toEqual(["datetime", "float64", "string"]);
  });
});
