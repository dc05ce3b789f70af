/**
 * Which public functions of the package have no `@example` in their doc comment, read from TypeDoc's JSON
 * of the package's entry points (`npm run docs` writes it to docs/api/api.json).
 *
 * Public functions: the functions and function-valued constants of the root and its subpaths (the
 * namespaces `frames`, `plot`, `vol`, `curves` included), the public methods of exported classes, and the
 * client's group methods (`rp.rateAsset.getCurve`, …). A function reached by several names (the root's
 * `frames.yieldCurve` and `risk-portal-lab/frames`' `yieldCurve`) is counted once, by the first name.
 *
 *   node scripts/api-examples.mjs [docs/api/api.json]          check against the allowlist (CI)
 *   node scripts/api-examples.mjs [json] --list                print the ones without an example
 *   node scripts/api-examples.mjs [json] --write-allowlist     write the allowlist from what is missing now
 *
 * The allowlist (scripts/api-examples-allowlist.txt) names the functions still without an example: a
 * function missing from it fails the check, and so does a name in it that now has an example or no longer
 * exists, so the list can only get shorter.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..");
const ALLOWLIST = path.join(ROOT, "scripts", "api-examples-allowlist.txt");
const args = process.argv.slice(2);
const jsonFile = args.find((a) => !a.startsWith("--")) ?? path.join(ROOT, "docs", "api", "api.json");

// TypeDoc's ReflectionKind values.
const KIND = { Module: 2, Namespace: 4, Variable: 32, Function: 64, Class: 128, Property: 1024, Method: 2048 };
const ENTRY_NAME = { index: "risk-portal-lab", "subpath/api": "risk-portal-lab/api" };
const entryName = (mod) => ENTRY_NAME[mod] ?? `risk-portal-lab/${mod.replace(/^subpath\//, "")}`;

const hasExample = (comment) => (comment?.blockTags ?? []).some((t) => t.tag === "@example");
const signaturesOf = (r) => r.signatures ?? r.type?.declaration?.signatures ?? [];
const where = (r) => (r.sources?.[0] ? `${r.sources[0].fileName}:${r.sources[0].line}` : `#${r.id}`);

/** Every public function as { name, key, example }, in entry-point order. */
export function publicFunctions(project) {
  const found = [];
  const add = (name, r, sigs) =>
    found.push({
      name,
      key: sigs[0]?.sources ? where(sigs[0]) : where(r),
      example: hasExample(r.comment) || sigs.some((s) => hasExample(s.comment)),
    });
  const walk = (r, prefix) => {
    for (const c of r.children ?? []) {
      const name = prefix ? `${prefix}.${c.name}` : c.name;
      if (c.kind === KIND.Namespace || c.kind === KIND.Module) walk(c, name);
      else if (c.kind === KIND.Function) add(name, c, c.signatures ?? []);
      else if (c.kind === KIND.Variable && signaturesOf(c).length > 0) add(name, c, signaturesOf(c));
      else if (c.kind === KIND.Class) {
        for (const m of c.children ?? []) {
          if (m.kind !== KIND.Method || m.flags?.isInherited || m.flags?.isPrivate || m.flags?.isProtected) continue;
          if (m.name.startsWith("[")) continue; // [util.inspect.custom] and the like: called by Node, not by you
          add(`${name}.${m.name}`, m, m.signatures ?? []);
        }
        if (c.name === "RiskPortalClient") {
          for (const group of c.children ?? []) {
            const calls = group.kind === KIND.Property ? (group.type?.declaration?.children ?? []) : [];
            for (const call of calls) if (call.kind === KIND.Property) add(`rp.${group.name}.${call.name}`, call, []);
          }
        }
      }
    }
  };
  for (const mod of project.children ?? []) walk(mod, entryName(mod.name));
  const seen = new Set();
  return found.filter((f) => !seen.has(f.key) && seen.add(f.key));
}

function main() {
  const functions = publicFunctions(JSON.parse(readFileSync(jsonFile, "utf8")));
  const missing = functions.filter((f) => !f.example).map((f) => f.name);
  if (args.includes("--list")) {
    console.log(missing.join("\n"));
    console.log(`${missing.length} of ${functions.length} public functions have no @example`);
    return;
  }
  if (args.includes("--write-allowlist")) {
    const head =
      "# Public functions without an @example yet (scripts/api-examples.mjs): this list only gets shorter.\n";
    writeFileSync(ALLOWLIST, head + missing.map((n) => `${n}\n`).join(""));
    console.log(`${missing.length} names written to ${path.relative(ROOT, ALLOWLIST)}`);
    return;
  }
  const allowed = readFileSync(ALLOWLIST, "utf8")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));
  const names = new Set(functions.map((f) => f.name));
  const undocumented = missing.filter((n) => !allowed.includes(n));
  const stale = allowed.filter((n) => !missing.includes(n));
  for (const n of undocumented)
    console.error(`${n}: no @example in its doc comment (add one; the allowlist only shrinks)`);
  for (const n of stale)
    console.error(
      `${n}: listed in scripts/api-examples-allowlist.txt but ${names.has(n) ? "has an @example now" : "is not a public function"}: remove it from the list`,
    );
  console.log(
    `api examples: ${functions.length - missing.length} of ${functions.length} public functions have an @example, ${missing.length - undocumented.length} allowlisted`,
  );
  if (undocumented.length > 0 || stale.length > 0) process.exit(1);
}

if (import.meta.url === `file://${process.argv[1]}`) main();
