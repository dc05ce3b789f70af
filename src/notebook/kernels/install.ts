/**
 * `risk-portal-lab kernels install`: writes tslab's and Deno's kernel.json straight into Jupyter's data dir
 * (the user's by default, as `jupyter kernelspec install --user` would), with argv of absolute paths, so
 * that Jupyter starts them from any shell, any PATH. Overwrites a spec of the same name, which repairs one
 * written by `tslab install` (a bare `tslab` that Jupyter cannot find) or pointing at a folder since moved.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { findJupyterPython, type JupyterPython } from "./jupyter-python";
import {
  denoSpec,
  findKernelDeno,
  KERNEL_NAMES,
  MIN_NODE_MAJOR,
  RUNTIME_INSTALL,
  tslabSpec,
  type KernelSpec,
  type KernelSpecName,
} from "./runtimes";

/** Where the specs go: the user's data dir (default), the Jupyter python's sys.prefix, or <prefix>/share/jupyter. */
export type InstallScope = { kind: "user" } | { kind: "sys-prefix" } | { kind: "prefix"; prefix: string };

export interface InstallOptions {
  scope: InstallScope;
  /** The notebook folder whose node_modules hold tslab and deno (default: the current directory). */
  folder?: string;
  env?: NodeJS.ProcessEnv;
  /** The Node tslab's kernel will run under (default: the one running this). */
  node?: { path: string; version: string };
  out?: (line: string) => void;
}

/** An error the command reports in one message and exits 1 on. */
export class KernelsError extends Error {}

/** The data dir the scope names, for this Jupyter. */
function dataDirFor(scope: InstallScope, jupyter: JupyterPython): string {
  if (scope.kind === "user") return jupyter.dataDir;
  if (scope.kind === "sys-prefix") return path.join(jupyter.prefix, "share", "jupyter");
  return path.join(path.resolve(scope.prefix), "share", "jupyter");
}

/** The Node the kernel will run, checked to be new enough. */
function checkedNode(node: { path: string; version: string }): void {
  const major = Number(/^v?(\d+)\./.exec(node.version)?.[1]);
  if (!(major >= MIN_NODE_MAJOR))
    throw new KernelsError(
      `tslab's kernel would run under the Node running this command, ${node.path} (${node.version}), and risk-portal-lab needs Node ${MIN_NODE_MAJOR} or newer: run \`npx risk-portal-lab kernels install\` again with Node ${MIN_NODE_MAJOR}+ first on PATH (e.g. \`nvm use ${MIN_NODE_MAJOR}\`)`,
    );
}

/** The first python with Jupyter, or a KernelsError naming the pythons tried and the install line. */
export function requireJupyter(env: NodeJS.ProcessEnv): JupyterPython {
  const found = findJupyterPython(env);
  if ("python" in found) return found;
  throw new KernelsError(
    `no Python with Jupyter found (none of ${found.tried.join(", ") || "python3, python"} can import jupyter_client).\nInstall Jupyter:\n  ${found.installLine}\nthen run \`npx risk-portal-lab kernels install\` again.`,
  );
}

/** The argv of the kernel.json already at `file`, when there is a readable one. */
function previousArgv(file: string): string[] | undefined {
  try {
    const argv = (JSON.parse(readFileSync(file, "utf8")) as Partial<KernelSpec>).argv;
    return Array.isArray(argv) ? argv.map(String) : undefined;
  } catch {
    return undefined;
  }
}

/** The spec to write for `name` from this folder, or the line saying why there is none. */
function specFor(name: KernelSpecName, folder: string, node: string, env: NodeJS.ProcessEnv): KernelSpec | string {
  if (name === "tslab")
    return (
      tslabSpec(folder, node) ??
      `skipped tslab (TypeScript): no tslab in ${path.join(folder, "node_modules")}: run \`${RUNTIME_INSTALL.tslab}\` here, then this again`
    );
  const deno = findKernelDeno(folder, env);
  return deno
    ? denoSpec(deno.binary)
    : `skipped deno: no deno in ${path.join(folder, "node_modules")} nor on PATH: run \`${RUNTIME_INSTALL.deno}\` here, then this again`;
}

/** The first data dir on Jupyter's search path holding a kernelspec `name`. */
export function firstSpecDir(name: string, searchPath: readonly string[]): string | undefined {
  for (const dir of searchPath) {
    const file = path.join(dir, "kernels", name, "kernel.json");
    try {
      readFileSync(file);
      return path.join(dir, "kernels", name);
    } catch {
      // not here: the next dir
    }
  }
  return undefined;
}

/** A note when Jupyter would not use the spec just written: another comes first, or the dir is not searched. */
function shadowNote(name: string, dir: string, dataDir: string, searchPath: readonly string[]): string | undefined {
  const first = firstSpecDir(name, searchPath);
  if (first && path.resolve(first) === path.resolve(dir)) return undefined;
  if (!searchPath.some((d) => path.resolve(d) === path.resolve(dataDir)))
    return `  note: Jupyter does not search ${dataDir} (its search path: ${searchPath.join(", ")}): add it to JUPYTER_PATH`;
  return `  note: Jupyter finds ${first} first (earlier on its search path: ${searchPath.join(", ")}): remove that one, or install with the scope that comes first`;
}

/** Registers both kernels; resolves to the exit code (0 when at least one was registered). */
export function installKernels(options: InstallOptions): number {
  const env = options.env ?? process.env;
  const out = options.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  const folder = path.resolve(options.folder ?? process.cwd());
  const node = options.node ?? { path: process.execPath, version: process.version };
  checkedNode(node);
  const jupyter = requireJupyter(env);
  const dataDir = dataDirFor(options.scope, jupyter);
  out(`Jupyter: ${jupyter.python} (jupyter_client ${jupyter.jupyterClient}); kernelspecs go to ${dataDir}`);
  let registered = 0;
  for (const name of KERNEL_NAMES) {
    const spec = specFor(name, folder, node.path, env);
    if (typeof spec === "string") {
      out(spec);
      continue;
    }
    const dir = path.join(dataDir, "kernels", name);
    const file = path.join(dir, "kernel.json");
    const before = previousArgv(file);
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, `${JSON.stringify(spec, null, 1)}\n`);
    registered++;
    out(`registered ${name} ("${spec.display_name}"): ${file}`);
    out(`  argv: ${spec.argv.join(" ")}`);
    if (before && before.join("\0") !== spec.argv.join("\0")) out(`  replaced argv: ${before.join(" ")}`);
    const shadow = shadowNote(name, dir, dataDir, jupyter.searchPath);
    if (shadow) out(shadow);
  }
  if (registered === 0) {
    out("no kernel registered: install tslab or deno in this folder first (`npm install tslab deno`)");
    return 1;
  }
  out("check them (a real start of each): npx risk-portal-lab kernels list");
  return 0;
}
