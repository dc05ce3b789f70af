"use strict";
/*
 * dist/index.js, the package's entry (issue 46, item 4), written by scripts/bundle-index.mjs from this file:
 * it loads the bundle (dist/bundle.js) with V8's compiled code of it from the user's cache, and turns on
 * Node's module compile cache for the rest of the process (danfo, DuckDB's wrapper and the rest then load
 * faster on their first use too).
 *
 * The bundle's own cache is V8's code cache made after the bundle's top level has run, so it holds every
 * function the import runs; Node's compile cache makes it before, with the top level alone, and the rest
 * was compiled again at every start (a sixth of what `require("risk-portal-lab")` cost). It is one file
 * per installed bundle (bundle-<hash of its path>.v8), whose first line names the bundle it was made from
 * (its build's hash, size and time) and this V8: another bundle or V8 rewrites it; V8 itself refuses code
 * made with other flags. `require.cache`, `module`, `require`, `__filename` and stack traces (lines and
 * columns) are as under `require("./bundle.js")`.
 *
 * The directory is the user's own cache (~/.cache/risk-portal-lab/node-compile-cache, $XDG_CACHE_HOME, or
 * the platform's per-user cache folder), never Node's default under os.tmpdir(), which every user of the
 * machine can write to; files are the user's alone (0600). With source maps on (--enable-source-maps),
 * the bundle is required as usual: Node maps the stack frames of what its own loader compiled to src/.
 * NODE_DISABLE_COMPILE_CACHE=1 turns both caches off, NODE_COMPILE_CACHE=<dir> picks the directory.
 * Nothing here throws for a cache: a directory that
 * cannot be created or written, or a file that cannot be read, only makes the start slower. Deno compiles
 * with its own cache: skipped. How the bundle was loaded ("accepted": from the cache, "written": compiled
 * and cached, "uncached") is under Symbol.for("risk-portal-lab.codeCache") of the exports, for tests.
 */
/** The bundle's build (scripts/bundle-index.mjs writes its hash here). */
const BUNDLE_BUILD = "dev";

function userCacheDir() {
  const os = require("node:os");
  const path = require("node:path");
  const env = process.env;
  let base;
  if (process.platform === "win32") base = env.LOCALAPPDATA || path.join(os.homedir(), "AppData", "Local");
  else if (process.platform === "darwin") base = path.join(os.homedir(), "Library", "Caches");
  else
    base =
      env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME)
        ? env.XDG_CACHE_HOME
        : path.join(os.homedir(), ".cache");
  return path.join(base, "risk-portal-lab", "node-compile-cache");
}

/** The cache directory, with Node's compile cache turned on in it; undefined when off or unavailable. */
function cacheDir() {
  if ("Deno" in globalThis || process.env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  try {
    const { enableCompileCache } = require("node:module");
    // Without a directory, Node takes NODE_COMPILE_CACHE's (which has then turned the cache on already).
    const dir = process.env.NODE_COMPILE_CACHE || userCacheDir();
    if (typeof enableCompileCache === "function") enableCompileCache(process.env.NODE_COMPILE_CACHE ? undefined : dir);
    return dir;
  } catch {
    // A quiet optimisation (os.homedir() can throw without a home): the package loads without it.
    return undefined;
  }
}

/** FNV-1a of a string, 32 bits, hex (names the cache file of a bundle's path; no crypto on import). */
function fnv1a(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, "0");
}

/** The cached code of `key` in `file`, or undefined (no file, another bundle or V8, unreadable). */
function readCache(fs, file, key) {
  try {
    const bytes = fs.readFileSync(file);
    const eol = bytes.indexOf(10);
    if (eol < 0 || bytes.toString("utf8", 0, eol) !== key) return undefined;
    return bytes.subarray(eol + 1);
  } catch {
    return undefined;
  }
}

/** Writes `key` and `data` to `file` (a temporary file of this process, renamed into place); quiet. */
function writeCache(fs, dir, file, key, data) {
  const temp = `${file}.${process.pid}.tmp`;
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(temp, Buffer.concat([Buffer.from(`${key}\n`), data]), { mode: 0o600 });
    fs.renameSync(temp, file);
    return true;
  } catch {
    try {
      fs.rmSync(temp, { force: true });
    } catch {
      // Nothing more to do: the start was only slower.
    }
    return false;
  }
}

/** Loads dist/bundle.js as `require` would, compiled from (and into) the code cache in `dir`. */
function loadBundle(dir) {
  const path = require("node:path");
  const file = path.join(__dirname, "bundle.js");
  // With source maps on (--enable-source-maps), Node's loader, which maps the bundle's stack frames to src/.
  if (dir === undefined || require.cache[file] || process.sourceMapsEnabled) return [require(file), "uncached"];
  const fs = require("node:fs");
  const vm = require("node:vm");
  const Module = require("node:module");
  const source = fs.readFileSync(file, "utf8");
  const stat = fs.statSync(file);
  const key = `risk-portal-lab ${BUNDLE_BUILD} ${stat.size} ${stat.mtimeMs} v8 ${process.versions.v8} ${process.arch}`;
  const cacheFile = path.join(dir, `bundle-${fnv1a(file)}.v8`);
  const cachedData = readCache(fs, cacheFile, key);
  // The wrapper's first line is line 0, so that the bundle's lines and columns are its own in stack traces.
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {\n${source}\n})`, {
    filename: file,
    lineOffset: -1,
    cachedData,
    importModuleDynamically: vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const bundle = new Module(file, module);
  bundle.filename = file;
  bundle.paths = Module._nodeModulePaths(__dirname);
  require.cache[file] = bundle;
  try {
    script.runInThisContext().call(bundle.exports, bundle.exports, Module.createRequire(file), bundle, file, __dirname);
  } catch (error) {
    delete require.cache[file];
    throw error;
  }
  bundle.loaded = true;
  if (cachedData && !script.cachedDataRejected) return [bundle.exports, "accepted"];
  return [bundle.exports, writeCache(fs, dir, cacheFile, key, script.createCachedData()) ? "written" : "uncached"];
}

const [bundleExports, codeCache] = loadBundle(cacheDir());
Object.defineProperty(bundleExports, Symbol.for("risk-portal-lab.codeCache"), { value: codeCache, configurable: true });
module.exports = bundleExports;
