/**
 * followReports(rp, runs, { every, timeoutMs }) against the simulator over HTTP: runs of saved launcher
 * items started by the simulator's batch (`POST /sim/batch`) go queued → running → an end status on the
 * simulator's clock (reportTiming), and the poll follows them there; the timeout path; and a replay of
 * the recorded cassette, which must not wait `every` between polls.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RiskPortalClient, RiskPortalError, startSimulator, type Simulator } from "../../src";
import { frameInfo } from "../../src/frames";
import { progressLine, type ProgressEvent } from "../../src/batch/progress";
import { followReports, ReportFollowTimeout } from "../../src/notebook/follow-reports";
import { simHelpers } from "../../src/notebook/sim-helpers";
import { PLOTLY_MIME } from "../../src/plot";
import { PLOTLY_PART_MIME } from "../../src/plot/plotly-parts";
import { notebookSession } from "../../src/kernel/session";
import type { DisplayContent } from "../../src/kernel/tslab";
import type { DataFrame } from "../../vendor/danfo";

const PRICING_DATE = "2026-11-20";
const dir = mkdtempSync(path.join(tmpdir(), "rpl-follow-"));
let sim: Simulator;
let slow: Simulator;
beforeAll(async () => {
  [sim, slow] = await Promise.all([
    startSimulator({ rateLimit: false, reportTiming: { queuedMs: 400, runningMs: 800 } }),
    startSimulator({ rateLimit: false, reportTiming: { queuedMs: 60_000, runningMs: 60_000 } }),
  ]);
});
afterAll(async () => {
  await Promise.all([sim?.close(), slow?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

/** Saves a VaR and a PnL launcher item for GLOBAL-MACRO and runs the simulator's batch: the new runs. */
async function launch(rp: RiskPortalClient) {
  const common = {
    reporting_currency: "USD",
    market_data_environment_names: ["EOD"],
    portfolio_name: "GLOBAL-MACRO",
    portfolio_type: "provider" as const,
    run_date: PRICING_DATE,
  };
  await rp.reportLauncher.createVar({
    ...common,
    report_name: "GLOBAL-MACRO VaR 99% 1d",
    horizon: 1,
    historical_look_back_period: "1Y",
    confidence_level: 0.99,
  });
  await rp.reportLauncher.createRisk({ ...common, report_name: "GLOBAL-MACRO Daily PnL", report_cutoff: "EOD" });
  return (await simHelpers(rp).runBatch()).filter((r) => r.portfolio_name === "GLOBAL-MACRO");
}

const rows = (df: DataFrame) => df.values as unknown[][];
const column = (df: DataFrame, name: string) => rows(df).map((r) => r[df.columns.indexOf(name)]);

describe("followReports against the simulator", () => {
  const file = path.join(dir, "follow.json");
  let recorded: { df: DataFrame; ids: string[]; polls: number };

  it("follows the runs to their end status and returns one row per run, in the order given", async () => {
    const rp = new RiskPortalClient({
      baseUrl: sim.url,
      auth: { apiKey: sim.credentials.apiKey },
      cassette: { path: file, mode: "record" },
    });
    const runs = await launch(rp);
    expect(runs.length).toBeGreaterThanOrEqual(2);
    const df = await followReports(rp, runs, { every: 25, timeoutMs: 20_000 });
    // Every exchange but the launch's three (two launcher items, the batch) is a poll.
    const polls = rp.cassette!.stats.recorded - 3;
    rp.cassette!.finish();
    expect(df.columns).toEqual([
      "id",
      "report_name",
      "portfolio_name",
      "pricing_date",
      "status",
      "status_message",
      "finished",
      "finished_at",
    ]);
    expect(column(df, "id")).toEqual(runs.map((r) => r.id));
    expect(column(df, "finished")).toEqual(runs.map(() => true));
    for (const status of column(df, "status")) expect(["succeeded", "warning", "failed"]).toContain(status);
    // The statuses are the service's own, as a GetReportInfos now answers them.
    const now = await new RiskPortalClient({ baseUrl: sim.url, auth: { apiKey: sim.credentials.apiKey } }).report.infos(
      {
        pricing_date: PRICING_DATE,
        portfolio_name: "GLOBAL-MACRO",
      },
    );
    const byId = new Map(now.report_infos.map((i) => [i.id, i]));
    expect(column(df, "status")).toEqual(runs.map((r) => byId.get(r.id)!.status));
    expect(column(df, "report_name")).toEqual(runs.map((r) => r.report_name));
    expect(frameInfo(df)?.categories.status?.slice(0, 5)).toEqual([
      "none",
      "running",
      "succeeded",
      "warning",
      "failed",
    ]);
    // Queued 400 ms, running 800 ms, a poll every 25 ms: several polls, even on a loaded machine.
    expect(polls).toBeGreaterThan(3);
    recorded = { df, ids: runs.map((r) => r.id), polls };
  });

  it("replays the recording without waiting `every` between polls: the same statuses, in well under every × polls", async () => {
    expect(recorded).toBeDefined();
    const rp = new RiskPortalClient({ baseUrl: sim.url, cassette: { path: file, mode: "replay" } });
    const runs = await launch(rp);
    const every = 1_000;
    const started = performance.now();
    const df = await followReports(rp, runs, { every, timeoutMs: 600_000 });
    const ms = performance.now() - started;
    expect(rows(df)).toEqual(rows(recorded.df));
    // Waiting would take (polls - 1) × every: 3 s and more.
    expect(ms).toBeLessThan(((recorded.polls - 1) * every) / 10);
    expect(rp.cassette!.stats.recorded).toBe(0);
  });

  it("gives up after timeoutMs with a ReportFollowTimeout naming the runs not finished, their last statuses on it", async () => {
    const rp = new RiskPortalClient({ baseUrl: slow.url, auth: { apiKey: slow.credentials.apiKey } });
    const runs = await launch(rp);
    const started = performance.now();
    const error = (await followReports(rp, [...runs, { id: "rep-nowhere", pricing_date: PRICING_DATE }], {
      every: 30,
      timeoutMs: 150,
    }).catch((e: unknown) => e)) as ReportFollowTimeout;
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(error).toBeInstanceOf(ReportFollowTimeout);
    expect(error).toBeInstanceOf(RiskPortalError);
    expect(error.unfinished).toEqual([...runs.map((r) => r.id), "rep-nowhere"]);
    expect(error.message).toMatch(
      new RegExp(
        `^followReports: ${runs.length + 1} of ${runs.length + 1} runs not finished after 0\\.\\d s \\(\\d+ polls; timeoutMs\\): ${runs[0]!.id} \\(none: Queued\\), .*rep-nowhere \\(not found\\)\\. Their last statuses are on this error's \\.statuses; the runs go on on the service$`,
      ),
    );
    expect(column(error.statuses, "finished")).toEqual([...runs.map(() => false), false]);
    expect(column(error.statuses, "status")).toEqual([...runs.map(() => "none"), null]);
    expect(column(error.statuses, "status_message").at(-1)).toBe("not found in GetReportInfos of its pricing date");
  });

  it("says what it needs: runs, each with a pricing date (GetReportInfos finds runs by date), and sane times", async () => {
    const rp = new RiskPortalClient({ baseUrl: sim.url, auth: { apiKey: sim.credentials.apiKey } });
    await expect(followReports(rp, [])).rejects.toThrow("followReports: give the runs to follow");
    await expect(followReports(rp, ["rep-1"])).rejects.toThrow(
      "followReports: run rep-1 has no pricing date, and GetReportInfos finds runs by pricing date: give { pricingDate }, or the runs as { id, pricing_date }",
    );
    await expect(followReports(rp, ["rep-1"], { pricingDate: PRICING_DATE, every: -1 })).rejects.toThrow(
      "followReports: every must be a number of ms >= 0; got -1",
    );
  });

  it("reports each poll to onProgress and a progress renderer (outside a notebook: a bar on a terminal)", async () => {
    const rp = new RiskPortalClient({ baseUrl: sim.url, auth: { apiKey: sim.credentials.apiKey } });
    const runs = await launch(rp);
    const seen: ProgressEvent[] = [];
    const drawn: ProgressEvent[] = [];
    await followReports(rp, runs, {
      every: 25,
      timeoutMs: 20_000,
      onProgress: (e) => seen.push(e),
      progress: { update: (e) => drawn.push(e) },
    });
    expect(drawn).toEqual(seen);
    expect(seen.length).toBeGreaterThan(3);
    expect(seen.map((e) => e.item)).toEqual(seen.map((_, i) => `poll ${i + 1}`));
    expect(seen.map((e) => e.finished)).toEqual([...new Array<boolean>(seen.length - 1).fill(false), true]);
    expect(seen[0]).toMatchObject({ label: "report runs", done: 0, total: runs.length, failed: 0 });
    expect(seen.at(-1)).toMatchObject({ done: runs.length, total: runs.length });
    const done = seen.map((e) => e.done);
    expect(done).toEqual([...done].sort((a, b) => a - b));
    expect(progressLine(seen.at(-1)!)).toBe(`report runs ${runs.length}/${runs.length} (100%) · done`);
  });
});

describe("followReports in a notebook (through the real tslab module, as tslab's kernel and our runner display)", () => {
  const nodeRequire = createRequire(__filename);
  const dist = path.dirname(nodeRequire.resolve("tslab/dist/jupyter.js"));
  const jupyter = nodeRequire(path.join(dist, "jupyter.js")) as {
    lastWriteDisplayData: ((content: DisplayContent, update: boolean) => void) | null;
  };
  afterAll(() => {
    jupyter.lastWriteDisplayData = null;
    notebookSession().tslabDir = undefined;
  });

  it("shows ONE status chart, redrawn in place each poll, under a progress line that ends in done", async () => {
    const sent: [DisplayContent, boolean][] = [];
    notebookSession().tslabDir = dist;
    jupyter.lastWriteDisplayData = (content, update) => sent.push([content, update]);
    const rp = new RiskPortalClient({ baseUrl: sim.url, auth: { apiKey: sim.credentials.apiKey } });
    const runs = await launch(rp);
    const df = await followReports(rp, runs, { every: 25, timeoutMs: 20_000 });
    expect(column(df, "finished")).toEqual(runs.map(() => true));
    const own = sent.filter(([c]) => !c.data[PLOTLY_PART_MIME]);
    const charts = own.filter(([c]) => c.data[PLOTLY_MIME]);
    const lines = own.filter(([c]) => !c.data[PLOTLY_MIME]);
    const polls = charts.length;
    expect(polls).toBeGreaterThan(3);
    expect(charts.map(([, update]) => update)).toEqual([false, ...new Array<boolean>(polls - 1).fill(true)]);
    expect(new Set(charts.map(([c]) => c.transient.display_id)).size).toBe(1);
    const last = charts.at(-1)![0].data[PLOTLY_MIME] as {
      data: { x: string[]; y: number[] }[];
      layout: { title: { text: string } };
    };
    expect(last.layout.title.text).toBe(`Report runs · ${runs.length} of ${runs.length} finished`);
    expect(last.data[0]!.x.slice(0, 5)).toEqual(["none", "running", "succeeded", "warning", "failed"]);
    expect(last.data[0]!.y.reduce((a, b) => a + b, 0)).toBe(runs.length);
    expect(lines.map(([, update]) => Boolean(update))).toEqual([false, ...new Array<boolean>(polls - 1).fill(true)]);
    expect(lines.at(-1)![0].data["text/plain"]).toBe(
      `report runs · poll ${polls} · ${runs.length} of ${runs.length} finished · done`,
    );
  });
});
