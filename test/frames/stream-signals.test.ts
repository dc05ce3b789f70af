/**
 * Spool folders and signals (issue 44, item 13): SIGINT or SIGTERM while a table streams into Parquet
 * removes the call's `<target>.partial-*` folder and still ends the process by that signal; a folder left
 * anyway (SIGKILL) is swept by the next call beside the target once its process is gone, and one older
 * than a day whatever its name. A real child process, a real loopback server that stalls mid-body.
 */
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import type { AddressInfo, Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RiskPortalClient, startSimulator } from "../../src";
import { fetchTransactionTableToParquet } from "../../src/transactions/stream";
import { spoolPath, STALE_SPOOL_MS, sweepSpools } from "../../src/columnar/spool";

const CHILD = path.join(__dirname, "fixtures", "stream-child.mjs");
const dir = mkdtempSync(path.join(tmpdir(), "rpl-stream-signals-"));
let server: Server;
let url: string;
const sockets = new Set<Socket>();

beforeAll(async () => {
  // The head of a table, then nothing: the stream is in flight until the client gives up.
  server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { "content-type": "application/json" });
    res.write(`{"data_table":[${'{"trade_id":"T-1","notional":1000000.5,"currency":"USD"},'.repeat(2_000)}`);
  });
  server.on("connection", (s) => (sockets.add(s), s.on("close", () => sockets.delete(s))));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

const spools = (target: string) => readdirSync(path.dirname(target)).filter((n) => n.includes(".partial-"));

/** Starts the child streaming into `target`; resolves once its spool holds part of the body. */
async function streaming(target: string, trap = false) {
  const child = spawn(process.execPath, [CHILD, url, target, ...(trap ? ["trap"] : [])]);
  const lines: string[] = [];
  let stderr = "";
  createInterface({ input: child.stdout }).on("line", (line) => lines.push(line));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  const started = Date.now();
  for (;;) {
    const spool = spools(target)[0];
    // The spool file is in its folder: the body is streaming (whatever the loader names the file).
    const folder = spool && path.join(path.dirname(target), spool);
    if (folder && existsSync(folder) && readdirSync(folder).length > 0) break;
    if (Date.now() - started > 20_000 || child.exitCode !== null)
      throw new Error(`no spool after ${Date.now() - started} ms: ${lines.join(" | ")} ${stderr}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return { child, exited, lines, stderr: () => stderr };
}

describe.skipIf(process.platform === "win32")("spool folders and signals", () => {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it(`${signal} mid-stream removes the spool, and the process still ends by ${signal}`, async () => {
      const target = path.join(dir, signal.toLowerCase(), "trades.parquet");
      mkdirSync(path.dirname(target), { recursive: true });
      const run = await streaming(target);
      expect(spools(target)).toHaveLength(1);
      expect(spools(target)[0]).toMatch(
        new RegExp(`^trades\\.parquet\\.partial-${run.child.pid}-[0-9a-f]{8}-[0-9a-f]{12}$`),
      );
      run.child.kill(signal);
      expect(await run.exited).toEqual({ code: null, signal });
      expect(spools(target)).toEqual([]);
      expect(existsSync(target)).toBe(false);
    }, 30_000);
  }

  it("a SIGINT the process handles itself (a kernel's interrupt) is left to it: the stream goes on, its spool with it", async () => {
    const target = path.join(dir, "trapped", "trades.parquet");
    mkdirSync(path.dirname(target), { recursive: true });
    const run = await streaming(target, true);
    run.child.kill("SIGINT");
    const started = Date.now();
    while (!run.lines.includes("interrupted") && Date.now() - started < 10_000)
      await new Promise((r) => setTimeout(r, 20));
    expect(run.lines).toContain("interrupted");
    expect(spools(target)).toHaveLength(1);
    run.child.kill("SIGKILL");
    await run.exited;
  }, 30_000);

  it("a spool left by a killed process is swept by the next call beside the target, and an old unnamed one; a live process's stays, however old", async () => {
    const target = path.join(dir, "swept", "trades.parquet");
    mkdirSync(path.dirname(target), { recursive: true });
    const run = await streaming(target);
    run.child.kill("SIGKILL"); // no handler runs: the spool stays
    await run.exited;
    const [left] = spools(target);
    expect(left).toBeDefined();
    // A live process's (this one's parent), an old unnamed one (from before spools were named), another host's.
    const alive = spoolPath(target, process.ppid);
    const old = `${target}.partial-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0`;
    const otherHost = `${target}.partial-99999999-00000000-abcdefabcdef`;
    for (const d of [alive, old, otherHost]) {
      mkdirSync(d);
      writeFileSync(path.join(d, "body.json"), "{");
    }
    const longAgo = new Date(Date.now() - STALE_SPOOL_MS - 60_000);
    // Old: the unnamed one, and the live process's (a stream stalled for a day is still its process's).
    for (const p of [old, path.join(old, "body.json"), alive, path.join(alive, "body.json")])
      utimesSync(p, longAgo, longAgo);

    const sim = await startSimulator({ transactionRows: 50 });
    try {
      const rp = new RiskPortalClient({ baseUrl: sim.url, auth: { apiKey: sim.credentials.apiKey } });
      const written = await fetchTransactionTableToParquet(rp, { portfolio_name: "GLOBAL-MACRO" }, target);
      expect(written.rows).toBeGreaterThan(0);
    } finally {
      await sim.close();
    }
    expect(spools(target).sort()).toEqual([path.basename(alive), path.basename(otherHost)].sort());
    expect(sweepSpools(target)).toEqual([]);
  }, 30_000);
});
