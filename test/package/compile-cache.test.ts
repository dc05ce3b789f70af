/**
 * The entry turns on Node's module compile cache (issue 46, item 4; scripts/entry-shim.cjs), so that a second
 * start reads the bundle's compiled code instead of compiling 1 MB again:
 * - in the user's own cache folder ($XDG_CACHE_HOME or ~/.cache, then risk-portal-lab/node-compile-cache),
 *   never Node's default under os.tmpdir(), which every user can write to;
 * - NODE_COMPILE_CACHE picks another directory, NODE_DISABLE_COMPILE_CACHE=1 turns it off;
 * - a folder that cannot be created or written costs the speed only: the package loads, nothing is printed.
 * Each case is a real `node` child that requires the package by name, with HOME and XDG_CACHE_HOME of its own.
 */
import { execFile } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = path.resolve(__dirname, "../..");
const scratch = mkdtempSync(path.join(tmpdir(), "rpl-compile-cache-"));
afterAll(() => {
  chmodSync(path.join(scratch, "read-only"), 0o755);
  rmSync(scratch, { recursive: true, force: true });
});

const CHILD = `
const pkg = require("risk-portal-lab");
const { getCompileCacheDir } = require("node:module");
process.stdout.write(JSON.stringify({ dir: getCompileCacheDir() ?? null, connect: typeof pkg.connect }));
`;

/** Runs the child with only the given variables besides PATH (no NODE_OPTIONS, no NODE_COMPILE_CACHE inherited). */
async function start(env: Record<string, string>): Promise<{ dir: string | null; connect: string; stderr: string }> {
  const { stdout, stderr } = await run(process.execPath, ["-e", CHILD], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", ...env },
    encoding: "utf8",
    timeout: 60_000,
  });
  return { ...(JSON.parse(stdout) as { dir: string | null; connect: string }), stderr };
}

/** Files under `dir`, recursively (the cache keeps one file per compiled module under a per-Node folder). */
function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => e.name);
}

describe.skipIf(process.platform !== "linux")("the entry's compile cache", () => {
  it("lives in the user's cache folder, and a second start finds the bundle's code there", async () => {
    const home = path.join(scratch, "home");
    mkdirSync(home);
    const first = await start({ HOME: home });
    const expected = path.join(home, ".cache", "risk-portal-lab", "node-compile-cache");
    expect(first.dir?.startsWith(expected + path.sep), `compile cache dir ${first.dir}`).toBe(true);
    expect(first.connect).toBe("function");
    expect(first.stderr).toBe("");
    expect(files(expected).length, "files written by the first start").toBeGreaterThan(0);

    const { stdout, stderr } = await run(process.execPath, ["-e", CHILD], {
      cwd: root,
      env: { PATH: process.env.PATH ?? "", HOME: home, NODE_DEBUG_NATIVE: "COMPILE_CACHE" },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(JSON.parse(stdout)).toEqual({ dir: first.dir, connect: "function" });
    const bundle = path.join(root, "dist", "bundle.js");
    expect(stderr, "Node's compile-cache log of the second start").toMatch(
      // Node 22: "cache for /…/bundle.js was accepted"; Node 26: "cache for CommonJS /…/bundle.js was accepted".
      new RegExp(`cache for (CommonJS )?${bundle.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} was accepted`),
    );
  });

  it("follows XDG_CACHE_HOME, then NODE_COMPILE_CACHE; NODE_DISABLE_COMPILE_CACHE=1 turns it off", async () => {
    const xdg = path.join(scratch, "xdg");
    const chosen = path.join(scratch, "chosen");
    const [byXdg, byNode, off] = await Promise.all([
      start({ HOME: path.join(scratch, "no-home"), XDG_CACHE_HOME: xdg }),
      start({ HOME: path.join(scratch, "no-home"), XDG_CACHE_HOME: xdg, NODE_COMPILE_CACHE: chosen }),
      start({ HOME: path.join(scratch, "no-home"), XDG_CACHE_HOME: xdg, NODE_DISABLE_COMPILE_CACHE: "1" }),
    ]);
    expect(byXdg.dir?.startsWith(path.join(xdg, "risk-portal-lab", "node-compile-cache") + path.sep)).toBe(true);
    expect(byNode.dir?.startsWith(chosen + path.sep)).toBe(true);
    expect(off).toEqual({ dir: null, connect: "function", stderr: "" });
  });

  it("a cache folder that cannot be made or written: the package loads, nothing printed, nothing thrown", async () => {
    const file = path.join(scratch, "a-file");
    writeFileSync(file, "not a directory\n");
    const readOnly = path.join(scratch, "read-only");
    mkdirSync(readOnly);
    chmodSync(readOnly, 0o555);
    const [underFile, inReadOnly] = await Promise.all([
      start({ HOME: file }),
      start({ HOME: path.join(scratch, "no-home"), XDG_CACHE_HOME: readOnly }),
    ]);
    expect(underFile).toEqual({ dir: null, connect: "function", stderr: "" });
    // As root the read-only folder is still writable; for anyone else the cache is off. Both load quietly.
    expect(inReadOnly.connect).toBe("function");
    expect(inReadOnly.stderr).toBe("");
  });
});
