/**
 * Where `plot.show` writes its pages outside a notebook, and how: a directory of this user's own, files
 * created exclusively under names no one can guess, readable by this user only. The system's temporary
 * directory is shared by every user of the machine: a directory there that someone else made first (or
 * opened to others) could hold a symlink under the next page's name, and a page written through it would
 * overwrite whatever it points at.
 */
import { randomBytes } from "node:crypto";
import { closeSync, lstatSync, mkdirSync, mkdtempSync, openSync, writeSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";

/** The directory of pages (0700) and the pages (0600): this user's only. */
const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

/** Fresh private directories made in place of a default one that was not safe, by the default's path. */
const freshDirs = new Map<string, string>();

/**
 * Writes `page` to a new file in `outDir` (created, 0700, when missing) or, by default, in
 * `<tmp>/risk-portal-lab-plots-<uid>`: `<yyyymmdd-hhmmss>-<16 random hex>-<name>.html`, created exclusively
 * (never through a file or link already there), mode 0600. Returns its path, and a note when the default
 * directory was not safe (someone else's, open to others, or a symlink) and a fresh private one was used.
 */
export function writePage(page: string, name: string, outDir: string | undefined): { file: string; note?: string } {
  let dir: string;
  let note: string | undefined;
  if (outDir === undefined) ({ dir, note } = defaultDir());
  else {
    dir = path.resolve(outDir);
    try {
      mkdirSync(dir, { recursive: true, mode: DIR_MODE });
    } catch (error) {
      throw new Error(`plot.show: cannot write a page into ${dir}: ${(error as Error).message}`, { cause: error });
    }
  }
  const stamp = new Date().toISOString().slice(0, 19).replace(/[-:]/g, "").replace("T", "-");
  const slug =
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "")
      .slice(0, 48) || "chart";
  for (let attempt = 0; ; attempt++) {
    const file = path.join(dir, `${stamp}-${randomBytes(8).toString("hex")}-${slug}.html`);
    let fd: number;
    try {
      fd = openSync(file, "wx", FILE_MODE);
    } catch (error) {
      // 2^64 names: a clash is someone else's file (or link) there already; never written through.
      if ((error as NodeJS.ErrnoException).code === "EEXIST" && attempt < 3) continue;
      throw new Error(`plot.show: cannot write a page into ${dir}: ${(error as Error).message}`, { cause: error });
    }
    try {
      writeSync(fd, page);
    } finally {
      closeSync(fd);
    }
    return note ? { file, note } : { file };
  }
}

/** This user's default directory of pages, or a fresh private one beside it when it is not safe to use. */
function defaultDir(): { dir: string; note?: string } {
  const base = path.join(tmpdir(), `risk-portal-lab-plots-${userTag()}`);
  try {
    mkdirSync(base, { mode: DIR_MODE });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST")
      throw new Error(`plot.show: cannot make the directory of pages ${base}: ${(error as Error).message}`, {
        cause: error,
      });
  }
  const problem = unsafeDir(base);
  if (problem === undefined) return { dir: base };
  let fresh = freshDirs.get(base);
  if (fresh === undefined || unsafeDir(fresh) !== undefined) {
    fresh = mkdtempSync(`${base}-`); // 0700, a new name, this user's
    freshDirs.set(base, fresh);
  }
  return { dir: fresh, note: `${base} is not used (${problem}): pages go to ${fresh}` };
}

/** Why a directory is not safe to write pages into (another user could read them or plant links), or undefined. */
export function unsafeDir(dir: string): string | undefined {
  let stats;
  try {
    stats = lstatSync(dir);
  } catch (error) {
    return (error as Error).message;
  }
  if (stats.isSymbolicLink()) return "it is a symbolic link";
  if (!stats.isDirectory()) return "it is not a directory";
  if (process.platform === "win32") return undefined; // no owner or mode bits to check
  const uid = process.getuid?.();
  if (uid !== undefined && stats.uid !== uid) return `it belongs to user ${stats.uid}, not to this user (${uid})`;
  const mode = stats.mode & 0o777;
  if (mode & 0o077) return `it is open to group or others (mode ${mode.toString(8).padStart(4, "0")})`;
  return undefined;
}

/** The user's id (or, where there is none, name) in the default directory's name: one directory per user. */
function userTag(): string {
  const uid = process.getuid?.();
  if (uid !== undefined) return String(uid);
  return userInfo().username.replace(/[^A-Za-z0-9_.-]+/g, "_") || "user";
}
