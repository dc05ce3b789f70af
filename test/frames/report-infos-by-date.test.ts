import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RiskPortalClient } from "../../src";
import { REPORT_STATUSES } from "../../src/api/assumptions";
import { fetchReportInfosByDate, fetchReportInfosByDateColumns } from "../../src/frames/report-infos-by-date";
import { startLoopback, type Loopback } from "../helpers/loopback";

const FAILING_DATE = "2026-11-19";

let server: Loopback;
let rp: RiskPortalClient;

beforeAll(async () => {
  server = await startLoopback({
    "/api/Report/GetReportInfos": (req) => {
      const { pricing_date } = req.json as { pricing_date: string };
      if (pricing_date.startsWith(FAILING_DATE))
        return {
          status: 503,
          body: { title: "Service Unavailable", status: 503, detail: "report store is being rebuilt" },
        };
      const day = pricing_date.slice(0, 10);
      return {
        body: {
          report_infos: [
            {
              id: `var-${day}`,
              report_name: "Desk VaR",
              status: "succeeded",
              portfolio_type: "provider",
              pricing_date: `${day}T00:00:00+00:00`,
              time_stamp: `${day}T06:00:00+00:00`,
            },
            {
              id: `pnl-${day}`,
              report_name: "Daily PnL",
              status: day.endsWith("20") ? "running" : "succeeded",
              portfolio_type: "external",
              pricing_date: `${day}T00:00:00+00:00`,
            },
          ],
        },
      };
    },
  });
  rp = new RiskPortalClient({ baseUrl: server.url, auth: { token: "test-bearer-token-123" }, retry: false });
});
afterAll(() => server.close());

describe("fetchReportInfosByDateColumns(rp, { pricingDates })", () => {
  it("stacks the report infos of every date and lists the failed date with its status beside them", async () => {
    const { table, failures } = await fetchReportInfosByDateColumns(rp, {
      pricingDates: ["2026-11-18", FAILING_DATE, "2026-11-20"],
      portfolio_names: ["GLOBAL-MACRO"],
      progress: "none",
    });
    expect(table.data.id).toEqual(["var-2026-11-18", "pnl-2026-11-18", "var-2026-11-20", "pnl-2026-11-20"]);
    expect(table.kinds.pricing_date).toBe("date");
    expect(table.meta.categories.status).toEqual([...REPORT_STATUSES]);
    expect(failures).toEqual([
      {
        pricing_date: FAILING_DATE,
        error: expect.stringMatching(/HTTP 503 .*report store is being rebuilt/),
        status: 503,
      },
    ]);
  });

  it("sends one request per date with the filters", async () => {
    await fetchReportInfosByDateColumns(rp, {
      pricingDates: ["2026-11-20"],
      portfolio_names: ["RATES-EU"],
      portfolio_type: "external",
      progress: "none",
    });
    const last = server.to("/api/Report/GetReportInfos").at(-1)!;
    expect(last.json).toMatchObject({
      pricing_date: "2026-11-20T00:00:00Z",
      portfolio_names: ["RATES-EU"],
      portfolio_type: "external",
    });
  });

  it("counts the failure in the progress events", async () => {
    const failed: number[] = [];
    await fetchReportInfosByDateColumns(rp, {
      pricingDates: [FAILING_DATE, "2026-11-20"],
      concurrency: 1,
      progress: "none",
      onProgress: (e) => failed.push(e.failed),
    });
    expect(failed).toEqual([0, 1, 1]);
  });

  it("keeps the report-info columns when every date failed", async () => {
    const { table, failures } = await fetchReportInfosByDateColumns(rp, {
      pricingDates: [FAILING_DATE],
      progress: "none",
    });
    expect(failures).toHaveLength(1);
    expect(table.rowCount).toBe(0);
    expect(table.columns.slice(0, 2)).toEqual(["id", "report_definition_id"]);
  });

  it("refuses an empty list of dates", async () => {
    await expect(fetchReportInfosByDateColumns(rp, { pricingDates: [] })).rejects.toThrow(
      /pricingDates must be a non-empty array/,
    );
  });
});

describe("fetchReportInfosByDate(rp, options)", () => {
  it("returns the long DataFrame and the failures", async () => {
    const { frame, failures } = await fetchReportInfosByDate(rp, {
      pricingDates: ["2026-11-18", FAILING_DATE],
      progress: "none",
    });
    expect(frame.shape[0]).toBe(2);
    expect(frame.columns.slice(0, 3)).toEqual(["id", "report_definition_id", "report_name"]);
    expect(failures).toHaveLength(1);
  });
});
