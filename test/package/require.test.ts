/**
 * The built package as a user gets it: a plain `node` process that does `require("risk-portal-lab")` by
 * name (resolved through node_modules/risk-portal-lab, the devDependency link `file:.` to this repo) and
 * must get the client without loading danfo/tensorflow or plotly (they are lazy). dist/ is built by
 * test/global-setup.ts before the tests run.
 */
import { execFile } from "node:child_process";
import { existsSync, readFileSync, realpathSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = path.resolve(__dirname, "../..");

/** Module names that must not be in `require.cache` after importing the package. */
const HEAVY_MODULES = ["danfojs-node", "@tensorflow", "plotly.js-dist"];

// Runs in the child process: CommonJS, no TypeScript.
const CHILD_SCRIPT = `
const { inspect } = require("node:util");
const pkg = require("risk-portal-lab");
const client = new pkg.RiskPortalClient({ baseUrl: "http://127.0.0.1:9", auth: { token: "t-1234" } });
const cached = Object.keys(require.cache);
const heavy = Object.fromEntries(${JSON.stringify(HEAVY_MODULES)}.map((m) => [m, cached.some((k) => k.includes(m))]));
process.stdout.write(JSON.stringify({
  resolved: require.resolve("risk-portal-lab"),
  keys: Object.keys(pkg),
  clientIsClass: typeof pkg.RiskPortalClient === "function" && client instanceof pkg.RiskPortalClient,
  inspected: inspect(client),
  heavy,
}));
`;

interface ChildReport {
  resolved: string;
  keys: string[];
  clientIsClass: boolean;
  inspected: string;
  heavy: Record<string, boolean>;
}

describe('require("risk-portal-lab") from a plain node process', () => {
  it("resolves by name through node_modules/risk-portal-lab, a link to the repo root", () => {
    const link = path.join(root, "node_modules", "risk-portal-lab");
    expect(
      existsSync(link),
      `${link} is missing: run \`npm ci\` (the devDependency "risk-portal-lab": "file:" creates it)`,
    ).toBe(true);
    expect(realpathSync(link)).toBe(realpathSync(root));
  });

  it("has main and types pointing at built files", () => {
    const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { main?: string; types?: string };
    expect(pkg.main).toBe("dist/index.js");
    expect(pkg.types).toBe("dist/index.d.ts");
    expect(existsSync(path.join(root, pkg.main ?? ""))).toBe(true);
    expect(existsSync(path.join(root, pkg.types ?? ""))).toBe(true);
    expect(existsSync(path.join(root, "dist", "index.d.ts"))).toBe(true);
  });

  it("exports the client and loads neither danfo/tensorflow nor plotly", async () => {
    const { stdout } = await run(process.execPath, ["-e", CHILD_SCRIPT], {
      cwd: root,
      encoding: "utf8",
      timeout: 30_000,
    });
    const report = JSON.parse(stdout) as ChildReport;

    expect(realpathSync(report.resolved)).toBe(realpathSync(path.join(root, "dist", "index.js")));
    expect(report.keys).toContain("RiskPortalClient");
    expect(report.keys).toContain("STRIKE_TYPE");
    expect(report.clientIsClass).toBe(true);
    expect(report.inspected).toMatch(/^RiskPortalClient \{ baseUrl: "http:\/\/127\.0\.0\.1:9"/);
    expect(report.inspected).not.toContain("t-1234");
    expect(report.heavy).toEqual(Object.fromEntries(HEAVY_MODULES.map((m) => [m, false])));
  });

  it("an uncaught error from the package prints a readable report, not the bundle's source", async () => {
    // Node prints the source line of the throwing frame above the stack: a bundle on a few huge lines
    // printed hundreds of kB of it (the bundle's lines are now at most a few hundred characters).
    const script = `require("risk-portal-lab").vol.black76({ forward: -1, strike: 1, maturity: 1, vol: 0.2, kind: "call" });`;
    const failed = await run(process.execPath, ["-e", script], { cwd: root, encoding: "utf8", timeout: 30_000 }).then(
      () => undefined,
      (error: { code?: number; stderr?: string }) => error,
    );
    expect(failed?.code).toBe(1);
    const stderr = failed?.stderr ?? "";
    // (Booleans and lengths, not the text: a failure here must not print the bundle either.)
    expect(stderr.includes("VolModelError: forward must be a finite number > 0; got -1"), stderr.slice(0, 300)).toBe(
      true,
    );
    expect(stderr.length, stderr.slice(0, 300)).toBeLessThan(5_000);
    expect(Math.max(...stderr.split("\n").map((line) => line.length))).toBeLessThan(1_000);
  });
});
