/**
 * The embedded simulator: the whole service on 127.0.0.1 with realistic, deterministic data, like
 * stripe-mock for Stripe's SDKs. Notebooks, the demo and the tests run against it when no real service
 * is configured.
 *
 * ```ts
 * const sim = await startSimulator();
 * const rp = new RiskPortalClient({ baseUrl: sim.url, auth: { apiKey: sim.credentials.apiKey } });
 * // …
 * await sim.close();
 * ```
 */
import { DEFAULT_BRAND } from "../api/assumptions";
import { brandOf } from "../api/brand";
import { buildApp } from "./app";
import { Authenticator, TOKEN_PATH, type SimulatorCredentials } from "./auth";
import { systemClock, type Clock } from "./clock";
import { DEFAULT_REPORT_TIMING, type ReportTiming } from "./data/reports";
import { extraHostNames } from "./gate";
import { FaultInjector, RateLimiter, type FaultOptions, type RateLimitOptions } from "./limits";
import { SimService } from "./service";
import { Store } from "./store";

export type { SimulatorCredentials } from "./auth";
export type { FaultOptions, RateLimitOptions } from "./limits";
export type { ReportTiming } from "./data/reports";
export { manualClock, type Clock, type ManualClock } from "./clock";

/** The data's last business day unless `asOf` says otherwise: fixed, so every run sees the same data. */
export const DEFAULT_AS_OF = "2026-11-20";

export interface SimulatorOptions {
  /** Port on 127.0.0.1; 0 (default) picks a free one. */
  port?: number;
  /**
   * Host to bind. Default 127.0.0.1 (the simulator is for this machine only). Requests must name a
   * loopback host (`localhost`, `127.0.0.0/8`, `[::1]`) or this one in `Host` (a wildcard such as
   * 0.0.0.0 names none); any other is refused with 421 (DNS rebinding).
   */
  host?: string;
  /** Seed of all generated data. Default 1. */
  seed?: number;
  /** Last business day of the data (`YYYY-MM-DD`). Default `DEFAULT_AS_OF`. */
  asOf?: string;
  /** Keep accepted uploads and launched reports in this directory across restarts. */
  dataDir?: string;
  /** Per-credential rate limit, or `false` for none. Default 200 requests/s, burst 400. */
  rateLimit?: RateLimitOptions | false;
  /** Fault injection (off by default). */
  faults?: FaultOptions;
  /**
   * Trades per portfolio transaction table, over two years. Default 5,000 (up to millions, generated as
   * they stream); about 3% have quantity 0, returned only with `include_zero_quantities: true`.
   */
  transactionRows?: number;
  /** Largest request body, bytes. Default 10 MiB. */
  bodyLimitBytes?: number;
  /** Lifetime of OAuth2 tokens, seconds. Default 3600. */
  tokenTtlSeconds?: number;
  /** How long launched reports stay queued and running. Default 1.5 s and 4 s. */
  reportTiming?: ReportTiming;
  /** The clock behind token expiry, rate limits and report progress. Default: wall time. */
  clock?: Clock;
  /**
   * The service's brand: `$type` namespace, branded enum values and field names (see the client's
   * `brand`). Default `Service` (the spec's neutral spelling); the public pages use `Derivitec`. Requests
   * in the neutral spelling are understood too.
   */
  brand?: string;
  /** The old name of {@link brand}. */
  typeNamespace?: string;
  /**
   * A19: how long after an upload with `trigger_immediate_bootstrap` its prices reach the curves (simulator
   * clock). Default 1,000 ms: "those refreshes need not finish before this response".
   */
  bootstrapLagMs?: number;
  /** Derive the credentials from the seed instead of drawing random ones (for recordings). Default false. */
  fixedCredentials?: boolean;
}

/** A19: default time between an upload with `trigger_immediate_bootstrap` and its prices in the curves. */
export const DEFAULT_BOOTSTRAP_LAG_MS = 1_000;
/** Trades per portfolio transaction table (about 3% with quantity 0, left out unless `include_zero_quantities`). */
export const DEFAULT_TRANSACTION_ROWS = 5_000;

export interface Simulator {
  /** Base URL, e.g. `http://127.0.0.1:43121`. */
  url: string;
  /** The brand it speaks. */
  brand: string;
  credentials: SimulatorCredentials;
  /** Stops the server (waits for open requests). */
  close(): Promise<void>;
}

/** Starts a simulator; resolves once it listens. */
export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const seed = options.seed ?? 1;
  const clock = options.clock ?? systemClock;
  const brand = options.brand ?? options.typeNamespace ?? DEFAULT_BRAND;
  brandOf(brand); // validates the name
  const bootstrapLagMs = options.bootstrapLagMs ?? DEFAULT_BOOTSTRAP_LAG_MS;
  if (!(bootstrapLagMs >= 0)) throw new RangeError(`bootstrapLagMs must be >= 0, got ${bootstrapLagMs}`);
  const asOf = options.asOf ?? DEFAULT_AS_OF;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(asOf) || Number.isNaN(Date.parse(asOf)))
    throw new RangeError(`asOf must be a date YYYY-MM-DD, got ${JSON.stringify(asOf)}`);
  const transactionRows = options.transactionRows ?? DEFAULT_TRANSACTION_ROWS;
  if (!(Number.isInteger(transactionRows) && transactionRows >= 0))
    throw new RangeError(`transactionRows must be a whole number >= 0, got ${transactionRows}`);

  const store = await Store.open(options.dataDir);
  const auth = new Authenticator(seed, clock, options.tokenTtlSeconds ?? 3600, options.fixedCredentials ?? false);
  const service = new SimService(
    {
      seed,
      asOf,
      historyDays: 520,
      transactionRows,
      reportDays: 60,
      reportTiming: options.reportTiming ?? DEFAULT_REPORT_TIMING,
      bootstrapLagMs,
      brand,
    },
    store,
    clock,
    [
      { name: "simulator (notebooks)", exposed_value: auth.credentials.apiKey, id: "key-sim-0001" },
      { name: "read-only (CI)", exposed_value: auth.secondApiKey, id: "key-sim-0002" },
    ],
  );
  const rateLimit = options.rateLimit === undefined ? { requestsPerSecond: 200, burst: 400 } : options.rateLimit;
  const app = buildApp({
    service,
    auth,
    rateLimiter: rateLimit ? new RateLimiter(rateLimit, clock) : undefined,
    faults: options.faults ? new FaultInjector(options.faults, seed) : undefined,
    bodyLimitBytes: options.bodyLimitBytes ?? 10 * 1024 * 1024,
    brand,
    extraHosts: extraHostNames(options.host),
  });
  await app.listen({ port: options.port ?? 0, host: options.host ?? "127.0.0.1" });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  const url = `http://${options.host ?? "127.0.0.1"}:${port}`;
  return {
    url,
    brand,
    credentials: { ...auth.credentials, tokenUrl: url + TOKEN_PATH },
    close: async () => {
      await app.close();
      await store.close();
    },
  };
}
