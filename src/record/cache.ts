/**
 * The response cache for read operations: in memory (least recently used first out), optionally on
 * disk, each entry good for `ttlMs`. Keyed like cassettes (the canonical request), plus the server and
 * a fingerprint of the credential, so two users or two servers never share an entry. Only operations
 * declared `cacheable` (answers that depend on the request alone) are cached; report statuses and API
 * keys are not. A successful write through the client (an upload, a launch) empties the cache, since
 * it may change what the reads return.
 *
 * Safe to share: concurrent identical reads share one request and one write (single flight); each disk
 * write goes to a temporary file of its own and is renamed into place, so readers in this or another
 * process see a whole entry or none; files in the directory that are not entries of ours are left
 * alone and never answer a request; a directory that cannot be used is refused once, when the cache is
 * made, rather than failing every call.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, statSync } from "node:fs";
import { readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { ConfigurationError } from "../errors";

export interface CacheOptions {
  /** How long an entry is good for. Default 10 minutes. */
  ttlMs?: number;
  /** Entries kept in memory. Default 256. */
  maxEntries?: number;
  /** A directory to keep entries in across sessions (one JSON file per entry). Default: memory only. */
  dir?: string;
}

export interface CacheStats {
  /** Calls answered from the cache, or by joining an identical call already in flight. */
  hits: number;
  /** Calls the cache could not answer (sent to the server). */
  misses: number;
  /** Entries in memory now. */
  entries: number;
}

/** A cached response: what the pipeline needs to answer again, and when the server first sent it. */
export interface CacheEntry {
  text: string;
  /** When the server sent the response (ISO 8601 UTC). */
  receivedAt: string;
  requestId?: string;
}

interface Stored extends CacheEntry {
  key: string;
  storedAtMs: number;
}

export const DEFAULT_CACHE_TTL_MS = 600_000;
export const DEFAULT_CACHE_ENTRIES = 256;

/** Our entry files: 32 hex digits and `.json`. Anything else in the directory is not ours. */
const ENTRY_FILE = /^[0-9a-f]{32}\.json$/;
let tempTag: string | undefined;
let tempCounter = 0;

/**
 * Per-process prefix of temporary files, so two processes (or two caches) never write the same one. Drawn on
 * the first write, not at import: node:crypto loads with the first cached answer (issue 46, item 4).
 */
function tempFileTag(): string {
  return (tempTag ??= `${process.pid}.${randomBytes(4).toString("hex")}`);
}

export class ResponseCache {
  readonly ttlMs: number;
  readonly maxEntries: number;
  readonly dir?: string;
  readonly #memory = new Map<string, Stored>();
  readonly #inFlight = new Map<string, Promise<CacheEntry>>();
  readonly #now: () => number;
  #hits = 0;
  #misses = 0;
  #generation = 0;

  constructor(options: CacheOptions = {}, now: () => number = Date.now) {
    this.ttlMs = options.ttlMs ?? DEFAULT_CACHE_TTL_MS;
    this.maxEntries = options.maxEntries ?? DEFAULT_CACHE_ENTRIES;
    if (!(this.ttlMs > 0))
      throw new ConfigurationError(`cache.ttlMs must be > 0, got ${options.ttlMs}`, { operation: "configure" });
    if (!(Number.isInteger(this.maxEntries) && this.maxEntries > 0))
      throw new ConfigurationError(`cache.maxEntries must be a positive integer, got ${options.maxEntries}`, {
        operation: "configure",
      });
    if (options.dir !== undefined) {
      if (typeof options.dir !== "string" || !options.dir.trim())
        throw new ConfigurationError("cache.dir must be a directory path", { operation: "configure" });
      this.dir = path.resolve(options.dir);
      prepareDirectory(this.dir);
    }
    this.#now = now;
  }

  get stats(): CacheStats {
    return { hits: this.#hits, misses: this.#misses, entries: this.#memory.size };
  }

  /**
   * Bumped by {@link clear}: a read that started before a write must not store its (older) answer after
   * the write emptied the cache. Pass the value seen at the start of the read to {@link set}.
   */
  get generation(): number {
    return this.#generation;
  }

  /**
   * The fresh entry for `key` (memory, then disk), counting a hit or a miss.
   * @example
   * ```ts
   * import { ResponseCache } from "risk-portal-lab/internals";
   * const cache = new ResponseCache({ ttlMs: 60_000 });
   * await cache.set("k", { text: "{}", receivedAt: new Date().toISOString() });
   * await cache.get("k"); // the entry while fresh, counted as a hit
   * ```
   */
  async get(key: string): Promise<CacheEntry | undefined> {
    const found = this.#fresh(this.#memory.get(key)) ?? (await this.#readDisk(key));
    if (!found) {
      this.#misses++;
      this.#memory.delete(key);
      return undefined;
    }
    this.#hits++;
    this.#remember(found);
    return found;
  }

  /**
   * Single flight: the answer of an identical call already in flight, if there is one (counted as a
   * hit); `undefined` when this caller should ask the server itself.
   * @example
   * ```ts
   * import { ResponseCache } from "risk-portal-lab/internals";
   * const cache = new ResponseCache();
   * cache.joinInFlight("k"); // undefined: nothing in flight, this caller asks the server (then cache.lead)
   * ```
   */
  joinInFlight(key: string): Promise<CacheEntry> | undefined {
    const pending = this.#inFlight.get(key);
    if (pending) {
      this.#hits++;
      this.#misses = Math.max(0, this.#misses - 1); // the get() before this counted a miss
    }
    return pending;
  }

  /**
   * Registers the call that will answer `key`, so that identical calls join it until it settles.
   * @example
   * ```ts
   * import { ResponseCache } from "risk-portal-lab/internals";
   * const cache = new ResponseCache();
   * const answer = Promise.resolve({ text: "{}", receivedAt: new Date().toISOString() });
   * cache.lead("k", answer);
   * await cache.joinInFlight("k"); // the same answer: one request for identical calls
   * ```
   */
  lead(key: string, answer: Promise<CacheEntry>): void {
    this.#inFlight.set(key, answer);
    const forget = () => {
      if (this.#inFlight.get(key) === answer) this.#inFlight.delete(key);
    };
    answer.then(forget, forget);
  }

  /**
   * Stores an entry in memory and, with a directory, on disk (a temporary file of its own, renamed into
   * place). Skipped when the cache was cleared since `generation` (a write happened meanwhile). A disk
   * that refuses the write is a {@link ConfigurationError} naming the file.
   * @example
   * ```ts
   * import { ResponseCache } from "risk-portal-lab/internals";
   * const cache = new ResponseCache({ ttlMs: 60_000, dir: ".rpl-cache" });
   * await cache.set("k", { text: "{}", receivedAt: new Date().toISOString() }); // in memory and on disk
   * ```
   */
  async set(key: string, entry: CacheEntry, generation = this.#generation): Promise<void> {
    if (generation !== this.#generation) return;
    const stored: Stored = { key, storedAtMs: this.#now(), ...entry };
    this.#remember(stored);
    if (!this.dir) return;
    const file = this.#file(key);
    const temp = path.join(this.dir, `.${path.basename(file)}.${tempFileTag()}.${++tempCounter}.tmp`);
    try {
      await writeFile(temp, JSON.stringify(stored));
      await rename(temp, file);
    } catch (error) {
      await rm(temp, { force: true }).catch(() => undefined);
      const code = (error as NodeJS.ErrnoException).code;
      // Something not ours holds the entry's name (a directory): leave it alone; memory still has the entry.
      if (code === "EISDIR" || code === "ENOTEMPTY" || code === "EEXIST") return;
      throw new ConfigurationError(`the response cache could not write ${file}: ${(error as Error).message}`, {
        operation: "cache",
        cause: error,
      });
    }
  }

  /**
   * Forgets every entry, in memory and on disk (only files that are entries of ours).
   * @example
   * ```ts
   * import { ResponseCache } from "risk-portal-lab/internals";
   * const cache = new ResponseCache();
   * await cache.clear(); // what the client does after every upload or launch
   * ```
   */
  async clear(): Promise<void> {
    this.#generation++;
    this.#memory.clear();
    if (!this.dir) return;
    let names: string[];
    try {
      names = (await readdir(this.dir, { withFileTypes: true }))
        .filter((d) => d.isFile() && ENTRY_FILE.test(d.name))
        .map((d) => d.name);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
      throw new ConfigurationError(`the response cache could not list ${this.dir}: ${(error as Error).message}`, {
        operation: "cache",
        cause: error,
      });
    }
    await Promise.all(
      names.map((n) =>
        rm(path.join(this.dir!, n), { force: true }).catch((error: Error) => {
          throw new ConfigurationError(
            `the response cache could not remove ${path.join(this.dir!, n)}: ${error.message}`,
            {
              operation: "cache",
              cause: error,
            },
          );
        }),
      ),
    );
  }

  #fresh(stored: Stored | undefined): Stored | undefined {
    return stored && this.#now() - stored.storedAtMs < this.ttlMs ? stored : undefined;
  }

  #remember(stored: Stored): void {
    this.#memory.delete(stored.key);
    this.#memory.set(stored.key, stored);
    while (this.#memory.size > this.maxEntries) this.#memory.delete(this.#memory.keys().next().value!);
  }

  async #readDisk(key: string): Promise<Stored | undefined> {
    if (!this.dir) return undefined;
    let stored: unknown;
    try {
      stored = JSON.parse(await readFile(this.#file(key), "utf8"));
    } catch {
      return undefined; // absent, not a file, or not JSON: not an entry of ours
    }
    // A hash collision, a hand-edited or foreign file must not answer for another request.
    return isStored(stored) && stored.key === key ? this.#fresh(stored) : undefined;
  }

  #file(key: string): string {
    return path.join(this.dir!, `${createHash("sha256").update(key).digest("hex").slice(0, 32)}.json`);
  }
}

function isStored(value: unknown): value is Stored {
  const v = value as Partial<Stored> | null;
  return (
    typeof v === "object" &&
    v !== null &&
    typeof v.key === "string" &&
    typeof v.text === "string" &&
    typeof v.receivedAt === "string" &&
    typeof v.storedAtMs === "number" &&
    Number.isFinite(v.storedAtMs) &&
    (v.requestId === undefined || typeof v.requestId === "string")
  );
}

/** Creates the cache directory, or refuses a path that cannot be one: once, when the cache is made. */
function prepareDirectory(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw new ConfigurationError(
      `cache.dir ${dir} cannot be used as the response cache's directory: ${(error as Error).message}`,
      {
        operation: "configure",
        cause: error,
      },
    );
  }
  if (!statSync(dir).isDirectory())
    throw new ConfigurationError(`cache.dir ${dir} is not a directory`, { operation: "configure" });
}

/** A fingerprint of a credential for cache keys: never the credential itself. */
export function fingerprint(secret: string): string {
  return createHash("sha256").update(secret).digest("hex").slice(0, 16);
}
