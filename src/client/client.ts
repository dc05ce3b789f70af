/**
 * `RiskPortalClient`: the 13 operations grouped by resource as the resources table (`RESOURCES`)
 * declares them, each a method over the one request pipeline (`send`).
 */
import { inspect } from "node:util";
import { DEFAULT_BRAND, UNKNOWN_FIELDS, type UnknownFieldsPolicy } from "../api/assumptions";
import { brandOf } from "../api/brand";
import type { OperationDef, RequestInput, ResponseOf } from "../api/operation";
import { RESOURCES } from "../api/resources";
import { createAuthProvider, replayOnlyAuth, type AuthOptions, type AuthProvider } from "./auth";
import { ResponseCache, type CacheOptions } from "../record/cache";
import { Cassette, type CassetteOptions } from "../record/cassette";
import { ConfigurationError } from "./errors";
import { checkDateMismatch, type DateMismatchPolicy } from "./date-mismatch";
import {
  checkLimit,
  send,
  sendStreaming,
  type BodySink,
  type CallOptions,
  type PipelineConfig,
  type Streamed,
} from "./pipeline";
import type { ClientGroups } from "./groups";
import { Redactor } from "../record/redact";
import { resolveRetry, type RetryOptions } from "./retry";

export interface RiskPortalClientOptions {
  /** The service's base address, e.g. `https://risk.example.com` (every path starts with `/api`). */
  baseUrl: string;
  /**
   * `{ token }` (bearer), `{ apiKey }` (`x-api-key`) or `{ clientId, clientSecret, tokenUrl, scope? }`
   * (OAuth2). Not needed when the client only replays a cassette (`cassette.mode: "replay"`).
   */
  auth?: AuthOptions;
  /** The fetch to use. Default: `globalThis.fetch`, else cross-fetch. */
  fetch?: typeof fetch;
  /** Time a call may take, retries included. Default 60 000 ms; `Infinity` for none. */
  timeoutMs?: number;
  /** Retry settings for reads (writes are never re-sent), or `false` for none. */
  retry?: Partial<RetryOptions> | false;
  /**
   * The service's brand (A1): the namespace of `$type` values, the brand's values of `identifier_type`
   * and `portfolio_type`, and the branded field names. Default `Service`, the spec's neutral spelling;
   * the service's public pages use `Derivitec`. Requests may be written in either spelling; the wire
   * carries this brand's. Also from `RISK_PORTAL_BRAND`.
   */
  brand?: string;
  /** The old name of {@link brand} (`$type` namespace); `brand` wins when both are given. */
  typeNamespace?: string;
  /**
   * A request field neither the spec nor the service's pages name: `refuse` (default: most likely a
   * typo; the error names the closest known field) or `send` (for a newer service). Per call too.
   */
  unknownFields?: UnknownFieldsPolicy;
  /** Extra headers on every request (never put credentials here: use `auth`). */
  headers?: Record<string, string>;
  /**
   * Record or replay exchanges: `{ path, mode }` with mode `record`, `replay` (no network, no
   * credentials), `auto` (replay what is recorded, record the rest; the default) or `off`.
   */
  cassette?: CassetteOptions | Cassette;
  /**
   * A response cache for cacheable reads (curves, vols, briefs, position effects, transaction tables,
   * look-backs): `true` for memory with the defaults, or `{ ttlMs, maxEntries, dir }`. Default: none.
   * Bypass it per call with `{ cache: false }`, refresh an entry with `{ cache: "refresh" }`.
   */
  cache?: boolean | CacheOptions | ResponseCache;
  /**
   * The most bytes an answer may have, counted decompressed as it arrives: past it the call ends with
   * `ResponseTooLargeError` (never retried). Default per operation: 512 MiB for transaction tables, 32 MiB
   * for everything else; this sets it for every operation (a call's `maxResponseBytes` wins). Streaming a
   * table into Parquet holds no body: it stops at the call's limit, else at the larger of this and the
   * operation's default (so a limit set low here to spare memory does not stop a stream).
   */
  maxResponseBytes?: number;
  /**
   * An answer for another date than the request asked for (wire assumption A23: `RateAsset` asked for a
   * Saturday, a holiday or a date after the data answers with the curve of an earlier day;
   * `GetReportInfos` and `GetTradeEventPositionEffects` say their `pricing_date` too): `"warn"` (default)
   * returns it as it came, and every frame or column table built from it carries a warning naming both
   * dates (`meta.warnings`, `frames.frameInfo(df).warnings`, the table display); `"error"` throws
   * `DateMismatchError` naming the operation, the date asked and the date answered. Per call too.
   */
  dateMismatch?: DateMismatchPolicy;
}

/** The environment variable naming the service's brand (client, simulator and CLI). */
export const BRAND_ENV = "RISK_PORTAL_BRAND";

/** Default time a call may take, retries included. */
export const DEFAULT_TIMEOUT_MS = 60_000;

export type { ClientGroups } from "./groups";

/**
 * A typed client for the risk service's 13 operations.
 *
 * ```ts
 * const rp = new RiskPortalClient({ baseUrl, auth: { apiKey } });
 * const curve = await rp.rateAsset.getCurve({ currency: "USD", market_date: "2026-11-20" });
 * ```
 */
export class RiskPortalClient {
  readonly baseUrl: string;
  /** The brand requests are spelled in (see {@link RiskPortalClientOptions.brand}). */
  readonly brand: string;
  /** The same as {@link brand} (its old name). */
  readonly typeNamespace: string;
  /** The cassette this client records to or replays from, if any (its `stats` count replays and recordings). */
  readonly cassette?: Cassette;
  /** The response cache, if any (its `stats` count hits and misses). */
  readonly cache?: ResponseCache;
  readonly #config: PipelineConfig;

  // The resource groups, derived from the resources table (`RESOURCES`).
  declare readonly marketData: ClientGroups["marketData"];
  declare readonly tradable: ClientGroups["tradable"];
  declare readonly rateAsset: ClientGroups["rateAsset"];
  declare readonly reportLauncher: ClientGroups["reportLauncher"];
  declare readonly report: ClientGroups["report"];
  declare readonly position: ClientGroups["position"];
  declare readonly user: ClientGroups["user"];

  constructor(options: RiskPortalClientOptions) {
    if (!options || typeof options !== "object")
      throw new ConfigurationError("options are required: { baseUrl, auth }", { operation: "configure" });
    this.baseUrl = normaliseBaseUrl(options.baseUrl);
    this.brand = options.brand ?? options.typeNamespace ?? DEFAULT_BRAND;
    let brand;
    try {
      brand = brandOf(this.brand);
    } catch {
      throw new ConfigurationError(
        `brand must be a .NET namespace such as "Service" or "Derivitec", got ${JSON.stringify(this.brand)}`,
        {
          operation: "configure",
        },
      );
    }
    this.typeNamespace = this.brand;
    const unknownFields = options.unknownFields ?? "refuse";
    if (!UNKNOWN_FIELDS.includes(unknownFields))
      throw new ConfigurationError(`unknownFields must be "refuse" or "send", got ${JSON.stringify(unknownFields)}`, {
        operation: "configure",
      });
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!(timeoutMs > 0))
      throw new ConfigurationError(`timeoutMs must be > 0, got ${timeoutMs}`, { operation: "configure" });
    const dateMismatch = checkDateMismatch(options.dateMismatch);
    const redactor = new Redactor();
    const fetchImpl = options.fetch ?? defaultFetch();
    const now = () => Date.now();
    const cassetteOptions = options.cassette;
    if (cassetteOptions instanceof Cassette) this.cassette = cassetteOptions;
    else if (cassetteOptions && cassetteOptions.mode !== "off")
      this.cassette = new Cassette({ ...cassetteOptions, baseUrl: this.baseUrl });
    if (options.cache instanceof ResponseCache) this.cache = options.cache;
    else if (options.cache) this.cache = new ResponseCache(options.cache === true ? {} : options.cache, now);
    const replayOnly = this.cassette?.mode === "replay";
    const auth: AuthProvider =
      options.auth === undefined && replayOnly
        ? replayOnlyAuth
        : createAuthProvider(options.auth!, { fetch: fetchImpl, redactor, timeoutMs, now });
    this.#config = {
      baseUrl: this.baseUrl,
      fetch: fetchImpl,
      auth,
      redactor,
      timeoutMs,
      retry: resolveRetry(options.retry),
      brand,
      unknownFields,
      headers: Object.fromEntries([
        ["accept", "application/json"],
        ...Object.entries(options.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]),
      ]),
      now,
      cassette: this.cassette,
      cache: this.cache,
      dateMismatch,
      ...(options.maxResponseBytes === undefined
        ? {}
        : { maxResponseBytes: checkLimit(options.maxResponseBytes, "configure") }),
    };

    // One method per entry of the resources table: `(input, options?)`, or `(options?)` for an operation without input.
    for (const [group, methods] of Object.entries(RESOURCES)) {
      const built: Record<string, unknown> = {};
      for (const [method, op] of Object.entries(methods) as [string, OperationDef][]) {
        built[method] =
          op.requestIn === "none"
            ? (callOptions?: CallOptions) => this.request(op, {}, callOptions)
            : (input: unknown, callOptions?: CallOptions) => this.request(op, input, callOptions);
      }
      Object.defineProperty(this, group, { value: built, enumerable: true });
    }
  }

  /**
   * Sends any operation declaration through the pipeline (the resource methods are shorthands for this).
   * @example
   * ```ts
   * import { getRateAsset } from "risk-portal-lab/api";
   * const curve = await rp.request(getRateAsset, { currency: "EUR", market_date: "2026-11-20" }); // as rp.rateAsset.getCurve
   * ```
   */
  request<Op extends OperationDef>(op: Op, input: RequestInput<Op>, options?: CallOptions): Promise<ResponseOf<Op>> {
    return send(this.#config, op, input, options);
  }

  /**
   * Sends an operation and hands the body of its success answer to `sink` as it arrives, never holding
   * it whole (what `frames.fetchTransactionTableToParquet` uses for tables larger than memory).
   * Same auth, retries, deadline and errors as {@link request}; the response cache is not used.
   * @example
   * ```ts
   * // What frames.fetchTransactionTableToParquet builds on: the body goes to a sink as it arrives.
   * const table = await frames.fetchTransactionTableToParquet(rp, { portfolio_name: "RATES-EU" }, "data/rates-eu.parquet", { overwrite: true });
   * ```
   */
  requestStream<Op extends OperationDef>(
    op: Op,
    input: RequestInput<Op>,
    sink: BodySink,
    options?: CallOptions,
  ): Promise<Streamed> {
    return sendStreaming(this.#config, op, input, sink, options);
  }

  /**
   * A client configured from environment variables: `RISK_PORTAL_BASE_URL`, and one of
   * `RISK_PORTAL_TOKEN`, `RISK_PORTAL_API_KEY`, or `RISK_PORTAL_CLIENT_ID` + `RISK_PORTAL_CLIENT_SECRET` +
   * `RISK_PORTAL_TOKEN_URL` (optional `RISK_PORTAL_SCOPE`). Optional: `RISK_PORTAL_BRAND` (or its old
   * name `RISK_PORTAL_TYPE_NAMESPACE`), `RISK_PORTAL_TIMEOUT_MS`. `overrides` win over the environment.
   * @example
   * ```ts
   * const rp = RiskPortalClient.fromEnv(); // RISK_PORTAL_BASE_URL and one credential, from process.env
   * const timed = RiskPortalClient.fromEnv(process.env, { timeoutMs: 30_000 }); // overrides win over the environment
   * ```
   */
  static fromEnv(
    env: Record<string, string | undefined> = process.env,
    overrides: Partial<RiskPortalClientOptions> = {},
  ): RiskPortalClient {
    return new RiskPortalClient({ ...optionsFromEnv(env), ...overrides });
  }

  [inspect.custom](): string {
    const extras = Object.entries(this.toJSON())
      .slice(3)
      .map(([k, v]) => `, ${k}: ${JSON.stringify(v)}`)
      .join("");
    return `RiskPortalClient { baseUrl: ${JSON.stringify(this.#config.redactor.text(this.baseUrl))}, auth: ${this.#config.auth.description}, brand: ${JSON.stringify(this.brand)}${extras} }`;
  }

  /**
   * The client as `JSON.stringify` writes it: its base URL (redacted), the kind of auth (never the credential)
   * and its brand, with the cassette's and the cache's settings and counts when it has them.
   *
   * @example
   * ```ts
   * JSON.stringify(rp); // its base URL, brand and kind of auth: never a credential
   * ```
   */
  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = {
      baseUrl: this.#config.redactor.text(this.baseUrl),
      auth: this.#config.auth.description,
      brand: this.brand,
    };
    if (this.cassette) out.cassette = { path: this.cassette.path, mode: this.cassette.mode, ...this.cassette.stats };
    if (this.cache)
      out.cache = { ttlMs: this.cache.ttlMs, ...(this.cache.dir ? { dir: this.cache.dir } : {}), ...this.cache.stats };
    return out;
  }
}

/**
 * Options read from the environment (see {@link RiskPortalClient.fromEnv}); throws naming what is missing.
 * @example
 * ```ts
 * import { optionsFromEnv } from "risk-portal-lab/internals";
 * const options = optionsFromEnv({ RISK_PORTAL_BASE_URL: "https://risk.example.com", RISK_PORTAL_API_KEY: "my-key" });
 * const client = new RiskPortalClient(options); // what RiskPortalClient.fromEnv does
 * ```
 */
export function optionsFromEnv(env: Record<string, string | undefined>): RiskPortalClientOptions {
  const get = (name: string) => {
    const v = env[name]?.trim();
    return v ? v : undefined;
  };
  const baseUrl = get("RISK_PORTAL_BASE_URL");
  if (!baseUrl)
    throw new ConfigurationError(
      "RISK_PORTAL_BASE_URL is not set: it gives the service's address, e.g. https://risk.example.com",
      { operation: "configure" },
    );
  let auth: AuthOptions;
  const token = get("RISK_PORTAL_TOKEN");
  const apiKey = get("RISK_PORTAL_API_KEY");
  const clientId = get("RISK_PORTAL_CLIENT_ID");
  if (token) auth = { token };
  else if (apiKey) auth = { apiKey };
  else if (clientId) {
    const clientSecret = get("RISK_PORTAL_CLIENT_SECRET");
    const tokenUrl = get("RISK_PORTAL_TOKEN_URL");
    const missing = [!clientSecret && "RISK_PORTAL_CLIENT_SECRET", !tokenUrl && "RISK_PORTAL_TOKEN_URL"].filter(
      Boolean,
    );
    if (missing.length)
      throw new ConfigurationError(
        `RISK_PORTAL_CLIENT_ID is set but ${missing.join(" and ")} ${missing.length > 1 ? "are" : "is"} not`,
        {
          operation: "configure",
        },
      );
    auth = { clientId, clientSecret: clientSecret!, tokenUrl: tokenUrl!, scope: get("RISK_PORTAL_SCOPE") };
  } else {
    throw new ConfigurationError(
      "no credentials in the environment: set RISK_PORTAL_TOKEN, RISK_PORTAL_API_KEY, or RISK_PORTAL_CLIENT_ID + RISK_PORTAL_CLIENT_SECRET + RISK_PORTAL_TOKEN_URL",
      { operation: "configure" },
    );
  }
  const options: RiskPortalClientOptions = { baseUrl, auth };
  const brand = get(BRAND_ENV) ?? get("RISK_PORTAL_TYPE_NAMESPACE");
  if (brand) options.brand = brand;
  const timeout = get("RISK_PORTAL_TIMEOUT_MS");
  if (timeout) {
    const ms = Number(timeout);
    if (!(ms > 0))
      throw new ConfigurationError(
        `RISK_PORTAL_TIMEOUT_MS must be a positive number of milliseconds, got ${JSON.stringify(timeout)}`,
        {
          operation: "configure",
        },
      );
    options.timeoutMs = ms;
  }
  return options;
}

function normaliseBaseUrl(baseUrl: unknown): string {
  if (typeof baseUrl !== "string" || !baseUrl.trim())
    throw new ConfigurationError("baseUrl is required, e.g. https://risk.example.com", { operation: "configure" });
  let url: URL;
  try {
    url = new URL(baseUrl.trim());
  } catch {
    throw new ConfigurationError(`baseUrl is not an absolute URL: ${JSON.stringify(new Redactor().text(baseUrl))}`, {
      operation: "configure",
    });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new ConfigurationError(`baseUrl must be http or https, got ${url.protocol}`, { operation: "configure" });
  if (url.search || url.hash)
    throw new ConfigurationError("baseUrl must not carry a query or fragment", { operation: "configure" });
  return url.toString().replace(/\/+$/, "");
}

function defaultFetch(): typeof fetch {
  if (typeof globalThis.fetch === "function") return globalThis.fetch.bind(globalThis);
  // Only on runtimes without a global fetch; loaded on demand so importing the client stays light.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require("cross-fetch") as typeof fetch;
}
