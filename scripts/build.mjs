/**
 * `npm run build`: vendor/danfo (scripts/vendor-danfo.mjs, skipped when up to date), tsc into dist/, the
 * entry bundle over dist/index.js (scripts/bundle-index.mjs), dist/cli.js made executable.
 *
 * `--if-stale` (what `npm run demo` and `npm run sim` use) does nothing when dist/ is newer than every
 * file it is built from. The package has no install-time script (a consumer's npm would list a `prepare`
 * among the install scripts to approve), so a fresh checkout builds on first use instead: `npm pack`
 * builds through `prepack`, the tests through test/global-setup.ts. A build writes the stamp
 * (scripts/dist-stamp.mjs) that tells test/global-setup.ts that dist/ is current.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { distInputs, writeDistStamp } from "./dist-stamp.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(path.join(root, "package.json"));

/** The newest modification time among `paths` (files, or directories searched recursively). */
function newest(paths) {
  let t = 0;
  for (const p of paths) {
    if (!existsSync(p)) continue;
    const s = statSync(p);
    if (!s.isDirectory()) t = Math.max(t, s.mtimeMs);
    else
      for (const e of readdirSync(p, { recursive: true, withFileTypes: true }))
        if (e.isFile()) t = Math.max(t, statSync(path.join(e.parentPath, e.name)).mtimeMs);
  }
  return t;
}

/** Whether dist/ (or vendor/danfo, which keeps its own stamp) is missing or older than an input. */
function stale() {
  if (!existsSync(path.join(root, "vendor", "danfo", "index.js"))) return true;
  const outputs = ["dist/index.js", "dist/cli.js"].map((f) => path.join(root, f));
  if (!outputs.every((f) => existsSync(f))) return true;
  const inputs = [
    "src",
    "tsconfig.json",
    "tsconfig.build.json",
    "package.json",
    "scripts/build.mjs",
    "scripts/bundle-index.mjs",
    "scripts/entry-shim.cjs",
    "scripts/vendor-danfo.mjs",
  ];
  return newest(inputs.map((f) => path.join(root, f))) > Math.min(...outputs.map((f) => statSync(f).mtimeMs));
}

if (process.argv.includes("--if-stale") && !stale()) process.exit(0);
const node = (...args) => execFileSync(process.execPath, args, { cwd: root, stdio: "inherit" });
node(path.join(root, "scripts", "vendor-danfo.mjs"));
// Hashed before tsc runs (an edit made meanwhile counts as a change): the stamp lets `npm test` skip its build.
const inputs = distInputs(root);
node(require.resolve("typescript/bin/tsc"), "-p", "tsconfig.build.json");
node(path.join(root, "scripts", "bundle-index.mjs"));
chmodSync(path.join(root, "dist", "cli.js"), 0o755);
writeDistStamp(root, inputs);
