/**
 * What differs between two runs' environments, as each run recorded it (`metadata.risk_portal_lab`:
 * `environment` and `data_sources`, see run-record.ts and data-sources.ts): versions, kernel, platform,
 * git commit, and where the data came from. Context for the reader, like the parameters: not a change
 * of the results. A run that recorded nothing (an older runner's) is not compared.
 */
import { describeDataSource, type DataSource } from "../data-sources";
import type { Notebook } from "../ipynb";

/** One thing that differs: `node` v22.1.0 → v26.0.0, `data` simulator seed 1 → cassette x.json. */
export interface EnvironmentChange {
  what: string;
  before?: string;
  after?: string;
}

/** The environment fields compared, in the order they are listed. */
const FIELDS = ["risk_portal_lab", "kernel", "node", "tslab", "deno", "typescript", "platform"] as const;

interface Recorded {
  environment?: Record<string, unknown>;
  data_sources?: unknown;
}

const recordOf = (nb: Notebook): Recorded => nb.metadata?.risk_portal_lab ?? {};

/** `abc123def456` (12 digits), `+ local changes` when the work tree had them. */
function gitText(env: Record<string, unknown>): string | undefined {
  const git = env.git as { commit?: unknown; dirty?: unknown } | undefined;
  if (!git || typeof git.commit !== "string") return undefined;
  return `${git.commit.slice(0, 12)}${git.dirty ? " + local changes" : ""}`;
}

/** The data sources in a few words each, `; `-separated; `none` when the run connected to nothing. */
function dataText(sources: unknown): string | undefined {
  if (!Array.isArray(sources)) return undefined;
  const shown = (sources as DataSource[]).filter((s) => s && typeof s.source === "string").map(describeDataSource);
  return shown.length ? [...new Set(shown)].join("; ") : "none";
}

/** What differs between the two runs' recorded environments and data sources (empty when either recorded none). */
export function environmentChanges(before: Notebook, after: Notebook): EnvironmentChange[] {
  const a = recordOf(before);
  const b = recordOf(after);
  const out: EnvironmentChange[] = [];
  const add = (what: string, x: string | undefined, y: string | undefined) => {
    if (x !== y)
      out.push({ what, ...(x === undefined ? {} : { before: x }), ...(y === undefined ? {} : { after: y }) });
  };
  if (a.environment && b.environment) {
    const text = (env: Record<string, unknown>, k: string) => (typeof env[k] === "string" ? env[k] : undefined);
    for (const k of FIELDS) add(k, text(a.environment, k), text(b.environment, k));
    add("git", gitText(a.environment), gitText(b.environment));
  }
  if (a.data_sources !== undefined && b.data_sources !== undefined)
    add("data", dataText(a.data_sources), dataText(b.data_sources));
  return out;
}

/** `environment: node v22.1.0 → v26.0.0, tslab (none) → 1.0.22 · data: simulator seed 1 → cassette x.json`; "" when nothing differs. */
export function describeEnvironmentChanges(changes: readonly EnvironmentChange[]): string {
  const one = (c: EnvironmentChange) => `${c.before ?? "(none)"} → ${c.after ?? "(none)"}`;
  const env = changes
    .filter((c) => c.what !== "data")
    .map((c) => `${c.what === "risk_portal_lab" ? "risk-portal-lab" : c.what} ${one(c)}`);
  const data = changes.find((c) => c.what === "data");
  return [env.length ? `environment: ${env.join(", ")}` : "", data ? `data: ${one(data)}` : ""]
    .filter(Boolean)
    .join(" · ");
}
