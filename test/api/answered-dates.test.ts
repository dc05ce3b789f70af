/**
 * What an answer says of dates, read from wire assumption A23's table alone (ANSWERED_DATE_FIELDS): its
 * request field, the older plural field, and the path in the answer where the date is kept.
 */
import { describe, expect, it } from "vitest";
import { answeredDates } from "../../src/api/answered-dates";

describe("answeredDates", () => {
  it("reads the days asked from the older plural field too (GetReportInfos' pricing_dates)", () => {
    const body = { pricing_dates: ["2026-11-19T00:00:00Z", "2026-11-20"] };
    const answer = { report_infos: [{ pricing_date: "2026-11-20T00:00:00+00:00" }, { pricing_date: "2026-11-18" }] };
    const dates = answeredDates("GetReportInfos", body, answer);
    expect(dates?.asked).toEqual(["2026-11-19", "2026-11-20"]);
    expect(dates?.answered).toEqual(["2026-11-20", "2026-11-18"]);
    expect(dates?.other).toEqual(["2026-11-18"]);
  });

  it("follows a nested path (RateAsset's yield_curve_model.market_date) and names the subject", () => {
    const dates = answeredDates(
      "RateAsset",
      { currency: "EUR", market_date: "2026-11-21" },
      { yield_curve_model: { market_date: "2026-11-20T00:00:00Z" } },
    );
    expect(dates).toMatchObject({ subjectValue: "EUR", asked: ["2026-11-21"], other: ["2026-11-20"] });
  });

  it("gives no day for a path the answer does not have, and nothing for an operation without a date", () => {
    expect(answeredDates("RateAsset", { market_date: "2026-11-21" }, { yield_curve_model: null })?.answered).toEqual(
      [],
    );
    expect(answeredDates("GetReportInfos", { pricing_date: "2026-11-21" }, { report_infos: "x" })?.answered).toEqual(
      [],
    );
    expect(answeredDates("GetVol", { pricing_date: "2026-11-21" }, { pricing_date: "2026-11-20" })).toBeUndefined();
  });
});
