import { describe, expect, it } from "vitest";
import { REPORT_STATUSES, PORTFOLIO_TYPES } from "../../src/api/assumptions";
import { frameInfo } from "../../src/frames/danfo";
import {
  lookBacks,
  lookBacksColumns,
  reportInfos,
  reportInfosColumns,
  reportList,
  reportListColumns,
} from "../../src/frames/reports";
import { fixture } from "./helpers/fixtures";

const infos = () => fixture<Parameters<typeof reportInfosColumns>[0]>("report-infos.json");

describe("reportInfosColumns(response)", () => {
  it("has every spec field in order, then extra fields", () => {
    const t = reportInfosColumns(infos());
    expect(t.columns).toEqual([
      "id",
      "report_definition_id",
      "report_name",
      "description",
      "status",
      "status_message",
      "portfolio_name",
      "portfolio_type",
      "reporting_currency",
      "real_time_mkt_data",
      "mkt_data_date",
      "pricing_date",
      "time_stamp",
      "queue_position",
    ]);
    expect(t.data.queue_position).toEqual([NaN, 3, NaN, NaN]);
  });

  it("reads the three dates as Dates, offsets applied, missing as null", () => {
    const t = reportInfosColumns(infos());
    expect(t.kinds).toMatchObject({ mkt_data_date: "date", pricing_date: "date", time_stamp: "date" });
    const ts = (t.data.time_stamp as Date[]).map((d) => d.toISOString());
    expect(ts).toEqual([
      "2026-11-20T06:31:12.512Z",
      "2026-11-20T14:15:00.000Z",
      "2026-11-20T07:02:44.000Z",
      "2026-11-20T06:40:00.000Z",
    ]);
    expect(t.data.mkt_data_date![2]).toBeNull();
    expect(t.data.mkt_data_date![3]).toBeNull();
  });

  it("makes status and portfolio_type categories: the known levels in order, then any new value", () => {
    const t = reportInfosColumns(infos());
    expect(t.kinds.status).toBe("category");
    expect(t.meta.categories.status).toEqual([...REPORT_STATUSES, "archived"]);
    expect(t.meta.categories.portfolio_type).toEqual([...PORTFOLIO_TYPES]);
    expect(t.data.status).toEqual(["succeeded", "running", "failed", "archived"]);
  });

  it("keeps booleans with null for missing", () => {
    expect(reportInfosColumns(infos()).data.real_time_mkt_data).toEqual([false, true, null, false]);
  });

  it("gives the columns and no rows for an empty response", () => {
    const t = reportInfosColumns({ report_infos: [] });
    expect(t.rowCount).toBe(0);
    expect(t.columns).toHaveLength(13);
  });
});

describe("reportInfos(response)", () => {
  it("is a DataFrame whose category levels are in frameInfo", () => {
    const df = reportInfos(infos());
    expect(df.shape).toEqual([4, 14]);
    expect(df.dtypes[4]).toBe("string");
    expect(df.dtypes[11]).toBe("datetime");
    expect(frameInfo(df)!.categories.status).toContain("warning");
  });
});

describe("reportListColumns / lookBacksColumns", () => {
  it("reads the report list with report_type as a category and extra fields kept", () => {
    const t = reportListColumns(fixture("report-list.json"));
    expect(t.columns).toEqual(["report_type", "report_name", "owner"]);
    expect(t.meta.categories.report_type).toEqual(["risk", "var"]);
    expect(t.data.owner).toEqual([null, null, "r.iyer"]);
    expect(reportList(fixture("report-list.json")).shape).toEqual([3, 3]);
  });

  it("reads look-backs in the order received with their length in months", () => {
    const t = lookBacksColumns(fixture("look-backs.json"));
    expect(t.data.look_back).toEqual(["6M", "1Y", "2Y", "3Y", "5Y", "10Y", "260D"]);
    expect(t.data.months).toEqual([6, 12, 24, 36, 60, 120, NaN]);
    expect(t.meta.categories.look_back!.slice(0, 2)).toEqual(["6M", "1Y"]);
    expect(t.meta.categories.look_back!.at(-1)).toBe("260D");
    expect(lookBacks({ look_backs: [] }).shape).toEqual([0, 2]);
  });
});
