/**
 * Excel under Deno (the runtime of Deno's Jupyter kernel): a real `deno run` of a module beside the
 * notebooks, importing "risk-portal-lab" by name as a cell does, reads openpyxl's workbook and writes and
 * reads one of its own, with the kinds, sheet names and text Node gets. Under Deno exceljs's stream reader
 * first read no workbook part but the sheets, without an error: every sheet was "Sheet1", dates came
 * back as numbers and shared strings as `{ sharedString: 0 }` (src/uploads/xlsx.ts, fixReader).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { MAC_1904_DAY, writeMac1904Workbook } from "./mac-1904";
import { MARKS_KINDS } from "./openpyxl-reference";

const run = promisify(execFile);
const root = path.resolve(__dirname, "../..");
const deno = path.join(root, "node_modules", ".bin", "deno");
const script = path.join(root, "notebooks", `.deno-excel-check-${process.pid}.ts`);
const dir = mkdtempSync(path.join(tmpdir(), "rpl-excel-deno-"));
afterAll(() => {
  rmSync(script, { force: true });
  rmSync(dir, { recursive: true, force: true });
});

// Read ten times over: the stream reader's failures under Deno came and went from one read to the next.
const SCRIPT = (reference: string, out: string, mac: string) => `
import { frames } from "risk-portal-lab";
const mac = await frames.readExcelColumns(${JSON.stringify(mac)});
const marks = await frames.readExcelColumns(${JSON.stringify(reference)}, { sheet: "Marks" });
await frames.toExcel({ Again: marks }, ${JSON.stringify(out)});
const reads = [];
for (let i = 0; i < 10; i++) {
  const again = await frames.readExcelColumns(${JSON.stringify(out)}, { sheet: "Again" });
  reads.push(JSON.stringify({ again: again.kinds, codes: again.data.code, first: (again.data.date[0] as Date).toISOString() }));
}
const reads1904 = [...mac.data.day, ...mac.data.formula].map((d) => (d as Date).toISOString());
console.log(JSON.stringify({ marks: marks.kinds, reads: [...new Set(reads)].map((r) => JSON.parse(r)), reads1904 }));
`;

describe("Excel under Deno", () => {
  it("reads and writes workbooks as under Node: sheet names, date cells, shared strings, 1904 dates", async () => {
    const reference = path.join(__dirname, "fixtures", "openpyxl-reference.xlsx");
    const mac = path.join(dir, "mac-1904.xlsx");
    await writeMac1904Workbook(mac);
    writeFileSync(script, SCRIPT(reference, path.join(dir, "again.xlsx"), mac));
    const { stdout } = await run(deno, ["run", "--allow-all", "--quiet", script], {
      cwd: path.dirname(script),
      encoding: "utf8",
      timeout: 120_000,
      env: { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
    });
    const report = JSON.parse(stdout.trim().split("\n").at(-1)!) as Record<string, unknown>;
    const kinds = MARKS_KINDS;
    expect(report).toEqual({
      marks: kinds,
      reads: [{ again: kinds, codes: ["XS1", "0012", "US9 Ü"], first: "2026-11-20T00:00:00.000Z" }],
      reads1904: [MAC_1904_DAY.toISOString(), MAC_1904_DAY.toISOString()],
    });
  }, 150_000);
});
