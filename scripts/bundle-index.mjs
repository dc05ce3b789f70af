/**
 * Makes `dist/index.js`, the package's entry, one file (issue 27: `require("risk-portal-lab")` adds
 * ≤ 100 ms). tsc's output loaded about 225 modules on import (our 120-odd and zod's 95): resolving,
 * reading and wrapping each one was most of the time. esbuild bundles `src/index.ts` with zod into a
 * single CommonJS file; every other package stays external (DuckDB, Arrow, fastify, plotly, tslab,
 * playwright-core load on first use, as before), and danfo is required from `vendor/danfo` beside it.
 *
 * The rest of `dist/` is still tsc's (the CLI and its runner, `.d.ts` types, tests that load single
 * modules). A notebook run by the CLI's runner thus holds two copies of our code, the runner's and
 * the bundle's: the one state they share, the notebook session, lives on `globalThis` (src/session.ts).
 * Named exports stay visible to Node's ESM loader and Deno: esbuild ends a CommonJS bundle with the
 * `0 && (module.exports = { … })` annotation cjs-module-lexer reads.
 *
 * Run by `npm run build` after tsc (which wrote the unbundled `dist/index.js` this replaces).
 */
import { build } from "esbuild";
import { statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const outfile = path.join(root, "dist", "index.js");

/** Packages bundled in; every other bare specifier stays a `require` resolved at run time. */
const BUNDLED = new Set(["zod"]);

/** esbuild plugin: packages external except {@link BUNDLED}; `…/vendor/danfo` relative to dist/. */
const externals = {
  name: "externals",
  setup(b) {
    b.onResolve({ filter: /[\\/]vendor[\\/]danfo$/ }, () => ({ path: "../vendor/danfo", external: true }));
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      const name = args.path.startsWith("@") ? args.path.split("/").slice(0, 2).join("/") : args.path.split("/")[0];
      return BUNDLED.has(name) ? undefined : { path: args.path, external: true };
    });
  },
};

const started = performance.now();
await build({
  entryPoints: [path.join(root, "src", "index.ts")],
  outfile,
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node22",
  // Whitespace and syntax minified (a third less to compile on every import), names kept: class and
  // function names (error names, stack traces) read as written; the source map maps back to src/.
  minifyWhitespace: true,
  minifySyntax: true,
  keepNames: true,
  sourcemap: true,
  sourcesContent: false,
  plugins: [externals],
  logLevel: "warning",
});
const kb = Math.round(statSync(outfile).size / 1024);
console.log(
  `dist/index.js: one bundle of src/index.ts with zod, ${kb} kB, in ${Math.round(performance.now() - started)} ms`,
);
