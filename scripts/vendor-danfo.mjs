/**
 * Builds `vendor/danfo/`: what the package ships of danfo, so that a consumer installs nothing of
 * danfojs-node's own dependency tree (issue 27).
 *
 * Why: danfojs-node 1.2 depends on `xlsx` from a CDN URL (not the npm registry) and on
 * `@tensorflow/tfjs-node`, whose install script downloads libtensorflow; this checkout's `overrides` fix
 * both, but npm never applies a dependency's overrides to its consumer, so `npm install risk-portal-lab`
 * failed. danfojs-node is a devDependency now, and this script bundles its code (about 0.9 MB of
 * CommonJS) with esbuild into one file, where:
 *   - `@tensorflow/tfjs-node` is pure-JS TensorFlow.js: `@tensorflow/tfjs-core` with the CPU backend and
 *     `tfjs-data` (danfo's `sample`), bundled in (the same 3.21 code the checkout's override gave danfo);
 *   - `xlsx` and `request` (Excel files, remote JSON) are modules that throw a clear error when used;
 *   - `node-fetch` (danfo's remote CSV) is Node's own `fetch`;
 *   - `plotly.js-dist-min` stays external: danfo requires it only in a browser.
 * mathjs 9, papaparse, table and stream-json are bundled too. The types ship beside it: danfo's own
 * `.d.ts` tree, with the imports of packages the consumer does not have replaced by local aliases.
 *
 * Run by `npm run build` (so by `npm ci` and `npm pack`); writes only under `vendor/danfo/`.
 */
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const out = path.join(root, "vendor", "danfo");
const require = createRequire(path.join(root, "package.json"));
const danfoRoot = path.dirname(require.resolve("danfojs-node/package.json"));
const danfoDist = path.join(danfoRoot, "dist");

/** Modules that stand in for danfo's dependencies, by the specifier danfo requires. */
const SHIMS = {
  "@tensorflow/tfjs-node": `
const tf = require("@tensorflow/tfjs-core");
require("@tensorflow/tfjs-core/dist/public/chained_ops/register_all_chained_ops");
const { MathBackendCPU } = require("@tensorflow/tfjs-backend-cpu");
const data = require("@tensorflow/tfjs-data");
// The CPU backend's first write prints "Hi, looks like you are running TensorFlow.js in Node.js … install
// our node backend" (console.warn, so into a notebook's output): the native backend is what this bundle
// exists to avoid. Every CPU backend, this one and any made again (tf.engine().reset() makes a new one),
// starts with firstUse false: the constructor's "this.firstUse = true" meets this setter and is dropped.
Object.defineProperty(MathBackendCPU.prototype, "firstUse", { get: () => false, set: () => {}, configurable: true });
tf.setBackend("cpu");
module.exports = { ...tf, data };`,
  // The entry: danfo's own, with the Excel functions refusing at the call (the xlsx stand-in alone would
  // throw inside danfo's file callback, out of reach of the caller's try/await).
  "risk-portal-lab:danfo-entry": `
const danfo = require(${JSON.stringify(path.join(danfoDist, "danfojs-node", "src", "index.js"))});
const { EXCEL } = require("xlsx");
module.exports = { ...danfo, readExcel: async () => EXCEL(), toExcel: () => EXCEL() };`,
  xlsx: refusal(
    "Excel files (readExcel, toExcel)",
    "read the sheet with a library of your choice and pass its rows to new DataFrame(rows), or use CSV",
  ),
  request: refusal(
    "reading JSON from a URL (readJSON of an http(s) address)",
    "fetch it yourself: new DataFrame(await (await fetch(url)).json())",
  ),
  "node-fetch": `module.exports = (...args) => globalThis.fetch(...args); module.exports.default = module.exports;`,
};

/** A module whose every export is a function that throws, saying what is missing and what to do. */
function refusal(what, instead) {
  const message = `risk-portal-lab ships danfo without ${what}: ${instead}.`;
  // Any member, at any depth (xlsx.utils.aoa_to_sheet), is the same refusing function.
  return `const refuse = () => { throw new Error(${JSON.stringify(message)}); };
const fail = new Proxy(refuse, { get: (_t, key) => (key === "__esModule" ? false : fail) });
module.exports = fail;`;
}

/** esbuild plugin: each shimmed specifier resolves to its source above. */
const shims = {
  name: "danfo-shims",
  setup(b) {
    const filter = new RegExp(
      `^(${Object.keys(SHIMS)
        .map((s) => s.replace(/[/.:]/g, "\\$&"))
        .join("|")})$`,
    );
    b.onResolve({ filter }, (args) => ({ path: args.path, namespace: "danfo-shim" }));
    b.onLoad({ filter: /.*/, namespace: "danfo-shim" }, (args) => ({
      contents: SHIMS[args.path],
      loader: "js",
      resolveDir: root,
    }));
  },
};

async function bundle(dir) {
  const version = JSON.parse(readFileSync(path.join(danfoRoot, "package.json"), "utf8")).version;
  const result = await build({
    entryPoints: ["risk-portal-lab:danfo-entry"],
    outfile: path.join(dir, "index.js"),
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node22",
    // TensorFlow.js as ES modules: one copy of tfjs-core that the CPU backend, tfjs-data and the chained
    // tensor methods (tensor.add …, registered by a side-effect module) all share.
    mainFields: ["module", "main"],
    minifySyntax: true, // whitespace and names kept: a stack trace into danfo stays readable
    keepNames: true,
    legalComments: "eof",
    external: ["plotly.js-dist-min"],
    plugins: [shims],
    banner: {
      js: `/* danfojs-node ${version} (MIT, JsData) with TensorFlow.js 3.21 (Apache-2.0), bundled by risk-portal-lab's scripts/vendor-danfo.mjs */`,
    },
    logLevel: "warning",
    metafile: true,
  });
  return {
    version,
    bytes: statSync(path.join(dir, "index.js")).size,
    inputs: Object.keys(result.metafile.inputs).length,
  };
}

/** Packages danfo's declarations import that a consumer does not have: each imported name becomes `any`. */
const FOREIGN_TYPES = ["table", "plotly.js-dist-min", "node-fetch", "papaparse", "xlsx", "request"];

/**
 * danfo's `.d.ts` text with each import of a foreign package replaced by local `any` aliases, and
 * `sortValues` typed as src/frames/danfo-fixes/sort.ts takes it: one column or several, one direction or one per column.
 */
function localiseTypes(text) {
  return multiSort(text).replace(/^import\s+(.+?)\s+from\s+["']([^"']+)["'];?$/gm, (line, what, from) => {
    if (!FOREIGN_TYPES.includes(from)) return line;
    const names = what.startsWith("{")
      ? what
          .replace(/[{}]/g, "")
          .split(",")
          .map((n) =>
            n
              .trim()
              .split(/\s+as\s+/)
              .pop(),
          )
          .filter(Boolean)
      : [what.trim()];
    return names.map((n) => `declare type ${n} = any; declare const ${n}: any;`).join(" ") + ` // was: from "${from}"`;
  });
}

/** `sortValues(column: string, { ascending?: boolean })` → `string | string[]`, `boolean | boolean[]`. */
function multiSort(text) {
  return text.replace(
    /sortValues\(column: string, options\?: \{([^}]*)\}/g,
    (_, body) =>
      `sortValues(column: string | string[], options?: {${body.replace("ascending?: boolean;", "ascending?: boolean | boolean[];")}}`,
  );
}

function copyTypes(from, to) {
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) copyTypes(source, target);
    else if (entry.name.endsWith(".d.ts")) {
      mkdirSync(to, { recursive: true });
      writeFileSync(target, localiseTypes(readFileSync(source, "utf8")));
    }
  }
}

/** What the bundle is made from: this script, and the versions of danfo, TensorFlow.js and esbuild. */
function inputsStamp() {
  const hash = createHash("sha256").update(readFileSync(fileURLToPath(import.meta.url)));
  for (const name of [
    "danfojs-node",
    "@tensorflow/tfjs-core",
    "@tensorflow/tfjs-backend-cpu",
    "@tensorflow/tfjs-data",
    "esbuild",
  ])
    hash.update(`${name}@${JSON.parse(readFileSync(require.resolve(`${name}/package.json`), "utf8")).version}\n`);
  return hash.digest("hex");
}

const stamp = inputsStamp();
const stampFile = path.join(out, ".stamp");
if (existsSync(stampFile) && readFileSync(stampFile, "utf8") === stamp && existsSync(path.join(out, "index.js"))) {
  // Up to date: nothing to say.
} else {
  // Built beside, then swapped in: a build running meanwhile (npm pack, a test) never sees a half-written folder.
  const next = `${out}.${process.pid}.tmp`;
  const old = `${out}.${process.pid}.old`;
  rmSync(next, { recursive: true, force: true });
  mkdirSync(next, { recursive: true });
  const figures = await bundle(next);
  copyTypes(danfoDist, next);
  // The entry's types: danfojs-node's index, re-exported where the bundle is.
  writeFileSync(path.join(next, "index.d.ts"), `export * from "./danfojs-node/src";\n`);
  writeFileSync(path.join(next, ".stamp"), stamp);
  if (existsSync(out)) renameSync(out, old);
  renameSync(next, out);
  rmSync(old, { recursive: true, force: true });
  console.log(
    `vendor/danfo: danfojs-node ${figures.version}, ${figures.inputs} modules → ${(figures.bytes / 1e6).toFixed(2)} MB`,
  );
}
