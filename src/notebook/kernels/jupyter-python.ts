/**
 * Which Python has Jupyter, and where that Jupyter keeps and looks for kernelspecs. The first `python3` on
 * PATH is often not it (pyenv, a venv without Jupyter, Homebrew's python beside Debian's Jupyter), so several
 * are asked in turn: the python named by the shebang of `jupyter` on PATH (and the one beside it, as in a
 * venv), then the usual system pythons, then `python3`/`python` on PATH. A python counts when it can
 * `import jupyter_client`; it then answers with jupyter_core's own paths, so JUPYTER_DATA_DIR, JUPYTER_PATH
 * and the platform's defaults are whatever that Jupyter itself would use.
 */
import { spawnSync } from "node:child_process";
import { existsSync, openSync, readSync, closeSync } from "node:fs";
import { executable } from "../jupyter/find-deno";
import os from "node:os";
import path from "node:path";

/** A Python that has Jupyter, with what its jupyter_core says. */
export interface JupyterPython {
  /** The python that answered (as found: a path, not resolved). */
  python: string;
  /** jupyter_core.paths.jupyter_data_dir(): where `--user` kernelspecs go (JUPYTER_DATA_DIR when set). */
  dataDir: string;
  /** jupyter_core.paths.jupyter_path(): the data dirs Jupyter searches, first found wins. */
  searchPath: string[];
  /** That python's sys.prefix (`--sys-prefix` writes under <prefix>/share/jupyter). */
  prefix: string;
  /** jupyter_client's version. */
  jupyterClient: string;
}

/** No python with Jupyter: the pythons tried and the line that installs Jupyter on this platform. */
export interface NoJupyter {
  tried: string[];
  installLine: string;
}

const PROBE = `import json, sys
import jupyter_client
from jupyter_core import paths
print(json.dumps({"dataDir": paths.jupyter_data_dir(), "searchPath": paths.jupyter_path(), "prefix": sys.prefix, "jupyterClient": jupyter_client.__version__}))`;

/** `name` on PATH (with Windows' extensions), or undefined. */
export function onPath(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const exts = process.platform === "win32" ? [".exe", ".cmd", ".bat", ""] : [""];
  for (const dir of (env.PATH ?? env.Path ?? "").split(path.delimiter)) {
    if (!dir) continue;
    for (const ext of exts) {
      const file = path.join(dir, name + ext);
      if (executable(file)) return file;
    }
  }
  return undefined;
}

/** The interpreter a script's `#!` line names (`#!/usr/bin/python3`, `#!/usr/bin/env python3`), if any. */
function shebangPython(script: string, env: NodeJS.ProcessEnv): string | undefined {
  let head = "";
  try {
    const fd = openSync(script, "r");
    const buffer = Buffer.alloc(256);
    const n = readSync(fd, buffer, 0, buffer.length, 0);
    closeSync(fd);
    head = buffer.subarray(0, n).toString("utf8").split("\n")[0]!;
  } catch {
    return undefined;
  }
  const words = head.startsWith("#!") ? head.slice(2).trim().split(/\s+/) : [];
  if (words[0] && /\/env$/.test(words[0]))
    return words[1] && /python/.test(words[1]) ? onPath(words[1], env) : undefined;
  return words[0] && /python[\d.]*$/.test(words[0]) ? words[0] : undefined;
}

/** The pythons to ask, in order, without repeats. */
export function candidatePythons(env: NodeJS.ProcessEnv = process.env): string[] {
  const out: string[] = [];
  const jupyter = onPath("jupyter", env);
  if (jupyter) {
    const named = shebangPython(jupyter, env);
    if (named) out.push(named);
    for (const py of ["python3", "python"]) out.push(path.join(path.dirname(jupyter), py));
  }
  if (process.platform === "win32") {
    out.push(...[onPath("py", env), onPath("python", env), onPath("python3", env)].filter((p) => p !== undefined));
  } else {
    out.push("/usr/bin/python3", "/usr/local/bin/python3", "/opt/homebrew/bin/python3");
    out.push(...[onPath("python3", env), onPath("python", env)].filter((p) => p !== undefined));
  }
  return [...new Set(out)].filter(executable);
}

/** Asks one python for its Jupyter's paths; undefined when it has no jupyter_client. */
export function probePython(python: string, env: NodeJS.ProcessEnv = process.env): JupyterPython | undefined {
  const run = spawnSync(python, ["-c", PROBE], { env, encoding: "utf8", timeout: 30_000, windowsHide: true });
  if (run.status !== 0 || !run.stdout) return undefined;
  try {
    const answer = JSON.parse(run.stdout.trim().split("\n").at(-1)!) as Omit<JupyterPython, "python">;
    return { python, ...answer };
  } catch {
    return undefined;
  }
}

/** The first python (candidatePythons' order) that has Jupyter, or what was tried and how to install it. */
export function findJupyterPython(env: NodeJS.ProcessEnv = process.env): JupyterPython | NoJupyter {
  const tried = candidatePythons(env);
  for (const python of tried) {
    const found = probePython(python, env);
    if (found) return found;
  }
  return { tried, installLine: jupyterInstallLine() };
}

/** The command that installs Jupyter (with nbconvert and a Python kernel) on this platform. */
export function jupyterInstallLine(platform: NodeJS.Platform = process.platform): string {
  if (platform === "darwin") return "brew install jupyterlab   (or: python3 -m pip install --user jupyterlab)";
  if (platform === "win32") return "py -m pip install jupyterlab";
  if (platform === "linux" && (existsSync("/etc/debian_version") || existsSync("/usr/bin/apt-get"))) {
    const sudo = process.getuid?.() === 0 ? "" : "sudo ";
    return `${sudo}apt-get install -y jupyter-notebook jupyter-nbconvert python3-ipykernel`;
  }
  return "python3 -m pip install --user jupyterlab";
}

/**
 * The data dirs Jupyter would search when no python with Jupyter answers, as jupyter_core computes them:
 * JUPYTER_PATH, the user's data dir (JUPYTER_DATA_DIR, else the platform's default), the system dirs.
 */
export function defaultSearchPath(env: NodeJS.ProcessEnv = process.env): { dataDir: string; searchPath: string[] } {
  const home = env.HOME ?? os.homedir();
  let dataDir = env.JUPYTER_DATA_DIR;
  let system = ["/usr/local/share/jupyter", "/usr/share/jupyter"];
  if (process.platform === "darwin") dataDir ??= path.join(home, "Library", "Jupyter");
  else if (process.platform === "win32") {
    dataDir ??= path.join(env.APPDATA ?? path.join(home, "AppData", "Roaming"), "jupyter");
    system = [path.join(env.PROGRAMDATA ?? "C:\\ProgramData", "jupyter")];
  } else dataDir ??= path.join(env.XDG_DATA_HOME || path.join(home, ".local", "share"), "jupyter");
  const fromEnv = (env.JUPYTER_PATH ?? "").split(path.delimiter).filter(Boolean);
  return { dataDir, searchPath: [...new Set([...fromEnv, dataDir, ...system])] };
}
