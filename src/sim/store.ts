/**
 * The simulator's mutable state: accepted uploads, saved launcher items and report runs. Every change
 * is an {@link Change} — data, not code — so that it can be written down before it is applied.
 *
 * With a data directory the state survives restarts, and a crash (kill -9) loses nothing acknowledged:
 * - each change is appended as one JSON line to the journal (`journal.<generation>.jsonl`) and flushed to
 *   disk (fsync) BEFORE it is applied and the request acknowledged; a change whose write fails is not
 *   applied;
 * - once the journal passes {@link CompactionOptions.journalBytes}, the state is compacted in the
 *   background: new changes go to the next generation's journal at once, while the state as it stood is
 *   written, a chunk at a time, to a temporary snapshot that is flushed and renamed over
 *   `snapshot.jsonl`; only then is the old journal removed. A crash at any point leaves either the old
 *   snapshot and both journals, or the new snapshot and the new journal: both replay to the same state;
 * - on open, the snapshot's changes and then every journal from its generation on are replayed; a torn
 *   last line (a crash mid-append) is ignored, since its change was never acknowledged. A `state.json`
 *   of the earlier format is read once and becomes the first snapshot.
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

const emptyState = (): StateData => ({ version: 1, bondPrices: [], volCurves: [], launcherItems: [], reports: [], nextReport: 1, nextItem: 1 });

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

export class Store {
  readonly #data: StateData;
  #queue: Promise<void> = Promise.resolve();
  readonly #listeners: ((change: Change) => void)[] = [];
  readonly #dir?: string;
  readonly #options: Required<CompactionOptions>;
  #generation = 0;
  #journal?: FileHandle;
  #journalBytes = 0;
  #compacting?: Promise<void>;
  /** Journal lines written and snapshots made (for tests and the benchmark). */
  readonly stats = { journalLines: 0, compactions: 0, tornLinesIgnored: 0 };

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
      .map((n) => /^journal\.(\d+)\.jsonl$/.exec(n))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]))
      .filter((g) => g >= generation)
      .sort((a, b) => a - b);
    for (const g of journals) await store.#replay(path.join(dataDir, journalName(g)), false);
    store.#generation = journals.at(-1) ?? generation;
    await store.#openJournal();
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
        const mark = await this.#rotate();
        this.#compacting = this.#writeSnapshot(mark).finally(() => (this.#compacting = undefined));
        // A failed compaction leaves the journals in place: nothing is lost, the next one tries again.
        this.#compacting.catch(() => undefined);
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

  /** Runs a compaction now (tests and the benchmark); resolves when the snapshot is in place. */
  async compactNow(): Promise<void> {
    if (!this.#dir) return;
    await this.#compacting?.catch(() => undefined);
    let mark: Mark | undefined;
    const turn = this.#queue.then(async () => {
      mark = await this.#rotate();
    });
    this.#queue = turn.catch(() => undefined);
    await turn;
    await this.#writeSnapshot(mark!);
  }

  async #openJournal(): Promise<void> {
    const file = path.join(this.#dir!, journalName(this.#generation));
    this.#journal = await open(file, "a");
    this.#journalBytes = (await this.#journal.stat()).size;
  }

  async #append(change: Change): Promise<void> {
    const line = `${JSON.stringify(change)}\n`;
    await this.#journal!.appendFile(line, "utf8");
    await this.#journal!.datasync();
    this.#journalBytes += Buffer.byteLength(line);
    this.stats.journalLines++;
  }

  /**
   * Starts the next journal generation and returns the mark of the state as it stands: the collections
   * only grow, so their lengths now say what the snapshot of this moment holds. Runs in the queue's turn.
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
    await this.#journal?.close();
    this.#generation = mark.generation;
    await this.#openJournal();
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
        for (let i = 0; i < count; i += chunk) await out.write(`${JSON.stringify(make(items.slice(i, Math.min(count, i + chunk))))}\n`);
      };
      await lines(data.bondPrices, mark.bondPrices, (records) => ({ kind: "bondPrices", records }));
      await lines(data.volCurves, mark.volCurves, (curves) => ({ kind: "volCurves", curves }));
      for (let i = 0; i < mark.launcherItems; i++)
        await out.write(`${JSON.stringify({ kind: "launcherItem", item: data.launcherItems[i]!, nextItem: 0 } satisfies Change)}\n`);
      await lines(data.reports, mark.reports, (runs) => ({ kind: "reports", runs, nextReport: 0 }));
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
      const m = /^journal\.(\d+)\.jsonl$/.exec(name);
      if ((m && Number(m[1]) < mark.generation) || name === LEGACY) await rm(path.join(dir, name), { force: true });
    }
    this.stats.compactions++;
  }

  /** Applies every change of a snapshot or journal file; returns the snapshot's generation. */
  async #replay(file: string, isSnapshot: boolean): Promise<number> {
    const text = await readFile(file, "utf8");
    let generation = 0;
    let start = 0;
    while (start < text.length) {
      const lineStart = start;
      let end = text.indexOf("\n", start);
      const torn = end < 0;
      if (torn) end = text.length;
      const line = text.slice(start, end);
      start = end + 1;
      if (!line.trim()) continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch (error) {
        // Only the last line can be torn (a crash mid-append: never acknowledged). Anything else is damage.
        if (torn) {
          this.stats.tornLinesIgnored++;
          // Cut it off, so that the next change is not appended to half a line.
          if (!isSnapshot) await truncate(file, Buffer.byteLength(text.slice(0, lineStart)));
          break;
        }
        throw new Error(`simulator state ${file} is damaged: ${(error as Error).message}`);
      }
      const entry = parsed as Change & { snapshot?: number; generation?: number; counters?: { nextItem: number; nextReport: number } };
      if (isSnapshot && entry.snapshot !== undefined) generation = entry.generation ?? 0;
      else if (entry.counters) {
        this.#data.nextItem = Math.max(this.#data.nextItem, entry.counters.nextItem);
        this.#data.nextReport = Math.max(this.#data.nextReport, entry.counters.nextReport);
      } else applyChange(this.#data, entry);
    }
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
