/**
 * Opt-in stress run of test/notebook/show-deno.ipynb under Deno's kernel through plain
 * `jupyter nbconvert --execute` while busy-loop child processes load every core: counts the runs that
 * lose a display (the first chart's cell must hold the chart and every plotly.js part, the second
 * chart's cell its chart, the last cell "done"). The busy loops live only as long as the runs (killed
 * at the end, on an error, and on Ctrl-C).
 *
 *   node scripts/deno-display-stress.mjs [runs=10] [busy loops=cores] [nice=0] [stall ms=0]
 *
 * `nice` > 0 runs nbconvert (and so the kernel) at that lower priority than the busy loops: the kernel
 * then gets the CPU in slices, as on a loaded CI machine. `stall ms` > 0 stops the frontend (nbconvert,
 * not the kernel) for that long in every twice that long: it reads the kernel's messages late, as a
 * frontend starved of CPU does.
 *
 * STRESS_ROOTS=/a:/b runs the notebook of each checkout in turn (one run each, alternating: a before/after
 * comparison under the same load); the default is this checkout.
 *
 * Needs `npm run build` (the notebook imports this package's dist/) and the `deno` kernelspec
 * (scripts/setup-jupyter.sh). Prints one line per run and the count of runs that lost something.
 */
import { spawn } from "node:child_process";
import { clearInterval, setInterval } from "node:timers";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const roots = process.env.STRESS_ROOTS?.split(":") ?? [root];
const notebookOf = (r) => path.join(r, "test", "notebook", "show-deno.ipynb");
const PART_MIME = "application/vnd.risk-portal-lab.plotly-part+json";
const PLOTLY_MIME = "application/vnd.plotly.v1+json";
const runs = Number(process.argv[2] ?? 10);
const loops = Number(process.argv[3] ?? os.availableParallelism());
const nice = Number(process.argv[4] ?? 0);
const stallMs = Number(process.argv[5] ?? 0);

const busy = [];
const stopBusy = () => {
  for (const child of busy.splice(0)) child.kill("SIGKILL");
};
process.on("exit", stopBusy);
process.on("SIGINT", () => process.exit(130));

/** What a run's executed notebook lost: an empty array when it kept everything. */
function losses(file) {
  const cells = JSON.parse(readFileSync(file, "utf8")).cells;
  const outputs = (id) => cells.find((c) => c.id === id)?.outputs ?? [];
  const lost = [];
  const first = outputs("show-deno-2");
  const parts = first.filter((o) => o.data?.[PART_MIME]).map((o) => o.data[PART_MIME]);
  const of = parts[0]?.of ?? 0;
  if (!first.some((o) => o.data?.[PLOTLY_MIME])) lost.push("first chart");
  const missing = [];
  for (let k = 1; k <= Math.max(of, 30); k++) if (!parts.some((p) => p.part === k)) missing.push(k);
  if (missing.length > 0) lost.push(`parts ${missing[0]}–${missing.at(-1)} (${missing.length}) of ${of || "?"}`);
  if (!outputs("show-deno-3").some((o) => o.data?.[PLOTLY_MIME])) lost.push("second chart");
  const done = outputs("show-deno-4")
    .map((o) => [o.text].flat().join(""))
    .join("");
  if (done !== "done\n") lost.push(`last cell printed ${JSON.stringify(done)}`);
  return lost;
}

/**
 * `jupyter nbconvert --execute` of `notebook` (at `nice`); with `stallMs` > 0 the frontend (nbconvert's
 * process, not the kernel) is stopped for `stallMs` in every 2 × `stallMs`, as a starved frontend is.
 */
function nbconvert(notebook, output) {
  const args = ["nbconvert", "--to", "notebook", "--execute", "--ExecutePreprocessor.kernel_name=deno"];
  args.push("--ExecutePreprocessor.timeout=120", "--output-dir", outDir, "--output", output, notebook);
  const child = spawn("nice", [`-n${nice}`, "jupyter", ...args], {
    cwd: path.dirname(notebook),
    env: { ...process.env, PYDEVD_DISABLE_FILE_VALIDATION: "1" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (c) => (stderr += c));
  let stopped = false;
  const stalls =
    stallMs > 0
      ? setInterval(() => {
          stopped = !stopped;
          child.kill(stopped ? "SIGSTOP" : "SIGCONT");
        }, stallMs)
      : undefined;
  const timer = setTimeout(() => child.kill("SIGKILL"), 240_000);
  return new Promise((resolve) =>
    child.on("close", (status, signal) => {
      clearInterval(stalls);
      clearTimeout(timer);
      resolve({ status, signal, stderr });
    }),
  );
}

const outDir = mkdtempSync(path.join(os.tmpdir(), "rpl-deno-stress-"));
try {
  for (let i = 0; i < loops; i++) busy.push(spawn(process.execPath, ["-e", "for(;;){}"], { stdio: "ignore" }));
  console.log(
    `${runs} runs of show-deno.ipynb (nice ${nice}, frontend stalls ${stallMs} ms) in ${roots.join(", ")}, ${loops} busy loops, load average ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );
  const failed = new Map(roots.map((r) => [r, 0]));
  for (let run = 1; run <= runs * roots.length; run++) {
    const checkout = roots[(run - 1) % roots.length];
    const notebook = notebookOf(checkout);
    const started = performance.now();
    const result = await nbconvert(notebook, `run-${run}`);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const lost =
      result.status === 0
        ? losses(path.join(outDir, `run-${run}.ipynb`))
        : [`nbconvert exited ${result.status ?? result.signal}: ${String(result.stderr).trim().split("\n").at(-1)}`];
    if (lost.length > 0) failed.set(checkout, failed.get(checkout) + 1);
    console.log(
      `run ${run} (${checkout}): ${seconds} s, ${lost.length === 0 ? "kept everything" : `LOST ${lost.join("; ")}`}`,
    );
  }
  for (const [checkout, n] of failed) console.log(`${checkout}: ${n} of ${runs} runs lost a display`);
  console.log(
    `load average ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );
  process.exitCode = [...failed.values()].some((n) => n > 0) ? 1 : 0;
} finally {
  stopBusy();
  rmSync(outDir, { recursive: true, force: true });
}
