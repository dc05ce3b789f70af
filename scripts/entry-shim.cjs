"use strict";
/*
 * dist/index.js, the package's entry (issue 46, item 4), written by scripts/bundle-index.mjs from this file:
 * it turns on Node's module compile cache, then loads the bundle (dist/bundle.js). Compiling the 1.4 MB
 * bundle was half of what `require("risk-portal-lab")` cost; with the cache, a second start reads V8's code
 * for it from disk instead. The cache then holds for the rest of the process (as Node's API does), so danfo,
 * DuckDB's wrapper and the rest load faster on their first use too. NODE_DISABLE_COMPILE_CACHE=1 turns it off,
 * NODE_COMPILE_CACHE=<dir> picks the directory.
 *
 * The directory is the user's own cache (~/.cache/risk-portal-lab/node-compile-cache, $XDG_CACHE_HOME, or the
 * platform's per-user cache folder), never Node's default under os.tmpdir(), which every user of the machine
 * can write to. Nothing here throws: enableCompileCache reports a directory it cannot create or write in its
 * result instead, and a start without the cache is only slower. Deno compiles with its own cache: skipped.
 */
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

if (!("Deno" in globalThis)) {
  try {
    const { enableCompileCache } = require("node:module");
    // Without a directory, Node takes NODE_COMPILE_CACHE's (which has then turned the cache on already).
    if (typeof enableCompileCache === "function")
      enableCompileCache(process.env.NODE_COMPILE_CACHE ? undefined : userCacheDir());
  } catch {
    // A quiet optimisation (os.homedir() can throw without a home): the package loads without it.
  }
}

module.exports = require("./bundle.js");
