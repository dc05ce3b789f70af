/**
 * A public surface a notebook user can hold in their head, counted in the built bundle as a user gets it:
 * - the root's names (functions, classes, constants, and each namespace as one name) at most {@link MAX_ROOT_NAMES};
 * - each plain-object namespace (`frames`, `vol`, `plot`, `curves`, `STRIKE_TYPE`) at most
 *   {@link MAX_NAMESPACE_KEYS} keys.
 * What tools need besides is behind the subpaths of package.json's "exports", each reachable by name
 * (`risk-portal-lab/api`, …) and made of the root's own code (one bundle, so `instanceof` holds).
 *
 * Why two caps and not one total (issue 47's decision; the total was capped at 150, then 160): a notebook
 * user meets the surface one level at a time, through tab completion: `import { … }` and `rp.` show the
 * root's names, `frames.` shows one namespace's keys. A total cap charged every adapter added to `frames`
 * against the root, and the way under it was moving verbs users call into subpaths, where completion does
 * not find them. The caps now bound what one completion list shows. A namespace that reaches its cap is
 * split by what its users think in (for `frames`: responses → tables, SQL & files, the service in
 * batches), not moved out of sight.
 *
 * dist/ is built by test/global-setup.ts. RPL_SURFACE_DIST points the count at another build's dist/
 * (the build before the subpaths had 396 names at the root).
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(__dirname, "../..");
const DIST = process.env.RPL_SURFACE_DIST ?? path.join(ROOT, "dist");
/** The root's names, each namespace one: 40 with issue 47 (22 of them error classes, 5 namespaces). */
const MAX_ROOT_NAMES = 45;
/** Keys of one root namespace: `frames` has the most, 73 with issue 46's plainColumns. */
const MAX_NAMESPACE_KEYS = 80;
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

/** The count of each namespace's keys, and of the root's own names under "(root)". */
function perNamespace(names: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const n of names) {
    const ns = n.includes(".") ? n.slice(0, n.indexOf(".")) : "(root)";
    counts.set(ns, (counts.get(ns) ?? 0) + 1);
  }
  return counts;
}

describe("the package's public surface", () => {
  it(`has at most ${MAX_ROOT_NAMES} names at the root and ${MAX_NAMESPACE_KEYS} keys in each namespace`, () => {
    const names = runtimeNames(load(path.join(DIST, "index.js")));
    const counts = perNamespace(names);
    const spelled = [...counts].map(([ns, count]) => `${ns} ${count}`).join(", ");
    console.log(`runtime names: ${names.length} (${spelled})`);
    const root = load(path.join(DIST, "index.js"));
    const rootNames = Object.keys(root);
    expect(rootNames.length, `${rootNames.length} names at the root: ${rootNames.join(" ")}`).toBeLessThanOrEqual(
      MAX_ROOT_NAMES,
    );
    const over = [...counts].filter(([ns, count]) => ns !== "(root)" && count > MAX_NAMESPACE_KEYS);
    expect(over, `namespaces over ${MAX_NAMESPACE_KEYS} keys: split by what their users think in`).toEqual([]);
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
