/**
 * What a run records of itself in the executed notebook, so that the notebook says what made it:
 * papermill's own record (`metadata.papermill` on the notebook and on each code cell, the field names,
 * formats and statuses papermill writes, which tools such as scrapbook and commuter read), and the
 * environment under `metadata.risk_portal_lab.environment`: the package's, Node's, tslab's or Deno's
 * versions, the kernel, and the git commit of the notebook's folder.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Cell, Notebook } from "./ipynb";

/** papermill's cell statuses: `pending` (not run), `completed`, `failed` (`running` only while it runs). */
export type PapermillStatus = "pending" | "running" | "completed" | "failed";

/** A code cell's `metadata.papermill`, as papermill writes it (times: ISO 8601 in UTC; duration: seconds). */
export interface PapermillCell {
  exception: boolean | null;
  start_time: string | null;
  end_time: string | null;
  duration: number | null;
  status: PapermillStatus;
}

/** The notebook's `metadata.papermill` as this runner writes it (papermill's fields; no papermill `version`). */
export interface PapermillRun {
  parameters: Record<string, unknown>;
  input_path: string;
  output_path: string;
  start_time: string;
  end_time: string;
  /** Seconds. */
  duration: number;
  /** `true` when a cell failed, else `null` (papermill's values). */
  exception: true | null;
}

/** The time now, ms since the epoch, to the microsecond where the clock has it. */
export function epochNow(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * A time as papermill writes it (Python's `datetime.isoformat()` of a UTC time):
 * `2026-11-20T09:30:00.123456+00:00`.
 */
export function papermillTime(epochMs: number): string {
  const micros = Math.round(epochMs * 1000);
  const secondsPart = Math.floor(micros / 1e6);
  const fraction = String(micros - secondsPart * 1e6).padStart(6, "0");
  return `${new Date(secondsPart * 1000).toISOString().slice(0, 19)}.${fraction}+00:00`;
}

/** Seconds between two times, as papermill's `total_seconds()` (microseconds kept). */
export function seconds(fromMs: number, toMs: number): number {
  return Math.round(Math.max(0, toMs - fromMs) * 1000) / 1e6;
}

/** Records how a code cell ran in its `metadata.papermill` (`endMs - ms` .. `endMs`, completed or failed). */
export function stampCell(cell: Cell, ms: number, failed: boolean, endMs = epochNow()): void {
  const startMs = endMs - ms;
  const record: PapermillCell = {
    exception: failed,
    start_time: papermillTime(startMs),
    end_time: papermillTime(endMs),
    duration: seconds(startMs, endMs),
    status: failed ? "failed" : "completed",
  };
  cell.metadata = { ...cell.metadata, papermill: record };
}

/** A code cell that did not run: papermill's `pending` record. */
const PENDING: PapermillCell = { exception: null, start_time: null, end_time: null, duration: null, status: "pending" };

/** Removes an earlier run's per-cell records (the input may be an executed notebook). */
export function clearCellRecords(nb: Notebook): void {
  for (const cell of nb.cells) {
    if (cell.cell_type !== "code" || !cell.metadata || !("papermill" in cell.metadata)) continue;
    const { papermill: _earlier, ...rest } = cell.metadata;
    cell.metadata = rest;
  }
}

/** Marks the code cells this run did not reach as `pending`. */
export function markPending(nb: Notebook): void {
  for (const cell of nb.cells)
    if (cell.cell_type === "code" && !cell.metadata?.papermill)
      cell.metadata = { ...cell.metadata, papermill: { ...PENDING } };
}

/** The notebook's `metadata.papermill` for a run that ended now and lasted `durationMs`. */
export function papermillRun(
  parameters: Record<string, unknown>,
  paths: { input: string; output: string },
  durationMs: number,
  failed: boolean,
  endMs = epochNow(),
): PapermillRun {
  const startMs = endMs - durationMs;
  return {
    parameters,
    input_path: paths.input,
    output_path: paths.output,
    start_time: papermillTime(startMs),
    end_time: papermillTime(endMs),
    duration: seconds(startMs, endMs),
    exception: failed ? true : null,
  };
}

/** What ran the notebook: `metadata.risk_portal_lab.environment`. */
export interface RunEnvironment {
  /** This package's version (its package.json). */
  risk_portal_lab: string;
  /** The kernel that ran the notebook: `tslab` or `deno`. */
  kernel: string;
  /** The Node that ran the runner (and, under tslab, the notebook): `process.version`, `v22.12.0`. */
  node: string;
  /** tslab's version (tslab kernel), Deno's and its TypeScript's (Deno kernel). */
  tslab?: string;
  deno?: string;
  typescript?: string;
  /** `linux-x64`. */
  platform: string;
  /** The notebook folder's git commit, when it is in a git work tree, and whether tracked files had local changes. */
  git?: { commit: string; dirty: boolean };
}

/** A package's version from its package.json beside `dir` (walking up to the nearest one named `name`). */
function packageVersion(name: string, from: string): string | undefined {
  for (let dir = from; ; dir = path.dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === name && typeof pkg.version === "string") return pkg.version;
    } catch {
      // no package.json here: look further up
    }
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** This package's version (from the built notebook room or its sources → the package root). */
export function ownVersion(): string {
  return packageVersion("risk-portal-lab", __dirname) ?? "unknown";
}

/** tslab's version, from the package that holds its `dist/` directory; undefined when it cannot be read. */
export function tslabVersion(tslabDist: string): string | undefined {
  return packageVersion("tslab", tslabDist);
}

/** `git` in `dir`, its stdout trimmed; undefined when git is missing or fails (not a work tree). */
function git(dir: string, args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile("git", args, { cwd: dir, timeout: 5000, windowsHide: true }, (error, stdout) =>
      resolve(error ? undefined : stdout.trim()),
    );
  });
}

/**
 * The git commit of the work tree `dir` is in, and whether its tracked files have local changes
 * (untracked files, such as the run's own `out/`, do not count); undefined outside a work tree.
 */
export async function gitState(dir: string): Promise<{ commit: string; dirty: boolean } | undefined> {
  const commit = await git(dir, ["rev-parse", "--verify", "HEAD"]);
  if (!commit || !/^[0-9a-f]{40,64}$/.test(commit)) return undefined;
  const status = await git(dir, ["status", "--porcelain", "--untracked-files=no"]);
  return { commit, dirty: status === undefined ? true : status !== "" };
}

/** The environment of a run of a notebook in `dir` under `kernel` (`versions`: the kernel's own). */
export async function runEnvironment(
  dir: string,
  kernel: string,
  versions: Pick<RunEnvironment, "tslab" | "deno" | "typescript"> = {},
): Promise<RunEnvironment> {
  const git = await gitState(dir);
  const defined = Object.fromEntries(Object.entries(versions).filter(([, v]) => typeof v === "string" && v));
  return {
    risk_portal_lab: ownVersion(),
    kernel,
    node: process.version,
    ...defined,
    platform: `${process.platform}-${process.arch}`,
    ...(git ? { git } : {}),
  };
}
