/**
 * `risk-portal-lab run … --compare PREV`: the run compared with an earlier run of the same notebook, the
 * report written beside the run's outputs (`<name>.diff.html`).
 */
import path from "node:path";
import type { Notebook } from "../ipynb";
import { diffNotebooks, readRun, type NotebookDiff, type NotebookDiffOptions } from "./index";
import { writeReport } from "./report";

/**
 * Compares the run at `ipynbPath` with `previous` (an earlier run, read before this one ran: the run may
 * have written over its file) and writes `<name>.diff.html` beside the run. Returns the diff and the report.
 */
export async function compareRun(
  previous: { file: string; notebook: Notebook },
  ipynbPath: string,
  options: NotebookDiffOptions = {},
): Promise<{ diff: NotebookDiff; reportPath: string }> {
  const current = await readRun(ipynbPath);
  const diff = diffNotebooks(previous.notebook, current, {
    beforeName: path.basename(previous.file),
    afterName: path.basename(ipynbPath),
    ...options,
  });
  const reportPath = await writeReport(
    diff,
    path.join(path.dirname(ipynbPath), `${path.basename(ipynbPath, ".ipynb")}.diff.html`),
  );
  return { diff, reportPath };
}

/** The diff without its overlay figures (for JSON: the report draws them). */
export function overlayless(d: NotebookDiff): NotebookDiff {
  return JSON.parse(
    JSON.stringify(d, (key, value: unknown) => (key === "overlay" ? undefined : value)),
  ) as NotebookDiff;
}
