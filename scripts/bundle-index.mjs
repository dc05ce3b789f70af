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
 * Subpaths (issue 31, item 5): the root keeps what a notebook writes; `risk-portal-lab/api`, `/internals`,
 * `/frames`, `/vol`, `/plot` and `/curves` hold the rest (src/subpath/*.ts, package.json "exports"). They
 * are in the same bundle, so that a class or an error from a subpath is the root's own (`instanceof`
 * holds, provenance is found): the bundle's entry exports the root and the subpaths side by side, and its
 * tail makes `module.exports` the root alone, with the subpaths under a symbol key (`Object.keys` and the
 * ESM named exports do not see it). Each `dist/subpath/<name>.js` (tsc's, which would load a second copy
 * of the code) is replaced by a few lines that read its subpath from there; each ends, as the bundle does,
 * with the `0 && (module.exports = { … })` list of names that Node's ESM loader and Deno read.
 *
 * Run by `npm run build` after tsc (which wrote the unbundled `dist/index.js` this replaces).
 */
import { build } from "esbuild";
import { readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const outfile = path.join(root, "dist", "index.js");

/** The subpaths besides the root: `risk-portal-lab/<name>` is src/subpath/<name>.ts. Also in package.json. */
const SUBPATHS = ["api", "internals", "frames", "vol", "plot", "curves"];
/** Where the bundle keeps the subpaths (a symbol: no ESM name, no `Object.keys` entry). */
const SUBPATH_KEY = 'Symbol.for("risk-portal-lab.subpaths")';

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
  stdin: {
    contents: [
      'export * as root from "./src/index";',
      ...SUBPATHS.map((name) => `export * as ${name} from "./src/subpath/${name}";`),
    ].join("\n"),
    resolveDir: root,
    sourcefile: "bundle-entry.ts",
    loader: "ts",
  },
  outfile,
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node22",
  // Whitespace and syntax minified (a third less to compile on every import), names kept: class and
  // function names (error names, stack traces) read as written; the source map maps back to src/.
  minifyWhitespace: true,
  minifySyntax: true,
  // Lines of at most ~400 characters: Node prints the throwing line's source above an uncaught error's
  // stack, which was hundreds of kB of the bundle on one line (test/package/require.test.ts).
  lineLimit: 400,
  keepNames: true,
  sourcemap: true,
  sourcesContent: false,
  plugins: [externals],
  logLevel: "warning",
});
rootOnly();
writeSubpaths();
const kb = Math.round(statSync(outfile).size / 1024);
console.log(
  `dist/index.js: one bundle of src/index.ts and ${SUBPATHS.length} subpaths with zod, ${kb} kB, in ${Math.round(performance.now() - started)} ms`,
);

/** The `0 && (module.exports = { … })` line that tells Node's ESM loader and Deno the names. */
function namesLine(names) {
  return `0&&(module.exports={${names.join(",")}});`;
}

/**
 * Turns the bundle's exports (`{ root, api, … }`) into the root's, with the subpaths under
 * {@link SUBPATH_KEY}; esbuild's names line (which lists root and the subpaths) becomes the root's.
 */
function rootOnly() {
  const code = readFileSync(outfile, "utf8");
  const annotation = /\n?0&&\(module\.exports=\{[^}]*\}\);\n/;
  if (!annotation.test(code)) throw new Error(`${outfile}: esbuild's 0&&(module.exports={…}) line not found`);
  const bundled = createRequire(import.meta.url)(outfile);
  const names = Object.keys(bundled.root);
  const tail = [
    "{const all=module.exports;",
    `const subpaths={${SUBPATHS.map((n) => `${n}:all.${n}`).join(",")}};`,
    'for(const ns of Object.values(subpaths))Object.defineProperty(ns,"__esModule",{value:true});',
    "module.exports=all.root;",
    'Object.defineProperty(module.exports,"__esModule",{value:true});',
    `Object.defineProperty(module.exports,${SUBPATH_KEY},{value:Object.freeze(subpaths)});}`,
    namesLine(names),
  ].join("\n");
  writeFileSync(outfile, code.replace(annotation, `\n${tail}\n`));
  return names;
}

/** dist/subpath/<name>.js: the subpath read from the bundle (tsc's copy and its map go). */
function writeSubpaths() {
  const req = createRequire(import.meta.url);
  delete req.cache[outfile];
  const subpaths = req(outfile)[Symbol.for("risk-portal-lab.subpaths")];
  for (const name of SUBPATHS) {
    const file = path.join(root, "dist", "subpath", `${name}.js`);
    rmSync(`${file}.map`, { force: true });
    const names = Object.keys(subpaths[name]);
    if (names.length === 0) throw new Error(`subpath ${name}: no exports in the bundle`);
    writeFileSync(
      file,
      [
        '"use strict";',
        `// risk-portal-lab/${name}: src/subpath/${name}.ts, read from the one bundle (scripts/bundle-index.mjs).`,
        `module.exports=require("../index.js")[${SUBPATH_KEY}].${name};`,
        namesLine(names),
        "",
      ].join("\n"),
    );
  }
}
