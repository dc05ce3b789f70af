#!/usr/bin/env node
/**
 * `risk-portal-lab <command>`:
 *   sim [--port 8787] [--data-dir DIR] [--seed N] [--rows N] [--brand NAME] [--faults P] [--latency MS]
 *       [--fault-seed N] [--token-ttl S] [--json]                          start the simulator
 *   run NOTEBOOK… [--kernel tslab|deno] [--param name=value]… [--out DIR] [--cell-timeout S] [--deno PATH]
 *       [--jobs N]                                                      execute notebooks headless
 *   demo [--replay] [--out DIR] [--cell-timeout S] [--jobs N] [--no-images]
 *                                                                      run every showcase notebook
 *   diff BEFORE.ipynb AFTER.ipynb [--out FILE] [--tolerance X] [--json]   what changed between two runs
 *   export NOTEBOOK.ipynb --to pdf|html|md [--out FILE]               an executed notebook as a document
 *   kernels install [--user | --sys-prefix | --prefix DIR]             register tslab's and Deno's kernels
 *   kernels list                                                       the kernelspecs Jupyter uses, started
 */
import path from "node:path";
import { parseArgs } from "node:util";
import type { CellDone, KernelName } from "./notebook/run-shared";
import type { Simulator } from "./sim";
import type { FaultOptions } from "./sim/limits";

const RUN_OPTIONS = `         NOTEBOOK…       one or more .ipynb files
         -p, --param k=v set a parameter of the cell tagged "parameters" (repeatable; JSON values
                         such as 3, true or [1,2] keep their type, anything else is a string)
         -f, --params-file FILE  parameters from a JSON or YAML file (a mapping); --param wins over it
         --grid k=v1,v2  run every combination of the --grid parameters (repeatable; k=[…] for a JSON
                         list of values), each into DIR/<name>-k=v1,….ipynb and .html, all in index.html
         --inspect       print each parameter's name, type and default; run nothing, write nothing
         --out DIR       where the executed .ipynb, its .html and index.html go (default out/)
         --kernel NAME   tslab (tslab's executor in a worker process) or deno (Deno's Jupyter kernel,
                         \`deno jupyter --kernel\`, spoken to directly); default: the one the
                         notebook's kernelspec names (deno for a Deno notebook, else tslab)
         --deno PATH     the deno to run with --kernel deno (default: $DENO_BIN, else
                         node_modules/.bin/deno in the notebook's folder, the current one or above,
                         else deno on PATH; \`npm install deno\` installs one)
         --cell-timeout S  interrupt a cell after S seconds and stop there (default 600); a cell that
                         never yields (a loop after an await) has its process stopped then
         --jobs N        run N notebooks at once, each in a process of its own (default 1 for run,
                         the number of cores for demo); lines and index keep the notebooks' order
         --no-images     leave the charts without their static PNG (drawn in headless Chromium
                         after the run, so GitHub, nbviewer and nbconvert show them)
         --compare PREV  compare the run with an earlier run of it (PREV: its executed .ipynb, or a
                         directory holding <name>.ipynb): writes DIR/<name>.diff.html and prints
                         what changed (see diff)
`;

const RUN_USAGE = `usage: risk-portal-lab run NOTEBOOK… [--kernel tslab|deno] [--out DIR] [--param k=v]… [--cell-timeout S] [--deno PATH] [--jobs N]

Executes notebooks headless, one after the other (or --jobs at a time); writes DIR/<name>.ipynb (outputs
stored), DIR/<name>.html and DIR/index.html; prints a line per cell as it finishes (cell 4/12 ok 1.3 s)
on stderr and one per notebook on stdout; exits 1 when a cell fails, naming the notebook, the cell and
the error.

${RUN_OPTIONS.replace(/^ {9}/gm, "  ")}`;

const DIFF_OPTIONS = `         BEFORE AFTER    two executed .ipynb of the same notebook (runs, e.g. yesterday's and today's)
         --out FILE      the HTML report (default: beside AFTER, <name>.diff.html)
         --tolerance X   numbers within X × max(1, |value|) are the same (default 1e-9)
         --json          print the diff as JSON instead of the summary line
`;

const DIFF_USAGE = `usage: risk-portal-lab diff BEFORE.ipynb AFTER.ipynb [--out FILE] [--tolerance X] [--json]

What changed between two runs of a notebook, cell by cell: printed text with numbers read as numbers
(a reformatted number is no change), tables by key (rows added, removed, changed; largest moves first),
charts trace by trace (with a before/after overlay), errors that appeared or went away. Set aside as
what every run changes: execution counts, durations, date-times with a time of day, loopback ports,
request ids, temporary paths, the connect() line and tables' provenance. Writes an HTML report (offline)
and prints one line; exits 0 when nothing changed, 1 when something did, 2 on bad input (a missing
file, a file that is not a notebook, two different notebooks).

${DIFF_OPTIONS.replace(/^ {9}/gm, "  ")}`;

const KERNELS_OPTIONS = `  kernels install  register the "tslab" (TypeScript) and "deno" kernels with Jupyter, run in your
         notebook folder: kernel.json with absolute paths (this Node, >= 22, and the folder's
         tslab; the folder's deno, else deno on PATH), so Jupyter starts them from any shell;
         running it again repairs a broken spec; prints what it wrote where
         --user          in the user's Jupyter data dir (default; $JUPYTER_DATA_DIR when set)
         --sys-prefix    in the Jupyter python's sys.prefix (a venv or conda env)
         --prefix DIR    in DIR/share/jupyter
  kernels list   (or kernels check) the tslab and deno kernelspecs Jupyter would use, their argv,
         whether each path exists, and a real start of each (1 + 1, timed); exits 1 when one is
         missing or does not start
`;

const KERNELS_USAGE = `usage: risk-portal-lab kernels install [--user | --sys-prefix | --prefix DIR]
       risk-portal-lab kernels list

${KERNELS_OPTIONS.replace(/^ {9}/gm, "  ")}`;

const USAGE = `usage: risk-portal-lab <command> [options]

commands:
  sim    start the embedded simulator of the service on 127.0.0.1
         --port N        port (default 8787; 0 picks a free one)
         --data-dir DIR  keep uploads and launched reports across restarts
         --seed N        seed of the generated data (default 1)
         --rows N        trades per portfolio transaction table, over two years (default 5000);
                         about 3% have quantity 0, returned only with include_zero_quantities: true
         --brand NAME    the service's brand in $type values, enum values and field names
                         (default $RISK_PORTAL_BRAND or Service; the public pages use Derivitec)
         --no-rate-limit turn the per-credential rate limit off
         --faults P      rehearse a bad day: a share P (0..1) of API requests hit by a transient
                         fault, half answered 500/503, a quarter dropped, a quarter cut off half-way
                         (only 200 answers can be cut off; the token endpoint is spared)
         --latency MS    added latency per API request: MS, or a range MIN-MAX (at most 600000)
         --fault-seed N  seed of the fault draws (default --seed): the same seed, the same faults
         --token-ttl S   lifetime of OAuth2 tokens in seconds (default 3600, at most a year), to
                         rehearse expiry
         --json          print exactly one JSON line {url, credentials} (for scripts)
  run    execute notebooks headless and write each executed .ipynb and its .html (no Jupyter or
         Python needed); prints a line per cell as it finishes (on stderr); exits 1 when a cell
         fails, naming the notebook, the cell and the error
${RUN_OPTIONS}  demo   run every notebook in notebooks/ against the embedded simulator and write out/index.html
         --replay        replay each notebook's cassette (fixtures/cassettes/) instead: offline,
                         no server, no credentials
         --out DIR       output directory (default out/)
         --cell-timeout S, --jobs N, --no-images  as for run
  diff   what changed between two runs of a notebook (exit 0: nothing, 1: something, 2: bad input)
${DIFF_OPTIONS}  export an executed notebook as a document: export NOTEBOOK.ipynb --to pdf|html|md [--out FILE]
         (pdf with charts as images, self-contained html, or md with its images beside it)
${KERNELS_OPTIONS}`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === "--help" || command === "-h" || command === "help") {
    process.stdout.write(USAGE);
    return command ? 0 : 2;
  }
  if (command === "sim") return sim(rest);
  if (command === "run") return run(rest);
  if (command === "demo") return demo(rest);
  if (command === "diff") return diff(rest);
  if (command === "kernels") return kernels(rest);
  if (command === "export") return (await import("./notebook/export/command")).exportCommand(rest);
  process.stderr.write(`risk-portal-lab: unknown command ${JSON.stringify(command)}\n\n${USAGE}`);
  return 2;
}

async function sim(args: string[]): Promise<number> {
  const flags = simFlags(args);
  const { startSimulator, DEFAULT_TRANSACTION_ROWS } = await import("./sim");
  const simulator = await startSimulator({
    port: flags.port,
    seed: flags.seed,
    dataDir: flags.dataDir,
    transactionRows: flags.rows,
    rateLimit: flags.rateLimit,
    brand: flags.brand,
    faults: flags.faults,
    tokenTtlSeconds: flags.tokenTtlSeconds,
  });
  announceSimulator(simulator, flags, flags.rows ?? DEFAULT_TRANSACTION_ROWS);
  await untilStopped();
  await simulator.close();
  return 0;
}

/** The `sim` command's flags, checked. */
interface SimFlags {
  port: number;
  seed: number;
  dataDir: string | undefined;
  rows: number | undefined;
  brand: string | undefined;
  rateLimit: false | undefined;
  faults: FaultOptions | undefined;
  tokenTtlSeconds: number | undefined;
  json: boolean;
}

/** Parses and checks the `sim` flags; throws a UsageError naming the first bad one. */
function simFlags(args: string[]): SimFlags {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: "string", default: "8787" },
      "data-dir": { type: "string" },
      seed: { type: "string", default: "1" },
      rows: { type: "string" },
      brand: { type: "string" },
      "no-rate-limit": { type: "boolean", default: false },
      faults: { type: "string" },
      latency: { type: "string" },
      "fault-seed": { type: "string" },
      "token-ttl": { type: "string" },
      json: { type: "boolean", default: false },
    },
    strict: true,
  });
  const faults = faultOptions(values.faults, values.latency, values["fault-seed"]);
  const tokenTtlSeconds = tokenTtl(values["token-ttl"]);
  const port = wholeNumber(values.port, "--port");
  if (port > 65535) throw new UsageError(`--port must be at most 65535, got ${JSON.stringify(values.port)}`);
  const seed = wholeNumber(values.seed, "--seed");
  const rows = values.rows === undefined ? undefined : wholeNumber(values.rows, "--rows");
  const brand = brandName(values.brand);
  const rateLimit = values["no-rate-limit"] ? false : undefined;
  return {
    port,
    seed,
    dataDir: values["data-dir"],
    rows,
    brand,
    rateLimit,
    faults,
    tokenTtlSeconds,
    json: values.json,
  };
}

/** `--token-ttl S` in seconds (undefined: the default), between 1 and a year. */
function tokenTtl(text: string | undefined): number | undefined {
  const tokenTtlSeconds = text === undefined ? undefined : wholeNumber(text, "--token-ttl");
  if (tokenTtlSeconds === 0) throw new UsageError("--token-ttl must be at least 1 second");
  if (tokenTtlSeconds !== undefined && tokenTtlSeconds > MAX_TOKEN_TTL_SECONDS)
    throw new UsageError(
      `--token-ttl must be at most ${MAX_TOKEN_TTL_SECONDS} seconds (a year), got ${JSON.stringify(text)}`,
    );
  return tokenTtlSeconds;
}

/** `--brand NAME`, else $RISK_PORTAL_BRAND (undefined: the simulator's default), checked to be a .NET namespace. */
function brandName(flag: string | undefined): string | undefined {
  const brand = flag ?? (process.env.RISK_PORTAL_BRAND?.trim() || undefined);
  if (brand !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/.test(brand))
    throw new UsageError(`--brand expects a .NET namespace such as Service or Derivitec, got ${JSON.stringify(brand)}`);
  return brand;
}

/** Prints where the simulator listens: one JSON line with `--json`, else a banner with credentials and examples. */
function announceSimulator(simulator: Simulator, flags: SimFlags, rows: number): void {
  const { faults, seed, tokenTtlSeconds } = flags;
  // The faults are drawn from --fault-seed, else from --seed (as startSimulator does).
  const faultSeed = faults ? (faults.seed ?? seed) : undefined;
  const bad = faults
    ? describeFaults(faults, faultSeed!, tokenTtlSeconds)
    : tokenTtlSeconds
      ? `tokens live ${tokenTtlSeconds} s`
      : undefined;
  process.stdout.write(
    flags.json
      ? simJsonLine(simulator, faults, faultSeed, tokenTtlSeconds)
      : simBanner(simulator, flags.dataDir, bad, rows),
  );
}

/** The `--json` line: `{url, brand, credentials}`, plus the faults and token lifetime when set. */
function simJsonLine(
  simulator: Simulator,
  faults: FaultOptions | undefined,
  faultSeed: number | undefined,
  tokenTtlSeconds: number | undefined,
): string {
  return `${JSON.stringify({
    url: simulator.url,
    brand: simulator.brand,
    credentials: simulator.credentials,
    ...(faults ? { faults, faultSeed } : {}),
    ...(tokenTtlSeconds ? { tokenTtlSeconds } : {}),
  })}\n`;
}

/** The banner for people: where it listens, the bad day if any, the credentials and how to try it. */
function simBanner(simulator: Simulator, dataDir: string | undefined, bad: string | undefined, rows: number): string {
  const c = simulator.credentials;
  return [
    `risk-portal-lab simulator listening on ${simulator.url} (brand ${simulator.brand})${dataDir ? ` (state in ${dataDir})` : ""}`,
    ...(bad ? [`a bad day: ${bad}`] : []),
    `transaction tables: ${rows.toLocaleString("en-US")} trades per portfolio over two years; about 3% have quantity 0 and are returned only with include_zero_quantities: true`,
    "",
    "credentials:",
    `  bearer token   ${c.bearerToken}`,
    `  API key        ${c.apiKey}`,
    `  client id      ${c.clientId}`,
    `  client secret  ${c.clientSecret}`,
    `  token URL      ${c.tokenUrl}`,
    "",
    "try:",
    `  curl -s -H 'x-api-key: ${c.apiKey}' ${simulator.url}/api/Report/LookBacks`,
    `  export RISK_PORTAL_BASE_URL=${simulator.url} RISK_PORTAL_API_KEY=${c.apiKey} RISK_PORTAL_BRAND=${simulator.brand}`,
    "",
    "Ctrl-C stops it.",
    "",
  ].join("\n");
}

/** Resolves on the first SIGINT or SIGTERM (Ctrl-C). */
function untilStopped(): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
}

async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      param: { type: "string", short: "p", multiple: true },
      out: { type: "string", default: "out" },
      "cell-timeout": { type: "string" },
      kernel: { type: "string" },
      deno: { type: "string" },
      compare: { type: "string" },
      jobs: { type: "string" },
      "params-file": { type: "string", short: "f" },
      grid: { type: "string", multiple: true },
      inspect: { type: "boolean", default: false },
      "no-images": { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) {
    process.stdout.write(RUN_USAGE);
    return 0;
  }
  if (values.inspect) return inspectNotebooks(positionals);
  // Read before the run: the run may write over it (the same --out).
  const previous = values.compare === undefined ? undefined : await previousRuns(values.compare, positionals);
  if (positionals.length === 0) throw new UsageError("run needs at least one notebook");
  const kernel = values.kernel as KernelName | undefined;
  if (kernel !== undefined && kernel !== "tslab" && kernel !== "deno")
    throw new UsageError(`--kernel must be tslab or deno, got ${JSON.stringify(kernel)}`);
  if (values.deno !== undefined && kernel === "tslab") throw new UsageError("--deno only applies to Deno's kernel");
  const { parseParameterValue } = await import("./notebook/params");
  // No prototype: `--param __proto__=…` is a parameter (refused unless declared), not a prototype to set.
  const params = Object.create(null) as Record<string, unknown>;
  for (const p of values.param ?? []) {
    const eq = p.indexOf("=");
    if (eq <= 0) throw new UsageError(`--param expects name=value, got ${JSON.stringify(p)}`);
    params[p.slice(0, eq)] = parseParameterValue(p.slice(eq + 1));
  }
  const { runNotebooks } = await import("./notebook/batch");
  const options = {
    params,
    outDir: values.out,
    cellTimeoutMs: cellTimeout(values["cell-timeout"]),
    kernel,
    deno: values.deno,
    jobs: jobCount(values.jobs),
    // In a worker process even one at a time: a cell that calls process.exit or never yields fails the run.
    isolate: true,
    images: !values["no-images"],
  };
  const runs = await plannedRuns(positionals, params, values["params-file"], values.grid);
  const summary = await runNotebooks(runs, { ...options, ...notebookLogs(), ...cellLines() });
  if (previous) await compareWithPrevious(previous, summary.results);
  return summary.failed ? 1 : 0;
}

/** `run NB… --inspect`: each notebook's parameters (name, type, default); nothing runs, nothing is written. */
async function inspectNotebooks(notebooks: readonly string[]): Promise<number> {
  if (notebooks.length === 0) throw new UsageError("run --inspect needs at least one notebook");
  const { inspectNotebook } = await import("./notebook/inspect");
  for (const nb of notebooks) stdout(await inspectNotebook(nb));
  return 0;
}

/** The runs: `--params-file` under `--param`, and one run per combination of the `--grid` values. */
async function plannedRuns(
  notebooks: readonly string[],
  params: Record<string, unknown>,
  paramsFile: string | undefined,
  grid: readonly string[] | undefined,
) {
  const { readParamsFile, parseGrid, planRuns, ParameterInputError } = await import("./notebook/run-params");
  const fromFile = paramsFile === undefined ? undefined : await readParamsFile(paramsFile);
  try {
    return planRuns(notebooks, { fromFile, params }, parseGrid(grid ?? []));
  } catch (error) {
    throw error instanceof ParameterInputError ? new UsageError(error.message) : error;
  }
}

/** `--compare PREV`: each notebook's earlier run, read now (PREV: an .ipynb for one notebook, or a directory of them). */
async function previousRuns(compare: string, notebooks: readonly string[]) {
  const { existsSync, statSync } = await import("node:fs");
  const { readRun, NotebookDiffError } = await import("./notebook/diff");
  const directory = existsSync(compare) && statSync(compare).isDirectory();
  if (!directory && notebooks.length > 1)
    throw new UsageError(
      `--compare with several notebooks needs a directory of earlier runs, got the file ${JSON.stringify(compare)}`,
    );
  const runs = new Map<string, { file: string; notebook: import("./notebook/ipynb").Notebook }>();
  for (const nb of notebooks) {
    const file = directory ? path.join(compare, path.basename(nb)) : compare;
    try {
      runs.set(path.basename(nb, ".ipynb"), { file, notebook: await readRun(file) });
    } catch (error) {
      if (error instanceof NotebookDiffError) throw new UsageError(`--compare: ${error.message}`);
      throw error;
    }
  }
  return runs;
}

/** Writes `<out>/<name>.diff.html` beside each run that wrote its .ipynb, and prints the summary line. */
async function compareWithPrevious(
  previous: Awaited<ReturnType<typeof previousRuns>>,
  results: readonly { file: string; ipynbPath?: string }[],
): Promise<void> {
  const { compareRun } = await import("./notebook/diff/compare");
  for (const r of results) {
    const earlier = previous.get(path.basename(r.file, ".ipynb"));
    if (!earlier || !r.ipynbPath) continue;
    try {
      const { diff, reportPath } = await compareRun(earlier, r.ipynbPath);
      stdout(`  compared with ${earlier.file}: ${diff.summary} → ${relativePath(reportPath)}\n`);
    } catch (error) {
      stderr(`  compared with ${earlier.file}: ${(error as Error).message}\n`);
    }
  }
}

async function diff(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      out: { type: "string" },
      tolerance: { type: "string" },
      json: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) {
    process.stdout.write(DIFF_USAGE);
    return 0;
  }
  if (positionals.length !== 2)
    throw new UsageError(`diff needs two notebooks, BEFORE.ipynb AFTER.ipynb; got ${positionals.length}`);
  const tolerance = values.tolerance === undefined ? undefined : Number(values.tolerance);
  if (tolerance !== undefined && !(values.tolerance!.trim() !== "" && Number.isFinite(tolerance) && tolerance >= 0))
    throw new UsageError(`--tolerance must be a number >= 0 (1e-9, 0.001), got ${JSON.stringify(values.tolerance)}`);
  const [before, after] = positionals as [string, string];
  const { diffNotebookFiles } = await import("./notebook/diff");
  const { writeReport, defaultReportPath } = await import("./notebook/diff/report");
  try {
    const d = await diffNotebookFiles(before, after, { tolerance });
    const report = await writeReport(d, values.out ?? defaultReportPath(after));
    const { overlayless } = await import("./notebook/diff/compare");
    stdout(
      values.json ? `${JSON.stringify({ ...overlayless(d), report })}\n` : `${d.summary} → ${relativePath(report)}\n`,
    );
    return d.changed ? 1 : 0;
  } catch (error) {
    // Exit 1 means "changed": anything that stops the diff is bad input (2).
    stderr(`risk-portal-lab diff: ${(error as Error).message}\n`);
    return 2;
  }
}

function relativePath(file: string): string {
  const rel = path.relative(process.cwd(), file);
  return rel.startsWith("..") ? file : rel;
}

/** A line per cell as it finishes, on stderr (`01-yield-curves: cell 4/12 ok 1.3 s`); on a terminal, the running cell too. */
function cellLines() {
  const tty = process.stderr.isTTY;
  const name = (file: string) => path.basename(file, ".ipynb");
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { cellDoneLine } = require("./notebook/run-shared") as typeof import("./notebook/run-shared");
  return {
    onCell: tty
      ? ({ file, index, total }: { file: string; index: number; total: number }) =>
          stderr(`\r\x1b[K${name(file)}: cell ${index}/${total}…`)
      : undefined,
    onCellDone: (info: CellDone & { file: string }) =>
      stderr(`${tty ? "\r\x1b[K" : ""}${name(info.file)}: ${cellDoneLine(info)}\n`),
  };
}

async function demo(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      out: { type: "string", default: "out" },
      "cell-timeout": { type: "string" },
      replay: { type: "boolean", default: false },
      jobs: { type: "string" },
      "no-images": { type: "boolean", default: false },
    },
    strict: true,
  });
  const { runDemo, demoNotebooks } = await import("./notebook/batch");
  const files = await demoNotebooks();
  const how = values.replay
    ? "offline from their cassettes in fixtures/cassettes/ (recorded against the simulator, data as of 2026-11-20)"
    : "against the embedded simulator (data as of 2026-11-20)";
  stdout(`risk-portal-lab demo: ${files.length} notebooks, run headless ${how}\n`);
  const jobs = jobCount(values.jobs);
  const summary = await runDemo({
    outDir: values.out,
    cellTimeoutMs: cellTimeout(values["cell-timeout"]),
    replay: values.replay,
    isolate: true,
    images: !values["no-images"],
    ...(jobs ? { jobs } : {}),
    ...notebookLogs(),
  });
  return summary.failed ? 1 : 0;
}

// The runner captures process.stdout/stderr while a cell runs; the CLI writes through the real ones.
const stdout = process.stdout.write.bind(process.stdout);
const stderr = process.stderr.write.bind(process.stderr);

/** Result lines on stdout, failures on stderr, and a cell counter on an interactive stderr. */
function notebookLogs() {
  // Output piped into a reader that stopped (`| head`): the notebooks still run, quietly.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
  });
  const tty = process.stderr.isTTY;
  const clear = () => (tty ? stderr("\r\x1b[K") : true);
  return {
    log: (line: string) => (clear(), stdout(`${line}\n`)),
    logError: (line: string) => (clear(), stderr(`${line}\n`)),
    onCell: tty
      ? ({ file, index, total }: { file: string; index: number; total: number }) =>
          stderr(`\r\x1b[K  ${file}: cell ${index}/${total}…`)
      : undefined,
  };
}

/** `--jobs N`: how many notebooks run at once (undefined: the command's default). */
function jobCount(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!(Number.isInteger(n) && n >= 1 && n <= 64))
    throw new UsageError(`--jobs must be a whole number from 1 to 64, got ${JSON.stringify(text)}`);
  return n;
}

function cellTimeout(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const s = Number(text);
  if (!(Number.isFinite(s) && s > 0))
    throw new UsageError(`--cell-timeout must be a number of seconds > 0, got ${JSON.stringify(text)}`);
  return s * 1000;
}

/** Longest `--latency`, ms: ten minutes (a longer one would outlast any client's timeout). */
const MAX_LATENCY_MS = 600_000;
/** Longest `--token-ttl`, seconds: a year. */
const MAX_TOKEN_TTL_SECONDS = 365 * 24 * 3600;

/** `--faults P`, `--latency MS|MIN-MAX` and `--fault-seed N` as the simulator's fault options (undefined: none). */
function faultOptions(
  share: string | undefined,
  latency: string | undefined,
  faultSeed: string | undefined,
): FaultOptions | undefined {
  if (share === undefined && latency === undefined) {
    if (faultSeed !== undefined) throw new UsageError("--fault-seed only applies with --faults or --latency");
    return undefined;
  }
  const out: FaultOptions = {};
  if (share !== undefined) {
    const p = Number(share);
    if (share.trim() === "" || !(p >= 0 && p <= 1))
      throw new UsageError(
        `--faults must be a share between 0 and 1 (0.2 = one request in five), got ${JSON.stringify(share)}`,
      );
    Object.assign(out, { errorRate: p / 2, dropRate: p / 4, truncateRate: p / 4 });
  }
  if (latency !== undefined) {
    const range = /^(\d+(?:\.\d+)?)(?:-(\d+(?:\.\d+)?))?$/.exec(latency.trim());
    if (!range || (range[2] !== undefined && Number(range[2]) < Number(range[1])))
      throw new UsageError(
        `--latency must be milliseconds (250) or a range MIN-MAX (100-400), got ${JSON.stringify(latency)}`,
      );
    if (Number(range[2] ?? range[1]) > MAX_LATENCY_MS)
      throw new UsageError(
        `--latency must be at most ${MAX_LATENCY_MS} ms (ten minutes), got ${JSON.stringify(latency)}`,
      );
    out.latencyMs = range[2] === undefined ? Number(range[1]) : [Number(range[1]), Number(range[2])];
  }
  if (faultSeed !== undefined) out.seed = wholeNumber(faultSeed, "--fault-seed");
  return out;
}

function describeFaults(f: FaultOptions, seed: number, tokenTtlSeconds: number | undefined): string {
  const pct = (x = 0) => `${Math.round(x * 1000) / 10}%`;
  const parts = [];
  if (f.errorRate !== undefined)
    parts.push(
      `${pct(f.errorRate)} of API requests answered 500/503, ${pct(f.dropRate)} dropped, ${pct(f.truncateRate)} cut off (fault seed ${seed})`,
    );
  if (f.latencyMs !== undefined)
    parts.push(`latency ${Array.isArray(f.latencyMs) ? `${f.latencyMs[0]}-${f.latencyMs[1]}` : f.latencyMs} ms`);
  if (tokenTtlSeconds) parts.push(`tokens live ${tokenTtlSeconds} s`);
  return parts.join("; ");
}

function wholeNumber(text: string, flag: string): number {
  const n = Number(text);
  if (text.trim() === "" || !Number.isSafeInteger(n) || n < 0)
    throw new UsageError(`${flag} must be a whole number >= 0, got ${JSON.stringify(text)}`);
  return n;
}

/** `kernels install|list|check`: errors of the command itself (no Jupyter, an old Node) exit 1 with their message. */
async function kernels(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (!sub || sub === "--help" || sub === "-h" || sub === "help") {
    process.stdout.write(KERNELS_USAGE);
    return sub ? 0 : 2;
  }
  if (sub === "list" || sub === "check") {
    parseArgs({ args: rest, options: {}, strict: true });
    const { listKernels } = await import("./notebook/kernels/list");
    return listKernels();
  }
  if (sub !== "install")
    throw new UsageError(`kernels: unknown subcommand ${JSON.stringify(sub)} (install, list or check)`);
  const { values } = parseArgs({
    args: rest,
    options: { user: { type: "boolean" }, "sys-prefix": { type: "boolean" }, prefix: { type: "string" } },
    strict: true,
  });
  if ([values.user, values["sys-prefix"], values.prefix !== undefined].filter(Boolean).length > 1)
    throw new UsageError("kernels install: --user, --sys-prefix and --prefix DIR exclude each other");
  const { installKernels, KernelsError } = await import("./notebook/kernels/install");
  const scope = values["sys-prefix"]
    ? ({ kind: "sys-prefix" } as const)
    : values.prefix !== undefined
      ? ({ kind: "prefix", prefix: values.prefix } as const)
      : ({ kind: "user" } as const);
  try {
    return installKernels({ scope });
  } catch (error) {
    if (!(error instanceof KernelsError)) throw error;
    process.stderr.write(`risk-portal-lab kernels install: ${error.message}\n`);
    return 1;
  }
}

class UsageError extends Error {}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const usage = error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS");
    process.stderr.write(`risk-portal-lab: ${(error as Error).message ?? String(error)}\n${usage ? `\n${USAGE}` : ""}`);
    process.exit(usage ? 2 : 1);
  },
);
