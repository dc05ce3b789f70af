/**
 * Cells of two runs: paired (by id, else by source, else by position between paired neighbours), each
 * cell's outputs sorted into what is compared — printed text per stream, tables, charts, errors and
 * other displays — and the pairs compared.
 */
import { isJsonMime, sourceOf, type Cell, type Output } from "../ipynb";
import { INJECTED_TAG } from "../params";
import { diffCharts, type ChartChange, type PlotlyJson } from "./chart";
import { diffTables, parseTableHtml, type ShownTable, type TableChange } from "./table";
import { diffText, normalizeVolatile, type TextDiff } from "./text";

const PLOTLY_MIME = "application/vnd.plotly.v1+json";
/** plotly.js itself, in parts (`plotlyPartBundles`): the same library on every run, never compared. */
const PLOTLY_PART_MIME = "application/vnd.risk-portal-lab.plotly-part+json";

/** What a cell showed, sorted for comparing. */
interface CellOutputs {
  /** Printed text per channel (`stdout`, `stderr`, `result`: results and text-only displays), normalized. */
  text: Map<string, string>;
  tables: ShownTable[];
  charts: PlotlyJson[];
  error?: { ename: string; evalue: string };
  /** Other displays (images, HTML), as comparable text. */
  other: string[];
  /** Undefined: the notebook cannot say (see ipynb.ts `cellsRan`). */
  ran: boolean | undefined;
}

/** A cell's outputs, sorted; its text already one string each (the notebook went through `normalizeNotebook`). */
function outputsOf(cell: Cell, ran: boolean | undefined): CellOutputs {
  const out: CellOutputs = { text: new Map(), tables: [], charts: [], other: [], ran };
  const add = (channel: string, text: string) => out.text.set(channel, (out.text.get(channel) ?? "") + text);
  for (const o of cell.outputs ?? []) {
    if (o.output_type === "stream") add(o.name, o.text);
    else if (o.output_type === "error") out.error = { ename: o.ename, evalue: o.evalue };
    else sortDisplay(o, out, add);
  }
  for (const [channel, text] of out.text) out.text.set(channel, normalizeVolatile(text));
  return out;
}

function sortDisplay(
  o: Output & { data: Record<string, unknown> },
  out: CellOutputs,
  add: (channel: string, text: string) => void,
): void {
  const data = o.data;
  if (data[PLOTLY_PART_MIME] !== undefined) return;
  if (data[PLOTLY_MIME] && typeof data[PLOTLY_MIME] === "object")
    return void out.charts.push(data[PLOTLY_MIME] as PlotlyJson);
  const html = typeof data["text/html"] === "string" ? data["text/html"] : undefined;
  const table = html === undefined ? undefined : parseTableHtml(html);
  if (table) return void out.tables.push(table);
  const plain = data["text/plain"];
  const text = typeof plain === "string" ? plain : undefined;
  // In mime type order and with JSON's keys sorted: nbformat writes keys sorted, the runner in its own order.
  const rich = Object.keys(data)
    .filter((m) => m !== "text/plain")
    .sort();
  if (rich.length === 0 && text !== undefined) return add("result", text.endsWith("\n") ? text : `${text}\n`);
  // Anything else (an image, other HTML) is compared whole, what changes on every run set aside.
  out.other.push(
    normalizeVolatile(
      rich
        .map((m) => `${m}: ${typeof data[m] === "string" && !isJsonMime(m) ? data[m] : sortedJson(data[m])}`)
        .join("\n"),
    ),
  );
}

/** JSON with every object's keys in order, so that the same value is the same text whoever wrote it. */
function sortedJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([p], [q]) => (p < q ? -1 : p > q ? 1 : 0)),
        )
      : v,
  );
}

/**
 * A cell's value one run shows as its result and the other printed (tslab under Jupyter writes the value
 * of a cell's last expression to stdout; the runner and Deno's kernel return it): the same text, so the
 * result is compared as the end of the printed text when the other run's printed text ends with it.
 */
function alignPrintedResult(x: CellOutputs, y: CellOutputs): void {
  for (const [p, q] of [
    [x, y],
    [y, x],
  ] as const) {
    const result = p.text.get("result");
    if (result === undefined || q.text.has("result") || !(q.text.get("stdout") ?? "").endsWith(result)) continue;
    p.text.delete("result");
    p.text.set("stdout", (p.text.get("stdout") ?? "") + result);
  }
}

/** What changed in one cell. */
export interface CellDiff {
  /** 1-based positions among code cells, before and after (undefined: not in that run). */
  before?: number;
  after?: number;
  id?: string;
  /** The first line of code (comments skipped), to recognise the cell. */
  firstLine: string;
  status: "changed" | "added" | "removed";
  /** The source differs (an edited cell); shown, not counted as a change of results. */
  sourceEdited?: boolean;
  /** Ran in one run only (an earlier cell failed, or it was not executed). */
  ran?: "before only" | "after only";
  texts: { channel: string; diff: TextDiff }[];
  tables: (TableChange | { appeared?: string; disappeared?: string })[];
  charts: (ChartChange | { appeared?: string; disappeared?: string })[];
  error?: { kind: "appeared" | "went away" | "changed"; before?: string; after?: string };
  others: { kind: "appeared" | "went away" | "changed" }[];
}

/**
 * Compares a pair of cells' outputs (whether each ran: ipynb.ts `cellsRan`); undefined when they show the
 * same. Ran in one run only when both runs say and they differ.
 */
export function diffCells(
  a: Cell,
  b: Cell,
  at: { before: number; after: number },
  tolerance: number,
  ran: { before: boolean | undefined; after: boolean | undefined },
): CellDiff | undefined {
  const x = outputsOf(a, ran.before);
  const y = outputsOf(b, ran.after);
  const d = emptyDiff(b, "changed", at);
  if (sourceOf(a) !== sourceOf(b)) d.sourceEdited = true;
  if (x.ran !== undefined && y.ran !== undefined && x.ran !== y.ran) d.ran = x.ran ? "before only" : "after only";
  alignPrintedResult(x, y);
  if (!d.ran) compareOutputs(x, y, d, tolerance);
  const changed = d.ran || d.texts.length || d.tables.length || d.charts.length || d.error || d.others.length;
  return changed ? d : undefined;
}

function compareOutputs(x: CellOutputs, y: CellOutputs, d: CellDiff, tolerance: number): void {
  for (const channel of new Set([...x.text.keys(), ...y.text.keys()])) {
    const diff = diffText(x.text.get(channel) ?? "", y.text.get(channel) ?? "", tolerance);
    if (diff) d.texts.push({ channel, diff });
  }
  pairwise(
    x.tables,
    y.tables,
    d.tables,
    (p, q) => diffTables(p, q, tolerance),
    (t) => `${t.what}${t.source ? ` · from ${t.source}` : ""}`,
  );
  pairwise(
    x.charts,
    y.charts,
    d.charts,
    (p, q) => diffCharts(p, q, tolerance),
    (c) => chartTitleOf(c),
  );
  if (x.error || y.error) {
    const show = (e: { ename: string; evalue: string }) => `${e.ename}: ${e.evalue}`;
    if (!x.error) d.error = { kind: "appeared", after: show(y.error!) };
    else if (!y.error) d.error = { kind: "went away", before: show(x.error) };
    else if (normalizeVolatile(show(x.error)) !== normalizeVolatile(show(y.error)))
      d.error = { kind: "changed", before: show(x.error), after: show(y.error) };
  }
  for (let k = 0; k < Math.max(x.other.length, y.other.length); k++) {
    const p = x.other[k];
    const q = y.other[k];
    if (p === q) continue;
    d.others.push({ kind: p === undefined ? "appeared" : q === undefined ? "went away" : "changed" });
  }
}

function chartTitleOf(c: PlotlyJson): string {
  const t = c.layout?.title as string | { text?: string } | undefined;
  return (typeof t === "string" ? t : (t?.text ?? "chart")).replace(/<[^>]*>/g, "");
}

/** Pairs outputs of one kind by order; a surplus on one side appeared or disappeared. */
function pairwise<T, C>(
  xs: T[],
  ys: T[],
  into: (C | { appeared?: string; disappeared?: string })[],
  compare: (p: T, q: T) => C | undefined,
  label: (t: T) => string,
): void {
  for (let k = 0; k < Math.max(xs.length, ys.length); k++) {
    const p = xs[k];
    const q = ys[k];
    if (p === undefined) into.push({ appeared: label(q!) });
    else if (q === undefined) into.push({ disappeared: label(p) });
    else {
      const c = compare(p, q);
      if (c) into.push(c);
    }
  }
}

function emptyDiff(cell: Cell, status: CellDiff["status"], at: { before?: number; after?: number }): CellDiff {
  return {
    ...at,
    ...(cell.id ? { id: cell.id } : {}),
    firstLine: firstLine(cell),
    status,
    texts: [],
    tables: [],
    charts: [],
    others: [],
  };
}

/** A cell only one run has: its outputs all appeared (or went away). */
export function loneCell(cell: Cell, side: "before" | "after", position: number): CellDiff {
  const d = emptyDiff(cell, side === "before" ? "removed" : "added", { [side]: position });
  d.ran = side === "before" ? "before only" : "after only";
  return d;
}

function firstLine(cell: Cell): string {
  const lines = sourceOf(cell).split("\n");
  const line = (lines.find((l) => l.trim() && !l.trim().startsWith("//")) ?? lines[0] ?? "").trim();
  return line.length > 90 ? `${line.slice(0, 89)}…` : line;
}

/** The code cells a run compares: all but the injected parameters (those are the run's parameters). */
export function codeCells(cells: readonly Cell[]): Cell[] {
  return cells.filter((c) => c.cell_type === "code" && !c.metadata?.tags?.includes(INJECTED_TAG));
}

/** Pairs of code cells (indices), and how many paired by identity (id or the same source). */
export interface CellPairing {
  pairs: [number | undefined, number | undefined][];
  identical: number;
}

/**
 * Pairs the code cells of two runs: by id where both have ids, then by identical source, then the cells
 * left between two paired neighbours by position (edited cells); what is still alone was added or removed.
 */
export function pairCells(a: readonly Cell[], b: readonly Cell[]): CellPairing {
  const match = new Array<number | undefined>(a.length).fill(undefined);
  const taken = new Set<number>();
  const take = (i: number, j: number) => {
    match[i] = j;
    taken.add(j);
  };
  const ids = new Map<string, number>();
  b.forEach((c, j) => c.id && !ids.has(c.id) && ids.set(c.id, j));
  a.forEach((c, i) => {
    const j = c.id ? ids.get(c.id) : undefined;
    if (j !== undefined && !taken.has(j)) take(i, j);
  });
  a.forEach((c, i) => {
    if (match[i] !== undefined) return;
    const j = b.findIndex((d, k) => !taken.has(k) && sourceOf(d) === sourceOf(c));
    if (j >= 0) take(i, j);
  });
  const identical = match.filter((j) => j !== undefined).length;
  // The rest: between the same paired neighbours, in order.
  let low = -1;
  a.forEach((_, i) => {
    if (match[i] !== undefined) return void (low = Math.max(low, match[i]));
    const high = match.slice(i + 1).find((j) => j !== undefined) ?? b.length;
    for (let j = low + 1; j < high; j++)
      if (!taken.has(j)) {
        match[i] = j;
        taken.add(j);
        low = j;
        break;
      }
  });
  const pairs: [number | undefined, number | undefined][] = a.map((_, i) => [i, match[i]]);
  b.forEach((_, j) => {
    if (!taken.has(j)) pairs.push([undefined, j]);
  });
  return { pairs, identical };
}
