import { describe, expect, it } from "vitest";
import { operationOutcome, operationOutcomeColumns } from "../../src/frames/operation-outcome";
import { fixture } from "./helpers/fixtures";

describe("operationOutcomeColumns(outcome)", () => {
  it("has one row per error message, with the record index when the message names one", () => {
    const t = operationOutcomeColumns(fixture("outcome-best-effort.json"));
    expect(t.columns).toEqual(["message_index", "record_index", "error_message"]);
    expect(t.data.message_index).toEqual([0, 1, 2]);
    expect(t.data.record_index).toEqual([1, 4, NaN]);
    expect(t.data.error_message![2]).toBe("bootstrap of USD curve deferred");
  });

  it("keeps is_success and the short $type in meta.fields", () => {
    const t = operationOutcomeColumns(fixture("outcome-best-effort.json"));
    expect(t.meta.fields).toMatchObject({ is_success: false, operation_type: "ApiUploadBondPriceDataResponse" });
  });

  it("has no rows for a success", () => {
    const df = operationOutcome({ is_success: true, error_messages: [] });
    expect(df.shape).toEqual([0, 3]);
  });

  it("reads record numbers written in several ways", () => {
    const t = operationOutcomeColumns({
      is_success: false,
      error_messages: ["record 7: bad", "index 2 rejected", "#12 failed", "equity_vol_curves[0].vols[3]: must be > 0"],
    });
    expect(t.data.record_index).toEqual([7, 2, 12, 0]);
  });
});
