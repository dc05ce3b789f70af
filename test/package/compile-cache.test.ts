/**
 * The entry's caches of compiled code (issue 46, item 4; scripts/entry-shim.cjs), so that a second start
 * does not compile 1 MB again: the bundle's own V8 code cache, made after its top level has run, and Node's
 * module compile cache for what loads later:
 * - in the user's own cache folder ($XDG_CACHE_HOME or ~/.cache, then risk-portal-lab/node-compile-cache),
 *   never Node's default under os.tmpdir(), which every user can write to; the bundle's file is the user's
 *   alone (0600);
 * - a second start runs the bundle from its cached code; a cache of another build, or bytes V8 refuses,
 *   are compiled again and rewritten;
 * - NODE_COMPILE_CACHE picks another directory, NODE_DISABLE_COMPILE_CACHE=1 turns it off;
 * - a folder that cannot be created or written costs the speed only: the package loads, nothing is printed.
 * Each case is a real `node` child that requires the package by name, with HOME and XDG_CACHE_HOME of its own.
 */
import { execFile } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
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
process.stdout.write(JSON.stringify({
  dir: getCompileCacheDir() ?? null,
  connect: typeof pkg.connect,
  codeCache: pkg[Symbol.for("risk-portal-lab.codeCache")],
}));
`;

/** Runs the child with only the given variables besides PATH (no NODE_OPTIONS, no NODE_COMPILE_CACHE inherited). */
interface Start {
  dir: string | null;
  connect: string;
  /** How the entry loaded the bundle: "accepted" (from the cache), "written" (compiled, cached), "uncached". */
  codeCache: string;
  stderr: string;
}

async function start(env: Record<string, string>): Promise<Start> {
  const { stdout, stderr } = await run(process.execPath, ["-e", CHILD], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", ...env },
    encoding: "utf8",
    timeout: 60_000,
  });
  return { ...(JSON.parse(stdout) as Omit<Start, "stderr">), stderr };
}

/** Files under `dir`, recursively (the cache keeps one file per compiled module under a per-Node folder). */
function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => e.name);
}

describe.skipIf(process.platform !== "linux")("the entry's compile cache", () => {
  it("lives in the user's cache folder, and a second start runs the bundle's cached code", async () => {
    const home = path.join(scratch, "home");
    mkdirSync(home);
    const first = await start({ HOME: home });
    const expected = path.join(home, ".cache", "risk-portal-lab", "node-compile-cache");
    expect(first.dir?.startsWith(expected + path.sep), `compile cache dir ${first.dir}`).toBe(true);
    expect(first).toMatchObject({ connect: "function", codeCache: "written", stderr: "" });
    const bundleCache = files(expected).filter((name) => /^bundle-[0-9a-f]{8}\.v8$/.test(name));
    expect(bundleCache, "the bundle's code cache").toHaveLength(1);
    expect(statSync(path.join(expected, bundleCache[0]!)).mode & 0o777).toBe(0o600);

    expect(await start({ HOME: home })).toEqual({ ...first, codeCache: "accepted" });
  });

  it("compiles again, and rewrites, a cache of another build or one V8 refuses", async () => {
    const home = path.join(scratch, "home-stale");
    mkdirSync(home);
    expect((await start({ HOME: home })).codeCache).toBe("written");
    const dir = path.join(home, ".cache", "risk-portal-lab", "node-compile-cache");
    const cacheFile = path.join(
      dir,
      files(dir).find((name) => name.endsWith(".v8"))!,
    );
    const bytes = readFileSync(cacheFile);
    const eol = bytes.indexOf(10);
    const key = bytes.subarray(0, eol).toString();
    // Another build of the bundle (its hash is the first line's second word): not read.
    const otherBuild = key.replace(/^(\S+) (\S+)/, "$1 0000000000000000");
    writeFileSync(cacheFile, Buffer.concat([Buffer.from(otherBuild), bytes.subarray(eol)]));
    expect((await start({ HOME: home })).codeCache).toBe("written");
    expect(readFileSync(cacheFile).subarray(0, eol).toString()).toBe(key);
    // This build's line over bytes that are no V8 code: V8 refuses them.
    writeFileSync(cacheFile, Buffer.concat([bytes.subarray(0, eol + 1), Buffer.alloc(4096, 7)]));
    expect(await start({ HOME: home })).toMatchObject({ connect: "function", codeCache: "written", stderr: "" });
    expect((await start({ HOME: home })).codeCache).toBe("accepted");
  });

  it("with source maps on, stack frames of the bundle still name src/ files", async () => {
    const { stdout } = await run(
      process.execPath,
      [
        "--enable-source-maps",
        "-e",
        'try { require("risk-portal-lab").frames.yieldCurve(null) } catch (e) { console.log(e.stack) }',
      ],
      {
        cwd: root,
        env: { PATH: process.env.PATH ?? "", HOME: path.join(scratch, "home") },
        encoding: "utf8",
        timeout: 60_000,
      },
    );
    expect(stdout).toMatch(/\(.*src\/frames\/yield-curve\.ts:\d+:\d+\)/);
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
    expect(off).toEqual({ dir: null, connect: "function", codeCache: "uncached", stderr: "" });
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
    expect(underFile).toEqual({ dir: null, connect: "function", codeCache: "uncached", stderr: "" });
    // As root the read-only folder is still writable; for anyone else the cache is off. Both load quietly.
    expect(inReadOnly.connect).toBe("function");
    expect(inReadOnly.stderr).toBe("");
  });
});
