/**
 * Re-recording a cassette loses nothing (issue 44, item 6): a recording goes to `<cassette>.recording`
 * beside it and replaces the cassette only when it finishes (`cassette.finish()`, `conn.close()`, or the
 * process ending with exit code 0); a recording that fails midway (an exception, a kill) leaves the good
 * cassette as it was, and says so. Real files, the real simulator, real child processes.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { RiskPortalClient, startSimulator, type Simulator } from "../../src";
import { Cassette } from "../../src/internals";
import { closeAllConnections, connect } from "../../src/notebook/connect";

const CHILD = path.join(__dirname, "fixtures", "record-child.mjs");
let sim: Simulator;
let dir: string;
beforeAll(async () => {
  sim = await startSimulator({ rateLimit: false });
  dir = mkdtempSync(path.join(tmpdir(), "rpl-cassette-rerecord-"));
});
afterAll(async () => {
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

const auth = () => ({ apiKey: sim.credentials.apiKey });
let files = 0;

/** A good cassette of two exchanges (LookBacks, RateAsset USD), recorded and finished; its text. */
async function goodCassette(): Promise<{ file: string; text: string }> {
  const file = path.join(dir, `cassette-${++files}.json`);
  const rp = new RiskPortalClient({ baseUrl: sim.url, auth: auth(), cassette: { path: file, mode: "record" } });
  await rp.report.lookBacks();
  await rp.rateAsset.getCurve({ currency: "USD" });
  rp.cassette!.finish();
  return { file, text: readFileSync(file, "utf8") };
}

/** Runs test/record/fixtures/record-child.mjs recording `count` exchanges; `kill` after that many lines. */
function child(file: string, count: number, options: { apiKey?: string; killAfter?: number } = {}) {
  const proc = spawn(process.execPath, [
    CHILD,
    sim.url,
    options.apiKey ?? sim.credentials.apiKey,
    file,
    "0",
    String(count),
    "record",
  ]);
  let stderr = "";
  proc.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  let lines = 0;
  createInterface({ input: proc.stdout }).on("line", (line) => {
    if (line === "ready") proc.stdin.write("go\n");
    if (++lines === options.killAfter) proc.kill("SIGKILL");
  });
  return new Promise<{ code: number | null; stderr: string }>((resolve) =>
    proc.on("close", (code) => resolve({ code, stderr })),
  );
}

describe("re-recording a cassette", () => {
  it("opening a recording leaves the cassette as it is; finish() puts the recording in its place", async () => {
    const { file, text } = await goodCassette();
    const rp = new RiskPortalClient({ baseUrl: sim.url, auth: auth(), cassette: { path: file, mode: "record" } });
    expect(readFileSync(file, "utf8")).toBe(text);
    await rp.rateAsset.getCurve({ currency: "EUR" });
    expect(readFileSync(file, "utf8")).toBe(text);
    expect(Cassette.read(`${file}.recording`)!.exchanges.map((e) => e.operation)).toEqual(["RateAsset"]);
    rp.cassette!.finish();
    expect(Cassette.read(file)!.exchanges.map((e) => e.request.body)).toMatchObject([{ currency: "EUR" }]);
    expect(existsSync(`${file}.recording`)).toBe(false);
    rp.cassette!.finish(); // once is enough; again changes nothing
    expect(Cassette.read(file)!.exchanges).toHaveLength(1);
  });

  it("a notebook that ends before its conn.close() (the runner ends its session) leaves the cassette as it was, and says so", async () => {
    const { file, text } = await goodCassette();
    const conn = await connect({ cassette: file, mode: "record", env: {}, log: () => undefined });
    await conn.rp.report.lookBacks();
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      await closeAllConnections();
      expect(stderr).toHaveBeenCalledWith(
        `risk-portal-lab: the recording of the cassette ${file} was not finished (the notebook ended before its conn.close()): the cassette is as it was; what was recorded is in ${file}.recording\n`,
      );
    } finally {
      stderr.mockRestore();
    }
    expect(readFileSync(file, "utf8")).toBe(text);
    await conn.close(); // too late: the recording was left for good
    expect(readFileSync(file, "utf8")).toBe(text);
  });

  it("a recording process killed midway leaves the good cassette as it was, and what it recorded beside it", async () => {
    const { file, text } = await goodCassette();
    const { code } = await child(file, 100_000, { killAfter: 1 + 5 });
    expect(code).toBe(null);
    expect(readFileSync(file, "utf8")).toBe(text);
    expect(Cassette.read(`${file}.recording`)!.exchanges.length).toBeGreaterThanOrEqual(5);
  }, 30_000);

  it("a recording process that fails (exit code 1) leaves the good cassette as it was, and says where the recording is", async () => {
    const { file, text } = await goodCassette();
    const { code, stderr } = await child(file, 3, { apiKey: "key-that-the-simulator-refuses-0123" });
    expect(code).toBe(1);
    expect(readFileSync(file, "utf8")).toBe(text);
    expect(stderr).toContain(
      `risk-portal-lab: the recording of the cassette ${file} was not finished (the process exits with code 1): the cassette is as it was; what was recorded is in ${file}.recording`,
    );
  }, 30_000);

  it("a recording process that ends well (exit code 0) replaces the cassette without being told", async () => {
    const { file } = await goodCassette();
    const { code, stderr } = await child(file, 3);
    expect(code, stderr).toBe(0);
    expect(Cassette.read(file)!.exchanges.map((e) => e.operation)).toEqual(["RateAsset", "RateAsset", "RateAsset"]);
    expect(existsSync(`${file}.recording`)).toBe(false);
  }, 30_000);
});
