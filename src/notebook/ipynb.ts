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

/** A cell's source as one string (nbformat allows a list of lines). */
export function sourceOf(cell: Cell): string {
  return Array.isArray(cell.source) ? cell.source.join("") : cell.source;
}

/** Parses a notebook file's text, with a clear error when it is not nbformat 4. */
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
  return nb;
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
