/**
 * Which `deno` runs Deno's kernel: `--deno PATH`, else $DENO_BIN, else `node_modules/.bin/deno` in the
 * notebook's folder or the current one or any folder above them (the npm registry's `deno` package),
 * else `deno` on PATH. npm's `node_modules/.bin/deno` is a Node script that runs the real binary in a
 * child process; the binary beside it is used instead, so that killing the kernel kills Deno itself.
 */
import { accessSync, constants, existsSync, realpathSync, statSync } from "node:fs";
import path from "node:path";

export const DENO_INSTALL_HINT =
  "install it next to your notebooks with `npm install deno`, or see https://docs.deno.com/runtime/getting_started/installation/";

const exe = process.platform === "win32" ? [".exe", ".cmd", ""] : [""];

/** Whether `file` is a file this process may run. */
export function executable(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, process.platform === "win32" ? constants.F_OK : constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The real binary behind npm's `node_modules/.bin/deno` (`node_modules/deno/deno`) when there is one. */
function unwrapNpmBin(file: string): string {
  let real: string;
  try {
    real = realpathSync(file);
  } catch {
    return file;
  }
  if (!/\.c?js$/.test(real)) return real;
  const binary = path.join(path.dirname(real), process.platform === "win32" ? "deno.exe" : "deno");
  return existsSync(binary) && executable(binary) ? binary : file;
}

/** `node_modules/.bin/deno` in `dir` or the nearest folder above it that has one. */
function inNodeModules(dir: string): string | undefined {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    for (const ext of exe) {
      const file = path.join(d, "node_modules", ".bin", `deno${ext}`);
      if (executable(file)) return unwrapNpmBin(file);
    }
    if (path.dirname(d) === d) return undefined;
  }
}

function onPath(envPath: string | undefined): string | undefined {
  for (const dir of (envPath ?? "").split(path.delimiter)) {
    if (!dir) continue;
    for (const ext of exe) {
      const file = path.join(dir, `deno${ext}`);
      if (executable(file)) return file;
    }
  }
  return undefined;
}

export interface FindDenoOptions {
  /** `--deno PATH`: used as given (an error when it is not an executable). */
  flag?: string;
  /** Folders to look in for `node_modules/.bin/deno`, each and those above it, in order. */
  dirs: readonly string[];
  env?: NodeJS.ProcessEnv;
}

/** The deno executable to start, or an Error saying where it was looked for and how to install it. */
export function findDeno(options: FindDenoOptions): string {
  const env = options.env ?? process.env;
  if (options.flag !== undefined) {
    if (executable(options.flag)) return path.resolve(options.flag);
    throw new Error(`--deno ${options.flag}: no executable there`);
  }
  if (env.DENO_BIN) {
    if (executable(env.DENO_BIN)) return path.resolve(env.DENO_BIN);
    throw new Error(`DENO_BIN=${env.DENO_BIN}: no executable there`);
  }
  for (const dir of options.dirs) {
    const found = inNodeModules(dir);
    if (found) return found;
  }
  const found = onPath(env.PATH);
  if (found) return found;
  throw new Error(
    `--kernel deno needs Deno, and none was found (not --deno, not $DENO_BIN, no node_modules/.bin/deno in ${options.dirs.join(" or ")} or above, none on PATH): ${DENO_INSTALL_HINT}`,
  );
}
