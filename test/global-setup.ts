/**
 * Vitest global setup: makes sure `dist/` is the build of the current `src/` before any test runs, so the
 * package-level tests (test/package, test/notebook: `require("risk-portal-lab")` resolves to dist/)
 * never run against a stale build.
 *
 * A full `tsc -p tsconfig.build.json` takes several seconds, so it is skipped when nothing changed: a
 * stamp in node_modules/.cache holds a hash of the build's inputs (src/, the tsconfigs, the TypeScript
 * version) and a hash of what the build wrote to dist/. When both still match, dist/ is exactly what a
 * build would produce; any edit of src/ or dist/ (or a deleted dist/) triggers a rebuild. Prints nothing
 * on success; type errors are printed as a warning (tsc still emits), a build that emits nothing fails.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { distInputs, distMatches, writeDistStamp } from "../scripts/dist-stamp.mjs";

/** The package's entry as `npm run build` makes it: one bundle (scripts/bundle-index.mjs) over tsc's. */
function bundleEntry(root: string): void {
  execFileSync(process.execPath, [path.join(root, "scripts", "bundle-index.mjs")], { cwd: root, stdio: "pipe" });
}

export default function setup(project: TestProject): void {
  const root = project.config.root;
  // danfo as the package ships it (vendor/danfo, built by `npm run build`): made once when missing.
  if (!existsSync(path.join(root, "vendor", "danfo", "index.js")))
    execFileSync(process.execPath, [path.join(root, "scripts", "vendor-danfo.mjs")], { cwd: root, stdio: "pipe" });
  const distDir = path.join(root, "dist");
  // Hashed before building, so an edit made while tsc runs is seen as a change next time.
  const inputs = distInputs(root);
  if (distMatches(root, inputs)) return;

  try {
    execFileSync(
      process.execPath,
      [path.join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.build.json"],
      {
        cwd: root,
        stdio: "pipe",
        encoding: "utf8",
      },
    );
  } catch (error) {
    // tsc still emits on type errors; a half-written file elsewhere in src/ should not block every test.
    // `npm run build` and `npm run typecheck` (both in .ci/run) are where type errors fail the run.
    const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
    if (!existsSync(path.join(distDir, "index.js")))
      throw new Error(`test/global-setup: \`tsc -p tsconfig.build.json\` produced no dist/:\n${stdout}${stderr}`);
    process.stderr.write(`test/global-setup: tsc reported errors (dist/ was emitted anyway):\n${stdout}${stderr}\n`);
    bundleEntry(root);
    return;
  }
  bundleEntry(root);
  writeDistStamp(root, inputs);
}
