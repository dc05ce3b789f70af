/**
 * Cassettes safe to share (issue 13): several clients and processes recording one cassette at once keep
 * every exchange; `record` drops what was in the file when it was opened, and nothing after; a killed
 * writer leaves a valid cassette and a lock the next writer takes over; a wait for a lock is bounded; a
 * cassette that cannot be written is a CassetteError naming the file.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { CassetteError, RiskPortalClient, startSimulator, type Simulator } from "../../src";
import { Cassette } from "../../src/internals";
import { bond } from "../helpers/samples";

const CHILD = path.join(__dirname, "fixtures", "record-child.mjs");
let sim: Simulator;
let dir: string;
const running = new Set<ChildProcessWithoutNullStreams>();
beforeAll(async () => {
  sim = await startSimulator({ rateLimit: false });
  dir = mkdtempSync(path.join(tmpdir(), "rpl-cassette-share-"));
});
afterAll(async () => {
  for (const child of running) child.kill("SIGKILL");
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

const auth = () => ({ apiKey: sim.credentials.apiKey });
const day = (i: number) => new Date(Date.UTC(2026, 0, 5) + i * 86_400_000).toISOString().slice(0, 10);
/** The market date of each recorded exchange, in file order. */
const datesIn = (file: string) =>
  Cassette.read(file)!.exchanges.map((e) =>
    String((e.request.body as { market_date?: string }).market_date).slice(0, 10),
  );
/** Temporary files and locks left beside the cassettes. */
const leftovers = () => readdirSync(dir).filter((name) => /\.(tmp|lock|stale)$/.test(name));

/** A child process recording into a cassette (test/record/fixtures/record-child.mjs); it starts when told `go()`. */
function startChild(file: string, offset: number, count: number, mode: "record" | "auto") {
  const child = spawn(process.execPath, [
    CHILD,
    sim.url,
    sim.credentials.apiKey,
    file,
    String(offset),
    String(count),
    mode,
  ]);
  running.add(child);
  const lines: string[] = [];
  let stderr = "";
  const waiting: { n: number; resolve: () => void }[] = [];
  createInterface({ input: child.stdout }).on("line", (line) => {
    lines.push(line);
    for (const w of waiting) if (lines.length >= w.n) w.resolve();
  });
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const closed = new Promise<number | null>((resolve) =>
    child.on("close", (code) => (running.delete(child), resolve(code))),
  );
  /** Resolves once the child printed `n` lines (`ready`, then one per exchange). */
  const printed = (n: number) =>
    new Promise<void>((resolve, reject) => {
      if (lines.length >= n) return resolve();
      waiting.push({ n, resolve });
      void closed.then(() =>
        lines.length >= n ? resolve() : reject(new Error(`the child exited after ${lines.length} lines: ${stderr}`)),
      );
    });
  return {
    child,
    closed,
    printed,
    ready: () => printed(1),
    go: () => child.stdin.write("go\n"),
    /** The dates it recorded, in its order. */
    recorded: () => lines.slice(1, -1),
    stats: async () => {
      const code = await closed;
      if (code !== 0) throw new Error(`the child exited with ${code}: ${stderr}`);
      return JSON.parse(lines.at(-1)!) as unknown;
    },
  };
}

describe("recording from several writers", () => {
  it("two processes recording one cassette at once keep every exchange, each process's in the order it recorded them", async () => {
    const file = path.join(dir, "two-processes.json");
    await new RiskPortalClient({
      baseUrl: sim.url,
      auth: auth(),
      cassette: { path: file, mode: "auto" },
    }).report.lookBacks();
    const N = 50;
    const children = [startChild(file, 0, N, "record"), startChild(file, 1000, N, "record")];
    // Both recordings have begun (each emptied the file) before either records: neither drops the other's.
    await Promise.all(children.map((c) => c.ready()));
    for (const c of children) c.go();
    expect(await Promise.all(children.map((c) => c.stats()))).toEqual([
      { replayed: 0, recorded: N },
      { replayed: 0, recorded: N },
    ]);

    const dates = datesIn(file);
    expect(dates).toHaveLength(2 * N); // the earlier recording's LookBacks is gone
    expect(dates.filter((d) => d < "2027")).toEqual(children[0]!.recorded());
    expect(dates.filter((d) => d > "2027")).toEqual(children[1]!.recorded());
    expect(new Set(dates).size).toBe(2 * N);
    expect(leftovers()).toEqual([]);

    // And every one replays, with no server.
    const player = new RiskPortalClient({
      baseUrl: sim.url,
      cassette: { path: file, mode: "replay" },
      fetch: () => Promise.reject(new Error("no network")),
    });
    const curves = await Promise.all(dates.map((d) => player.rateAsset.getCurve({ currency: "USD", market_date: d })));
    expect(curves.every((c) => c.yield_curve_model?.currency === "USD")).toBe(true);
    expect(player.cassette!.stats.replayed).toBe(2 * N);
  }, 30_000);

  it("two clients with cassettes of their own on one file, 64 recordings at once: all 64 kept", async () => {
    const file = path.join(dir, "two-clients.json");
    const first = new RiskPortalClient({ baseUrl: sim.url, auth: auth(), cassette: { path: file, mode: "record" } });
    const second = new RiskPortalClient({ baseUrl: sim.url, auth: auth(), cassette: { path: file, mode: "record" } });
    const asked = Array.from({ length: 64 }, (_, i) => day(i));
    await Promise.all(
      asked.map((d, i) => (i % 2 ? first : second).rateAsset.getCurve({ currency: "EUR", market_date: d })),
    );
    first.cassette!.finish(); // the recording replaces the cassette; the second has nothing left to do
    second.cassette!.finish();
    expect(datesIn(file).sort()).toEqual(asked);
    expect(first.cassette!.stats.recorded + second.cassette!.stats.recorded).toBe(64);
    expect(leftovers()).toEqual([]);
  });

  it("one client's sequential recordings (a poll loop) are written in the order it made them", async () => {
    const file = path.join(dir, "order.json");
    const rp = new RiskPortalClient({ baseUrl: sim.url, auth: auth(), cassette: { path: file, mode: "record" } });
    const other = new RiskPortalClient({ baseUrl: sim.url, auth: auth(), cassette: { path: file, mode: "auto" } });
    const asked = Array.from({ length: 20 }, (_, i) => day(40 - 2 * i));
    await Promise.all([
      (async () => {
        for (const d of asked) await rp.rateAsset.getCurve({ currency: "USD", market_date: d });
      })(),
      (async () => {
        for (let i = 0; i < 20; i++) await other.rateAsset.getCurve({ currency: "USD", market_date: day(500 + i) });
      })(),
    ]);
    rp.cassette!.finish();
    expect(datesIn(file).filter((d) => d < "2027")).toEqual(asked);
  });

  it("record leaves the cassette as it was until the recording finishes; then what every recorder recorded replaces it", async () => {
    const file = path.join(dir, "record-afresh.json");
    await new RiskPortalClient({
      baseUrl: sim.url,
      auth: auth(),
      cassette: { path: file, mode: "auto" },
    }).report.lookBacks();
    const recorder = new RiskPortalClient({ baseUrl: sim.url, auth: auth(), cassette: { path: file, mode: "record" } });
    const another = new RiskPortalClient({ baseUrl: sim.url, auth: auth(), cassette: { path: file, mode: "record" } });
    expect(Cassette.read(file)!.exchanges.map((e) => e.operation)).toEqual(["LookBacks"]);
    await another.rateAsset.getCurve({ currency: "CHF" });
    await recorder.report.lookBacks();
    expect(Cassette.read(file)!.exchanges.map((e) => e.operation)).toEqual(["LookBacks"]);
    another.cassette!.finish();
    expect(Cassette.read(file)!.exchanges.map((e) => e.operation)).toEqual(["RateAsset", "LookBacks"]);
    // The other recorder goes on from the finished recording, and its next finish replaces it in turn.
    await recorder.rateAsset.getCurve({ currency: "GBP" });
    recorder.cassette!.finish();
    expect(Cassette.read(file)!.exchanges.map((e) => e.operation)).toEqual(["RateAsset", "LookBacks", "RateAsset"]);
  });

  it("a recorder killed mid-recording leaves a valid recording beside the cassette, and whatever lock it held does not stop the next", async () => {
    const file = path.join(dir, "killed.json");
    const victim = startChild(file, 2000, 100_000, "record");
    await victim.ready();
    victim.go();
    await victim.printed(1 + 30);
    victim.child.kill("SIGKILL");
    await victim.closed;
    const kept = Cassette.read(`${file}.recording`)!.exchanges.length; // valid JSON, every exchange checked
    expect(kept).toBeGreaterThanOrEqual(30);
    expect(Cassette.read(file, false)).toBeUndefined(); // there was no cassette, and the recording did not finish
    const startedMs = performance.now();
    await new RiskPortalClient({
      baseUrl: sim.url,
      auth: auth(),
      cassette: { path: file, mode: "auto" },
    }).report.lookBacks();
    expect(performance.now() - startedMs).toBeLessThan(2_000);
    expect(Cassette.read(file)!.exchanges).toHaveLength(1);
    for (const name of leftovers()) rmSync(path.join(dir, name)); // a temporary file the kill cut short, maybe
  });
});

describe("the lock", () => {
  const open = (file: string) => new Cassette({ path: file, mode: "record", baseUrl: sim.url });

  it("a lock left by a process that is gone is taken over at once", () => {
    const file = path.join(dir, "dead-lock.json");
    writeFileSync(`${file}.lock`, `99999999 ${hostname()} gone.1`); // beyond any pid_max: no such process
    const startedMs = performance.now();
    expect(open(file).size).toBe(0);
    expect(performance.now() - startedMs).toBeLessThan(500);
    expect(leftovers()).toEqual([]);
  });

  it("a lock older than a few seconds is taken over, though its process lives; so is one its writer never named", () => {
    for (const [name, text, ageMs] of [
      ["old-lock", `${process.ppid} ${hostname()} alive.1`, 60_000],
      ["nameless-lock", "", 2_000],
    ] as const) {
      const file = path.join(dir, `${name}.json`);
      writeFileSync(`${file}.lock`, text);
      const then = new Date(Date.now() - ageMs);
      utimesSync(`${file}.lock`, then, then);
      expect(open(file).size).toBe(0);
    }
    expect(leftovers()).toEqual([]);
  });

  it("another host's lock is waited for until it is stale; a live writer's lock, for at most 10 s, then a CassetteError names the file and the lock", () => {
    const real = Date.now.bind(Date);
    let calls = 0;
    // Time passes a second per look at the clock: the waits below take milliseconds.
    const clock = vi.spyOn(Date, "now").mockImplementation(() => real() + 1_000 * calls++);
    try {
      const shared = path.join(dir, "other-host.json");
      writeFileSync(`${shared}.lock`, "4242 another-host tag.1");
      expect(open(shared).size).toBe(0);
      expect(calls).toBeGreaterThan(5);

      const busy = path.join(dir, "busy.json");
      const lock = `${busy}.lock`;
      writeFileSync(lock, `${process.ppid} ${hostname()} alive.2`);
      // Written by a live writer whose clock is ahead: never stale by its age, in the 10 s waited.
      const ahead = new Date(real() + 3_600_000);
      utimesSync(lock, ahead, ahead);
      calls = 0;
      let error: unknown;
      try {
        open(busy);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(CassetteError);
      expect((error as CassetteError).file).toBe(busy);
      expect((error as Error).message).toContain(
        `the cassette ${busy} stayed locked by process ${process.ppid} on ${hostname()} for over 10 s (${lock})`,
      );
      expect(readFileSync(lock, "utf8")).toBe(`${process.ppid} ${hostname()} alive.2`); // not ours to remove
      rmSync(lock);
    } finally {
      clock.mockRestore();
    }
  });
});

describe("a cassette that cannot be written", () => {
  it("a path that is a directory, or under a file, is a CassetteError naming the file, when opened", () => {
    const directory = path.join(dir, "a-directory.json");
    mkdirSync(directory);
    const blocker = path.join(dir, "blocker");
    writeFileSync(blocker, "a file, not a directory");
    const under = path.join(blocker, "cassette.json");
    for (const [file, mode] of [
      [directory, "record"],
      [directory, "auto"],
      [under, "record"],
    ] as const) {
      let error: unknown;
      try {
        new RiskPortalClient({ baseUrl: sim.url, auth: auth(), cassette: { path: file, mode } });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(CassetteError);
      expect((error as CassetteError).file).toBe(file);
      expect((error as Error).message).toContain(file);
    }
  });

  it.skipIf(process.getuid?.() === 0)("a directory that is not writable is a CassetteError naming the file", () => {
    const readOnly = path.join(dir, "read-only");
    mkdirSync(readOnly, { mode: 0o555 });
    const file = path.join(readOnly, "cassette.json");
    expect(() => new Cassette({ path: file, mode: "record", baseUrl: sim.url })).toThrow(CassetteError);
  });

  it("a recording that fails to be written is a CassetteError naming the file, and is not sent again", async () => {
    const later = path.join(dir, "later", "cassette.json");
    let sends = 0;
    const counted: typeof fetch = (input, init) => (sends++, fetch(input, init));
    const rp = new RiskPortalClient({
      baseUrl: sim.url,
      auth: auth(),
      cassette: { path: later, mode: "auto" },
      fetch: counted,
    });
    writeFileSync(path.join(dir, "later"), "the directory became a file");
    const read = await rp.report.lookBacks().catch((e: unknown) => e);
    expect(read).toBeInstanceOf(CassetteError);
    expect((read as CassetteError).file).toBe(later);
    expect((read as Error).message).toContain(later);
    expect(sends).toBe(1);
  });

  it("a write whose answer could not be recorded says it was applied", async () => {
    const later = path.join(dir, "later-write", "cassette.json");
    const rp = new RiskPortalClient({ baseUrl: sim.url, auth: auth(), cassette: { path: later, mode: "auto" } });
    writeFileSync(path.join(dir, "later-write"), "the directory became a file");
    const upload = await rp.marketData.uploadBondPrices({ bond_data: [bond] }).catch((e: unknown) => e);
    expect(upload).toBeInstanceOf(CassetteError);
    expect(upload).toMatchObject({ outcome: "applied", file: later });
    expect(String((upload as Error).message)).toMatch(/UploadBondPriceData was applied; do not re-send it/);
  });
});
