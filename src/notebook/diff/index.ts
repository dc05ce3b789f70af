/**
 * What changed between two runs of a notebook (`risk-portal-lab diff before.ipynb after.ipynb`): cell by
 * cell, printed text with numbers read as numbers, tables by key, charts trace by trace, errors that
 * appeared or went away; what every run changes (times, durations, ports, where the data came from,
 * execution counts) is set aside (see text.ts `VOLATILE`). An HTML report (report.ts) and a summary line.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { RiskPortalError } from "../../errors";
import { DEFAULT_DIFF_TOLERANCE } from "../../frames/diff";
import { cellsRan, normalizeNotebook, parseNotebook, sourceOf, type Notebook } from "../ipynb";
import { codeCells, diffCells, loneCell, pairCells, type CellDiff } from "./cells";
import { describeEnvironmentChanges, environmentChanges, type EnvironmentChange } from "./environment";

export type { CellDiff } from "./cells";
export type { EnvironmentChange } from "./environment";
export type { ChartChange, TraceChange } from "./chart";
export type { TableChange } from "./table";
export type { TextDiff, LineChange } from "./text";
export { VOLATILE, normalizeVolatile } from "./text";

/** Bad input to a notebook diff: a missing file, a file that is not a notebook, two different notebooks. */
export class NotebookDiffError extends RiskPortalError {
  constructor(message: string) {
    super(message, { operation: "diffNotebooks" });
  }
}

export interface NotebookDiffOptions {
  /** Numbers within this are the same: |after − before| ≤ tolerance × max(1, |before|, |after|). Default 1e-9. */
  tolerance?: number;
  /** Names for the two sides (file names) in the summary and the report. */
  beforeName?: string;
  afterName?: string;
}

/** One run as the diff saw it. */
export interface RunSide {
  name: string;
  parameters: Record<string, unknown>;
  /** `ok` or `failed` (the runner's metadata), when the run says. */
  status?: string;
  codeCells: number;
}

export interface NotebookDiff {
  before: RunSide;
  after: RunSide;
  tolerance: number;
  /** Parameters that differ (context: not counted as a change). */
  parameters: { name: string; before?: unknown; after?: unknown }[];
  /**
   * What differs in the runs' recorded environments (versions, kernel, git commit) and data sources
   * (context, like the parameters: not counted as a change; per-cell times are never compared).
   */
  environment: EnvironmentChange[];
  /** The cells whose results changed, in after's order (removed cells where they were). */
  cells: CellDiff[];
  /** Cells whose source was edited but whose results did not change. */
  edited: number;
  /** `ranInOneRun`: cells that ran in one run only (after a failure, or not executed); `added`/`removed`: cells only after/before. */
  counts: {
    cells: number;
    texts: number;
    tables: number;
    charts: number;
    errors: number;
    ranInOneRun: number;
    added: number;
    removed: number;
  };
  changed: boolean;
  summary: string;
}

/** Reads a run's `.ipynb`; NotebookDiffError when it is missing or not a notebook. */
export async function readRun(file: string): Promise<Notebook> {
  if (!existsSync(file)) throw new NotebookDiffError(`${file}: no such file`);
  try {
    return parseNotebook(await readFile(file, "utf8"), file);
  } catch (error) {
    throw new NotebookDiffError((error as Error).message);
  }
}

/**
 * {@link diffNotebooks} of two `.ipynb` files.
 * @example
 * ```ts
 * const d = await diffNotebookFiles("runs/before/01-yield-curves.ipynb", "runs/after/01-yield-curves.ipynb");
 * console.log(d.summary);
 * await writeDiffReport(d, "diff.html");
 * ```
 */
export async function diffNotebookFiles(
  before: string,
  after: string,
  options: NotebookDiffOptions = {},
): Promise<NotebookDiff> {
  const [a, b] = await Promise.all([readRun(before), readRun(after)]);
  return diffNotebooks(a, b, { beforeName: path.basename(before), afterName: path.basename(after), ...options });
}

/**
 * Compares two executed notebooks cell by cell (see the module comment), as nbformat reads them: text as
 * one string or a list of lines, any nbformat 4 minor version, cell ids or none, keys in any order
 * (ipynb.ts `normalizeNotebook`; whether a cell ran: `cellsRan`). Throws NotebookDiffError when
 * they are not runs of the same notebook (fewer than half their code cells pair by id or source) or the
 * tolerance is not a number >= 0.
 * @example
 * ```ts
 * const d = diffNotebooks(JSON.parse(beforeText), JSON.parse(afterText), { tolerance: 1e-9 });
 * d.changed; // true when something changed
 * ```
 */
export function diffNotebooks(before: Notebook, after: Notebook, options: NotebookDiffOptions = {}): NotebookDiff {
  const tolerance = options.tolerance ?? DEFAULT_DIFF_TOLERANCE;
  if (typeof tolerance !== "number" || !(tolerance >= 0))
    throw new NotebookDiffError(`tolerance must be a number >= 0, got ${String(tolerance)}`);
  for (const [nb, which] of [
    [before, options.beforeName ?? "before"],
    [after, options.afterName ?? "after"],
  ] as const)
    if (!nb || !Array.isArray(nb.cells)) throw new NotebookDiffError(`${which} is not a notebook: no "cells" array`);
  const a = codeCells(normalizeNotebook(before).cells);
  const b = codeCells(normalizeNotebook(after).cells);
  const ranA = cellsRan(a);
  const ranB = cellsRan(b);
  const { pairs, identical } = pairCells(a, b);
  const total = Math.max(a.length, b.length);
  const names = `${options.beforeName ?? "before"} and ${options.afterName ?? "after"}`;
  if (total > 0 && identical * 2 < total)
    throw new NotebookDiffError(
      `${names} are not runs of the same notebook: only ${identical} of their ${total} code cells have the same id or source (at least half must)`,
    );
  const cells: CellDiff[] = [];
  let edited = 0;
  const ordered = [...pairs].sort((p, q) => position(p) - position(q));
  for (const [i, j] of ordered) {
    const d =
      i === undefined
        ? loneCell(b[j!]!, "after", j! + 1)
        : j === undefined
          ? loneCell(a[i]!, "before", i + 1)
          : diffCells(a[i]!, b[j]!, { before: i + 1, after: j + 1 }, tolerance, { before: ranA[i], after: ranB[j] });
    if (d) cells.push(d);
    else if (i !== undefined && j !== undefined && sourceOf(a[i]!) !== sourceOf(b[j]!)) edited++;
  }
  const side = (nb: Notebook, name: string, n: number): RunSide => {
    const meta = (nb.metadata?.risk_portal_lab ?? {}) as { parameters?: Record<string, unknown>; status?: string };
    return { name, parameters: meta.parameters ?? {}, ...(meta.status ? { status: meta.status } : {}), codeCells: n };
  };
  const result: NotebookDiff = {
    before: side(before, options.beforeName ?? "before", a.length),
    after: side(after, options.afterName ?? "after", b.length),
    tolerance,
    parameters: [],
    environment: environmentChanges(before, after),
    cells,
    edited,
    counts: countOf(cells),
    changed: cells.length > 0,
    summary: "",
  };
  result.parameters = parameterChanges(result.before.parameters, result.after.parameters);
  result.summary = summaryLine(result);
  return result;
}

/** Where a pair sorts: after's position, a removed cell just after its before-neighbour. */
function position([i, j]: [number | undefined, number | undefined]): number {
  return j !== undefined ? j : i! - 0.5;
}

function countOf(cells: readonly CellDiff[]): NotebookDiff["counts"] {
  return {
    cells: cells.length,
    texts: cells.reduce((n, c) => n + c.texts.length, 0),
    tables: cells.reduce((n, c) => n + c.tables.length, 0),
    charts: cells.reduce((n, c) => n + c.charts.length, 0),
    errors: cells.filter((c) => c.error).length,
    ranInOneRun: cells.filter((c) => c.status === "changed" && c.ran).length,
    added: cells.filter((c) => c.status === "added").length,
    removed: cells.filter((c) => c.status === "removed").length,
  };
}

function parameterChanges(x: Record<string, unknown>, y: Record<string, unknown>): NotebookDiff["parameters"] {
  const out: NotebookDiff["parameters"] = [];
  // Own keys only: a parameter named `toString` in one run is not Object.prototype's in the other.
  const own = (r: Record<string, unknown>, name: string) => (Object.hasOwn(r, name) ? r[name] : undefined);
  for (const name of new Set([...Object.keys(x), ...Object.keys(y)]))
    if (JSON.stringify(own(x, name)) !== JSON.stringify(own(y, name)))
      out.push({
        name,
        ...(Object.hasOwn(x, name) ? { before: x[name] } : {}),
        ...(Object.hasOwn(y, name) ? { after: y[name] } : {}),
      });
  return out;
}

const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;

/**
 * `01-yield-curves: 9 of 12 code cells changed (4 texts, 1 table, 6 charts) · parameters: currency "USD" → "EUR"`,
 * or `01-yield-curves: no change in 12 code cells (tolerance 1e-9)`.
 */
export function summaryLine(d: NotebookDiff): string {
  const name = d.after.name.replace(/\.ipynb$/, "");
  let params = d.parameters.length
    ? ` · parameters: ${d.parameters.map((p) => `${p.name} ${p.before === undefined ? "(default)" : JSON.stringify(p.before)} → ${p.after === undefined ? "(default)" : JSON.stringify(p.after)}`).join(", ")}`
    : "";
  const edited = d.edited ? ` · ${plural(d.edited, "cell")} edited, same results` : "";
  const environment = describeEnvironmentChanges(d.environment);
  if (environment) params += ` · ${environment}`;
  if (!d.changed)
    return `${name}: no change in ${plural(d.after.codeCells, "code cell")} (tolerance ${d.tolerance})${params}${edited}`;
  const c = d.counts;
  const parts = [
    c.texts && plural(c.texts, "text"),
    c.tables && plural(c.tables, "table"),
    c.charts && plural(c.charts, "chart"),
    c.errors && plural(c.errors, "error"),
    c.ranInOneRun && `${c.ranInOneRun} ran in one run only`,
    c.added && `${c.added} added`,
    c.removed && `${c.removed} removed`,
  ].filter(Boolean);
  return `${name}: ${c.cells} of ${plural(Math.max(d.before.codeCells, d.after.codeCells), "code cell")} changed (${parts.join(", ") || "outputs"})${params}${edited}`;
}
