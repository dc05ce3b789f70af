/**
 * A table's display rounds (10 significant digits, or the `digits` asked for), its data does not, and
 * `diff` compares the data: each rounded cell of the HTML preview carries its exact value (`data-x`),
 * which the diff reads back. Two runs whose tables differ only past what the display shows differ.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { diffNotebookFiles } from "../../src/notebook/diff";
import { parseTableHtml, shownRows } from "../../src/notebook/diff/table";
import { tableHtml } from "../../src/plot/table-view";
import { TableBuilder } from "../../src/table/column-table";
import { writeTableNotebook } from "../helpers/table-notebook";
import { runCli } from "../notebook/executed";

const dir = mkdtempSync(path.join(tmpdir(), "rpl-exact-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A two-row table: tenor, rate. */
function rates(rate: number[]) {
  return new TableBuilder(rate.length, "rates").add("tenor", ["1Y", "2Y"]).add("rate", rate).build();
}

/** Writes the two runs and diffs them (in process, and with the CLI when `cli`). */
async function diffRuns(before: number[], after: number[], options: { digits?: number; tolerance?: string } = {}) {
  const files = [path.join(dir, "before.ipynb"), path.join(dir, "after.ipynb")] as const;
  writeTableNotebook(files[0], rates(before), { digits: options.digits });
  writeTableNotebook(files[1], rates(after), { digits: options.digits });
  const tolerance = options.tolerance === undefined ? {} : { tolerance: Number(options.tolerance) };
  const d = await diffNotebookFiles(...files, tolerance);
  const cli = await runCli(
    ["diff", ...files, ...(options.tolerance ? ["--tolerance", options.tolerance] : [])],
    60_000,
  );
  return { d, cli };
}

describe("table previews keep the exact value of a rounded cell", () => {
  it("a cell rounded for display carries its exact value; a cell shown exactly does not", () => {
    const html = tableHtml(rates([0.2 + 0.1, 0.25]), {});
    expect(html).toContain('<td data-x="0.30000000000000004">0.3</td>');
    expect(html).toContain("<td>0.25</td>");
    expect(tableHtml(rates([0.2487, 0.25]), { digits: 2 })).toContain('<td data-x="0.2487">0.25</td><');
    expect(shownRows(parseTableHtml(html)!).data.rate).toEqual([0.2 + 0.1, 0.25]);
  });

  it("diff sees a change past the 10th significant digit (--tolerance 0, exit 1)", async () => {
    const { d, cli } = await diffRuns([1.00000000001, 2], [1.00000000002, 2], { tolerance: "0" });
    expect(d.changed).toBe(true);
    const change = d.cells[0]!.tables[0]! as {
      rows: { rows: { changes: { column: string; before: unknown; after: unknown }[] }[] };
    };
    expect(change.rows.rows[0]!.changes).toEqual([
      expect.objectContaining({ column: "rate", before: 1.00000000001, after: 1.00000000002 }),
    ]);
    expect(cli.code, cli.stderr).toBe(1);
  });

  it("diff sees a change the digits option hides (0.2487 and 0.2512 both show 0.25; exit 1)", async () => {
    const { d, cli } = await diffRuns([0.2487, 3], [0.2512, 3], { digits: 2 });
    expect(d.changed).toBe(true);
    expect(cli.code, cli.stderr).toBe(1);
    expect(cli.stdout).toMatch(/1 of 1 code cell changed \(1 table\)/);
  });

  it("and still no change when the exact values are the same (exit 0)", async () => {
    const { d, cli } = await diffRuns([0.2487, 3], [0.2487, 3], { digits: 2 });
    expect(d.changed).toBe(false);
    expect(cli.code, cli.stderr).toBe(0);
  });
});
