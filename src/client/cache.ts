/**
 * The response cache for read operations: in memory (least recently used first out), optionally on
 * disk, each entry good for `ttlMs`. Keyed like cassettes (the canonical request), plus the server and
 * a fingerprint of the credential, so two users or two servers never share an entry. Only operations
 * declared `cacheable` (answers that depend on the request alone) are cached; report statuses and API
 * keys are not. A successful write through the client (an upload, a launch) empties the cache, since
 * it may change what the reads return.
 */
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { ConfigurationError } from "./errors";

export interface CacheOptions {
  /** How long an entry is good for. Default 10 minutes. */
  ttlMs?: number;
  /** Entries kept in memory. Default 256. */
  maxEntries?: number;
  /** A directory to keep entries in across sessions (one JSON file per entry). Default: memory only. */
  dir?: string;
}

export interface CacheStats {
  /** Calls answered from the cache. */
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

export class ResponseCache {
  readonly ttlMs: number;
  readonly maxEntries: number;
  readonly dir?: string;
  readonly #memory = new Map<string, Stored>();
  readonly #now: () => number;
  #hits = 0;
  #misses = 0;

  constructor(options: CacheOptions = {}, now: () => number = Date.now) {
    this.ttlMs = options.ttlMs ?? DEFAULT_CACHE_TTL_MS;
    this.maxEntries = options.maxEntries ?? DEFAULT_CACHE_ENTRIES;
    if (!(this.ttlMs > 0)) throw new ConfigurationError(`cache.ttlMs must be > 0, got ${options.ttlMs}`, { operation: "configure" });
    if (!(Number.isInteger(this.maxEntries) && this.maxEntries > 0)) throw new ConfigurationError(`cache.maxEntries must be a positive integer, got ${options.maxEntries}`, { operation: "configure" });
    if (options.dir !== undefined) {
      if (typeof options.dir !== "string" || !options.dir.trim()) throw new ConfigurationError("cache.dir must be a directory path", { operation: "configure" });
      this.dir = path.resolve(options.dir);
    }
    this.#now = now;
  }

  get stats(): CacheStats {
    return { hits: this.#hits, misses: this.#misses, entries: this.#memory.size };
  }

  /** The fresh entry for `key` (memory, then disk), counting a hit or a miss. */
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

  async set(key: string, entry: CacheEntry): Promise<void> {
    const stored: Stored = { key, storedAtMs: this.#now(), ...entry };
    this.#remember(stored);
    if (!this.dir) return;
    await mkdir(this.dir, { recursive: true });
    const file = this.#file(key);
    const temp = `${file}.${process.pid}.tmp`;
    await writeFile(temp, JSON.stringify(stored));
    await rename(temp, file);
  }

  /** Forgets every entry, in memory and on disk. */
  async clear(): Promise<void> {
    this.#memory.clear();
    if (!this.dir) return;
    const names = await readdir(this.dir).catch(() => [] as string[]);
    await Promise.all(names.filter((n) => n.endsWith(".json")).map((n) => rm(path.join(this.dir!, n), { force: true })));
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
    try {
      const stored = JSON.parse(await readFile(this.#file(key), "utf8")) as Stored;
      // A hash collision or a hand-edited file must not answer for another request.
      return stored.key === key ? this.#fresh(stored) : undefined;
    } catch {
      return undefined;
    }
  }

  #file(key: string): string {
    return path.join(this.dir!, `${createHash("sha256").update(key).digest("hex").slice(0, 32)}.json`);
  }
}

/** A fingerprint of a credential for cache keys: never the credential itself. */
export function fingerprint(secret: string): string {
  return createHash("sha256").update(secret).digest("hex").slice(0, 16);
}
