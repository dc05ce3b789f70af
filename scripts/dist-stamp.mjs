/**
 * The stamp that says dist/ is the build of the current src/: a hash of the build's inputs (src/, the
 * tsconfigs, the bundling scripts, the TypeScript version) and a hash of what the build wrote to dist/, in
 * node_modules/.cache/risk-portal-lab/dist-stamp.json. `npm run build` (scripts/build.mjs) writes it after
 * a build; test/global-setup.ts builds only when it no longer matches, so `npm test` after `npm run build`
 * (as .ci/run does it, and `npm run demo` for a newcomer) does not run tsc a second time.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";

/** Relative paths of the files under `dir` (recursively), sorted; none when `dir` does not exist. */
function listFiles(dir) {
  if (!existsSync(dir)) return [];
  const entries = readdirSync(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}

/** One hash over the names and contents of `files` (absolute paths; a missing file counts as such). */
function hashFiles(root, files, extra = "") {
  const hash = createHash("sha256").update(extra);
  for (const file of files) {
    hash.update(`\0${path.relative(root, file)}\0`);
    hash.update(existsSync(file) ? readFileSync(file) : "<missing>");
  }
  return hash.digest("hex");
}

const stampFile = (root) => path.join(root, "node_modules", ".cache", "risk-portal-lab", "dist-stamp.json");

/** The hash of the build's inputs now: taken before a build, so an edit made while tsc runs counts as a change. */
export function distInputs(root) {
  const tscPackage = path.join(root, "node_modules", "typescript", "package.json");
  const tsVersion = JSON.parse(readFileSync(tscPackage, "utf8")).version;
  const srcDir = path.join(root, "src");
  const inputFiles = [
    ...listFiles(srcDir).map((f) => path.join(srcDir, f)),
    path.join(root, "tsconfig.json"),
    path.join(root, "tsconfig.build.json"),
    // What turns tsc's output into the package's entry and bundle.
    path.join(root, "scripts", "bundle-index.mjs"),
    path.join(root, "scripts", "entry-shim.cjs"),
  ];
  return hashFiles(root, inputFiles, `typescript@${tsVersion}`);
}

const distOutputs = (root) => {
  const distDir = path.join(root, "dist");
  return hashFiles(
    root,
    listFiles(distDir).map((f) => path.join(distDir, f)),
  );
};

/** Whether dist/ is exactly what a build of the inputs hashed as `inputs` wrote (and has not been touched since). */
export function distMatches(root, inputs) {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(stampFile(root), "utf8"));
  } catch {
    return false;
  }
  return (
    stamp?.inputs === inputs && existsSync(path.join(root, "dist", "index.js")) && stamp.outputs === distOutputs(root)
  );
}

/** Records that dist/ as it is now is the build of the inputs hashed as `inputs`. */
export function writeDistStamp(root, inputs) {
  const file = stampFile(root);
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify({ inputs, outputs: distOutputs(root) }));
  renameSync(tmp, file);
}
