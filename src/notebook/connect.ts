/**
 * `connect()`: the one call a notebook starts with. The real service when the environment configures
 * one (`RISK_PORTAL_BASE_URL` plus credentials, see `RiskPortalClient.fromEnv`), otherwise an embedded
 * simulator started in this process. Either way the notebook gets a client and one line saying where it
 * is connected.
 */
import { RiskPortalClient, type RiskPortalClientOptions } from "../client/client";
import type { Simulator, SimulatorOptions } from "../sim";

export interface Connection {
  rp: RiskPortalClient;
  /** `service` when the environment configured one, else `simulator`. */
  source: "service" | "simulator";
  baseUrl: string;
  /** The embedded simulator, when one was started (its URL and credentials). */
  simulator?: Simulator;
  /** Stops the embedded simulator, if any. */
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
}

const open = new Set<Connection>();

/** Connects to the configured service, or starts the embedded simulator. */
export async function connect(options: ConnectOptions = {}): Promise<Connection> {
  const env = options.env ?? process.env;
  const log = options.log ?? ((line: string) => console.log(line));
  if (!options.forceSimulator && env.RISK_PORTAL_BASE_URL?.trim()) {
    const rp = RiskPortalClient.fromEnv(env, options.client);
    log(`Connected to the risk service at ${rp.baseUrl} (${rp.toJSON().auth}).`);
    const connection: Connection = { rp, source: "service", baseUrl: rp.baseUrl, close: async () => void open.delete(connection) };
    open.add(connection);
    return connection;
  }
  const { startSimulator, DEFAULT_AS_OF } = await import("../sim");
  const simulator = await startSimulator(options.simulator);
  const rp = new RiskPortalClient({ baseUrl: simulator.url, auth: { apiKey: simulator.credentials.apiKey }, ...options.client });
  log(
    `No RISK_PORTAL_BASE_URL set: started the embedded simulator at ${simulator.url} (seed ${options.simulator?.seed ?? 1}, data as of ${options.simulator?.asOf ?? DEFAULT_AS_OF}).`,
  );
  const connection: Connection = {
    rp,
    source: "simulator",
    baseUrl: simulator.url,
    simulator,
    close: async () => {
      open.delete(connection);
      await simulator.close();
    },
  };
  open.add(connection);
  return connection;
}

/** Closes every connection `connect` opened in this process (the headless runner calls it after a notebook). */
export async function closeAllConnections(): Promise<void> {
  await Promise.all([...open].map((c) => c.close()));
}
