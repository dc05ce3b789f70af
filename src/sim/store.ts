/**
 * The simulator's mutable state: accepted uploads, saved launcher items and report runs. Every change
 * is an {@link Change} — data, not code — so that it can be written down before it is applied.
 *
 * With a data directory the state survives restarts, and a crash (kill -9) loses nothing acknowledged:
 * - each change is appended as one JSON line to the journal (`journal.<generation>.jsonl`) and flushed to
 *   disk (fsync) BEFORE it is applied and the request acknowledged. A change whose write fails is not
 *   applied, and the journal is cut back to where it was, so that no later line follows half a line;
 * - once the journal passes {@link CompactionOptions.journalBytes}, the state is compacted in the
 *   background: new changes go to the next generation's journal at once, while the state as it stood is
 *   written, a chunk at a time, to a temporary snapshot that is flushed and renamed over
 *   `snapshot.jsonl`; only then is the old journal removed. A crash at any point leaves either the old
 *   snapshot and both journals, or the new snapshot and the new journal: both replay to the same state.
 *   One compaction runs at a time;
 * - on open, the snapshot's changes and then every journal from its generation on are replayed, a line
 *   at a time (never the whole file as one string). A torn last line — a crash mid-append, even one
 *   that cut only the final newline — is ignored and cut off, since its change was never acknowledged.
 *   Anything else that does not parse, and a snapshot without its closing line, is an error naming the
 *   file. A `state.json` of the earlier format is read once and becomes the first snapshot.
 *
 * Nothing here re-reads or rewrites the whole state per change: a write costs its own size, whatever
 * the state holds.
 */
import { mkdir, open, readdir, readFile, rename, rm, truncate, type FileHandle } from "node:fs/promises";
import path from "node:path";
import type { LaunchedReport, SavedLauncherItem } from "./data/reports";

export interface StoredBondPrice {
  code: string;
  market_identification_code: string;
  identifier_type: string;
  date: string;
  currency: string;
  traded_price: number;
  is_percentage_of_par: boolean;
  is_currency_per_bond_unit: boolean;
  /** Whether it is bootstrapped into the curves (A19). */
  bootstrapped: boolean;
  /** Clock time the bootstrap finishes (A19: after the response); absent: at once. */
  bootstrapped_at_ms?: number;
  market_data_environment_name?: string;
  provider_id?: string;
}

export interface StoredVolCurve {
  code: string;
  market_identification_code: string;
  reference_date: string;
  maturities: number[];
  vols: number[];
  spot_ref?: number;
}

export interface StateData {
  version: 1;
  bondPrices: StoredBondPrice[];
  volCurves: StoredVolCurve[];
  /** Saved launcher items (A21). */
  launcherItems: SavedLauncherItem[];
  /** Report runs started on request (`POST /sim/batch`); the daily batch's runs are derived from the items. */
  reports: LaunchedReport[];
  /** Counter for report ids. */
  nextReport: number;
  /** Counter for launcher item ids. */
  nextItem: number;
}

/** One change of the state. Every collection only grows, so a prefix of it is a consistent past state. */
export type Change =
  | { kind: "bondPrices"; records: StoredBondPrice[] }
  | { kind: "volCurves"; curves: StoredVolCurve[] }
  | { kind: "launcherItem"; item: SavedLauncherItem; nextItem: number }
  | { kind: "reports"; runs: LaunchedReport[]; nextReport: number };

export interface CompactionOptions {
  /** Compact once the journal holds this many bytes. Default 32 MiB. */
  journalBytes?: number;
  /** Changes per line of the snapshot (records of one kind). Default 5,000. */
  chunk?: number;
}

const emptyState = (): StateData => ({
  version: 1,
  bondPrices: [],
  volCurves: [],
  launcherItems: [],
  reports: [],
  nextReport: 1,
  nextItem: 1,
});

/** Applies a change in place (the one place that knows what each change does). */
export function applyChange(data: StateData, change: Change): void {
  switch (change.kind) {
    case "bondPrices":
      for (const r of change.records) data.bondPrices.push(r);
      break;
    case "volCurves":
      for (const c of change.curves) data.volCurves.push(c);
      break;
    case "launcherItem":
      data.launcherItems.push(change.item);
      data.nextItem = Math.max(data.nextItem, change.nextItem);
      break;
    case "reports":
      for (const r of change.runs) data.reports.push(r);
      data.nextReport = Math.max(data.nextReport, change.nextReport);
      break;
  }
}

const SNAPSHOT = "snapshot.jsonl";
const LEGACY = "state.json";
const journalName = (generation: number) => `journal.${generation}.jsonl`;
const JOURNAL = /^journal\.(\d+)\.jsonl$/;
/** A snapshot being written (`snapshot.jsonl.<pid>.<generation>.tmp`): never read, removed on open. */
const SNAPSHOT_TEMP = /^snapshot\.jsonl\..+\.tmp$/;

export class Store {
  readonly #data: StateData;
  #queue: Promise<void> = Promise.resolve();
  readonly #listeners: ((change: Change) => void)[] = [];
  readonly #dir?: string;
  readonly #options: Required<CompactionOptions>;
  #generation = 0;
  #journal?: FileHandle;
  /** Bytes of the journal that hold acknowledged changes (a failed write is cut back to this). */
  #journalBytes = 0;
  #compacting?: Promise<void>;
  /** Set when a failed write could not be cut back off the journal: every later write is refused. */
  #broken?: Error;
  /**
   * Journal lines written, snapshots made (and how long the last one took, ms), torn lines ignored on
   * open and failed writes cut back off the journal: for tests and the benchmark.
   */
  readonly stats = { journalLines: 0, compactions: 0, lastCompactionMs: 0, tornLinesIgnored: 0, failedWrites: 0 };

  private constructor(data: StateData, dir: string | undefined, options: CompactionOptions) {
    this.#data = data;
    this.#dir = dir;
    this.#options = { journalBytes: options.journalBytes ?? 32 * 1024 * 1024, chunk: options.chunk ?? 5_000 };
  }

  /** Opens the store; with a directory, replays its snapshot and journals. */
  static async open(dataDir?: string, options: CompactionOptions = {}): Promise<Store> {
    if (!dataDir) return new Store(emptyState(), undefined, options);
    await mkdir(dataDir, { recursive: true });
    const data = emptyState();
    const store = new Store(data, dataDir, options);
    const names = await readdir(dataDir);
    // A snapshot a crash interrupted: its journals are all still there.
    for (const name of names) if (SNAPSHOT_TEMP.test(name)) await rm(path.join(dataDir, name), { force: true });
    let generation = 0;
    const snapshot = path.join(dataDir, SNAPSHOT);
    if (names.includes(SNAPSHOT)) {
      generation = await store.#replay(snapshot, true);
    } else if (names.includes(LEGACY)) {
      // The earlier format: one JSON document. It becomes the first snapshot.
      let legacy: Partial<StateData>;
      try {
        legacy = JSON.parse(await readFile(path.join(dataDir, LEGACY), "utf8")) as Partial<StateData>;
      } catch (error) {
        throw new Error(`simulator state ${path.join(dataDir, LEGACY)} is unreadable: ${(error as Error).message}`);
      }
      if (legacy?.version === 1) Object.assign(data, emptyState(), legacy);
    }
    const journals = names
      .map((n) => JOURNAL.exec(n))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]))
      .filter((g) => g >= generation)
      .sort((a, b) => a - b);
    for (const g of journals) await store.#replay(path.join(dataDir, journalName(g)), false);
    store.#generation = journals.at(-1) ?? generation;
    ({ handle: store.#journal, bytes: store.#journalBytes } = await store.#openJournal(store.#generation));
    // The earlier format becomes a snapshot now, so that no journal ever needs it again.
    if (!names.includes(SNAPSHOT) && names.includes(LEGACY)) await store.compactNow();
    return store;
  }

  /** The live state: read it, never change it (every change goes through {@link update}). */
  get data(): Readonly<StateData> {
    return this.#data;
  }

  /** Calls `listener` with each change once it is applied (indexes kept beside the state). */
  onChange(listener: (change: Change) => void): void {
    this.#listeners.push(listener);
  }

  /**
   * Makes a change from the current state (`build` reads counters, never writes), journals it (fsync)
   * and applies it. Changes are serialised; one whose write fails is not applied and the call rejects.
   */
  update(build: (data: Readonly<StateData>) => Change | undefined): Promise<void> {
    const run = this.#queue.then(async () => {
      const change = build(this.#data);
      if (!change) return;
      if (this.#dir) await this.#append(change);
      applyChange(this.#data, change);
      for (const listener of this.#listeners) listener(change);
      if (this.#dir && this.#journalBytes >= this.#options.journalBytes && !this.#compacting) {
        // The switch to a new journal happens here, in turn; the snapshot is written in the background.
        // Compaction is housekeeping: when even the switch fails, this change still stands (it is
        // journaled and applied) and writes go on to the current journal.
        const mark = await this.#rotate().catch(() => undefined);
        if (mark) this.#startCompaction(mark).catch(() => undefined);
      }
    });
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** Waits for a running compaction and closes the journal. */
  async close(): Promise<void> {
    await this.#queue;
    await this.#compacting?.catch(() => undefined);
    await this.#journal?.close();
    this.#journal = undefined;
  }

  /** Runs a compaction of everything written so far (tests, the benchmark); resolves when its snapshot is in place. */
  async compactNow(): Promise<void> {
    if (!this.#dir) return;
    for (;;) {
      await this.#compacting?.catch(() => undefined);
      let mine: Promise<void> | undefined;
      const turn = this.#queue.then(async () => {
        // A write may have started a compaction since: wait for it, then make ours (one at a time).
        if (!this.#compacting) mine = this.#startCompaction(await this.#rotate());
      });
      this.#queue = turn.catch(() => undefined);
      await turn;
      if (mine) return mine;
    }
  }

  /** Writes the snapshot of `mark` in the background; the one running compaction is {@link #compacting}. */
  #startCompaction(mark: Mark): Promise<void> {
    const started = performance.now();
    const compacting = this.#writeSnapshot(mark).then(() => {
      this.stats.compactions++;
      this.stats.lastCompactionMs = performance.now() - started;
    });
    // A failed compaction leaves the journals in place: nothing is lost, the next one tries again.
    this.#compacting = compacting.finally(() => (this.#compacting = undefined));
    this.#compacting.catch(() => undefined);
    return compacting;
  }

  /** Opens (creating) the journal of a generation for appending, and its size; a new file's name is flushed to disk too. */
  async #openJournal(generation: number): Promise<{ handle: FileHandle; bytes: number }> {
    const handle = await open(path.join(this.#dir!, journalName(generation)), "a");
    try {
      const bytes = (await handle.stat()).size;
      if (bytes === 0) await syncDirectory(this.#dir!);
      return { handle, bytes };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async #append(change: Change): Promise<void> {
    if (this.#broken) throw this.#broken;
    const line = `${JSON.stringify(change)}\n`;
    const journal = this.#journal!;
    try {
      await journal.appendFile(line, "utf8");
      await journal.datasync();
    } catch (error) {
      this.stats.failedWrites++;
      // Part of the line may be in the file: cut it off, or the next line would follow half a line
      // (damage on the next open) and an unacknowledged change could come back after a restart.
      try {
        await journal.truncate(this.#journalBytes);
        await journal.datasync();
      } catch (cause) {
        this.#broken = new Error(
          `simulator journal ${path.join(this.#dir!, journalName(this.#generation))} could not be cut back after a failed write; no change is accepted until it is reopened`,
          { cause },
        );
      }
      throw error;
    }
    this.#journalBytes += Buffer.byteLength(line);
    this.stats.journalLines++;
  }

  /**
   * Starts the next journal generation and returns the mark of the state as it stands: the collections
   * only grow, so their lengths now say what the snapshot of this moment holds. Runs in the queue's turn;
   * when the new journal cannot be opened nothing changes (writes go on to the current one).
   */
  async #rotate(): Promise<Mark> {
    const data = this.#data;
    const mark: Mark = {
      generation: this.#generation + 1,
      bondPrices: data.bondPrices.length,
      volCurves: data.volCurves.length,
      launcherItems: data.launcherItems.length,
      reports: data.reports.length,
      nextItem: data.nextItem,
      nextReport: data.nextReport,
    };
    const next = await this.#openJournal(mark.generation);
    const previous = this.#journal;
    ({ handle: this.#journal, bytes: this.#journalBytes } = next);
    this.#generation = mark.generation;
    await previous?.close().catch(() => undefined);
    return mark;
  }

  /** Writes the marked state to a temporary snapshot, a chunk per line, then renames it into place. */
  async #writeSnapshot(mark: Mark): Promise<void> {
    const dir = this.#dir!;
    const data = this.#data;
    const temp = path.join(dir, `${SNAPSHOT}.${process.pid}.${mark.generation}.tmp`);
    const out = await open(temp, "w");
    try {
      await out.write(`${JSON.stringify({ snapshot: 1, generation: mark.generation })}\n`);
      const chunk = this.#options.chunk;
      const lines = async <T>(items: T[], count: number, make: (slice: T[]) => Change) => {
        for (let i = 0; i < count; i += chunk)
          await out.write(`${JSON.stringify(make(items.slice(i, Math.min(count, i + chunk))))}\n`);
      };
      await lines(data.bondPrices, mark.bondPrices, (records) => ({ kind: "bondPrices", records }));
      await lines(data.volCurves, mark.volCurves, (curves) => ({ kind: "volCurves", curves }));
      for (let i = 0; i < mark.launcherItems; i++)
        await out.write(
          `${JSON.stringify({ kind: "launcherItem", item: data.launcherItems[i]!, nextItem: 0 } satisfies Change)}\n`,
        );
      await lines(data.reports, mark.reports, (runs) => ({ kind: "reports", runs, nextReport: 0 }));
      // The closing line: a snapshot without it is incomplete (it never is, once renamed into place).
      await out.write(`${JSON.stringify({ counters: { nextItem: mark.nextItem, nextReport: mark.nextReport } })}\n`);
      await out.sync();
    } catch (error) {
      await out.close();
      await rm(temp, { force: true });
      throw error;
    }
    await out.close();
    await rename(temp, path.join(dir, SNAPSHOT));
    await syncDirectory(dir);
    // The snapshot holds everything of the older journals (and of an earlier format's state): they can go.
    for (const name of await readdir(dir)) {
      const m = JOURNAL.exec(name);
      if ((m && Number(m[1]) < mark.generation) || name === LEGACY) await rm(path.join(dir, name), { force: true });
    }
  }

  /** Applies every change of a snapshot or journal file, a line at a time; returns the snapshot's generation. */
  async #replay(file: string, isSnapshot: boolean): Promise<number> {
    let generation = 0;
    let closed = false;
    const damaged = (why: string) => new Error(`simulator state ${file} is damaged: ${why}`);
    const handle = await open(file, "r");
    try {
      for await (const { text, offset, ended } of readLines(handle)) {
        // Only the last line can lack its newline: a crash mid-append, so never acknowledged. Cut it off,
        // so that the next change is not appended to it. A snapshot is complete before it is renamed in.
        if (!ended && !isSnapshot) {
          this.stats.tornLinesIgnored++;
          await truncate(file, offset);
          break;
        }
        if (!text.trim()) continue;
        let entry: Change & {
          snapshot?: number;
          generation?: number;
          counters?: { nextItem: number; nextReport: number };
        };
        try {
          entry = JSON.parse(text) as typeof entry;
        } catch (error) {
          throw damaged(`${(error as Error).message} (the line at byte ${offset})`);
        }
        if (!ended) throw damaged(`the last line at byte ${offset} is cut off`);
        if (closed) throw damaged(`a line at byte ${offset} after the closing line`);
        if (isSnapshot && entry.snapshot !== undefined) generation = entry.generation ?? 0;
        else if (entry.counters) {
          this.#data.nextItem = Math.max(this.#data.nextItem, entry.counters.nextItem);
          this.#data.nextReport = Math.max(this.#data.nextReport, entry.counters.nextReport);
          closed = isSnapshot;
        } else applyChange(this.#data, entry);
      }
    } finally {
      await handle.close();
    }
    if (isSnapshot && !closed) throw damaged("it ends before its closing line (counters)");
    return generation;
  }
}

/** What a snapshot of one moment holds: the collections' lengths and the counters then. */
interface Mark {
  generation: number;
  bondPrices: number;
  volCurves: number;
  launcherItems: number;
  reports: number;
  nextItem: number;
  nextReport: number;
}

/**
 * The lines of a file read in chunks of `chunkBytes`: each line's text, its byte offset, and whether a
 * newline ended it (only the last line can lack one). Memory holds a chunk and one line, whatever the file.
 */
async function* readLines(
  handle: FileHandle,
  chunkBytes = 1 << 20,
): AsyncGenerator<{ text: string; offset: number; ended: boolean }> {
  const buffer = Buffer.allocUnsafe(chunkBytes);
  let carry: Buffer[] = [];
  let position = 0;
  let lineStart = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, chunkBytes, position);
    if (bytesRead === 0) break;
    const view = buffer.subarray(0, bytesRead);
    let from = 0;
    for (let nl = view.indexOf(10, from); nl >= 0; nl = view.indexOf(10, from)) {
      const piece = view.subarray(from, nl);
      const text = (carry.length ? Buffer.concat([...carry, piece]) : piece).toString("utf8");
      carry = [];
      from = nl + 1;
      const offset = lineStart;
      lineStart = position + from;
      yield { text, offset, ended: true };
    }
    // A line that goes on into the next chunk: keep a copy (the buffer is read into again).
    if (from < bytesRead) carry.push(Buffer.from(view.subarray(from)));
    position += bytesRead;
  }
  if (carry.length) yield { text: Buffer.concat(carry).toString("utf8"), offset: lineStart, ended: false };
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } catch {
    /* some file systems cannot fsync a directory; the rename is still atomic */
  } finally {
    await handle.close();
  }
}
