/**
 * A baseline build of the package from a git revision, for benchmarks that compare the working tree with an
 * earlier state in one run (bench/throughput.mjs's `BENCH_BASELINE`).
 *
 * `node bench/baseline.mjs [REV] [DIR]` (default `HEAD`, `/tmp/rpl-baseline-<rev>`): `git archive` of REV's
 * `src/` into DIR (REV `.`: a copy of the working tree's `src/`, into `/tmp/rpl-baseline-worktree`), then the same esbuild bundle as scripts/bundle-index.mjs (src/index.ts with zod, every
 * other package external, names kept) into DIR/dist/index.js. DIR/node_modules links to the repository's,
 * so the externals resolve as they do for dist/. Prints the bundle's path.
 */
import { build } from "esbuild";
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, lstatSync, mkdirSync, rmSync, symlinkSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT, isMain } from "./common.mjs";

/** REV's short commit hash. */
export function shortSha(rev) {
  return execFileSync("git", ["rev-parse", "--short", rev], { cwd: REPO_ROOT, encoding: "utf8" }).trim();
}

/** ROOT/node_modules as a link to the repository's, so a build there resolves packages as dist/ does. */
function linkNodeModules(root) {
  const link = join(root, "node_modules");
  // A link left by an earlier run from another checkout (dangling once that checkout is gone) is replaced.
  if (lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink()) unlinkSync(link);
  if (!existsSync(link)) symlinkSync(join(REPO_ROOT, "node_modules"), link);
}

/** REV's `paths` (src/, tsconfigs, …) extracted by `git archive` into ROOT, each replaced, and ROOT/node_modules linked. */
export function checkoutRevision(rev, root, paths) {
  for (const p of paths) rmSync(join(root, p), { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  execFileSync("sh", ["-c", `git archive ${rev} ${paths.join(" ")} | tar -x -C '${root}'`], { cwd: REPO_ROOT });
  linkNodeModules(root);
}

/** Builds REV's bundle into DIR and returns the path of its dist/index.js. */
export async function buildBaseline(rev = "HEAD", dir) {
  const worktree = rev === ".";
  const sha = worktree ? "worktree" : shortSha(rev);
  const root = dir ?? `/tmp/rpl-baseline-${sha}`;
  if (worktree) {
    rmSync(join(root, "src"), { recursive: true, force: true });
    mkdirSync(root, { recursive: true });
    cpSync(join(REPO_ROOT, "src"), join(root, "src"), { recursive: true });
    linkNodeModules(root);
  } else checkoutRevision(sha, root, ["src"]);
  const outfile = join(root, "dist", "index.js");
  await build({
    entryPoints: [join(root, "src", "index.ts")],
    outfile,
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node22",
    minifyWhitespace: true,
    minifySyntax: true,
    keepNames: true,
    sourcemap: true,
    sourcesContent: false,
    plugins: [
      {
        name: "externals",
        setup(b) {
          b.onResolve({ filter: /[\\/]vendor[\\/]danfo$/ }, () => ({ path: "../vendor/danfo", external: true }));
          b.onResolve({ filter: /^[^./]/ }, (args) =>
            args.path.startsWith("zod") ? undefined : { path: args.path, external: true },
          );
        },
      },
    ],
    logLevel: "warning",
  });
  return outfile;
}

if (isMain(import.meta.url)) console.log(await buildBaseline(process.argv[2], process.argv[3]));
