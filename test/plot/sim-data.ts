/**
 * Realistic inputs for the chart tests, from the embedded simulator through the client and the frames
 * adapters (as a notebook gets them). Each piece is fetched on first use and kept for the test file.
 */
import { RiskPortalClient } from "../../src";
import { STRIKE_TYPE } from "../../src/api/assumptions";
import type { PositionEffectsResponse } from "../../src/api/tradable";
import { startSimulator, type Simulator } from "../../src/sim";
import * as frames from "../../src/frames";
import { crossCheck, fromSurface, type CrossCheckResult, type VolGrid, type WireSurface } from "../../src/vol";

export const AS_OF = "2026-11-20";

/** Calendar dates `step` days apart ending on `end`, oldest first. */
export function datesBack(end: string, count: number, step: number): string[] {
  const t = Date.parse(`${end}T00:00:00Z`);
  return Array.from({ length: count }, (_, i) =>
    new Date(t - (count - 1 - i) * step * 86_400_000).toISOString().slice(0, 10),
  );
}

/** The last `count` weekdays up to `end`, oldest first. */
export function businessDaysBack(end: string, count: number): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${end}T00:00:00Z`); out.length < count; t -= 86_400_000) {
    const d = new Date(t);
    if (d.getUTCDay() !== 0 && d.getUTCDay() !== 6) out.unshift(d.toISOString().slice(0, 10));
  }
  return out;
}

export const range = (from: number, to: number, step: number): number[] =>
  Array.from({ length: Math.round((to - from) / step) + 1 }, (_, i) => +(from + i * step).toFixed(6));

export interface SimData {
  sim: Simulator;
  rp: RiskPortalClient;
  close(): Promise<void>;
  /** USD, EUR, GBP at {@link AS_OF}, one long table. */
  curvesToday(): Promise<frames.ColumnTable>;
  /** USD every 14 days over about a year (27 dates), one long table. */
  usdHistory(): Promise<frames.ColumnTable>;
  surface(): Promise<WireSurface>;
  /** 5 maturities × 17 strikes (60…140, % of forward) from the local model. */
  grid(): Promise<VolGrid>;
  /** 4 maturities × 5 strikes against the simulator's GetVol. */
  check(): Promise<CrossCheckResult>;
  /** Report infos over 10 business days. */
  reports(): Promise<frames.ColumnTable>;
  /** GLOBAL-MACRO's transaction table (2,000 rows). */
  trades(): Promise<frames.ColumnTable>;
  /** Position effects of buying SX5E.XEUR (the simulator's next event for it). */
  effects(): Promise<PositionEffectsResponse>;
}

function once<T>(load: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | undefined;
  return () => (p ??= load());
}

export async function simData(): Promise<SimData> {
  const sim = await startSimulator({ transactionRows: 2_000 });
  const rp = new RiskPortalClient({ baseUrl: sim.url, auth: { apiKey: sim.credentials.apiKey } });
  const surface = once(
    async () =>
      (await (
        await fetch(`${sim.url}/sim/surface?asset=SPX`, { headers: { "x-api-key": sim.credentials.apiKey } })
      ).json()) as WireSurface,
  );
  const grid = once(async () =>
    fromSurface(await surface()).grid([30, 91, 182, 365, 730], range(60, 140, 5), STRIKE_TYPE.PercentForward),
  );
  return {
    sim,
    rp,
    close: () => sim.close(),
    curvesToday: once(
      async () =>
        (
          await frames.fetchYieldCurvesColumns(rp, {
            currencies: ["USD", "EUR", "GBP"],
            marketDates: [AS_OF],
            progress: "none",
          })
        ).table,
    ),
    usdHistory: once(
      async () =>
        (
          await frames.fetchYieldCurvesColumns(rp, {
            currencies: ["USD"],
            marketDates: datesBack(AS_OF, 27, 14),
            progress: "none",
          })
        ).table,
    ),
    surface,
    grid,
    check: once(async () =>
      crossCheck(rp, await surface(), { maturities: [30, 91, 182, 365], strikes: [80, 90, 100, 110, 120] }),
    ),
    reports: once(
      async () =>
        (
          await frames.fetchReportInfosByDateColumns(rp, {
            pricingDates: businessDaysBack(AS_OF, 10),
            progress: "none",
          })
        ).table,
    ),
    trades: once(() => frames.fetchTransactionTableColumns(rp, { portfolio_name: "GLOBAL-MACRO" })),
    effects: once(async () => {
      const tradables = (await (
        await fetch(`${sim.url}/sim/tradables`, { headers: { "x-api-key": sim.credentials.apiKey } })
      ).json()) as {
        id: string;
        next_trade_event: { event: Record<string, unknown> & { $type: string } };
      }[];
      const sx5e = tradables.find((t) => t.id === "SX5E.XEUR")!;
      return rp.tradable.positionEffects({
        tradable_id: sx5e.id,
        pricing_date: AS_OF,
        next_trade_event: sx5e.next_trade_event.event,
      });
    }),
  };
}
