/**
 * The package under Deno (the runtime of Deno's Jupyter kernel), loaded from node_modules as it is: a
 * real `deno run` of a TypeScript module beside the notebooks that imports "risk-portal-lab" by name, as
 * a notebook cell does, starts the simulator, calls it over HTTP, and makes a DataFrame. Deno comes from
 * the npm registry (the `deno` devDependency: the binary inside a package). Without `"type": "commonjs"`
 * in package.json Deno reads dist/*.js as ES modules and finds no exports.
 */
import { execFile } from "node:child_process";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = path.resolve(__dirname, "../..");
const deno = path.join(root, "node_modules", ".bin", "deno");
// Beside the notebooks, where a notebook's cells resolve the package.
const script = path.join(root, "notebooks", `.deno-load-check-${process.pid}.ts`);

const DENO_SCRIPT = `
import { RiskPortalClient, RiskPortalError, startSimulator, frames, plot, vol, STRIKE_TYPE } from "risk-portal-lab";
const sim = await startSimulator({ seed: 1, rateLimit: false });
try {
  const rp = new RiskPortalClient({ baseUrl: sim.url, auth: { apiKey: sim.credentials.apiKey }, retry: false });
  const curve = await rp.rateAsset.getCurve({ currency: "EUR", market_date: "2026-11-20" });
  const df = frames.yieldCurve(curve);
  let refused = "";
  try {
    await rp.rateAsset.getCurve({ currency: "EUR", market_dat: "2026-11-20" } as never);
  } catch (error) {
    refused = error instanceof RiskPortalError ? error.name + ": " + error.message : "not a RiskPortalError";
  }
  const surface = vol.buildSurface({ spot: 100, referenceDate: "2026-11-20", maturities: [30, 365], atmVols: [0.2, 0.18], skew: -0.1 });
  const vols = Array.from(vol.fromSurface(surface).vols(91, [90, 100, 110], STRIKE_TYPE.PercentForward));
  const fig = plot.yieldCurve(curve);
  console.log(JSON.stringify({ deno: Deno.version.deno, shape: df.shape, columns: df.columns, refused, vols, traces: fig.data.length }));
} finally {
  await sim.close();
}
`;

afterAll(() => rmSync(script, { force: true }));

describe("the package under Deno", () => {
  it("the deno binary from the npm registry runs", async () => {
    expect(existsSync(deno), `${deno} is missing: run \`npm ci\` (deno is a devDependency)`).toBe(true);
    const { stdout } = await run(deno, ["--version"], { encoding: "utf8", timeout: 30_000 });
    expect(stdout).toMatch(/^deno 2\./);
  });

  it('imports "risk-portal-lab" from node_modules, starts the simulator, calls it, and makes frames, figures and vols', async () => {
    writeFileSync(script, DENO_SCRIPT);
    const { stdout } = await run(deno, ["run", "--allow-all", "--quiet", script], {
      cwd: path.dirname(script),
      encoding: "utf8",
      timeout: 120_000,
      env: { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
    });
    const report = JSON.parse(stdout.trim().split("\n").at(-1)!) as {
      deno: string;
      shape: [number, number];
      columns: string[];
      refused: string;
      vols: number[];
      traces: number;
    };
    expect(report.deno).toMatch(/^2\./);
    expect(report.shape[0]).toBeGreaterThan(10);
    expect(report.columns).toEqual(expect.arrayContaining(["maturity", "rate"]));
    expect(report.refused).toMatch(/^RequestValidationError: .*market_dat.*market_date/);
    expect(report.vols).toHaveLength(3);
    for (const v of report.vols) expect(v).toBeGreaterThan(0.05);
    expect(report.traces).toBeGreaterThan(0);
  }, 150_000);
});
