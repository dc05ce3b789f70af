/**
 * Makes the package's code one file, `dist/bundle.js`, behind the entry `dist/index.js` (issue 27:
 * `require("risk-portal-lab")` adds ≤ 100 ms; issue 46, item 4: ≤ 2.5× the CPU of `node -e 0`). tsc's output loaded about 225 modules on import (our 120-odd and zod's 95): resolving,
 * reading and wrapping each one was most of the time. esbuild bundles `src/index.ts` with zod into a
 * single CommonJS file; every other package stays external (DuckDB, Arrow, fastify, plotly, tslab,
 * playwright-core load on first use, as before), and danfo is required from `vendor/danfo` beside it.
 *
 * The rest of `dist/` is still tsc's (the CLI and its runner, `.d.ts` types, tests that load single
 * modules). A notebook run by the CLI's runner thus holds two copies of our code, the runner's and
 * the bundle's: the one state they share, the notebook session, lives on `globalThis` (`notebookSession`).
 * Named exports stay visible to Node's ESM loader and Deno: esbuild ends a CommonJS bundle with the
 * `0 && (module.exports = { … })` annotation cjs-module-lexer reads, and the entry ends with the same list.
 *
 * The entry (issue 46, item 4) is scripts/entry-shim.cjs: it turns on Node's compile cache in the user's
 * cache folder before it requires the bundle, so that a second start reads the bundle's compiled code
 * instead of compiling it again. Less to compile and run besides: zod's JSON-schema importer
 * (`z.fromJSONSchema`) and its 40-odd locales other than English (`z.locales`), which nothing here uses,
 * are cut out of zod's index modules as they are bundled ({@link ZOD_CUTS}).
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
import { createHash } from "node:crypto";
import { build } from "esbuild";
import { readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const outfile = path.join(root, "dist", "bundle.js");
const entry = path.join(root, "dist", "index.js");

/** The subpaths besides the root: `risk-portal-lab/<name>` is src/subpath/<name>.ts. Also in package.json. */
const SUBPATHS = ["api", "internals", "frames", "vol", "plot", "curves"];
/** Where the bundle keeps the subpaths (a symbol: no ESM name, no `Object.keys` entry). */
const SUBPATH_KEY = 'Symbol.for("risk-portal-lab.subpaths")';

/** Packages bundled in; every other bare specifier stays a `require` resolved at run time. */
const BUNDLED = new Set(["zod"]);

/**
 * Exports of zod's index modules that the bundle leaves out: `z` is one namespace object, so esbuild keeps
 * every name it re-exports. Each line must be found as written (a zod upgrade that moves one fails the
 * build here rather than shipping it again unnoticed). English stays zod's default locale: schemas.js
 * imports locales/en.js itself.
 */
const ZOD_CUTS = {
  "v4/classic/external.js": [
    'export { fromJSONSchema } from "./from-json-schema.js";',
    'export * as locales from "../locales/index.js";',
  ],
  "v4/core/index.js": ['export * as locales from "../locales/index.js";'],
};

/** esbuild plugin: zod's index modules without {@link ZOD_CUTS}. */
const zodCuts = {
  name: "zod-cuts",
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/]zod[\\/]v4[\\/](classic[\\/]external|core[\\/]index)\.js$/ }, (args) => {
      const rel = args.path
        .split(path.sep)
        .join("/")
        .replace(/^.*\/node_modules\/zod\//, "");
      let code = readFileSync(args.path, "utf8");
      for (const line of ZOD_CUTS[rel] ?? []) {
        if (code.split(line).length !== 2) throw new Error(`${args.path}: "${line}" not found once; see ZOD_CUTS`);
        code = code.replace(line, "");
      }
      return { contents: code, loader: "js" };
    });
  },
};

/**
 * Node's modules that `node -e 0` has not loaded already and the bundle imports at its top: loading
 * crypto (with streams), child_process, net, vm, … cost a fifth of an import's CPU, for what the first
 * request, simulator or notebook run needs. The bundle gets each as a stand-in that loads it when a name
 * is first read ({@link lazyModule}). Not node:vm: the kernel room's tslab module replaces `vm.runInThisContext` in a tslab
 * kernel (to explain cells' errors and limit their time), and an assignment to a stand-in would not reach
 * the module.
 */
const LAZY_BUILTINS = [
  "node:crypto",
  "node:child_process",
  "node:net",
  "node:fs/promises",
  "node:timers/promises",
  "node:stream",
  "node:worker_threads",
];

/**
 * A stand-in module for `specifier`, which it requires when a name is first read. The names are read
 * through the stand-in's prototype, one forwarding object, not its own properties: esbuild gives each
 * importing module a copy of a CommonJS module's own properties (`__toESM`), which for zod's 260 names in
 * 13 modules was 3,000-odd getters defined at every import; the copies inherit the prototype instead.
 * `__esModule` (which `__toESM` reads) is answered without loading.
 */
function lazyModule(specifier) {
  return `let m;const load=()=>m??=require(${JSON.stringify(specifier)});module.exports=Object.create(new Proxy({},{get:(_,k)=>k==="__esModule"?void 0:load()[k]}));`;
}

/** esbuild plugin: {@link LAZY_BUILTINS} loaded on first use. */
const lazyBuiltins = {
  name: "lazy-builtins",
  setup(b) {
    b.onResolve({ filter: /^node:/ }, (args) => {
      if (!LAZY_BUILTINS.includes(args.path)) return undefined;
      // The getters' own require() of the module is the real one.
      if (args.namespace === "lazy-builtin") return { path: args.path, external: true };
      return { path: args.path, namespace: "lazy-builtin" };
    });
    b.onLoad({ filter: /.*/, namespace: "lazy-builtin" }, (args) => {
      return { contents: lazyModule(args.path), loader: "js" };
    });
  },
};

/**
 * esbuild plugin: zod, bundled, evaluated on first use. Our modules import `z` from a stand-in that loads
 * zod's modules when a property is first read (the schemas of src/api are built on first use, so a bare
 * import reads none): evaluating zod's 30-odd modules was a tenth of what an import cost. The stand-in's
 * `require("zod")` is zod's own, bundled, which esbuild then evaluates where it is first required.
 */
const lazyZod = {
  name: "lazy-zod",
  setup(b) {
    b.onResolve({ filter: /^zod$/ }, (args) =>
      args.pluginData?.zod === "real" ? undefined : { path: "zod", namespace: "lazy-zod" },
    );
    b.onLoad({ filter: /.*/, namespace: "lazy-zod" }, async () => {
      // zod's ES module build, as `import` finds it (a `require("zod")` would bundle its CommonJS build,
      // whole: no tree-shaking, no ZOD_CUTS).
      const esm = await b.resolve("zod", { kind: "import-statement", resolveDir: root, pluginData: { zod: "real" } });
      if (esm.errors.length > 0) throw new Error(`zod: ${esm.errors[0].text}`);
      return {
        contents: lazyModule(esm.path),
        loader: "js",
        resolveDir: root,
      };
    });
  },
};

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
  plugins: [zodCuts, lazyZod, lazyBuiltins, externals],
  logLevel: "warning",
});
writeEntry(rootOnly());
writeSubpaths();
const kb = Math.round(statSync(outfile).size / 1024);
console.log(
  `dist/bundle.js: one bundle of src/index.ts and ${SUBPATHS.length} subpaths with zod, ${kb} kB, in ${Math.round(performance.now() - started)} ms`,
);

/** dist/index.js: scripts/entry-shim.cjs with the bundle's hash, ending with the root's names line (tsc's index.js and its map go). */
function writeEntry(names) {
  const template = readFileSync(path.join(root, "scripts", "entry-shim.cjs"), "utf8");
  const line = 'const BUNDLE_BUILD = "dev";';
  if (template.split(line).length !== 2) throw new Error(`scripts/entry-shim.cjs: "${line}" not found once`);
  // The build's hash names the bundle's code cache (the entry also checks its size and time).
  const build = createHash("sha256").update(readFileSync(outfile)).digest("hex").slice(0, 16);
  const shim = template.replace(line, `const BUNDLE_BUILD = "${build}";`);
  rmSync(`${entry}.map`, { force: true });
  writeFileSync(entry, `${shim.trimEnd()}\n${namesLine(names)}\n`);
}

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
  writeFileSync(outfile, withoutRedundantNames(code.replace(annotation, `\n${tail}\n`)));
  return names;
}

/**
 * The bundle without keepNames' `__name(f,"f");` statements that name a function or class what its own
 * declaration already names it (1,600-odd of 2,800): each redefined a function's `name`, 8% of what the
 * import cost (issue 46, item 4). Those esbuild renamed (`__name(f2,"f")`), and calls in expressions,
 * stay. Only whole statements go (after `;`, `{` or `}`), blanked to spaces so that every line and column,
 * and so the source map, stay as they are.
 */
function withoutRedundantNames(code) {
  let count = 0;
  const out = code.replace(/(?<=[;{}])__name\(([A-Za-z_$][\w$]*),"([\w$]+)"\);/g, (call, binding, name) => {
    if (binding !== name) return call;
    count++;
    return " ".repeat(call.length);
  });
  if (count === 0)
    throw new Error(`${outfile}: no __name(f,"f"); statement found (has esbuild's keepNames output changed?)`);
  return out;
}

/** dist/subpath/<name>.js: the subpath read from the bundle, through the entry (tsc's copy and its map go). */
function writeSubpaths() {
  const req = createRequire(import.meta.url);
  delete req.cache[outfile];
  const subpaths = req(entry)[Symbol.for("risk-portal-lab.subpaths")];
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
