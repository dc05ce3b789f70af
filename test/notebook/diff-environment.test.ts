/**
 * `diff` reads what each run recorded of itself (issue 43, item 3): the environments and data sources
 * that differ are shown in the summary and the report, as context (not a change of the results), and
 * papermill's per-cell times, which differ on every run, are set aside like execution counts.
 */
import { describe, expect, it } from "vitest";
import { diffNotebooks } from "../../src/notebook/diff";
import { reportHtml } from "../../src/notebook/diff/report";
import type { Notebook } from "../../src/notebook/ipynb";

function run(
  start: string,
  environment: Record<string, unknown>,
  data_sources: unknown[],
  printed = "value 1.5\n",
): Notebook {
  const papermill = (s: string, duration: number) => ({
    exception: false,
    start_time: `2026-11-${s}T09:00:00.000000+00:00`,
    end_time: `2026-11-${s}T09:00:0${duration}.000000+00:00`,
    duration,
    status: "completed",
  });
  return {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {
      papermill: { parameters: {}, start_time: `2026-11-${start}T09:00:00+00:00`, duration: 3, exception: null },
      risk_portal_lab: { parameters: {}, status: "ok", environment, data_sources },
    },
    cells: [
      {
        cell_type: "code",
        id: "a",
        source: "console.log(value)",
        metadata: { papermill: papermill(start, start === "20" ? 1 : 4) },
        outputs: [{ output_type: "stream", name: "stdout", text: printed }],
        execution_count: 1,
      },
    ],
  };
}

const env = { risk_portal_lab: "0.1.0", kernel: "tslab", node: "v22.1.0", tslab: "1.0.22", platform: "linux-x64" };
const sim = { source: "simulator", seed: 1, as_of: "2026-11-20" };

describe("diff and the runs' environments", () => {
  it("two runs alike but for per-cell times: no change, and no environment line", () => {
    const d = diffNotebooks(run("20", env, [sim]), run("27", env, [sim]), {
      beforeName: "a.ipynb",
      afterName: "b.ipynb",
    });
    expect(d.changed).toBe(false);
    expect(d.environment).toEqual([]);
    expect(d.summary).toBe("b: no change in 1 code cell (tolerance 1e-9)");
  });

  it("names the versions, kernel, commit and data source that differ, without counting them as a change", () => {
    const after = {
      ...env,
      node: "v26.0.0",
      kernel: "deno",
      tslab: undefined,
      deno: "2.9.6",
      git: { commit: "0123456789abcdef0123456789abcdef01234567", dirty: true },
    };
    const cassette = {
      source: "cassette",
      cassette: "x.json",
      cassette_mode: "replay",
      recorded_at: "2026-11-21T10:00:00Z",
    };
    const d = diffNotebooks(run("20", env, [sim]), run("27", after, [cassette]), { afterName: "b.ipynb" });
    expect(d.changed).toBe(false);
    expect(d.environment).toEqual([
      { what: "kernel", before: "tslab", after: "deno" },
      { what: "node", before: "v22.1.0", after: "v26.0.0" },
      { what: "tslab", before: "1.0.22" },
      { what: "deno", after: "2.9.6" },
      { what: "git", after: "0123456789ab + local changes" },
      { what: "data", before: "simulator seed 1, as of 2026-11-20", after: "cassette x.json (recorded 2026-11-21)" },
    ]);
    expect(d.summary).toBe(
      "b: no change in 1 code cell (tolerance 1e-9) · environment: kernel tslab → deno, node v22.1.0 → v26.0.0, tslab 1.0.22 → (none), deno (none) → 2.9.6, git (none) → 0123456789ab + local changes · data: simulator seed 1, as of 2026-11-20 → cassette x.json (recorded 2026-11-21)",
    );
    const html = reportHtml(d);
    expect(html).toContain("<tr><th>node</th><td>v22.1.0</td><td>→ v26.0.0</td></tr>");
  });

  it("a changed output is still a change, the environment beside it; a run that recorded nothing is not compared", () => {
    const d = diffNotebooks(run("20", env, [sim]), run("27", { ...env, node: "v24.0.0" }, [sim], "value 2.5\n"));
    expect(d.changed).toBe(true);
    expect(d.summary).toMatch(/1 of 1 code cell changed \(1 text\) · environment: node v22\.1\.0 → v24\.0\.0$/);
    const old = run("20", env, [sim]);
    old.metadata.risk_portal_lab = { parameters: {}, status: "ok" };
    expect(diffNotebooks(old, run("27", { ...env, node: "v24.0.0" }, [])).environment).toEqual([]);
  });
});
