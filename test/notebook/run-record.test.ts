/**
 * A run says what made it (issue 43, item 3): the executed notebook holds papermill's record
 * (`metadata.papermill`: parameters, start and end time, duration in seconds, exception; per code cell:
 * start, end, duration, status) and ours (`metadata.risk_portal_lab.environment`: the package's, Node's
 * and tslab's or Deno's versions, the kernel, the git commit of the notebook's folder and whether it had
 * local changes; `data_sources`: where each `connect()` got its data), under tslab (in the CLI's worker
 * process) and under Deno's kernel.
 *
 * A tiny notebook in a temporary git work tree, with the package linked as node_modules/risk-portal-lab,
 * run through the built CLI as a user runs it.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { gitState, papermillTime, seconds } from "../../src/notebook/run-record";
import { inCI, missingDeno, root, runCli } from "./executed";

const CLI_TIMEOUT_MS = 120_000;
const dir = mkdtempSync(path.join(tmpdir(), "rpl-run-record-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
mkdirSync(path.join(dir, "node_modules"));
symlinkSync(root, path.join(dir, "node_modules", "risk-portal-lab"));

function notebook(name: string, kernel: "tslab" | "deno"): string {
  const code = (source: string, tags?: string[]) => ({
    cell_type: "code",
    metadata: tags ? { tags } : {},
    source,
    outputs: [],
    execution_count: null,
  });
  const nb = {
    nbformat: 4,
    nbformat_minor: 4,
    metadata: { kernelspec: { name: kernel, display_name: kernel, language: "typescript" } },
    cells: [
      { cell_type: "markdown", metadata: {}, source: "# Record check" },
      code("const seed: number = 1;", ["parameters"]),
      code(
        'import { connect } from "risk-portal-lab";\nconst conn = await connect({ simulator: { seed: seed } });\nawait conn.close();\nconsole.log("seed=" + seed);',
      ),
      code('await new Promise((r) => setTimeout(r, 150));\nconsole.log("slept");'),
    ],
  };
  const file = path.join(dir, `${name}.ipynb`);
  writeFileSync(file, JSON.stringify(nb, null, 1));
  return file;
}
const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, encoding: "utf8" }).trim();
const tslabFile = notebook("record-tslab", "tslab");
const denoFile = notebook("record-deno", "deno");
writeFileSync(path.join(dir, ".gitignore"), "node_modules\nout*\n");
// Deno resolves a bare import through package.json's dependencies.
writeFileSync(path.join(dir, "package.json"), JSON.stringify({ dependencies: { "risk-portal-lab": "*" } }));
git("init", "-q");
git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "empty");
git("add", "-A");
git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "notebooks");
const commit = git("rev-parse", "HEAD");

const version = (JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { version: string }).version;
const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/;

interface Executed {
  metadata: { papermill: Record<string, unknown>; risk_portal_lab: Record<string, unknown> };
  cells: { cell_type: string; metadata: { papermill?: Record<string, unknown> } }[];
}

async function runRecord(file: string, out: string, extra: string[] = []): Promise<{ nb: Executed; wallS: number }> {
  const r = await runCli(["run", file, "--param", "seed=2", "--out", out, ...extra], CLI_TIMEOUT_MS);
  expect(r.code, r.stderr).toBe(0);
  const nb = JSON.parse(readFileSync(path.join(out, path.basename(file)), "utf8")) as Executed;
  return { nb, wallS: r.ms / 1000 };
}

/** papermill's run record and every code cell's, checked against the run's wall time. */
function expectPapermill(nb: Executed, wallS: number): void {
  const pm = nb.metadata.papermill;
  expect(pm.parameters).toEqual({ seed: 2 });
  expect(pm.exception).toBeNull();
  expect(pm.start_time).toMatch(ISO_UTC);
  expect(pm.end_time).toMatch(ISO_UTC);
  const span = (Date.parse(pm.end_time as string) - Date.parse(pm.start_time as string)) / 1000;
  expect(pm.duration as number).toBeGreaterThan(0);
  expect(pm.duration as number).toBeLessThanOrEqual(wallS);
  expect(Math.abs(span - (pm.duration as number))).toBeLessThan(0.002);
  const code = nb.cells.filter((c) => c.cell_type === "code");
  expect(code).toHaveLength(4); // parameters, injected, connect, sleep
  for (const c of code) {
    expect(c.metadata.papermill).toMatchObject({ status: "completed", exception: false });
    expect(c.metadata.papermill!.start_time).toMatch(ISO_UTC);
    expect(c.metadata.papermill!.duration as number).toBeLessThanOrEqual(pm.duration as number);
  }
  // The cell that sleeps 150 ms took at least that, and started after the cell before it ended.
  const [, , connectCell, sleepCell] = code.map((c) => c.metadata.papermill!);
  expect(sleepCell!.duration as number).toBeGreaterThanOrEqual(0.15);
  expect(Date.parse(sleepCell!.start_time as string)).toBeGreaterThanOrEqual(
    Date.parse(connectCell!.end_time as string) - 1,
  );
  expect(nb.cells[0]!.metadata.papermill).toBeUndefined(); // markdown
}

describe("papermill's times, and the run's environment", () => {
  it("papermillTime writes Python's isoformat of a UTC time; seconds keeps microseconds", () => {
    expect(papermillTime(Date.UTC(2026, 10, 20, 9, 30, 0, 123) + 0.456)).toBe("2026-11-20T09:30:00.123456+00:00");
    expect(papermillTime(Date.UTC(2026, 10, 20, 9, 30, 59, 999) + 0.5)).toBe("2026-11-20T09:30:59.999500+00:00");
    expect(seconds(1000, 2234.5675)).toBe(1.234568);
  });

  it("gitState names the commit, and whether tracked files changed (untracked ones do not count)", async () => {
    expect(await gitState(dir)).toEqual({ commit, dirty: false });
    writeFileSync(path.join(dir, "untracked.txt"), "x");
    expect(await gitState(dir)).toEqual({ commit, dirty: false });
    const original = readFileSync(tslabFile, "utf8");
    writeFileSync(tslabFile, `${original}\n`);
    expect(await gitState(dir)).toEqual({ commit, dirty: true });
    writeFileSync(tslabFile, original);
    rmSync(path.join(dir, "untracked.txt"));
    expect(await gitState(tmpdir())).toBeUndefined();
  });

  it("a tslab run (in the CLI's worker process) records papermill's metadata, the versions, the data source and the commit", async () => {
    const { nb, wallS } = await runRecord(tslabFile, path.join(dir, "out-tslab"));
    expectPapermill(nb, wallS);
    const tslab = (
      JSON.parse(readFileSync(path.join(root, "node_modules", "tslab", "package.json"), "utf8")) as {
        version: string;
      }
    ).version;
    expect(nb.metadata.risk_portal_lab).toMatchObject({
      parameters: { seed: 2 },
      status: "ok",
      kernel: "tslab",
      environment: {
        risk_portal_lab: version,
        kernel: "tslab",
        node: process.version,
        tslab,
        git: { commit, dirty: false },
      },
      data_sources: [{ source: "simulator", seed: 2, as_of: "2026-11-20" }],
    });
  }, 150_000);

  const noDeno = missingDeno();
  it.skipIf(noDeno !== undefined && !inCI)(
    "a Deno run records the same, with Deno's version",
    async () => {
      const { nb, wallS } = await runRecord(denoFile, path.join(dir, "out-deno"), ["--kernel", "deno"]);
      expectPapermill(nb, wallS);
      const env = nb.metadata.risk_portal_lab.environment as Record<string, unknown>;
      expect(env).toMatchObject({ risk_portal_lab: version, kernel: "deno", git: { commit, dirty: false } });
      expect(env.deno).toMatch(/^\d+\.\d+\.\d+/);
      expect(nb.metadata.risk_portal_lab.data_sources).toEqual([{ source: "simulator", seed: 2, as_of: "2026-11-20" }]);
    },
    150_000,
  );
});
