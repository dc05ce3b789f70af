/**
 * Writing a file so that it is replaced whole or not at all: the new content goes to a temporary file
 * beside the target (same directory, so the same file system), is flushed to disk, and is renamed over
 * the target. Until the rename, the previous file is untouched; a write that fails (a full disk, a file
 * size limit, a serialisation error before it) leaves it as it was and removes the temporary file.
 * Several files written together (a notebook's `.ipynb` and its `.html`) are all written before any
 * is renamed, so a failure while writing leaves every one of them as it was.
 */
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, open, rename, rm } from "node:fs/promises";
import path from "node:path";
import { RiskPortalError } from "../errors";

/** A fresh name beside `target` (same directory, so the same file system: a rename moves it in place). */
export function besidePath(target: string, tag = "partial"): string {
  return `${target}.${tag}-${randomUUID()}`;
}

/** A file that could not be written or locked: `path` names it, `cause` is the file system's error. */
export class FileWriteError extends RiskPortalError {
  constructor(
    message: string,
    readonly path: string,
    operation: string,
    cause?: unknown,
  ) {
    super(message, { operation, cause });
  }
}

/** One file to write: where, and its whole new content. */
export interface NewFile {
  path: string;
  data: string | Uint8Array;
}

/**
 * Writes each file to a temporary file beside it, then renames them over their targets (creating the
 * directories). Throws {@link FileWriteError} naming the file and the cause; the targets not yet
 * replaced are as they were. `operation`: who writes (`runNotebook`, `writeIndex`), for the error.
 */
export async function replaceFiles(files: readonly NewFile[], operation: string): Promise<void> {
  const targets = files.map((f) => path.resolve(f.path));
  const temps: string[] = [];
  try {
    for (const [i, file] of files.entries()) {
      await mkdir(path.dirname(targets[i]!), { recursive: true });
      temps.push(besidePath(targets[i]!));
      await writeFlushed(temps[i]!, file.data);
    }
  } catch (error) {
    await removeAll(temps);
    const failed = targets[Math.max(0, temps.length - 1)]!;
    throw new FileWriteError(
      `could not write ${failed}: ${reason(error)}; ${unchanged(targets, failed)}`,
      failed,
      operation,
      error,
    );
  }
  for (const [i, target] of targets.entries()) {
    try {
      await rename(temps[i]!, target);
    } catch (error) {
      await removeAll(temps.slice(i));
      const done = targets.slice(0, i).map((t) => path.basename(t));
      throw new FileWriteError(
        `could not move the new ${target} into place: ${reason(error)}; ${unchanged(targets.slice(i), target)}${done.length ? ` (${done.join(" and ")} already replaced)` : ""}`,
        target,
        operation,
        error,
      );
    }
  }
}

/** Writes `data` to a new file (never one that exists) and flushes it to disk before it is renamed into place. */
async function writeFlushed(file: string, data: string | Uint8Array): Promise<void> {
  const handle = await open(file, "wx");
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function removeAll(files: readonly string[]): Promise<void> {
  await Promise.all(files.map((f) => rm(f, { force: true }).catch(() => undefined)));
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** What the failure left alone: `the previous file is as it was`, or the files named (same folder: by name). */
function unchanged(targets: readonly string[], failed: string): string {
  if (targets.length > 1) return `${targets.map((t) => path.basename(t)).join(" and ")} are as they were`;
  return existsSync(failed) ? "the previous file is as it was" : "nothing was written there";
}
