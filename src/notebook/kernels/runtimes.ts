/**
 * The two kernels' kernelspecs, built from what is installed in the user's notebook folder: argv of absolute
 * paths only, since Jupyter starts a kernel with its own PATH (JupyterLab's, a desktop launcher's), where
 * neither the folder's node_modules/.bin nor the right Node is. tslab runs under the Node that runs this
 * command (tslab's own bin script would pick whatever `node` is first on that PATH); Deno's kernel is the
 * native deno binary, not npm's Node wrapper around it.
 */
import { existsSync, readdirSync, realpathSync } from "node:fs";
import { executable } from "../jupyter/find-deno";
import os from "node:os";
import path from "node:path";
import { onPath } from "./jupyter-python";

/** The names this package registers, in the order it prints them. */
export const KERNEL_NAMES = ["tslab", "deno"] as const;
export type KernelSpecName = (typeof KERNEL_NAMES)[number];

/** A kernel.json's fields (those Jupyter reads and the two kernels' own installers write). */
export interface KernelSpec {
  argv: string[];
  display_name: string;
  language: string;
  env?: Record<string, string>;
  metadata?: Record<string, unknown>;
}

/** The lowest Node major version the package (and tslab running it) supports. */
export const MIN_NODE_MAJOR = 22;

/** What to run to add a kernel's runtime to the folder. */
export const RUNTIME_INSTALL: Record<KernelSpecName, string> = {
  tslab: "npm install tslab",
  deno: "npm install deno",
};

/** `node_modules/<rel>` in `folder` or the nearest folder above it that has one (Node's own lookup). */
function inNodeModules(folder: string, rel: string, test: (file: string) => boolean): string | undefined {
  for (let d = path.resolve(folder); ; d = path.dirname(d)) {
    const file = path.join(d, "node_modules", rel);
    if (test(file)) return realpathSync(file);
    if (path.dirname(d) === d) return undefined;
  }
}

/** tslab's kernelspec for `folder`: this Node and the folder's tslab, or undefined when it has no tslab. */
export function tslabSpec(folder: string, node = process.execPath): KernelSpec | undefined {
  const bin = inNodeModules(folder, path.join("tslab", "bin", "tslab"), existsSync);
  if (!bin) return undefined;
  // As tslab's own `install` writes it (python/install.py), with node and tslab's script made absolute.
  return {
    argv: [node, bin, "kernel", "--config-path", "{connection_file}"],
    display_name: "TypeScript",
    language: "typescript",
  };
}

/** The @deno/<platform> package npm picks for this machine (deno's install_api.cjs does the same). */
function denoTargets(): string[] {
  const platform = os.platform();
  const arch = os.arch() === "arm64" ? "arm64" : "x64";
  return platform === "linux" ? [`linux-${arch}-glibc`, `linux-${arch}-musl`] : [`${platform}-${arch}`];
}

/** The folder's native deno binary: node_modules/deno/deno (made by deno's postinstall), else @deno/<target>/deno. */
function folderDeno(folder: string): string | undefined {
  const exe = process.platform === "win32" ? "deno.exe" : "deno";
  const direct = inNodeModules(folder, path.join("deno", exe), executable);
  if (direct) return direct;
  for (const target of denoTargets()) {
    const found = inNodeModules(folder, path.join("@deno", target, exe), executable);
    if (found) return found;
  }
  // Any other @deno/* binary npm installed (its optionalDependencies install only the matching one).
  const scope = inNodeModules(folder, "@deno", existsSync);
  for (const entry of scope ? readdirSync(scope) : []) {
    const file = path.join(scope!, entry, exe);
    if (executable(file)) return realpathSync(file);
  }
  return undefined;
}

/** Where the deno for Deno's kernel comes from: the folder's node_modules, or PATH. */
export interface DenoFound {
  binary: string;
  from: "folder" | "PATH";
}

/** The folder's deno, else `deno` on PATH; undefined when there is neither. */
export function findKernelDeno(folder: string, env: NodeJS.ProcessEnv = process.env): DenoFound | undefined {
  const binary = folderDeno(folder);
  if (binary) return { binary, from: "folder" };
  const onPathDeno = onPath("deno", env);
  if (!onPathDeno) return undefined;
  // npm's node_modules/.bin/deno on PATH is a Node script: the binary beside its target instead.
  const real = realpathSync(onPathDeno);
  if (/\.c?js$/.test(real)) {
    const beside = path.join(path.dirname(real), process.platform === "win32" ? "deno.exe" : "deno");
    return executable(beside) ? { binary: beside, from: "PATH" } : undefined;
  }
  // As found, not resolved: a package manager's link (Homebrew's) survives an upgrade, its target does not.
  return { binary: onPathDeno, from: "PATH" };
}

/** Deno's kernelspec, as `deno jupyter --install` writes it, with deno's absolute path. */
export function denoSpec(deno: string): KernelSpec {
  return {
    argv: [deno, "jupyter", "--kernel", "--conn", "{connection_file}"],
    display_name: "Deno",
    language: "typescript",
  };
}
