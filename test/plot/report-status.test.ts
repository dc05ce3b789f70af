/** plot.reportStatus over the simulator's report infos for ten business days. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPORT_STATUSES } from "../../src/api/assumptions";
import * as frames from "../../src/frames";
import { TableBuilder } from "../../src/table/column-table";
import { reportStatus, STATUS_COLORS } from "../../src/plot";
import { AS_OF, businessDaysBack, simData, type SimData } from "./sim-data";

let d: SimData;
beforeAll(async () => {
  d = await simData();
});
afterAll(() => d.close());

describe("reportStatus", () => {
  it("stacks one bar trace per status present, in lifecycle order, in the status colours", async () => {
    const table = await d.reports();
    const fig = reportStatus(table);
    const present = REPORT_STATUSES.filter((s) => table.data.status!.includes(s));
    expect(fig.data.map((t) => t.name)).toEqual(present);
    for (const t of fig.data) {
      expect(t.type).toBe("bar");
      expect((t.marker as { color: string }).color).toBe(STATUS_COLORS[t.name!]);
      expect(t.hovertemplate).toBe(`%{x}: %{y} ${t.name}<extra></extra>`);
    }
    expect(fig.layout.barmode).toBe("stack");
    expect(fig.layout.xaxis).toMatchObject({ type: "date", title: { text: "Pricing date" } });
    expect(fig.layout.yaxis?.title?.text).toBe("Reports (count)");
  });

  it("counts every report once, on its pricing date", async () => {
    const table = await d.reports();
    const fig = reportStatus(table);
    const dates = fig.data[0]!.x as string[];
    expect(dates).toEqual(businessDaysBack(AS_OF, 10));
    const total = fig.data.reduce((s, t) => s + (t.y as number[]).reduce((a, b) => a + b, 0), 0);
    expect(total).toBe(table.rowCount);
    const day = dates[3]!;
    const expected = table.data.pricing_date!.filter(
      (v, i) => (v as Date).toISOString().startsWith(day) && table.data.status![i] === "succeeded",
    ).length;
    const succeeded = fig.data.find((t) => t.name === "succeeded")!;
    expect((succeeded.y as number[])[3]).toBe(expected);
    expect(fig.layout.title?.text).toBe(`Report status · ${table.rowCount} reports over 10 days`);
  });

  it("hides weekends on the date axis when no report falls on one", async () => {
    const axis = reportStatus(await d.reports()).layout.xaxis as { rangebreaks?: unknown[] };
    expect(axis.rangebreaks).toEqual([{ bounds: ["sat", "mon"] }]);
  });

  it("reads a GetReportInfos response and a DataFrame, and counts by another date on request", async () => {
    const response = await d.rp.report.infos({ pricing_date: AS_OF });
    const fig = reportStatus(response, { by: "time_stamp" });
    expect(fig.layout.xaxis?.title?.text).toBe("Report time (UTC day)");
    expect(fig.data.reduce((s, t) => s + (t.y as number[]).reduce((a, b) => a + b, 0), 0)).toBe(
      response.report_infos.length,
    );
    expect(reportStatus(frames.reportInfos(response)).data).toEqual(reportStatus(response).data);
  });

  it("keeps lifecycle order when the table's levels are in the order first seen, and colours other statuses apart (issue 41)", () => {
    const t = new TableBuilder(4, "GetReportInfos")
      .add("status", ["failed", "queued", "running", "succeeded"], { hint: "category" })
      .add(
        "pricing_date",
        [AS_OF, AS_OF, AS_OF, AS_OF].map((d) => new Date(`${d}T00:00:00Z`)),
      )
      .build();
    expect(t.meta.categories.status).toEqual(["failed", "queued", "running", "succeeded"]);
    const fig = reportStatus(t);
    expect(fig.data.map((tr) => tr.name)).toEqual(["running", "succeeded", "failed", "queued"]);
    const colours = fig.data.map((tr) => (tr.marker as { color: string }).color);
    expect(new Set(colours).size).toBe(4);
    expect(Object.values(STATUS_COLORS)).not.toContain(colours[3]);
  });
});
