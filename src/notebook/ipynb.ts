/** The parts of the Jupyter notebook format (nbformat 4) the runner reads and writes. */

export type MimeBundle = Record<string, unknown>;

export type Output =
  | { output_type: "stream"; name: "stdout" | "stderr"; text: string }
  | {
      output_type: "display_data";
      data: MimeBundle;
      metadata: Record<string, unknown>;
      transient?: Record<string, unknown>;
    }
  | {
      output_type: "execute_result";
      data: MimeBundle;
      metadata: Record<string, unknown>;
      execution_count: number | null;
    }
  | { output_type: "error"; ename: string; evalue: string; traceback: string[] };

export interface Cell {
  cell_type: "code" | "markdown" | "raw";
  source: string | string[];
  metadata: { tags?: string[]; [key: string]: unknown };
  outputs?: Output[];
  execution_count?: number | null;
  id?: string;
}

export interface Notebook {
  nbformat: number;
  nbformat_minor: number;
  metadata: Record<string, unknown>;
  cells: Cell[];
}

/**
 * nbformat's multiline text as one string: the format stores text either as one string or as a list of
 * lines (each keeping its `\n`), which nbformat itself joins with "" (Jupyter and nbconvert save lists).
 * Anything else is returned as it is.
 */
export function multilineText(value: unknown): unknown {
  return Array.isArray(value) && value.every((line) => typeof line === "string") ? value.join("") : value;
}

/**
 * Whether a mime bundle entry holds JSON (left as it is) rather than text: nbformat's rule, `application/json`
 * and `application/…+json` (a plotly figure). Every other entry (`text/plain`, `text/html`, `image/png`,
 * `image/svg+xml`, …) is multiline text.
 */
export function isJsonMime(mime: string): boolean {
  return mime === "application/json" || (mime.startsWith("application/") && mime.endsWith("+json"));
}

/** A mime bundle with its text entries as one string each. */
function bundleOf(data: MimeBundle): MimeBundle {
  const out: MimeBundle = {};
  for (const [mime, value] of Object.entries(data)) out[mime] = isJsonMime(mime) ? value : multilineText(value);
  return out;
}

function outputOf(output: Output): Output {
  const o = output as Output & { text?: unknown; data?: unknown };
  if (o.output_type === "stream") return { ...o, text: multilineText(o.text) as string };
  if ((o.output_type === "display_data" || o.output_type === "execute_result") && o.data && typeof o.data === "object")
    return { ...o, data: bundleOf(o.data) };
  return output;
}

/**
 * The notebook as every reader here sees it: each multiline text nbformat allows as a list of lines
 * (a cell's source, stream text, each text entry of a display's or result's mime bundle) as one string.
 * Error tracebacks stay lists (one entry a line, by the format). A copy: the input is left as it was;
 * reading a notebook already in this form again gives the same notebook.
 */
export function normalizeNotebook(nb: Notebook): Notebook {
  return {
    ...nb,
    cells: nb.cells.map((cell) => {
      const out: Cell = { ...cell, source: multilineText(cell.source) as string };
      if (Array.isArray(cell.outputs)) out.outputs = cell.outputs.map(outputOf);
      return out;
    }),
  };
}

/** A cell's source as one string (nbformat allows a list of lines). */
export function sourceOf(cell: Cell): string {
  return multilineText(cell.source) as string;
}

/**
 * Whether each code cell ran, as far as the notebook says: it has outputs, an execution count, or nbclient's
 * timings in its metadata (`execution`: nbconvert records them; tslab sends no execution count under
 * Jupyter). A cell with none of these did not run when the notebook records running for other cells; in a
 * notebook that records no running at all (saved by a front end from a kernel that sends no count),
 * `undefined`: it cannot say.
 */
export function cellsRan(cells: readonly Cell[]): (boolean | undefined)[] {
  const recorded = (c: Cell) => {
    const timing = c.metadata?.execution as Record<string, unknown> | undefined;
    return (
      c.execution_count != null || (typeof timing === "object" && timing !== null && Object.keys(timing).length > 0)
    );
  };
  const records = cells.some(recorded);
  return cells.map((c) => ((c.outputs?.length ?? 0) > 0 || recorded(c) ? true : records ? false : undefined));
}

/**
 * Parses a notebook file's text, with a clear error when it is not nbformat 4; its text as one string
 * each ({@link normalizeNotebook}).
 */
export function parseNotebook(text: string, file: string): Notebook {
  let nb: Notebook;
  try {
    nb = JSON.parse(text) as Notebook;
  } catch (error) {
    throw new Error(`${file} is not a notebook: ${(error as Error).message}`);
  }
  if (!nb || typeof nb !== "object" || !Array.isArray(nb.cells))
    throw new Error(`${file} is not a notebook: no "cells" array`);
  if (nb.nbformat !== 4) throw new Error(`${file}: nbformat ${String(nb.nbformat)} is not supported (4 is)`);
  return normalizeNotebook(nb);
}

/** The cell a run stopped at, and why: what the runner reports and the HTML rendering shows. */
export interface CellFailure {
  /** 0-based index among all cells of the executed notebook, and 1-based among code cells. */
  index: number;
  codeCell: number;
  /** The cell's `id`, when the notebook has cell ids (nbformat 4.5). */
  id?: string;
  source: string;
  /** The error's name (`TypeError`, `NotFoundError`, …; `TSError` for a type-check error). */
  ename: string;
  /** The error: its name and message (type errors: every diagnostic, one a line). */
  error: string;
}
