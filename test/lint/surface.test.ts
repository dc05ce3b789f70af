/**
 * A public surface a notebook user can hold in their head (issue 31, item 5): at most 160 runtime names
 * at the package root, counted in the built bundle as a user gets it — each root export is one name,
 * except a plain-object namespace (`frames`, `vol`, `plot`, `curves`, `STRIKE_TYPE`), which counts as
 * its keys. What tools need besides is behind the subpaths of package.json's "exports", each reachable
 * by name (`risk-portal-lab/api`, …) and made of the root's own code (one bundle, so `instanceof` holds).
 *
 * dist/ is built by test/global-setup.ts. RPL_SURFACE_DIST points the count at another build's dist/
 * (how the limit was seen to fail on the build before the subpaths: 396 names).
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(__dirname, "../..");
const DIST = process.env.RPL_SURFACE_DIST ?? path.join(ROOT, "dist");
// 150 until issue 45, whose interface names seven more on the root's namespaces for notebooks: curves.calendar,
// calendarFor and dayCountFraction, vol.bachelier, bachelierStrikes, impliedVol and impliedVols (157). Where the
// root's surface goes in the long run (a higher documented cap, or frames split) is issue 47's decision.
// 160 with issue 48's Excel verbs on frames: readExcel, readExcelColumns, toExcel (their ExcelError is in
// risk-portal-lab/frames only; a cell catches it as RiskPortalError, as every error of the package).
// 161 with issue 48's frames.followReports (its ReportFollowTimeout likewise in risk-portal-lab/frames only).
const MAX_RUNTIME_NAMES = 161;
/** The root namespaces whose subpath holds their whole folder. */
const FOLDERS = ["frames", "vol", "plot", "curves"] as const;
const SUBPATHS = ["api", "internals", ...FOLDERS];

type Exports = Record<string, unknown>;

function isNamespace(value: unknown): value is Exports {
  if (!value || typeof value !== "object" || Array.isArray(value)) return false;
  return (
    Object.getPrototypeOf(value) === Object.prototype ||
    (value as Record<symbol, unknown>)[Symbol.toStringTag] === "Module"
  );
}

/** Every runtime name of the root: `name`, or `namespace.key` for a plain-object namespace's keys. */
function runtimeNames(root: Exports): string[] {
  return Object.entries(root).flatMap(([name, value]) =>
    isNamespace(value) ? Object.keys(value).map((key) => `${name}.${key}`) : [name],
  );
}

/** `require` as a user's CommonJS code has it, from the checkout (node_modules/risk-portal-lab links it). */
const load = (file: string): Exports => createRequire(path.join(ROOT, "package.json"))(file) as Exports;

/** "frames 47, vol 20, …, (root) 37". */
function perNamespace(names: string[]): string {
  const counts = new Map<string, number>();
  for (const n of names) {
    const ns = n.includes(".") ? n.slice(0, n.indexOf(".")) : "(root)";
    counts.set(ns, (counts.get(ns) ?? 0) + 1);
  }
  return [...counts].map(([ns, count]) => `${ns} ${count}`).join(", ");
}

describe("the package's public surface", () => {
  it(`has at most ${MAX_RUNTIME_NAMES} runtime names at the root (namespaces counted by their keys)`, () => {
    const names = runtimeNames(load(path.join(DIST, "index.js")));
    const byNamespace = perNamespace(names);
    console.log(`runtime names at the root: ${names.length} (${byNamespace})`);
    expect(
      names.length,
      `${names.length} runtime names at the root (${byNamespace}); the limit is ${MAX_RUNTIME_NAMES}:\n${names.join(" ")}`,
    ).toBeLessThanOrEqual(MAX_RUNTIME_NAMES);
  });

  it("each root namespace is part of its subpath, value for value (the subpath holds the whole folder)", () => {
    const root = load(path.join(DIST, "index.js"));
    for (const folder of FOLDERS) {
      const namespace = root[folder] as Exports;
      const whole = load(path.join(DIST, "subpath", `${folder}.js`));
      const missing = Object.keys(namespace).filter((key) => whole[key] !== namespace[key]);
      expect(missing, `root ${folder}.* not the same in risk-portal-lab/${folder}`).toEqual([]);
      expect(Object.keys(whole).length).toBeGreaterThan(Object.keys(namespace).length);
    }
  });

  it("every subpath resolves by the package's name, to the bundle's own code, with its types", () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
      exports: Record<string, string | { types: string; default: string }>;
      typesVersions: Record<string, Record<string, string[]>>;
      files: string[];
    };
    expect(Object.keys(pkg.exports).sort()).toEqual(
      [".", "./package.json", ...SUBPATHS.map((name) => `./${name}`)].sort(),
    );
    const root = load("risk-portal-lab");
    for (const name of SUBPATHS) {
      const entry = pkg.exports[`./${name}`] as { types: string; default: string };
      // tslab type-checks with classic "node" resolution, which reads typesVersions, not exports.
      expect(pkg.typesVersions["*"]![name]).toEqual([entry.types.replace(/^\.\//, "")]);
      expect(existsSync(path.join(ROOT, entry.types)), entry.types).toBe(true);
      expect(readFileSync(path.join(ROOT, entry.default), "utf8")).toMatch(/require\("\.\.\/index\.js"\)/);
      const subpath = load(`risk-portal-lab/${name}`);
      expect(Object.keys(subpath).length, name).toBeGreaterThan(0);
    }
    // One copy of the code: an error class from a subpath is the root's.
    expect(load("risk-portal-lab/frames").CsvError).toBe((root.frames as Exports).CsvError);
    expect(load("risk-portal-lab/internals").errorFromResponse).toBeTypeOf("function");
    expect(load("risk-portal-lab/api").STRIKE_TYPE).toBe(root.STRIKE_TYPE);
  });
});
