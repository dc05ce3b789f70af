/**
 * The notebooks of a batch share tslab's converters (its TypeScript program, built once per folder):
 * what one notebook declared must not reach the next. Two notebooks in one folder declare the same
 * names with different types, and a third reads a name only the first declared: each runs as if alone.
 * Real runs under tslab's executor, one after the other in this process (cells write to process.stdout:
 * vitest takes console.log for itself).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runNotebooks } from "../../src/notebook/batch";

const dir = mkdtempSync(path.join(tmpdir(), "rpl-converters-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function notebook(name: string, cells: string[]): string {
  const file = path.join(dir, `${name}.ipynb`);
  const nb = {
    cells: cells.map((source, i) => ({
      cell_type: "code",
      id: `c${i}`,
      metadata: {},
      execution_count: null,
      outputs: [],
      source,
    })),
    metadata: { kernelspec: { name: "tslab", display_name: "TypeScript", language: "typescript" } },
    nbformat: 4,
    nbformat_minor: 5,
  };
  writeFileSync(file, JSON.stringify(nb));
  return file;
}

describe("a batch's notebooks share converters, not declarations", () => {
  it(
    "runs notebooks that declare the same names with other types, and one that uses an undeclared name fails",
    {
      timeout: 60_000,
    },
    async () => {
      const files = [
        notebook("a", [
          "const x: number = 41;\nfunction f(n: number) { return n + 1; }",
          "process.stdout.write(`a ${f(x)}\\n`);",
        ]),
        notebook("b", [
          'const x: string = "forty-two";\nconst f = (s: string) => s.length;',
          "process.stdout.write(`b ${f(x)}\\n`);",
        ]),
        notebook("c", ["process.stdout.write(typeof f);", "process.stdout.write(String(x));"]),
      ];
      const outDir = path.join(dir, "out");
      const errors: string[] = [];
      const summary = await runNotebooks(files, { outDir, jobs: 1, logError: (l) => errors.push(l) });
      expect(summary.results.map((r) => r.ok)).toEqual([true, true, false]);
      expect(readFileSync(path.join(outDir, "a.ipynb"), "utf8")).toContain("a 42");
      expect(readFileSync(path.join(outDir, "b.ipynb"), "utf8")).toContain("b 9");
      // c never declared f or x: the type-check of its first cell says so, as it would alone.
      expect(errors.join("\n")).toMatch(/Cannot find name 'f'/);
    },
  );
});
