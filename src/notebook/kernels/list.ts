/**
 * `risk-portal-lab kernels list` (alias `check`): for tslab and Deno, the kernelspec Jupyter would use (the
 * first on its search path: JUPYTER_PATH, the user's data dir, sys.prefix, the system dirs), its argv,
 * whether each absolute path in it exists, and a real start: the kernel launched from that argv with a
 * connection file, as Jupyter launches it, and `1 + 1` executed, timed.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { JupyterKernel, stripAnsi } from "../jupyter/kernel";
import type { Message } from "../jupyter/wire";
import { firstSpecDir } from "./install";
import { defaultSearchPath, findJupyterPython } from "./jupyter-python";
import { KERNEL_NAMES, type KernelSpec, type KernelSpecName } from "./runtimes";

export interface ListOptions {
  env?: NodeJS.ProcessEnv;
  /** The directory kernels are started in (default: the current one). */
  cwd?: string;
  /** How long a kernel may take to start and answer `1 + 1`, ms (default 120 s: tslab's first cell type-checks). */
  timeoutMs?: number;
  out?: (line: string) => void;
}

/** What a real start gave: the result's text/plain and the time from launch to result, or the error. */
export type StartResult = { ok: true; text: string; seconds: number } | { ok: false; error: string };

const REPAIR =
  "run `npx risk-portal-lab kernels install` in your notebook folder (the one whose node_modules has tslab and deno)";

/** After the reply and idle with no result yet, how long a late result may take (Deno's kernel sends idle before some outputs), ms. */
const LATE_RESULT_MS = 3000;

/** Runs `code` once; resolves with the result's text (execute_result, else stdout; "" when none), rejects on an error. */
function executeOnce(kernel: JupyterKernel, code: string, timeoutMs: number): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let text = "";
    let replied = false;
    let idle = false;
    let late: NodeJS.Timeout | undefined;
    const { msgId, reply } = kernel.execute(code, { storeHistory: false });
    const timer = setTimeout(
      () => finish(new Error(`no answer to \`${code}\` within ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
    const finish = (error?: Error) => {
      clearTimeout(timer);
      clearTimeout(late);
      kernel.off("iopub", onIopub);
      if (error) reject(error);
      else resolve(stripAnsi(text).trim());
    };
    const settled = () => {
      if (replied && text) finish();
      else if (replied && idle) late ??= setTimeout(() => finish(), LATE_RESULT_MS);
    };
    const onIopub = (m: Message) => {
      // The only execute this kernel gets: its results count whatever parent they carry (Deno's kernel
      // tags some outputs with another request's id); its idle and error must be this request's.
      const ours = m.parent_header.msg_id === msgId;
      if (!ours && m.header.msg_type !== "execute_result" && m.header.msg_type !== "stream") return;
      const content = m.content as { data?: Record<string, unknown>; execution_state?: string; text?: string };
      const { ename, evalue } = m.content as { ename?: string; evalue?: string };
      // Deno answers with an execute_result; tslab prints the last expression's value on stdout.
      if (m.header.msg_type === "execute_result") text = String(content.data?.["text/plain"] ?? "");
      if (m.header.msg_type === "stream") text ||= String(content.text ?? "");
      if (m.header.msg_type === "error") return finish(new Error(`${ename}: ${evalue}`));
      if (m.header.msg_type === "status" && content.execution_state === "idle") idle = true;
      settled();
    };
    kernel.on("iopub", onIopub);
    reply.then(
      (m) => {
        const content = m.content as { status?: string; ename?: string; evalue?: string };
        if (content.status !== "ok")
          return finish(new Error(`${content.ename ?? content.status}: ${content.evalue ?? ""}`));
        replied = true;
        settled();
      },
      (error: Error) => finish(error),
    );
    kernel.died.catch((error: Error) => finish(error));
  });
}

/** Starts the kernel as Jupyter would (argv with a connection file, the spec's env) and executes `1 + 1`. */
export async function startOnce(spec: KernelSpec, name: string, options: ListOptions = {}): Promise<StartResult> {
  const timeoutMs = options.timeoutMs ?? 120_000;
  const t0 = performance.now();
  let kernel: JupyterKernel | undefined;
  try {
    kernel = await JupyterKernel.start({
      argv: spec.argv,
      cwd: options.cwd ?? process.cwd(),
      env: { ...(options.env ?? process.env), ...spec.env },
      startTimeoutMs: timeoutMs,
      name: `${name}'s kernel`,
    });
    const text = await executeOnce(kernel, "1 + 1", timeoutMs);
    return { ok: true, text, seconds: (performance.now() - t0) / 1000 };
  } catch (error) {
    return { ok: false, error: (error as Error).message.split("\n").slice(0, 6).join("\n    ") };
  } finally {
    await kernel?.shutdown(500).catch(() => undefined);
  }
}

/** The spec Jupyter would use for `name`: its file and content, or why there is none usable. */
function readSpec(name: string, searchPath: readonly string[]): { file: string; spec?: KernelSpec; problem?: string } {
  const dir = firstSpecDir(name, searchPath);
  if (!dir) return { file: "", problem: `no kernelspec "${name}" in ${searchPath.join(", ")}` };
  const file = path.join(dir, "kernel.json");
  try {
    const spec = JSON.parse(readFileSync(file, "utf8")) as KernelSpec;
    if (!Array.isArray(spec.argv) || spec.argv.length === 0) return { file, problem: `${file} has no argv` };
    return { file, spec };
  } catch (error) {
    return { file, problem: `${file} is not readable JSON: ${(error as Error).message}` };
  }
}

/** The argv's paths: each absolute one and whether it exists; a bare command is a problem of its own. */
function pathLines(spec: KernelSpec): { lines: string[]; problems: string[] } {
  const lines: string[] = [];
  const problems: string[] = [];
  const [first] = spec.argv;
  if (first && !path.isAbsolute(first))
    problems.push(
      `argv[0] is a bare \`${first}\`: Jupyter looks it up on the PATH it was started with, where it usually is not`,
    );
  for (const arg of spec.argv.filter((a) => path.isAbsolute(a))) {
    const there = existsSync(arg);
    lines.push(`  ${there ? "ok     " : "MISSING"} ${arg}`);
    if (!there) problems.push(`${arg} does not exist`);
  }
  return { lines, problems };
}

/** Lists and starts both kernels; resolves to the exit code (0 when both are there and start). */
export async function listKernels(options: ListOptions = {}): Promise<number> {
  const env = options.env ?? process.env;
  const out = options.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  const jupyter = findJupyterPython(env);
  const searchPath = "python" in jupyter ? jupyter.searchPath : defaultSearchPath(env).searchPath;
  let bad = 0;
  if ("python" in jupyter) out(`Jupyter: ${jupyter.python} (jupyter_client ${jupyter.jupyterClient})`);
  else {
    bad++;
    out(
      `Jupyter: none found (no python among ${jupyter.tried.join(", ") || "python3, python"} imports jupyter_client): ${jupyter.installLine}`,
    );
  }
  out(`search path: ${searchPath.join(", ")}`);
  const specs = KERNEL_NAMES.map((name) => ({ name, ...readSpec(name, searchPath) }));
  const starts = await Promise.all(
    specs.map((s) => (s.spec ? startOnce(s.spec, s.name, { ...options, env }) : Promise.resolve(undefined))),
  );
  specs.forEach((s, i) => {
    if (!report(s.name, s, starts[i], out)) bad++;
  });
  if (bad > 0) out(`to repair: ${REPAIR}`);
  return bad > 0 ? 1 : 0;
}

/** Prints one kernel's lines; false when it is missing, broken or does not start. */
function report(
  name: KernelSpecName,
  found: { file: string; spec?: KernelSpec; problem?: string },
  start: StartResult | undefined,
  out: (line: string) => void,
): boolean {
  if (!found.spec) {
    out(`${name}: ${found.problem}`);
    return false;
  }
  out(`${name}: ${found.file}`);
  out(`  argv: ${found.spec.argv.join(" ")}`);
  const { lines, problems } = pathLines(found.spec);
  lines.forEach((l) => out(l));
  for (const p of problems) out(`  problem: ${p}`);
  if (start?.ok) out(`  starts: 1 + 1 = ${start.text || "(no result)"} in ${start.seconds.toFixed(1)} s`);
  else out(`  does not start: ${start?.error ?? "not tried"}`);
  return problems.length === 0 && start?.ok === true && start.text === "2";
}
