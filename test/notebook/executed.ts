/**
 * Shared by the notebook tests: running the CLI and Jupyter, and reading executed notebooks (their
 * outputs by cell id, stdout text, plotly figures), whichever of the two executed them.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { findDeno } from "../../src/notebook/jupyter/find-deno";

export const root = path.resolve(__dirname, "..", "..");
export const cli = path.join(root, "dist", "cli.js");
export const PLOTLY_MIME = "application/vnd.plotly.v1+json";
/** The comment our HTML puts before the embedded plotly.js bundle. */
export const EMBED_MARKER = "embedded by risk-portal-lab (offline)";
export const inCI = Boolean(process.env.CI) && process.env.CI !== "false" && process.env.CI !== "0";
export const JUPYTER_HINT = "run `bash scripts/setup-jupyter.sh` (after `npm ci`)";

/** stderr without the runner's per-cell lines (`runner-throw: cell 2/3 ok 0.1 s`), and those lines' `2/3 ok`. */
const CELL_LINE = /^[\w-]+: cell (\d+\/\d+ (?:ok|failed|timed out)) \d+\.\d s(?::.*)?\n/gm;
export const withoutCellLines = (stderr: string): string => stderr.replace(CELL_LINE, "");
export const cellStatuses = (stderr: string): (string | undefined)[] =>
  [...stderr.matchAll(CELL_LINE)].map((m) => m[1]);

/**
 * The environment of the notebooks under test: no real service configured (so `connect()` starts the
 * simulator), and no pydevd "frozen modules" warning from every Jupyter start.
 */
export function notebookEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PYDEVD_DISABLE_FILE_VALIDATION: "1" };
  for (const key of Object.keys(env)) if (key.startsWith("RISK_PORTAL_")) delete env[key];
  return env;
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs a command to the end (never rejects on a non-zero exit; rejects when it outlives `timeoutMs`). */
export function runCommand(
  command: string,
  args: readonly string[],
  options: { cwd?: string; timeoutMs: number; env?: NodeJS.ProcessEnv },
): Promise<Run> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? root,
      env: options.env ?? notebookEnv(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(
        new Error(
          `${command} ${args.join(" ")} did not finish in ${options.timeoutMs / 1000} s\nstdout: ${stdout.slice(-2000)}\nstderr: ${stderr.slice(-2000)}`,
        ),
      );
    }, options.timeoutMs);
    child.on("error", (e) => (clearTimeout(timer), reject(e)));
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: performance.now() - started });
    });
  });
}

/** `node dist/cli.js …args` from the repository root (in {@link notebookEnv} unless `env` is given). */
export function runCli(args: readonly string[], timeoutMs: number, env?: NodeJS.ProcessEnv): Promise<Run> {
  return runCommand(process.execPath, [cli, ...args], { timeoutMs, env });
}

/**
 * `jupyter nbconvert --to notebook --execute` of the given notebooks with the tslab kernel, each in
 * its own kernel, with the notebook's directory as the working directory; the executed copies go to
 * `outDir` under the same names. Errors are recorded in the outputs instead of stopping at the first
 * notebook: each notebook is judged on its outputs.
 */
export function runJupyter(files: readonly string[], outDir: string, timeoutMs: number): Promise<Run> {
  const args = [
    "nbconvert",
    "--to",
    "notebook",
    "--execute",
    "--allow-errors",
    "--output-dir",
    outDir,
    "--ExecutePreprocessor.timeout=180",
    "--ExecutePreprocessor.kernel_name=tslab",
    ...files,
  ];
  return runCommand("jupyter", args, { timeoutMs });
}

/** Why no deno can be found for the Deno runner (src/notebook/jupyter/find-deno.ts), or undefined when one can. */
export function missingDeno(): string | undefined {
  try {
    findDeno({ dirs: [root] });
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** Why Jupyter with the given kernel (tslab unless said) cannot run here, or undefined when it can. */
export function missingJupyter(kernel = "tslab"): string | undefined {
  const env = notebookEnv();
  const nbconvert = spawnSync("jupyter-nbconvert", ["--version"], { encoding: "utf8", env });
  if (nbconvert.error || nbconvert.status !== 0) return "jupyter-nbconvert is not installed";
  const list = spawnSync("jupyter", ["kernelspec", "list", "--json"], { encoding: "utf8", env });
  if (list.error || list.status !== 0)
    return `\`jupyter kernelspec list\` failed: ${list.stderr || String(list.error)}`;
  const specs = (JSON.parse(list.stdout) as { kernelspecs: Record<string, { spec: { argv: string[] } }> }).kernelspecs;
  const spec = specs[kernel];
  if (!spec) return `the ${kernel} kernelspec is not registered`;
  const binary = spec.spec.argv[0] ?? "";
  if (path.isAbsolute(binary) && !existsSync(binary))
    return `the ${kernel} kernelspec starts ${binary}, which does not exist`;
  return undefined;
}

export interface Output {
  output_type: string;
  name?: string;
  text?: string | string[];
  data?: Record<string, unknown>;
  ename?: string;
  evalue?: string;
  traceback?: string[];
}

export interface Cell {
  id?: string;
  cell_type: string;
  source: string | string[];
  metadata: { tags?: string[] };
  execution_count?: number | null;
  outputs?: Output[];
}

export interface ExecutedNotebook {
  cells: Cell[];
  metadata: Record<string, unknown>;
}

export interface PlotlyFigure {
  data: { type?: string; name?: string; x?: unknown[]; y?: unknown[] }[];
  layout: { title?: { text?: string }; sliders?: { steps: unknown[] }[] };
}

export const joined = (text: unknown): string =>
  Array.isArray(text) ? text.join("") : typeof text === "string" ? text : "";

export function readNotebook(file: string): ExecutedNotebook {
  return JSON.parse(readFileSync(file, "utf8")) as ExecutedNotebook;
}

/** A view of an executed notebook for assertions. */
export class Executed {
  constructor(
    readonly nb: ExecutedNotebook,
    readonly name: string,
  ) {}

  static read(file: string): Executed {
    return new Executed(readNotebook(file), path.basename(file));
  }

  cell(id: string): Cell {
    const cell = this.nb.cells.find((c) => c.id === id);
    if (!cell) throw new Error(`${this.name} has no cell with id "${id}"`);
    return cell;
  }

  outputs(id: string): Output[] {
    return this.cell(id).outputs ?? [];
  }

  /** All stdout of a cell, as one string. */
  stdout(id: string): string {
    return this.outputs(id)
      .filter((o) => o.output_type === "stream" && o.name === "stdout")
      .map((o) => joined(o.text))
      .join("");
  }

  /** The text/plain of every display and result of a cell, one a line. */
  displayText(id: string): string {
    return this.outputs(id)
      .filter((o) => o.data)
      .map((o) => joined(o.data!["text/plain"]))
      .join("\n");
  }

  /** The text/html of every display of a cell. */
  html(id: string): string {
    return this.outputs(id)
      .filter((o) => o.data)
      .map((o) => joined(o.data!["text/html"]))
      .join("\n");
  }

  /** The plotly figures a cell displayed. */
  figures(id: string): PlotlyFigure[] {
    return this.outputs(id)
      .filter((o) => o.data?.[PLOTLY_MIME])
      .map((o) => o.data![PLOTLY_MIME] as PlotlyFigure);
  }

  /** Error outputs and stderr text anywhere in the notebook (what "ran cleanly" rules out). */
  problems(): { cell?: string; output: Output }[] {
    return this.nb.cells.flatMap((c) =>
      (c.outputs ?? [])
        .filter((o) => o.output_type === "error" || (o.output_type === "stream" && o.name === "stderr"))
        .map((output) => ({ cell: c.id, output })),
    );
  }

  /** Code cells that did not run (no execution count), except empty ones. */
  unexecuted(): string[] {
    return this.nb.cells
      .filter((c) => c.cell_type === "code" && c.execution_count == null && joined(c.source).trim() !== "")
      .map((c) => c.id ?? "?");
  }

  /** How many times plotly.js is embedded in the notebook's HTML outputs, and the id of the first cell that embeds it. */
  plotlyEmbeds(): { count: number; first?: string } {
    let count = 0;
    let first: string | undefined;
    for (const c of this.nb.cells) {
      for (const o of c.outputs ?? []) {
        const n = joined(o.data?.["text/html"]).split(EMBED_MARKER).length - 1;
        if (n && first === undefined) first = c.id;
        count += n;
      }
    }
    return { count, first };
  }

  /** The id of the first cell that displayed a plotly figure. */
  firstChartCell(): string | undefined {
    return this.nb.cells.find((c) => (c.outputs ?? []).some((o) => o.data?.[PLOTLY_MIME]))?.id;
  }
}
