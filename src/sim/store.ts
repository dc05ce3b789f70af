/**
 * The simulator's mutable state: accepted uploads and launched reports. With a data directory it
 * survives restarts: every change is written to a temporary file, flushed to disk, and renamed over
 * `state.json` (then the directory is flushed) BEFORE the request is acknowledged, so a crash mid-write
 * loses nothing that was acknowledged and never leaves a half-written file.
 */
import { mkdir, open, readFile, rename } from "node:fs/promises";
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

const emptyState = (): StateData => ({ version: 1, bondPrices: [], volCurves: [], launcherItems: [], reports: [], nextReport: 1, nextItem: 1 });

export class Store {
  #data: StateData;
  #queue: Promise<void> = Promise.resolve();

  private constructor(
    readonly file: string | undefined,
    data: StateData,
  ) {
    this.#data = data;
  }

  /** Opens the store; with a directory, loads `state.json` when it exists. */
  static async open(dataDir?: string): Promise<Store> {
    if (!dataDir) return new Store(undefined, emptyState());
    await mkdir(dataDir, { recursive: true });
    const file = path.join(dataDir, "state.json");
    let data = emptyState();
    try {
      const parsed = JSON.parse(await readFile(file, "utf8")) as StateData;
      if (parsed?.version === 1) data = { ...emptyState(), ...parsed };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw new Error(`simulator state ${file} is unreadable: ${(error as Error).message}`);
    }
    return new Store(file, data);
  }

  get data(): Readonly<StateData> {
    return this.#data;
  }

  /**
   * Applies a change and, with a data directory, persists it before resolving. Changes are serialised:
   * two concurrent uploads are written one after the other, each write holding both.
   */
  update(change: (data: StateData) => void): Promise<void> {
    const run = this.#queue.then(async () => {
      const next = structuredClone(this.#data);
      change(next);
      if (this.file) await writeAtomically(this.file, JSON.stringify(next));
      this.#data = next;
    });
    this.#queue = run.catch(() => undefined);
    return run;
  }
}

async function writeAtomically(file: string, text: string): Promise<void> {
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  const handle = await open(tmp, "w");
  try {
    await handle.writeFile(text, "utf8");
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(tmp, file);
  const dir = await open(path.dirname(file), "r");
  try {
    await dir.sync();
  } catch {
    /* some file systems cannot fsync a directory; the rename is still atomic */
  } finally {
    await dir.close();
  }
}
