/**
 * The simulator's helper routes (`/sim/tradables`, `/sim/portfolios`, `/sim/surface?asset=…`, `POST /sim/batch`), declared
 * as operations so that notebooks call them through the client's one request pipeline: like every
 * other call they are recorded in a cassette and replayed from it. They are not part of the service's
 * interface: a real service has no such routes.
 */
import { z } from "zod";
import { lazy } from "../api/lazy";
import { defineOperation } from "../api/operation";
import type { RiskPortalClient } from "../client/client";
import type { CallOptions } from "../client/pipeline";
import type { WireSurface } from "../vol/surface";

const tradeEvent = lazy(() => z.looseObject({ $type: z.string(), quantity: z.number() }));

const simTradable = lazy(() =>
  z.looseObject({
    id: z.string(),
    kind: z.string(),
    name: z.string(),
    currency: z.string(),
    next_trade_event: z.looseObject({ date: z.string(), event: tradeEvent }),
  }),
);

const simPortfolio = lazy(() =>
  z.looseObject({
    name: z.string(),
    portfolio_type: z.string(),
    description: z.string(),
    reporting_currency: z.string(),
  }),
);

const numbers = lazy(() => z.array(z.number()));
const simSurface = lazy(() =>
  z.looseObject({
    benchmark_fwd_factors: numbers,
    smiles: numbers,
    benchmark_maturities: numbers,
    vols: numbers,
    call_wings: numbers,
    put_wings: numbers,
    skews: numbers,
    reference_date: z.string(),
    spot_ref: z.number(),
  }),
);

/** `GET /sim/tradables`: every tradable with its next trade event. */
export const simTradables = defineOperation({
  name: "SimTradables",
  method: "GET",
  path: "/sim/tradables",
  retry: "read",
  cacheable: true,
  requestIn: "none",
  request: lazy(() => z.object({}).strict()),
  response: lazy(() => z.array(simTradable)),
});

/** `GET /sim/portfolios`: the simulator's portfolios. */
export const simPortfolios = defineOperation({
  name: "SimPortfolios",
  method: "GET",
  path: "/sim/portfolios",
  retry: "read",
  cacheable: true,
  requestIn: "none",
  request: lazy(() => z.object({}).strict()),
  response: lazy(() => z.array(simPortfolio)),
});

/**
 * `GET /sim/surface?asset=SPX`: the `GetVol` surface the simulator prices an equity with (uploaded ATM
 * vol curves included, so not cacheable).
 */
export const simSurfaceOf = defineOperation({
  name: "SimSurface",
  method: "GET",
  path: "/sim/surface",
  retry: "read",
  requestIn: "query",
  request: lazy(() => z.object({ asset: z.string().trim().min(1, "an asset code such as SPX or AAPL") }).strict()),
  response: simSurface,
});

const batchRun = lazy(() =>
  z.looseObject({
    id: z.string(),
    item_id: z.string(),
    report_name: z.string(),
    portfolio_name: z.string(),
    pricing_date: z.string(),
  }),
);

/**
 * `POST /sim/batch`: runs every saved launcher item now, as the service's daily batch would. A launcher
 * create only saves an item ("Saving does not launch a report or create a report-run identifier"); on
 * the real service its runs come from the service's own schedule.
 */
export const simRunBatch = defineOperation({
  name: "SimRunBatch",
  method: "POST",
  path: "/sim/batch",
  retry: "write",
  requestIn: "none",
  request: lazy(() => z.object({}).strict()),
  response: lazy(() => z.looseObject({ runs: z.array(batchRun) })),
});

/** A run the batch started. */
export type SimBatchRun = z.output<typeof batchRun>;

/** A tradable as `/sim/tradables` lists it. */
export interface SimTradable {
  id: string;
  /** `bond`, `equity` or `option`. */
  kind: string;
  name: string;
  currency: string;
  /** The tradable's next trade event after the data's date, with the event's wire fields. */
  next_trade_event: { date: string; event: { $type: string; quantity: number; [field: string]: unknown } };
}

/** A portfolio as `/sim/portfolios` lists it. */
export interface SimPortfolio {
  name: string;
  portfolio_type: string;
  description: string;
  reporting_currency: string;
}

/** The simulator-only helpers of a connection (see `Connection.sim`). */
export interface SimHelpers {
  /** Every tradable and its next trade event. */
  tradables(options?: CallOptions): Promise<SimTradable[]>;
  /** The portfolios. */
  portfolios(options?: CallOptions): Promise<SimPortfolio[]>;
  /** The `GetVol` surface the simulator prices an equity with (`SPX`, `AAPL` or `AAPL.XNAS`). */
  surface(asset: string, options?: CallOptions): Promise<WireSurface>;
  /**
   * Runs every saved launcher item now (the simulator's daily batch, on request) and returns the new
   * runs: their report ids, items, names and pricing dates. A real service runs items on its schedule.
   */
  runBatch(options?: CallOptions): Promise<SimBatchRun[]>;
}

/** The helpers, sent through `rp`'s pipeline (so recorded and replayed with its cassette). */
export function simHelpers(rp: RiskPortalClient): SimHelpers {
  return {
    tradables: (options) => rp.request(simTradables, {}, options),
    portfolios: (options) => rp.request(simPortfolios, {}, options),
    surface: (asset, options) => rp.request(simSurfaceOf, { asset }, options),
    runBatch: async (options) => (await rp.request(simRunBatch, {}, options)).runs,
  };
}
