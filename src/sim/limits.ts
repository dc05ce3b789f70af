/** Per-credential rate limiting (token bucket) and fault injection for reliability tests. */
import type { Clock } from "./clock";
import { rng, type Rng } from "./random";

export interface RateLimitOptions {
  /** Sustained requests per second per credential. */
  requestsPerSecond: number;
  /** Bucket size: requests allowed in a burst. Default: one second's worth. */
  burst?: number;
}

/** A token bucket per principal; `take` says whether a request may go, and if not, when to retry. */
export class RateLimiter {
  readonly #buckets = new Map<string, { tokens: number; atMs: number }>();
  readonly #rate: number;
  readonly #burst: number;

  constructor(
    options: RateLimitOptions,
    readonly clock: Clock,
  ) {
    if (!(options.requestsPerSecond > 0))
      throw new RangeError(`rateLimit.requestsPerSecond must be > 0, got ${options.requestsPerSecond}`);
    this.#rate = options.requestsPerSecond / 1000;
    this.#burst = options.burst ?? Math.max(1, options.requestsPerSecond);
  }

  take(principal: string): { ok: true } | { ok: false; retryAfterSeconds: number } {
    const now = this.clock.now();
    const bucket = this.#buckets.get(principal) ?? { tokens: this.#burst, atMs: now };
    bucket.tokens = Math.min(this.#burst, bucket.tokens + (now - bucket.atMs) * this.#rate);
    bucket.atMs = now;
    this.#buckets.set(principal, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { ok: true };
    }
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / this.#rate / 1000)) };
  }
}

export interface FaultOptions {
  /** Added latency per request, ms: a fixed value or a [min, max] range. */
  latencyMs?: number | [number, number];
  /** Share of requests answered 500 or 503 (0..1). */
  errorRate?: number;
  /** Share of requests whose connection is dropped without an answer. */
  dropRate?: number;
  /** Share of successful answers cut off half-way. */
  truncateRate?: number;
  /** Apply faults to the token endpoint too. Default false. */
  includeTokenEndpoint?: boolean;
  /** Seed of the fault draws (a whole number). Default: the simulator's data seed. */
  seed?: number;
}

export type Fault = { kind: "none" } | { kind: "error"; status: 500 | 503 } | { kind: "drop" } | { kind: "truncate" };

/**
 * Draws the faults of each request from a seeded generator, so a fault test is reproducible: from
 * `options.seed` when given, else from `seed` (the simulator's data seed).
 */
export class FaultInjector {
  readonly #rng: Rng;

  constructor(
    readonly options: FaultOptions,
    seed: number,
  ) {
    for (const k of ["errorRate", "dropRate", "truncateRate"] as const) {
      const v = options[k];
      if (v !== undefined && !(v >= 0 && v <= 1)) throw new RangeError(`faults.${k} must be in [0, 1], got ${v}`);
    }
    const { errorRate = 0, dropRate = 0, truncateRate = 0 } = options;
    if (errorRate + dropRate + truncateRate > 1 + 1e-12)
      throw new RangeError(
        `faults: errorRate + dropRate + truncateRate must be at most 1, got ${errorRate + dropRate + truncateRate}`,
      );
    const l = options.latencyMs;
    const [min, max] = typeof l === "number" ? [l, l] : (l ?? [0, 0]);
    // Beyond 2^31 − 1 ms Node's timers fire at once: a huge latency would be none.
    if (!(min >= 0 && max >= min && max <= 2 ** 31 - 1))
      throw new RangeError(
        `faults.latencyMs must be ms in [0, 2147483647], a number or a range [min, max] with min <= max; got ${JSON.stringify(l)}`,
      );
    if (options.seed !== undefined && !Number.isSafeInteger(options.seed))
      throw new RangeError(`faults.seed must be a whole number, got ${options.seed}`);
    this.#rng = rng(options.seed ?? seed, "faults");
  }

  latencyMs(): number {
    const l = this.options.latencyMs;
    if (l === undefined) return 0;
    if (typeof l === "number") return l;
    return l[0] + this.#rng.next() * (l[1] - l[0]);
  }

  draw(): Fault {
    const u = this.#rng.next();
    const { errorRate = 0, dropRate = 0, truncateRate = 0 } = this.options;
    if (u < errorRate) return { kind: "error", status: this.#rng.next() < 0.5 ? 500 : 503 };
    if (u < errorRate + dropRate) return { kind: "drop" };
    if (u < errorRate + dropRate + truncateRate) return { kind: "truncate" };
    return { kind: "none" };
  }
}
