#!/usr/bin/env node
/**
 * Records the cassette of every showcase notebook, `fixtures/cassettes/<notebook>.json`, which a notebook
 * replays with its parameter `replay = true` (offline: no server, no credentials).
 *
 *   npm run cassettes                                          (builds first)
 *   node scripts/record-cassettes.mjs [NOTEBOOK…] [--dir DIR] [--out DIR]
 *
 * Each notebook runs headless (the repository's runner, tslab's executor) with its default parameters
 * and the cassette mode `record` (RISK_PORTAL_CASSETTE_MODE): its connect() starts a fresh embedded
 * simulator (seed 1, data as of 2026-11-20, credentials derived from the seed) and every exchange goes
 * to the cassette; never a request header, a token or a key. The real service is not used, whatever
 * the environment says. A notebook is recorded to a temporary directory first and its cassette
 * replaces the one in DIR (default fixtures/cassettes) only when every cell ran; the executed notebooks
 * go to --out (default out/cassettes). Prints each cassette's exchanges and size; exits 1 when a
 * notebook failed (its old cassette is kept).
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const { runNotebooks, demoNotebooks } = require(path.join(root, "dist", "notebook", "batch.js"));

const { values, positionals } = parseArgs({
  options: {
    dir: { type: "string", default: path.join(root, "fixtures", "cassettes") },
    out: { type: "string", default: path.join(root, "out", "cassettes") },
  },
  allowPositionals: true,
});
const files = positionals.length ? positionals.map((f) => path.resolve(f)) : await demoNotebooks();
const dir = path.resolve(values.dir);
const staging = mkdtempSync(path.join(tmpdir(), "rpl-cassettes-"));
const log = (line) => process.stdout.write(`${line}\n`);

log(
  `Recording ${files.length} cassette${files.length === 1 ? "" : "s"} against the embedded simulator (seed 1, data as of 2026-11-20) → ${path.relative(process.cwd(), dir) || "."}`,
);
let summary;
try {
  summary = await runNotebooks(files, {
    outDir: path.resolve(values.out),
    // Never the real service (an empty base URL means "none"), and every cassette into the staging directory.
    env: { RISK_PORTAL_BASE_URL: "", RISK_PORTAL_CASSETTE_MODE: "record", RISK_PORTAL_CASSETTE_DIR: staging },
    log,
    logError: (line) => process.stderr.write(`${line}\n`),
  });
  mkdirSync(dir, { recursive: true });
  let total = 0;
  for (const result of summary.results) {
    const name = path.basename(result.file, ".ipynb");
    const recorded = path.join(staging, `${name}.json`);
    if (!result.ok) {
      log(`  ${name}: not replaced (the notebook failed)`);
      continue;
    }
    let exchanges;
    try {
      exchanges = JSON.parse(readFileSync(recorded, "utf8")).exchanges.length;
    } catch {
      log(`  ${name}: no cassette recorded (does its connect() name one?)`);
      continue;
    }
    const target = path.join(dir, `${name}.json`);
    copyFileSync(recorded, target);
    const bytes = statSync(target).size;
    total += bytes;
    log(`  ${path.relative(process.cwd(), target)}: ${exchanges} exchanges, ${(bytes / 1024).toFixed(0)} KB`);
  }
  log(`  total ${(total / 1024 / 1024).toFixed(2)} MB`);
} finally {
  rmSync(staging, { recursive: true, force: true });
}
process.exit(summary.failed ? 1 : 0);
