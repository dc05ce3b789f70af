/**
 * What a notebook's type-check reads: tslab checks every cell against the declarations that
 * `import … from "risk-portal-lab"` reaches (dist/*.d.ts and every package they name), parsing and binding
 * all of them when a notebook starts, and again part of that work on each cell. A dependency whose types a
 * public declaration names, even one the code loads only on first use, is parsed by every notebook. So the
 * declaration graph from each entry in package.json's "exports" may name only the packages below.
 * dist/ is built by test/global-setup.ts.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(__dirname, "../..");
const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as {
  exports: Record<string, { types?: string } | string>;
};

/**
 * Packages the public declarations may name: zod (the API's schemas) and Node's own modules. Not
 * playwright-core (an optional dependency, loaded by `toPng` on first use): its types are 52,000 lines,
 * more than this package's and zod's together.
 */
const ALLOWED = [/^zod(\/|$)/, /^node:/, /^(fs|stream|events|http|https|url|buffer|child_process|net)$/];

/**
 * What danfo's own declarations (vendor/danfo, as danfo ships them) name: its optional dependencies, which the
 * package does not install, so a notebook's folder has none of them unless the quant added it.
 */
const DANFO_NAMES = [
  "danfojs",
  "danfojs-node",
  "node-fetch",
  "papaparse",
  "plotly.js-dist-min",
  "request",
  "table",
  "xlsx",
];

/** Entries that hand out a dependency's own module, typed: `risk-portal-lab/frames`' `loadArrow`. */
const HANDED_OUT: Record<string, string[]> = { "./frames": ["apache-arrow"] };

const SPECIFIER = /(?:from\s+|import\(\s*|require\(\s*)["']([^"']+)["']/g;

/** Declarations without their doc comments (whose examples import the package by name). */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
}

/** The .d.ts a relative specifier in `from` names. */
function resolveRelative(from: string, spec: string): string | undefined {
  const base = path.resolve(path.dirname(from), spec.replace(/\.(c|m)?js$/, ""));
  for (const candidate of [`${base}.d.ts`, path.join(base, "index.d.ts")]) if (existsSync(candidate)) return candidate;
  return undefined;
}

/** Every declaration file reachable from `entry`, and the bare specifiers they name (with who names them). */
function declarationGraph(entry: string): { files: Set<string>; bare: Map<string, string> } {
  const files = new Set<string>();
  const bare = new Map<string, string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    for (const [, spec] of withoutComments(readFileSync(file, "utf8")).matchAll(SPECIFIER)) {
      if (spec!.startsWith(".")) {
        const next = resolveRelative(file, spec!);
        if (next === undefined) throw new Error(`${path.relative(root, file)}: ${spec} names no declaration file`);
        queue.push(next);
      } else if (!bare.has(spec!)) bare.set(spec!, path.relative(root, file));
    }
  }
  return { files, bare };
}

describe("the declarations a notebook's type-check reads", () => {
  const entries = Object.entries(pkg.exports).flatMap(([key, value]) =>
    typeof value === "object" && value.types ? [[key, path.join(root, value.types)] as const] : [],
  );

  it("exist for every entry of package.json's exports", () => {
    expect(entries.map(([key]) => key)).toContain(".");
    for (const [key, file] of entries) expect(existsSync(file), `${key}: ${file}`).toBe(true);
  });

  it.each(entries)("%s names no package but zod, Node's own and danfo's", (key, file) => {
    const { bare } = declarationGraph(file);
    const named = [...bare].filter(
      ([spec, by]) =>
        !ALLOWED.some((re) => re.test(spec)) &&
        !(by.startsWith("vendor/danfo/") && DANFO_NAMES.includes(spec)) &&
        !(HANDED_OUT[key] ?? []).includes(spec),
    );
    expect(named.map(([spec, by]) => `${spec} (named by ${by})`)).toEqual([]);
  });
});
