/**
 * What tslab loads for `import … from "risk-portal-lab"` (issue 42, item 4): tslab type-checks every cell
 * against the declarations the import reaches, so each declaration file the root's types pull in costs
 * every notebook's first cell. apache-arrow's and DuckDB's types (284 files, a third of the cell's check
 * time) were cut out of the root: a notebook reads the root's declared ArrowTable, and loadArrow lives in
 * `risk-portal-lab/frames` only; exceljs's (issue 48) likewise, loadExcelJS in a module of its own. Nothing
 * in a cell's check fails when they come back, only slower, so this test pins it: the program TypeScript
 * builds over dist/index.d.ts (resolving as tslab does: Node10) holds no file of those packages. Nor of
 * playwright-core (52,000 lines of types, more than the package's and zod's together; an optional
 * dependency, loaded by toPng on first use), which launchChromium's return type brought into
 * dist/plot/to-png.d.ts until it moved to a module of its own. The same holds for every entry of
 * package.json's exports, but `risk-portal-lab/frames`, whose loadArrow hands out apache-arrow's module.
 *
 * dist/ is built by test/global-setup.ts. RPL_DECL_DIST points the walk at another build's dist/ (an
 * installed one resolves from its own folder's node_modules), e.g. the build before the cut, where it
 * fails naming the chain that reached apache-arrow.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(__dirname, "../..");
const DIST = process.env.RPL_DECL_DIST ?? path.join(ROOT, "dist");
/** Packages whose declarations the root must not reach (what a notebook's first cell need not check). */
const KEPT_OUT = [
  "apache-arrow",
  "flatbuffers",
  "@duckdb/node-api",
  "@duckdb/node-bindings",
  "exceljs",
  "playwright-core",
];
/** What an entry of package.json's exports may reach of {@link KEPT_OUT} (by the entry's key). */
const HANDED_OUT: Record<string, string[]> = { "./frames": ["apache-arrow", "flatbuffers"] };
const EXPORTS = (
  JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
    exports: Record<string, { types?: string } | string>;
  }
).exports;

const OPTIONS: ts.CompilerOptions = {
  moduleResolution: ts.ModuleResolutionKind.Node10,
  module: ts.ModuleKind.ESNext,
  target: ts.ScriptTarget.ES2022,
};

/** The package a file belongs to (`@scope/name` or `name`), or null for the build's own files. */
function packageOf(file: string): string | null {
  const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*\/node_modules\/)/.exec(file.split(path.sep).join("/"));
  return m?.[1] !== undefined && !file.startsWith(DIST) ? m[1] : null;
}

/** The module names a declaration file imports: import/export … from, and `import("…")` types. */
function specifiers(file: ts.SourceFile): string[] {
  const names: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier)
      names.push((node.moduleSpecifier as ts.StringLiteral).text);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument))
      names.push((node.argument.literal as ts.StringLiteral).text);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return names;
}

/**
 * Each file of the program tslab would build over the entry (its options that matter here: Node10
 * resolution, no `types`), with the file that first imported it (breadth first, for the message).
 * `previous`: the program of another entry, whose files TypeScript reuses instead of parsing them again.
 */
function declarationGraph(
  entry: string,
  previous?: ts.Program,
): { graph: Map<string, string | null>; program: ts.Program } {
  const options = { ...OPTIONS, types: [], noLib: true, noEmit: true };
  const host = ts.createCompilerHost(options);
  const program = ts.createProgram([entry], options, host, previous);
  const parent = new Map<string, string | null>([[entry, null]]);
  const queue = [entry];
  while (queue.length > 0) {
    const file = program.getSourceFile(queue.shift()!)!;
    for (const name of specifiers(file)) {
      const to = ts.resolveModuleName(name, file.fileName, OPTIONS, host).resolvedModule?.resolvedFileName;
      if (!to || parent.has(to) || !program.getSourceFile(to)) continue;
      parent.set(to, file.fileName);
      queue.push(to);
    }
  }
  // Files reached otherwise (`/// <reference>`s): in the program all the same, so listed too.
  for (const file of program.getSourceFiles()) if (!parent.has(file.fileName)) parent.set(file.fileName, entry);
  return { graph: parent, program };
}

/** `dist/index.d.ts -> … -> node_modules/apache-arrow/Arrow.d.ts`, paths short. */
function chain(graph: Map<string, string | null>, file: string): string {
  const steps: string[] = [];
  for (let at: string | null | undefined = file; at; at = graph.get(at))
    steps.unshift(at.startsWith(DIST) ? path.relative(path.dirname(DIST), at) : at.replace(/.*node_modules\//, ""));
  return steps.join(" -> ");
}

describe("the declarations tslab checks a notebook's cells against", () => {
  const entries = Object.entries(EXPORTS).flatMap(([key, value]) =>
    typeof value === "object" && value.types
      ? [[key, path.join(DIST, path.relative("dist", value.types))] as const]
      : [],
  );
  let previous: ts.Program | undefined;

  it.each(entries)("%s reaches no declaration of apache-arrow, DuckDB, exceljs or playwright-core", (key, file) => {
    const { graph, program } = declarationGraph(file, previous);
    previous = program;
    const packages = new Set([...graph.keys()].map(packageOf));
    // The walk does follow imports into dependencies (a walk that stopped at the build would pass anything).
    if (key === ".") expect(packages.has("zod")).toBe(true);
    const kept = KEPT_OUT.filter((p) => !(HANDED_OUT[key] ?? []).includes(p));
    const reached = [...graph.keys()].filter((f) => kept.includes(packageOf(f) ?? ""));
    const firstPerPackage = kept.map((p) => reached.find((f) => packageOf(f) === p)).filter((f) => f);
    expect(firstPerPackage.map((f) => chain(graph, f!))).toEqual([]);
  });
});
