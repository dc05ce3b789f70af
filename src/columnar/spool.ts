/**
 * Spool folders: where a table streaming into Parquet is spooled and staged, beside its target
 * (`<target>.partial-<pid>-<host>-<random>`), removed when the call ends. A call's `finally` does not
 * run when the process is ended by a signal, so the folders of the calls in flight are also removed on
 * SIGINT, SIGTERM and SIGHUP, after which the signal ends the process as it would have (unless something
 * else in the process handles the signal: a kernel's interrupt, which goes on, and the calls with it). A
 * folder that survives anyway (SIGKILL, a crash, a power cut) is swept by the next call beside the same
 * target: when its process (of this host) is gone; another host's when older than {@link STALE_SPOOL_MS}.
 */
import { randomBytes, createHash } from "node:crypto";
import { readdirSync, rmSync, statSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";

/** A spool folder untouched this long is no call's, whatever its name says: a day. */
export const STALE_SPOOL_MS = 24 * 3600 * 1000;

let hostTagMemo: string | undefined;
/**
 * This host, short: a pid means something only on the host that made it (the target may be on a shared disk).
 * Made on first use: hashing at import would load crypto at every start.
 */
function hostTag(): string {
  return (hostTagMemo ??= createHash("sha256").update(hostname()).digest("hex").slice(0, 8));
}
const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/** The spool folders of this process's calls in flight. */
const live = new Set<string>();
let installed = false;

/**
 * A new spool folder's path beside `target` (not created), named after this process, and held until
 * {@link releaseSpool}: removed if a signal ends the process first. Folders that earlier processes left
 * beside `target` are swept first (see {@link sweepSpools}).
 */
export function claimSpool(target: string, tag = "partial"): string {
  sweepSpools(target, tag);
  const dir = spoolPath(target, process.pid, tag);
  live.add(dir);
  if (!installed && process.platform !== "win32") {
    for (const signal of SIGNALS) process.on(signal, onSignal);
    installed = true;
  }
  return dir;
}

/** Removes a spool folder from {@link claimSpool} (and all it holds); no longer removed on signals. */
export function releaseSpool(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  live.delete(dir);
  if (live.size === 0 && installed) {
    for (const signal of SIGNALS) process.off(signal, onSignal);
    installed = false;
  }
}

/** The name of a spool folder of process `pid` of this host beside `target`. */
export function spoolPath(target: string, pid: number, tag = "partial"): string {
  return `${target}.${tag}-${pid}-${hostTag()}-${randomBytes(6).toString("hex")}`;
}

/**
 * Removes the spool folders beside `target` that no call will finish: those of a process of this host
 * that is gone, and those of other hosts (and unnamed ones, from before folders were named after their
 * process) untouched for {@link STALE_SPOOL_MS}. Returns the paths removed.
 */
export function sweepSpools(target: string, tag = "partial"): string[] {
  const dir = path.dirname(target);
  const prefix = `${path.basename(target)}.${tag}-`;
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.startsWith(prefix));
  } catch {
    return []; // no directory yet: nothing to sweep
  }
  const removed: string[] = [];
  for (const name of names) {
    const full = path.join(dir, name);
    if (live.has(full) || !abandoned(full, name.slice(prefix.length))) continue;
    try {
      rmSync(full, { recursive: true, force: true });
      removed.push(full);
    } catch {
      /* another process swept it, or it cannot be removed: the next call tries again */
    }
  }
  return removed;
}

/**
 * Whether a spool folder is no live call's: one of this host, when its process is gone (a live process's
 * stays, however long its stream stalls); any other (another host's, or unnamed), when untouched for a day.
 */
function abandoned(full: string, suffix: string): boolean {
  const [pid, host] = suffix.split("-");
  if (host === hostTag() && /^\d+$/.test(pid ?? "")) return !processAlive(Number(pid));
  try {
    return Date.now() - newestChange(full) > STALE_SPOOL_MS;
  } catch {
    return false; // gone meanwhile
  }
}

/** The latest change to a folder or the files directly in it (a spool being written touches its body file). */
function newestChange(dir: string): number {
  let newest = statSync(dir).mtimeMs;
  for (const name of readdirSync(dir)) {
    try {
      newest = Math.max(newest, statSync(path.join(dir, name)).mtimeMs);
    } catch {
      /* removed meanwhile */
    }
  }
  return newest;
}

function processAlive(pid: number): boolean {
  if (pid === process.pid) return true; // this process: its own live folders are skipped above
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"; // alive, another user's
  }
}

/**
 * On SIGINT, SIGTERM or SIGHUP: when nothing else in the process handles the signal (it is about to end
 * the process), remove the spool folders, then let the signal end the process as it would have (the same
 * exit status). When something else handles it (a kernel's interrupt), the process goes on: nothing here.
 */
function onSignal(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) > 1) return;
  for (const dir of live)
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      /* what cannot be removed now is swept by the next call */
    }
  live.clear();
  for (const s of SIGNALS) process.off(s, onSignal);
  installed = false;
  process.kill(process.pid, signal);
}
