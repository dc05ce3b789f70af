/**
 * `connect()`: the one call a notebook starts with. The real service when the environment configures
 * one (`RISK_PORTAL_BASE_URL` plus credentials, see `RiskPortalClient.fromEnv`), otherwise an embedded
 * simulator started in this process, or, when replaying, the notebook's cassette and no server at all.
 * Either way the notebook gets a client and one line saying where its answers come from.
 *
 * ```ts
 * const conn = await connect({ cassette: "../fixtures/cassettes/01-yield-curves.json", replay: replay });
 * ```
 *
 * The cassette mode: `mode` if given, else `replay: true` → `replay`, else `RISK_PORTAL_CASSETTE_MODE`
 * (`record`, `replay`, `auto`, `off`), else `off`. `RISK_PORTAL_CASSETTE_DIR` moves every cassette to
 * that directory (same file name): to record a set elsewhere, or in tests.
 */
import { notebookSession } from "../kernel/session";
import path from "node:path";
import { Cassette, CASSETTE_MODES, type CassetteMode } from "../record/cassette";
import { BRAND_ENV, RiskPortalClient, type RiskPortalClientOptions } from "../client/client";
import { ConfigurationError } from "../errors";
import type { Simulator, SimulatorOptions } from "../sim";
import { simHelpers, type SimHelpers } from "./sim-helpers";
import { originOf, recordDataSource, type DataSource } from "./data-sources";

export type { SimBatchRun, SimHelpers, SimPortfolio, SimTradable } from "./sim-helpers";

/** The environment variable with the cassette mode of notebooks that name a cassette. */
export const CASSETTE_MODE_ENV = "RISK_PORTAL_CASSETTE_MODE";
/** The environment variable naming a directory that replaces the directory of every cassette. */
export const CASSETTE_DIR_ENV = "RISK_PORTAL_CASSETTE_DIR";

export interface Connection {
  rp: RiskPortalClient;
  /**
   * `service` when the environment configured one, `simulator` for the embedded one, `cassette` when
   * every answer is replayed from a recording (no server).
   */
  source: "service" | "simulator" | "cassette";
  /** The server's base URL; when replaying, the one the cassette was recorded from. */
  baseUrl: string;
  /** The cassette mode (`off`: no cassette). The counts are in `rp.cassette.stats`. */
  mode: CassetteMode;
  /** The cassette file as used (relative paths are relative to the working directory), when `mode` is not `off`. */
  cassette?: string;
  /** The embedded simulator, when one was started (its URL and credentials). */
  simulator?: Simulator;
  /**
   * The simulator-only helpers (`tradables()`, `portfolios()`, `surface(asset)`), through the client's
   * pipeline (so recorded and replayed): when the source is the simulator, or a cassette recorded from
   * the simulator. Undefined against a real service.
   */
  sim?: SimHelpers;
  /**
   * Waits `ms` (a poll loop's pause), except when replaying: the answers are recorded, waiting would
   * change nothing, so replay runs at full speed.
   */
  sleep(ms: number): Promise<void>;
  /**
   * Finishes a recording (`record`: what was recorded replaces the cassette; until then it is as it was)
   * and stops the embedded simulator, if any. A notebook's last cell.
   */
  close(): Promise<void>;
}

export interface ConnectOptions {
  /** Where to read the configuration. Default `process.env`. */
  env?: Record<string, string | undefined>;
  /** Options of the embedded simulator (seed, asOf, transactionRows, …). */
  simulator?: SimulatorOptions;
  /** Extra client options (timeoutMs, retry, …). */
  client?: Partial<RiskPortalClientOptions>;
  /** Always use the embedded simulator, even when the environment names a service. */
  forceSimulator?: boolean;
  /** Where the one-line summary goes. Default `console.log`; pass `() => {}` for silence. */
  log?: (line: string) => void;
  /**
   * The notebook's cassette file (relative to the working directory: in a notebook, its own directory),
   * used when the mode is not `off`.
   */
  cassette?: string;
  /** `true`: answer every request from the cassette: no server, no credentials (same as `mode: "replay"`). */
  replay?: boolean;
  /** The cassette mode; wins over `replay` and `RISK_PORTAL_CASSETTE_MODE`. */
  mode?: CassetteMode;
}

/** Why a recording stopped by {@link closeAllConnections} is not finished. */
const NOT_CLOSED = "the notebook ended before its conn.close()";

/** Connections open, each with how to stop it without finishing its recording (see {@link closeAllConnections}). */
const open = new Map<Connection, () => Promise<void>>();

/** The cassette mode for these options: `mode` > `replay: true` > `RISK_PORTAL_CASSETTE_MODE` > `off`. */
export function resolveCassetteMode(
  options: Pick<ConnectOptions, "mode" | "replay" | "cassette">,
  env: Record<string, string | undefined> = process.env,
): CassetteMode {
  let mode: CassetteMode;
  if (options.mode !== undefined) {
    if (!CASSETTE_MODES.includes(options.mode))
      throw new ConfigurationError(
        `connect: mode must be one of ${CASSETTE_MODES.join(", ")}; got ${JSON.stringify(options.mode)}`,
        {
          operation: "configure",
        },
      );
    mode = options.mode;
  } else if (options.replay === true) {
    mode = "replay";
  } else {
    const fromEnv = env[CASSETTE_MODE_ENV]?.trim().toLowerCase();
    if (!fromEnv || options.cassette === undefined) return "off";
    if (!(CASSETTE_MODES as readonly string[]).includes(fromEnv)) {
      throw new ConfigurationError(
        `${CASSETTE_MODE_ENV} must be one of ${CASSETTE_MODES.join(", ")}; got ${JSON.stringify(env[CASSETTE_MODE_ENV])}`,
        {
          operation: "configure",
        },
      );
    }
    mode = fromEnv as CassetteMode;
  }
  if (mode !== "off" && !options.cassette?.trim()) {
    throw new ConfigurationError(
      `connect: cassette mode "${mode}" needs a cassette file, e.g. connect({ cassette: "../fixtures/cassettes/my-notebook.json", replay: true })`,
      { operation: "configure" },
    );
  }
  return mode;
}

/** The cassette file to use: as given, or moved to `RISK_PORTAL_CASSETTE_DIR` when that is set. */
export function cassettePath(file: string, env: Record<string, string | undefined> = process.env): string {
  const dir = env[CASSETTE_DIR_ENV]?.trim();
  return dir ? path.join(dir, path.basename(file)) : file;
}

/**
 * Connects to the configured service or starts the embedded simulator, recording to the cassette when
 * the mode says so; or, replaying, opens the cassette and contacts nothing.
 * @example
 * ```ts
 * const conn = await connect(); // the service when RISK_PORTAL_BASE_URL is set, else the embedded simulator
 * const curve = await conn.rp.rateAsset.getCurve({ currency: "EUR", market_date: "2026-11-20" });
 * await conn.close();
 * ```
 */
export async function connect(options: ConnectOptions = {}): Promise<Connection> {
  const env = options.env ?? process.env;
  const log = options.log ?? ((line: string) => console.log(line));
  const mode = resolveCassetteMode(options, env);
  const file = mode === "off" ? undefined : cassettePath(options.cassette!, env);
  if (mode === "replay") return replay(file!, options, log);

  const service = !options.forceSimulator && Boolean(env.RISK_PORTAL_BASE_URL?.trim());
  const simulatorOptions = options.simulator ?? {};
  let seed = 1;
  let asOf = "";
  if (!service) {
    seed = simulatorOptions.seed ?? 1;
    asOf = simulatorOptions.asOf ?? (await import("../sim")).DEFAULT_AS_OF;
  }
  // Facts about the recording, never secrets: where from, and for the simulator the seed and the data's date.
  const meta: Record<string, unknown> = service ? { source: "service" } : { source: "simulator", seed, asOf };
  // The brand the requests are spelled in, so that a replay spells them the same way (the default is not written).
  const recordedBrand =
    options.client?.brand ?? (service ? undefined : options.simulator?.brand) ?? (env[BRAND_ENV]?.trim() || undefined);
  if (recordedBrand && recordedBrand !== "Service") meta.brand = recordedBrand;
  const cassetteOption = file ? { cassette: { path: file, mode, meta } } : {};
  const recording = file
    ? `; ${mode === "record" ? `recording every exchange to ${file}` : `replaying what ${file} holds, recording the rest`}`
    : "";

  if (service) {
    const rp = RiskPortalClient.fromEnv(env, { ...options.client, ...cassetteOption });
    log(`Connected to the risk service at ${rp.baseUrl} (${rp.toJSON().auth})${recording}.`);
    recordDataSource(withCassette({ source: "service", url: originOf(rp.baseUrl) }, rp, file, mode));
    return track(
      { rp, source: "service", baseUrl: rp.baseUrl, mode, ...(file ? { cassette: file } : {}), sleep: wait },
      async () => undefined,
    );
  }
  const { startSimulator } = await import("../sim");
  // One brand for both ends: the client's option, else RISK_PORTAL_BRAND, else the neutral one.
  const brand = options.client?.brand ?? simulatorOptions.brand ?? (env[BRAND_ENV]?.trim() || undefined);
  const withBrand = brand ? { ...simulatorOptions, brand } : simulatorOptions;
  // A recording uses credentials derived from the seed, so that a test can check the cassette holds none of them.
  const simulator = await startSimulator(file ? { fixedCredentials: true, ...withBrand } : withBrand);
  let rp: RiskPortalClient;
  try {
    rp = new RiskPortalClient({
      baseUrl: simulator.url,
      auth: { apiKey: simulator.credentials.apiKey },
      brand: simulator.brand,
      ...options.client,
      ...cassetteOption,
    });
  } catch (error) {
    await simulator.close();
    throw error;
  }
  log(
    `No RISK_PORTAL_BASE_URL set: started the embedded simulator at ${simulator.url} (seed ${seed}, data as of ${asOf}${simulator.brand === "Service" ? "" : `, brand ${simulator.brand}`})${recording}.`,
  );
  recordDataSource(withCassette({ source: "simulator", seed, as_of: asOf }, rp, file, mode));
  const connection = {
    rp,
    source: "simulator" as const,
    baseUrl: simulator.url,
    mode,
    ...(file ? { cassette: file } : {}),
    simulator,
    sim: simHelpers(rp),
    sleep: wait,
  };
  return track(connection, () => simulator.close());
}

/**
 * Registers a connection: its `close` finishes a recording (it replaces the cassette now, not before),
 * then `stop`s what it started; {@link closeAllConnections} only stops it, leaving a recording unfinished.
 */
function track(fields: Omit<Connection, "close">, stop: () => Promise<void>): Connection {
  const connection: Connection = {
    ...fields,
    close: async () => {
      open.delete(connection);
      try {
        connection.rp.cassette?.finish();
      } finally {
        await stop();
      }
    },
  };
  open.set(connection, async () => {
    open.delete(connection);
    connection.rp.cassette?.abandon(NOT_CLOSED);
    await stop();
  });
  return connection;
}

/** Replay: the client answers from the cassette, with the base URL it was recorded from and no credentials. */
function replay(file: string, options: ConnectOptions, log: (line: string) => void): Connection {
  const cassette = new Cassette({ path: file, mode: "replay", baseUrl: "" });
  const brand = options.client?.brand ?? (typeof cassette.meta.brand === "string" ? cassette.meta.brand : undefined);
  const rp = new RiskPortalClient({
    ...options.client,
    ...(brand ? { brand } : {}),
    baseUrl: cassette.baseUrl,
    cassette,
  });
  const recordedAt = cassette.recordedAt;
  const meta = cassette.meta;
  const exchanges = `${cassette.size} exchange${cassette.size === 1 ? "" : "s"}`;
  log(
    `Replaying ${file}: ${exchanges} recorded${recordedAt ? ` ${recordedAt.slice(0, 10)}` : ""} from ${describeRecordingSource(meta, cassette.baseUrl)}; no server is contacted.`,
  );
  recordDataSource({
    source: "cassette",
    cassette: file,
    cassette_mode: "replay",
    ...(recordedAt ? { recorded_at: recordedAt } : {}),
    ...recordedFrom(meta, cassette.baseUrl),
  });
  const connection = {
    rp,
    source: "cassette" as const,
    baseUrl: cassette.baseUrl,
    mode: "replay" as const,
    cassette: file,
    ...(meta.source === "simulator" ? { sim: simHelpers(rp) } : {}),
    sleep: async () => undefined,
  };
  return track(connection, async () => undefined);
}

/** A connection's data source with its cassette, when it records to (or replays from) one. */
function withCassette(
  entry: DataSource,
  rp: RiskPortalClient,
  file: string | undefined,
  mode: CassetteMode,
): DataSource {
  if (!file) return entry;
  const recordedAt = mode === "record" ? undefined : rp.cassette?.recordedAt;
  return { ...entry, cassette: file, cassette_mode: mode, ...(recordedAt ? { recorded_at: recordedAt } : {}) };
}

/** What a replayed cassette was recorded from, as a data source's fields (a service by its origin alone). */
function recordedFrom(meta: Readonly<Record<string, unknown>>, baseUrl: string): Partial<DataSource> {
  if (meta.source === "simulator")
    return {
      recorded_from: "simulator",
      ...(typeof meta.seed === "number" ? { seed: meta.seed } : {}),
      ...(typeof meta.asOf === "string" ? { as_of: meta.asOf } : {}),
    };
  const url = originOf(baseUrl);
  return meta.source === "service" ? { recorded_from: "service", ...(url ? { url } : {}) } : {};
}

/** `the simulator (seed 1, data as of 2026-11-20)`, `the risk service at https://…`. */
function describeRecordingSource(meta: Readonly<Record<string, unknown>>, baseUrl: string): string {
  if (meta.source === "simulator") {
    const facts = [
      meta.seed === undefined ? "" : `seed ${String(meta.seed)}`,
      meta.asOf === undefined ? "" : `data as of ${String(meta.asOf)}`,
    ].filter(Boolean);
    return `the simulator${facts.length ? ` (${facts.join(", ")})` : ""}`;
  }
  if (meta.source === "service") return `the risk service at ${baseUrl}`;
  return baseUrl || "an unnamed server";
}

function wait(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

/**
 * Stops every connection `connect` opened in this process and did not close (the headless runner calls it
 * after a notebook): its simulator stops, but a recording is not finished, since the notebook did not get
 * to its `conn.close()`: the cassette stays as it was, and a line on stderr says where the recording is.
 * @example
 * ```ts
 * await connect();
 * await closeAllConnections(); // stops what every connect() of this process started
 * ```
 */
export async function closeAllConnections(): Promise<void> {
  await Promise.all([...open.values()].map((stop) => stop()));
}
// Simulators a notebook started stop with its session.
notebookSession().onEnd(closeAllConnections);
