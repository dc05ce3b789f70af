/**
 * A run of a small notebook whose one code cell shows a table the way `plot.show` does (a display with
 * the preview's HTML and text), written as a real `.ipynb`: for the diff tests that need two runs
 * differing in one table and nothing else, without running a kernel.
 */
import { writeFileSync } from "node:fs";
import { tableHtml, tableText, type TableLike, type TableViewOptions } from "../../src/plot/table-view";

/** Writes `file`: a notebook with one code cell (id `table`) whose output shows `table`. */
export function writeTableNotebook(file: string, table: TableLike, options: TableViewOptions = {}): void {
  const nb = {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: { kernelspec: { name: "tslab", display_name: "TypeScript", language: "typescript" } },
    cells: [
      {
        cell_type: "code",
        id: "table",
        metadata: {},
        execution_count: 1,
        source: "plot.show(table);",
        outputs: [
          {
            output_type: "display_data",
            metadata: {},
            data: { "text/html": tableHtml(table, options), "text/plain": tableText(table, options) },
          },
        ],
      },
    ],
  };
  writeFileSync(file, JSON.stringify(nb, null, 1));
}
