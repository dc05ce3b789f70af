/**
 * `risk-portal-lab kernels install|list` (src/notebook/kernels/) with real pythons, real files and real kernel
 * processes, always in a private HOME and JUPYTER_DATA_DIR: the machine's own kernelspecs are never touched.
 * The whole path from a packed install (nbconvert under both kernels) is test/package/consumer.test.ts's.
 */
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { installKernels, KernelsError } from "../../src/notebook/kernels/install";
import { findJupyterPython, jupyterInstallLine } from "../../src/notebook/kernels/jupyter-python";
import { listKernels } from "../../src/notebook/kernels/list";
import { cli, root, runCommand } from "./executed";

const jupyterAt = (python: string) => spawnSync(python, ["-c", "import jupyter_client"]).status === 0;
const missing = jupyterAt("/usr/bin/python3") ? undefined : "/usr/bin/python3 has no jupyter_client";

describe.skipIf(missing !== undefined || process.platform === "win32")("kernels install / kernels list", () => {
  const work = realpathSync(mkdtempSync(path.join(tmpdir(), "rpl-kernels-")));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  let n = 0;

  /** A private HOME and data dir, and a PATH whose first python3 has no Jupyter (no deno on it either). */
  function privateEnv(): { env: NodeJS.ProcessEnv; data: string; bin: string } {
    const home = path.join(work, `home-${++n}`);
    const bin = path.join(home, "bin");
    const data = path.join(home, ".local", "share", "jupyter");
    mkdirSync(bin, { recursive: true });
    writeFileSync(path.join(bin, "python3"), '#!/bin/sh\nexec /usr/bin/python3 -S "$@"\n');
    chmodSync(path.join(bin, "python3"), 0o755);
    return { env: { HOME: home, JUPYTER_DATA_DIR: data, PATH: `${bin}:/usr/bin:/bin`, LANG: "C.UTF-8" }, data, bin };
  }

  /** A notebook folder whose node_modules holds the checkout's own tslab (and deno, when asked). */
  function folder(withDeno: boolean): string {
    const dir = path.join(work, `folder-${++n}`);
    mkdirSync(path.join(dir, "node_modules"), { recursive: true });
    symlinkSync(path.join(root, "node_modules", "tslab"), path.join(dir, "node_modules", "tslab"));
    if (withDeno) symlinkSync(path.join(root, "node_modules", "deno"), path.join(dir, "node_modules", "deno"));
    return dir;
  }

  it("finds the python that `jupyter` on PATH names when the first python3 has no Jupyter", () => {
    const { env, bin } = privateEnv();
    const venv = path.join(work, `venv-${n}`);
    mkdirSync(venv);
    symlinkSync("/usr/bin/python3", path.join(venv, "python3"));
    writeFileSync(path.join(bin, "jupyter"), `#!${venv}/python3\nprint("jupyter")\n`);
    chmodSync(path.join(bin, "jupyter"), 0o755);
    expect(jupyterAt(path.join(bin, "python3")), "the shim python3 has no Jupyter").toBe(false);
    const found = findJupyterPython(env);
    expect(found).toMatchObject({ python: path.join(venv, "python3"), dataDir: env.JUPYTER_DATA_DIR });
    expect((found as { searchPath: string[] }).searchPath[0]).toBe(env.JUPYTER_DATA_DIR);
  });

  it("says how to install Jupyter and exits 1 when no python has it, writing nothing", async () => {
    const { env, data } = privateEnv();
    // A PYTHONHOME where no Python can start: none of the candidates answers.
    const run = await runCommand(process.execPath, [cli, "kernels", "install"], {
      cwd: folder(true),
      env: { ...env, PYTHONHOME: path.join(work, "no-such-python-home") },
      timeoutMs: 30_000,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("no Python with Jupyter found (none of /usr/bin/python3");
    expect(run.stderr).toContain(`Install Jupyter:\n  ${jupyterInstallLine()}\n`);
    if (existsSync("/etc/debian_version")) expect(jupyterInstallLine()).toMatch(/apt-get install -y jupyter-notebook/);
    expect(existsSync(data)).toBe(false);
  });

  it("is in the CLI's usage, and an unknown subcommand or two scopes at once is a usage error (exit 2)", async () => {
    const { env } = privateEnv();
    const run = (...args: string[]) =>
      runCommand(process.execPath, [cli, ...args], { cwd: work, env, timeoutMs: 30_000 });
    const help = await run("--help");
    expect(help.stdout).toMatch(/^ {2}kernels install {2}register the "tslab" \(TypeScript\) and "deno" kernels/m);
    expect(help.stdout).toMatch(/^ {2}kernels list {3}\(or kernels check\)/m);
    const bogus = await run("kernels", "start");
    expect([bogus.code, bogus.stderr.split("\n")[0]]).toEqual([
      2,
      'risk-portal-lab: kernels: unknown subcommand "start" (install, list or check)',
    ]);
    const both = await run("kernels", "install", "--user", "--prefix", work);
    expect([both.code, both.stderr.split("\n")[0]]).toEqual([
      2,
      "risk-portal-lab: kernels install: --user, --sys-prefix and --prefix DIR exclude each other",
    ]);
  });

  it("refuses to register tslab under a Node older than 22", () => {
    const { env } = privateEnv();
    const node = { path: "/opt/node20/bin/node", version: "v20.11.1" };
    expect(() => installKernels({ scope: { kind: "user" }, folder: folder(true), env, node, out: () => {} })).toThrow(
      KernelsError,
    );
    expect(() => installKernels({ scope: { kind: "user" }, folder: folder(true), env, node, out: () => {} })).toThrow(
      /\/opt\/node20\/bin\/node \(v20\.11\.1\), and risk-portal-lab needs Node 22 or newer/,
    );
  });

  it("repairs a spec written by `tslab install` (a bare `tslab`) and skips deno, saying how to add it", () => {
    const { env, data } = privateEnv();
    const spec = path.join(data, "kernels", "tslab", "kernel.json");
    mkdirSync(path.dirname(spec), { recursive: true });
    const old = { argv: ["tslab", "kernel", "--config-path", "{connection_file}"], display_name: "TypeScript" };
    writeFileSync(spec, JSON.stringify(old));
    const lines: string[] = [];
    const dir = folder(false);
    expect(installKernels({ scope: { kind: "user" }, folder: dir, env, out: (l) => lines.push(l) })).toBe(0);
    const tslab = realpathSync(path.join(root, "node_modules", "tslab", "bin", "tslab"));
    const argv = [process.execPath, tslab, "kernel", "--config-path", "{connection_file}"];
    expect(JSON.parse(readFileSync(spec, "utf8"))).toEqual({
      argv,
      display_name: "TypeScript",
      language: "typescript",
    });
    expect(lines).toContain(`registered tslab ("TypeScript"): ${spec}`);
    expect(lines).toContain(`  argv: ${argv.join(" ")}`);
    expect(lines).toContain("  replaced argv: tslab kernel --config-path {connection_file}");
    expect(lines).toContain(
      `skipped deno: no deno in ${dir}/node_modules nor on PATH: run \`npm install deno\` here, then this again`,
    );
    expect(existsSync(path.join(data, "kernels", "deno"))).toBe(false);
  });

  it("registers the folder's native deno, and with --prefix says when Jupyter does not search there", () => {
    const { env } = privateEnv();
    const prefix = path.join(work, `prefix-${n}`);
    const lines: string[] = [];
    const dir = folder(true);
    expect(installKernels({ scope: { kind: "prefix", prefix }, folder: dir, env, out: (l) => lines.push(l) })).toBe(0);
    const spec = JSON.parse(readFileSync(path.join(prefix, "share/jupyter/kernels/deno/kernel.json"), "utf8"));
    const deno = realpathSync(path.join(root, "node_modules", "deno", "deno"));
    expect(spec.argv).toEqual([deno, "jupyter", "--kernel", "--conn", "{connection_file}"]);
    expect(lines.filter((l) => l.includes(`note: Jupyter does not search ${prefix}/share/jupyter`))).toHaveLength(2);
  });

  it("exits 1 in a folder with neither tslab nor deno", () => {
    const { env, data } = privateEnv();
    const lines: string[] = [];
    const empty = path.join(work, `empty-${++n}`);
    mkdirSync(empty);
    expect(installKernels({ scope: { kind: "user" }, folder: empty, env, out: (l) => lines.push(l) })).toBe(1);
    expect(lines.at(-1)).toMatch(/^no kernel registered: install tslab or deno in this folder first/);
    expect(existsSync(path.join(data, "kernels"))).toBe(false);
  });

  it("kernels list starts each spec Jupyter would use, and says what to do about a broken one", async () => {
    const { env, data } = privateEnv();
    installKernels({ scope: { kind: "user" }, folder: folder(true), env, out: () => {} });
    // The tslab spec the old README's command wrote: Jupyter cannot start it from a PATH without the folder's .bin.
    const bare = { argv: ["tslab", "kernel", "--config-path", "{connection_file}"], display_name: "TypeScript" };
    writeFileSync(path.join(data, "kernels", "tslab", "kernel.json"), JSON.stringify(bare));
    const lines: string[] = [];
    expect(await listKernels({ env, out: (l) => lines.push(l), cwd: work })).toBe(1);
    const text = lines.join("\n");
    expect(text).toContain(`search path: ${data}, `);
    expect(text).toContain(`tslab: ${data}/kernels/tslab/kernel.json\n  argv: tslab kernel --config-path`);
    expect(text).toMatch(/problem: argv\[0\] is a bare `tslab`: Jupyter looks it up on the PATH/);
    expect(text).toMatch(/does not start: tslab's kernel could not be started \(tslab\): spawn tslab ENOENT/);
    expect(text).toMatch(new RegExp(`deno: ${data}/kernels/deno/kernel.json\\n  argv: \\S+/deno jupyter --kernel`));
    expect(text).toMatch(/ {2}starts: 1 \+ 1 = 2 in \d+\.\d s/);
    expect(lines.at(-1)).toBe(
      "to repair: run `npx risk-portal-lab kernels install` in your notebook folder (the one whose node_modules has tslab and deno)",
    );
  }, 60_000);
});
