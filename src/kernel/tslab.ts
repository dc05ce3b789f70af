/**
 * The one place that knows tslab's private modules. tslab's public API (`display.html`, `newDisplay()`)
 * sends one mime type per message and has no executor; so the display path reaches for
 * `dist/jupyter.js` (`lastWriteDisplayData`, the function `display.raw` calls, set before each cell
 * runs), and the headless runner for `dist/converter.js` and `dist/executor.js`. Nothing else in `src/`
 * names a tslab file.
 *
 * Which tslab: the one whose display reaches the notebook. In a tslab kernel (this process's main module
 * is tslab's `bin/tslab` or `dist/main.js`) that is the tslab the kernel runs: the one installed nearest
 * the notebook's directory, to which a global tslab hands over, else the main module's own; requiring
 * its files by absolute path gives the instances the kernel loaded.
 * Under the headless runner it is the runner's tslab, which the runner registers with the notebook
 * session while a notebook runs. A copy of tslab found by name from this package would be a second
 * instance, not connected to any kernel: never used for display.
 */
import { existsSync, realpathSync } from "node:fs";
import path from "node:path";
import { notebookSession } from "./session";

/** A Jupyter mime bundle: mime type → value (text, or JSON for `+json` types). */
export type MimeBundle = Record<string, unknown>;

/** The content of a Jupyter `display_data` message. */
export interface DisplayContent {
  data: MimeBundle;
  metadata: Record<string, unknown>;
  transient: { display_id?: string };
}

export type WriteDisplayData = (content: DisplayContent, update: boolean) => void;

/** `tslab/dist/jupyter.js` as the display path uses it. */
export interface TslabJupyter {
  /** Set by tslab before each cell runs (null or absent before the first). */
  lastWriteDisplayData?: WriteDisplayData | null;
}

/** `tslab/dist/public.js`: what a notebook gets from `import * as tslab from "tslab"`. */
export interface TslabPublic {
  display?: { html?: (s: string) => void };
  newDisplay?: () => { text(s: string): void; html?(s: string): void };
}

/** The tslab this process displays through: its jupyter module, and its public module on demand. */
export interface TslabHandle {
  jupyter: TslabJupyter;
  /** `public.js` of the same install; undefined when it cannot be loaded. */
  publicApi(): TslabPublic | undefined;
}

/** tslab's entry points: a kernel process's main module is one of these. */
const TSLAB_MAIN = /[\\/]tslab[\\/](bin[\\/]tslab|dist[\\/]main\.js)$/;

/**
 * The `dist/` directory of the tslab whose display reaches the notebook: the one the runner registered
 * with the session; in a kernel (the main module is tslab's), the tslab that kernel handed over to; else
 * undefined (a plain process). `mainFile` and `cwd` are injectable for tests.
 */
export function displayTslabDir(
  mainFile: string | undefined = require.main?.filename,
  cwd: string = process.cwd(),
): string | undefined {
  const registered = notebookSession().tslabDir;
  if (registered) return registered;
  if (!mainFile || !TSLAB_MAIN.test(mainFile)) return undefined;
  return localTslabDir(cwd) ?? path.resolve(path.dirname(mainFile), "..", "dist");
}

/**
 * tslab's kernel hands over to the tslab installed nearest its directory, when there is one (a global
 * tslab for the kernelspec, a project's own for the notebooks): `node_modules/tslab/dist/main.js` found
 * walking up from `cwd`, directories named `node_modules` skipped, as tslab's `findLocalStartKernel`
 * does. That tslab runs the cells and displays; the main module's is only the launcher.
 */
function localTslabDir(cwd: string): string | undefined {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    const main = path.join(dir, "node_modules", "tslab", "dist", "main.js");
    if (path.basename(dir) !== "node_modules" && existsSync(main)) return path.dirname(realpathSync(main));
    if (path.dirname(dir) === dir) return undefined;
  }
}

/**
 * The tslab to display through, or undefined (a plain process, or a tslab that cannot be loaded).
 * `load` is injectable for tests.
 */
export function displayTslab(
  dir: string | undefined = displayTslabDir(),
  load: (file: string) => unknown = require,
): TslabHandle | undefined {
  if (!dir) return undefined;
  let jupyter: TslabJupyter;
  try {
    jupyter = load(path.join(dir, "jupyter.js")) as TslabJupyter;
  } catch {
    return undefined;
  }
  if (!jupyter || typeof jupyter !== "object") return undefined;
  return {
    jupyter,
    publicApi() {
      try {
        return load(path.join(dir, "public.js")) as TslabPublic;
      } catch {
        return undefined;
      }
    },
  };
}

/** What the headless runner uses of tslab: its converter, its executor, and its jupyter module. */
export interface TslabRunnerParts {
  /** tslab's `dist/` directory (registered with the session while a notebook runs). */
  dir: string;
  createConverter: (o: { isJS: boolean; isBrowser: boolean }) => { close(): void };
  createExecutor: (
    root: string,
    convs: unknown,
    console: { log: (...a: unknown[]) => void; error: (...a: unknown[]) => void },
  ) => {
    execute(src: string): Promise<boolean>;
    interrupt(): void;
    close(): void;
  };
  jupyter: { lastWriteDisplayData: WriteDisplayData | null };
}

/** tslab's parts for the runner, from this package's dependency; a clear error when tslab is missing. */
export function loadRunnerTslab(): TslabRunnerParts {
  try {
    /* eslint-disable @typescript-eslint/no-require-imports */
    const jupyterFile = require.resolve("tslab/dist/jupyter");
    return {
      dir: path.dirname(jupyterFile),
      createConverter: require("tslab/dist/converter").createConverter,
      createExecutor: require("tslab/dist/executor").createExecutor,
      jupyter: require(jupyterFile),
    };
    /* eslint-enable @typescript-eslint/no-require-imports */
  } catch (error) {
    // tslab is an optional peer dependency: a user of Deno's kernel need not have it.
    const reason = (error as Error).message.split("\n")[0];
    throw new Error(
      `the notebook runner needs tslab to run a notebook under tslab: npm install tslab (or run it under Deno: --kernel deno). ${reason}`,
      {
        cause: error,
      },
    );
  }
}

/** Stack frames of tslab's executor (not the notebook's: not worth showing). */
export const TSLAB_EXECUTOR_FRAME = /[\\/]tslab[\\/]dist[\\/]executor\.js/;

/** How tslab's executor ends the code it runs with `vm.runInThisContext` (a cell, wrapped in a function). */
const TSLAB_CELL_END = "\n})(__tslab__.exports, __tslab__.require)";

/**
 * Runs `execute` (tslab's executor running one cell) with the cell's synchronous part limited to
 * `timeoutMs`. tslab runs a cell's code with `vm.runInThisContext` and no timeout, so a CPU-bound loop
 * (`while (true) {}`) held this process for good, and no timer could fire to stop it. While `execute`
 * is pending, that call gets `timeout: timeoutMs`, and V8 stops the loop there; tslab reports it as the
 * cell's error. The synchronous part is the whole cell without top-level await, and up to its first
 * `await` with one; code that runs later (after an await, in a timer) is not limited, and neither is
 * the type-check before it (seconds for a first cell, as tslab's checker starts). `timedOut` says
 * whether the limit fired. `onRun` is called as the cell's code starts, after the type-check (a
 * supervising process starts its own watch there: `runNotebooks`).
 */
export async function withSyncLimit(
  timeoutMs: number,
  execute: () => Promise<boolean>,
  onRun?: () => void,
): Promise<{ ok: boolean; timedOut: boolean }> {
  const limit: SyncLimit = { timeoutMs, timedOut: false, onRun };
  limits.push(limit);
  if (limits.length === 1) patchVm();
  try {
    const ok = await execute();
    return { ok, timedOut: limit.timedOut };
  } finally {
    limits.splice(limits.indexOf(limit), 1);
    if (limits.length === 0) unpatchVm();
  }
}

interface SyncLimit {
  timeoutMs: number;
  timedOut: boolean;
  onRun?: (() => void) | undefined;
}

/** The cells running under {@link withSyncLimit} (one, unless notebooks run concurrently): the last started applies. */
const limits: SyncLimit[] = [];
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the module object itself, which tslab calls through
const vm = require("node:vm") as typeof import("node:vm");
const runInThisContext = vm.runInThisContext;

/** Whether this copy's cell watch stays on for good (a tslab kernel: {@link watchKernelCells}). */
let watchingKernel = false;

/**
 * tslab's cells run through this: the cell's synchronous part limited while a {@link withSyncLimit} is
 * pending, and a cell's error explained ({@link explainCellError}) whether it is thrown at once or by
 * the promise an async cell returns. Any other code goes to `vm` untouched.
 */
function runCell(code: string, options?: import("node:vm").RunningScriptOptions | string): unknown {
  if (typeof code !== "string" || !code.endsWith(TSLAB_CELL_END)) return runInThisContext.call(vm, code, options);
  const limit = limits.at(-1);
  limit?.onRun?.();
  try {
    const result: unknown = runInThisContext.call(
      vm,
      code,
      limit
        ? { ...(typeof options === "object" ? options : {}), timeout: Math.max(1, Math.ceil(limit.timeoutMs)) }
        : options,
    );
    if (result instanceof Promise)
      return result.catch((error: unknown) => {
        throw explainCellError(error, code);
      });
    return result;
  } catch (error) {
    if (limit && (error as { code?: unknown }).code === "ERR_SCRIPT_EXECUTION_TIMEOUT") limit.timedOut = true;
    throw explainCellError(error, code);
  }
}

function patchVm(): void {
  vm.runInThisContext = runCell as typeof vm.runInThisContext;
}

function unpatchVm(): void {
  if (!watchingKernel) vm.runInThisContext = runInThisContext;
}

/**
 * In a tslab kernel (this process's main module is tslab's), explains the errors of the cells it runs
 * from now on ({@link explainCellError}), as the headless runner does. tslab's executor runs each cell
 * with `vm.runInThisContext` and has no hook for its errors, so the call goes through {@link runCell}
 * for the kernel's life. Returns whether it did (false in any other process, or when already on).
 * `mainFile` is injectable for tests.
 */
export function watchKernelCells(mainFile: string | undefined = require.main?.filename): boolean {
  if (watchingKernel || !mainFile || !TSLAB_MAIN.test(mainFile)) return false;
  watchingKernel = true;
  patchVm();
  return true;
}

/** The values of the earlier cells: tslab's executor keeps them on the `__tslab__.exports` global. */
function earlierCellValues(): object | undefined {
  const tslab = (globalThis as { __tslab__?: { exports?: unknown } }).__tslab__;
  return typeof tslab?.exports === "object" && tslab.exports !== null ? tslab.exports : undefined;
}

const NOT_DEFINED = /^([\p{L}_$][\p{L}\p{N}_$]*) is not defined$/u;

/**
 * A cell's error, explained where tslab's own message leaves the user guessing; `error` itself
 * (its message and its stack's first line amended), or unchanged.
 *
 * tslab rewrites each use of an earlier cell's variable `x` to `exports.x`, but misses the shorthand
 * property `{ x }` (TypeScript's checker gives the property there, not the variable), so the cell
 * reads a variable `x` that does not exist: "x is not defined". When `x` is an earlier cell's
 * variable and `code` (the cell as tslab runs it) holds `{ x }` or `, x }`, the message says so and what
 * to write instead. `values` (the earlier cells' variables) is injectable for tests.
 */
export function explainCellError(error: unknown, code: string, values = earlierCellValues()): unknown {
  if (!(error instanceof ReferenceError) || !values) return error;
  const name = NOT_DEFINED.exec(error.message)?.[1];
  if (!name || !(name in values)) return error;
  const escaped = name.replace(/\$/g, "\\$");
  if (!new RegExp(`[{,]\\s*${escaped}\\s*[,}]`).test(code)) return error;
  const message = `${name} is not defined: \`${name}\` is from an earlier cell, and tslab does not carry a shorthand property \`{ ${name} }\` across cells; write \`{ ${name}: ${name} }\``;
  // The stack's own line for the message (after the line of code Node may put before it).
  if (typeof error.stack === "string")
    error.stack = error.stack.replace(`${error.name}: ${error.message}`, () => `${error.name}: ${message}`);
  error.message = message;
  return error;
}

/** Node's own frames (util.inspect, console) in a stack trace. */
const NODE_FRAME = /\(node:[^)]*\)$|^\s*at node:/;

/**
 * Whether the value being inspected now is tslab's executor printing a cell's last value: called from
 * inside a `util.inspect.custom` method, the first caller of Node's inspect and console frames is
 * tslab's executor (it prints the value with `console.log`), not a cell's own `console.log`.
 */
export function printingCellResult(): boolean {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 50;
  const stack = new Error().stack ?? "";
  Error.stackTraceLimit = limit;
  const frames = stack.split("\n").slice(1);
  const inspecting = frames.findIndex((f) => NODE_FRAME.test(f));
  if (inspecting < 0) return false;
  const caller = frames.slice(inspecting).find((f) => !NODE_FRAME.test(f));
  return caller !== undefined && TSLAB_EXECUTOR_FRAME.test(caller);
}
