/**
 * Where a run's data came from: each `connect()` of a notebook run headless appends one line to the file
 * the runner names in {@link RUN_RECORD_ENV} (the notebook may run in another process: a worker, or
 * Deno's kernel), and the runner puts them in the executed notebook. Facts only, never a credential: a
 * service's origin (no user, password, path or query), the simulator's seed and data date, a cassette's
 * file and when it was recorded.
 */
import { appendFileSync, readFileSync, rmSync } from "node:fs";

/** The environment variable naming the file a notebook's `connect()` calls are recorded in (set by the runner). */
export const RUN_RECORD_ENV = "RISK_PORTAL_RUN_RECORD";

/** One `connect()` of a run. */
export interface DataSource {
  /** `service` (the configured one), `simulator` (the embedded one), `cassette` (replayed, no server). */
  source: "service" | "simulator" | "cassette";
  /** The service's origin (`https://risk.example.com`): no credentials, path or query. */
  url?: string;
  /** The simulator's seed and the date its data is as of (`2026-11-20`); for a cassette, those it was recorded with. */
  seed?: number;
  as_of?: string;
  /** The cassette file as the notebook named it, its mode, and when it was recorded (ISO date-time). */
  cassette?: string;
  cassette_mode?: string;
  recorded_at?: string;
  /** What a replayed cassette was recorded from: `simulator` or `service` (then `url` is that service's). */
  recorded_from?: string;
}

/** A URL's origin alone (`https://host:port`), or undefined when it is not a URL. */
export function originOf(url: string): string | undefined {
  try {
    const origin = new URL(url).origin;
    return origin === "null" ? undefined : origin;
  } catch {
    return undefined;
  }
}

/**
 * Records a `connect()` in the run's file, when a runner named one; never fails the notebook (the
 * record is a note about the run, not part of its work).
 */
export function recordDataSource(entry: DataSource, env: Record<string, string | undefined> = process.env): void {
  const file = env[RUN_RECORD_ENV];
  if (!file) return;
  try {
    appendFileSync(file, `${JSON.stringify(entry)}\n`);
  } catch {
    // The runner's folder is gone (it ended): nobody to tell.
  }
}

/** The data sources recorded in `file` (in order; lines that are not a record are skipped); the file is removed. */
export function takeDataSources(file: string): DataSource[] {
  let text = "";
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  } finally {
    rmSync(file, { force: true });
  }
  const out: DataSource[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      const entry = JSON.parse(line) as DataSource;
      if (entry && typeof entry === "object" && typeof entry.source === "string") out.push(entry);
    } catch {
      // a line cut short by a process that died while writing it
    }
  }
  return out;
}

/** `simulator seed 1 (2026-11-20)`, `cassette x.json (recorded 2026-11-20)`, `service https://…`: one source in a few words. */
export function describeDataSource(s: DataSource): string {
  const sim = [s.seed === undefined ? "" : `seed ${s.seed}`, s.as_of ? `as of ${s.as_of}` : ""]
    .filter(Boolean)
    .join(", ");
  if (s.source === "cassette")
    return `cassette ${s.cassette ?? "?"}${s.recorded_at ? ` (recorded ${s.recorded_at.slice(0, 10)})` : ""}`;
  const base = s.source === "service" ? `service ${s.url ?? "?"}` : `simulator${sim ? ` ${sim}` : ""}`;
  return s.cassette ? `${base}, ${s.cassette_mode ?? "recording"} ${s.cassette}` : base;
}
