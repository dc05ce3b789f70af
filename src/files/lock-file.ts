/**
 * A lock file for a read-merge-write that several processes may run at once on one file (the runner's
 * index of an output directory). The lock is created exclusively and names its holder (`pid host tag`);
 * a writer that finds it waits, bounded, and takes over a lock whose holder is gone: a process of this
 * host that no longer runs, a lock never named (its writer died between creating and naming it), or
 * one older than any write holds it.
 */
import { randomBytes } from "node:crypto";
import { linkSync } from "node:fs";
import { open, rename, rm } from "node:fs/promises";
import { hostname } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { FileWriteError } from "./replace-files";

/** A lock older than this is taken over whoever holds it (no read-merge-write holds one that long), ms. */
export const STALE_LOCK_MS = 120_000;
/** A lock still without its holder's name this long after it was created is a dead writer's, ms. */
const UNNAMED_LOCK_MS = 1_000;
/** How long a writer waits for another's lock before it says so, ms. */
export const LOCK_WAIT_MS = 60_000;

const HOST = hostname();
/** Per-process tag, so two writers of one process (or a reused pid) never hold the same token; made on first use (crypto loads then, not on import). */
let tag: string | undefined;
const processTag = (): string => (tag ??= randomBytes(4).toString("hex"));
let counter = 0;

/**
 * Runs `work` holding the lock file `lock` (created beside what it protects; removed after). Waits at
 * most {@link LOCK_WAIT_MS} for another holder, then throws {@link FileWriteError} naming the lock
 * file and its holder. `operation`: who locks, for the error.
 */
export async function withLockFile<T>(lock: string, operation: string, work: () => Promise<T>): Promise<T> {
  const token = `${process.pid} ${HOST} ${processTag()}.${++counter}`;
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    let held: true | Holder | undefined;
    try {
      held = await tryLock(lock, token);
    } catch (error) {
      throw new FileWriteError(
        `could not create the lock file ${lock}: ${(error as Error).message}`,
        lock,
        operation,
        error,
      );
    }
    if (held === true) break;
    if (held && isStale(held)) await takeOver(lock, held);
    else if (Date.now() - started > LOCK_WAIT_MS)
      throw new FileWriteError(
        `${lock} stayed locked by ${held ? describe(held) : "another writer"} for over ${LOCK_WAIT_MS / 1000} s; if nothing is writing there, remove the lock file`,
        lock,
        operation,
      );
    else if (held) await sleep(Math.min(50, 2 + attempt * 2));
    // else: released between our attempt and our look at it; try again at once
  }
  try {
    return await work();
  } finally {
    if ((await readLock(lock))?.text === token) await rm(lock, { force: true });
  }
}

/** A lock file as found: `pid host tag` of its holder, and the file's identity and age. */
interface Holder {
  text: string;
  ino: number;
  mtimeMs: number;
}

/** Creates the lock file holding `token`: `true`, or who holds it already (undefined: released meanwhile). */
async function tryLock(lock: string, token: string): Promise<true | Holder | undefined> {
  let handle;
  try {
    handle = await open(lock, "wx");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return readLock(lock);
    throw error;
  }
  try {
    await handle.writeFile(token);
  } catch (error) {
    await handle.close();
    await rm(lock, { force: true });
    throw error;
  }
  await handle.close();
  return true;
}

async function readLock(lock: string): Promise<Holder | undefined> {
  let handle;
  try {
    handle = await open(lock, "r");
  } catch {
    return undefined;
  }
  try {
    const { ino, mtimeMs } = await handle.stat();
    return { text: await handle.readFile("utf8"), ino, mtimeMs };
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

/**
 * Whether a lock is a dead writer's: older than `staleMs`, never named, or naming a process of this host
 * that is gone (the cassette's lock uses it too, with its own age).
 */
export function isStale(holder: Pick<Holder, "text" | "mtimeMs">, staleMs = STALE_LOCK_MS): boolean {
  const ageMs = Date.now() - holder.mtimeMs;
  if (ageMs > staleMs) return true;
  const [pid, host] = holder.text.split(" ");
  if (!host) return ageMs > UNNAMED_LOCK_MS;
  // Another host's pid means nothing here; this process's own is another writer in it: only age tells.
  if (host !== HOST || Number(pid) === process.pid) return false;
  return !processAlive(Number(pid));
}

/** Whether a process of this host with that pid is running (someone else's counts). */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"; // alive, someone else's
  }
}

/**
 * Removes a stale lock: renamed aside first, then checked, so that when two writers take one stale lock
 * over at once and the second moved the first one's fresh lock, it gives it back.
 */
async function takeOver(lock: string, stale: Holder): Promise<void> {
  const aside = `${lock}.${processTag()}.${++counter}.stale`;
  try {
    await rename(lock, aside);
  } catch {
    return; // released, or taken over by another writer already
  }
  const moved = await readLock(aside);
  if (moved && (moved.ino !== stale.ino || moved.text !== stale.text)) {
    try {
      linkSync(aside, lock);
    } catch {
      /* a third writer holds the lock now */
    }
  }
  await rm(aside, { force: true });
}

function describe(holder: Holder): string {
  const [pid, host] = holder.text.split(" ");
  return host ? `process ${pid} on ${host}` : "a writer that did not name itself";
}
