/**
 * Provenance: where a response came from. The request pipeline attaches one record to every response
 * object it returns (a private field, see {@link Stamps}; attachProvenance, for other objects, a
 * non-enumerable property: JSON, spreads and equality checks see neither), the frame adapters carry it
 * into `meta.provenance`, and table displays show it in one line.
 */
import type { CanonicalRequest } from "./canonical";

/** `live`: from the server just now; `cache`: from the response cache; `cassette`: replayed from a recording. */
export type ProvenanceSource = "live" | "cache" | "cassette";

export interface Provenance {
  /** The spec's operation name (`RateAsset`). */
  readonly operation: string;
  /** The request in canonical form (keys sorted, date-times as UTC instants), secrets masked. */
  readonly request: CanonicalRequest;
  /** When the response arrived from the server (ISO 8601 UTC): for `cache` and `cassette`, the original arrival. */
  readonly receivedAt: string;
  readonly source: ProvenanceSource;
  /** The server's base URL (for `cassette`: the one it was recorded from). */
  readonly baseUrl: string;
  /** The server's request id, when it sent one. */
  readonly requestId?: string;
  /** For `cassette`: the cassette file. */
  readonly cassette?: string;
  /** The URL the answer came from, when a same-origin redirect moved the request (redacted). */
  readonly url?: string;
}

/** A registered symbol, so two copies of the package loaded in one process still agree. */
const KEY = Symbol.for("risk-portal-lab.provenance");
/** The method of a {@link ProvenanceRecord} that spells it out (registered too: another copy's records are read alike). */
const SPELL = Symbol.for("risk-portal-lab.provenance.spell");
/** Where the process keeps the class that stamps answers ({@link Stamps}; `v1`: its put/get, renamed if they change). */
const STAMPS = Symbol.for("risk-portal-lab.provenance.stamps.v1");

/**
 * Where an answer's request id is, to be read when first asked for: a live answer's headers are looked up
 * only then (an absent header is a walk through all of them, on every answer, for an id most never read).
 */
export interface RequestIdSource {
  readonly requestId?: string;
}

/** What names a provenance's request, when it is read: the call's request, secrets masked. */
export interface RequestNamer {
  maskedRequest(): CanonicalRequest;
}

/**
 * A provenance as the pipeline attaches it to every answer: its raw parts, in a class instance (a plain
 * object with a getter costs ~0.7 µs to build, on every answer, and most answers never have their
 * provenance read). {@link provenanceOf} spells it out, once, as the plain {@link Provenance}. Its
 * fields read as the provenance's own (`request` too, through a getter), for a copy of the package that
 * reads it directly.
 */
export class ProvenanceRecord {
  #spelled?: Provenance;
  #requestId: string | undefined | RequestIdSource;
  constructor(
    readonly operation: string,
    readonly receivedAt: string,
    readonly source: ProvenanceSource,
    readonly baseUrl: string,
    requestId: string | undefined | RequestIdSource,
    readonly cassette: string | undefined,
    readonly url: string | undefined,
    readonly namer: RequestNamer,
  ) {
    this.#requestId = requestId;
  }
  /** The server's request id, when it sent one (from a source: read when first asked for). */
  get requestId(): string | undefined {
    const id = this.#requestId;
    if (id === undefined || typeof id === "string") return id;
    return (this.#requestId = id.requestId);
  }
  get request(): CanonicalRequest {
    return this.namer.maskedRequest();
  }
  /** The plain provenance, built when first asked for (the same object each time). */
  [SPELL](): Provenance {
    return (this.#spelled ??= spellProvenance(this));
  }
}

/** The record as the plain provenance: optional fields only when present, in this order; `request` named when read. */
export function spellProvenance(record: ProvenanceRecord): Provenance {
  const namer = record.namer;
  const provenance: { -readonly [K in keyof Provenance]: Provenance[K] } = {
    operation: record.operation,
    get request() {
      return namer.maskedRequest();
    },
    receivedAt: record.receivedAt,
    source: record.source,
    baseUrl: record.baseUrl,
  };
  if (record.requestId !== undefined) provenance.requestId = record.requestId;
  if (record.cassette !== undefined) provenance.cassette = record.cassette;
  if (record.url !== undefined) provenance.url = record.url;
  return provenance;
}

/**
 * Attaches `provenance` to a response object (not to primitives) and returns the object.
 * @example
 * ```ts
 * import { attachProvenance } from "risk-portal-lab/internals";
 * const answer = attachProvenance({ rows: [] }, { operation: "Mine", request: {}, receivedAt: new Date().toISOString(), source: "live", baseUrl: "https://risk.example.com" });
 * provenanceOf(answer)?.operation; // "Mine"
 * ```
 */
export function attachProvenance<T>(value: T, provenance: Provenance | ProvenanceRecord): T {
  if (!attachable(value)) return value;
  // One descriptor object for every call (defineProperty reads it, never keeps it).
  ATTACHED.value = provenance;
  try {
    Object.defineProperty(value, KEY, ATTACHED);
  } finally {
    ATTACHED.value = undefined;
  }
  return value;
}
// Not enumerable (the default: one field fewer for defineProperty to read).
const ATTACHED: PropertyDescriptor = { value: undefined, configurable: true, writable: true };

/**
 * {@link attachProvenance} for an answer the pipeline has just decoded: the record goes into a private
 * field of the answer (see {@link Stamps}), as hidden as the property and ~0.25 µs cheaper an answer.
 */
export function attachToAnswer<T>(value: T, record: ProvenanceRecord): T {
  if (attachable(value)) stamps.put(value, record);
  return value;
}

/** An object that can take a provenance: not a primitive, and not frozen or sealed (a schema's frozen output is left without). */
function attachable(value: unknown): value is object {
  return value !== null && typeof value === "object" && Object.isExtensible(value);
}

/**
 * Answers' records, in a private field added to each answer. A private field is seen by no key listing,
 * spread, JSON or display, like a non-enumerable property; adding one is a store the engine optimises,
 * where defineProperty is a call into its runtime (~0.27 µs an answer in Node 22 and 26, against ~0.02).
 * The class is made once per process and kept on a registered symbol, so that every copy of the package
 * the process loads stamps and reads with the same private name.
 */
interface Stamps {
  put(target: object, record: unknown): void;
  get(target: object): unknown;
}

const stamps: Stamps = ((globalThis as { [STAMPS]?: Stamps })[STAMPS] ??= makeStamps());

function makeStamps(): Stamps {
  /** A base whose constructor returns the object it is given: a subclass adds its fields to that object. */
  class Target {
    constructor(target: object) {
      return target;
    }
  }
  class Stamp extends Target {
    #record: unknown;
    constructor(target: object, record: unknown) {
      super(target);
      this.#record = record;
    }
    static put(target: object, record: unknown): void {
      if (#record in target) target.#record = record;
      else new Stamp(target, record);
    }
    static get(target: object): unknown {
      return #record in target ? target.#record : undefined;
    }
  }
  return { put: (target, record) => Stamp.put(target, record), get: (target) => Stamp.get(target) };
}

/**
 * The provenance the pipeline attached to a response object, if any.
 * @example
 * ```ts
 * const curve = await rp.rateAsset.getCurve({ currency: "EUR", market_date: "2026-11-20" });
 * provenanceOf(curve)?.source; // "live", "cache" or "cassette"
 * ```
 */
export function provenanceOf(value: unknown): Provenance | undefined {
  if (value === null || typeof value !== "object") return undefined;
  const attached = ((value as Record<symbol, unknown>)[KEY] ?? stamps.get(value)) as
    (Provenance & { [SPELL]?: () => Provenance }) | undefined;
  return typeof attached?.[SPELL] === "function" ? attached[SPELL]() : attached;
}

/**
 * The provenance records the given responses carry, in order (responses, or parts of them, without one
 * are skipped): what an adapter puts in its table's `meta.provenance`.
 */
export function provenanceFrom(...responses: readonly unknown[]): Provenance[] {
  const out: Provenance[] = [];
  for (const r of responses) {
    const p = provenanceOf(r);
    if (p) out.push(p);
  }
  return out;
}

/** `2026-11-22T01:40:12.345Z` → `2026-11-22 01:40:12Z`. */
function shortTime(iso: string): string {
  return iso.replace("T", " ").replace(/\.\d+Z$/, "Z");
}

/** The request's body or query in a short form (`{"currency":"USD","market_date":"2026-11-20"}`), `$type` left out. */
export function requestSummary(request: CanonicalRequest, max = 80): string {
  const input = request.body ?? request.query;
  if (input === undefined) return "";
  const shown =
    input && typeof input === "object" && !Array.isArray(input)
      ? Object.fromEntries(Object.entries(input).filter(([k]) => k !== "$type"))
      : input;
  const text = JSON.stringify(shown, (_k, v: unknown) =>
    typeof v === "string" && /T00:00:00Z$/.test(v) ? v.slice(0, 10) : v,
  );
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * One line saying where rows came from, e.g.
 * `RateAsset {"currency":"USD","market_date":"2026-11-20"} · live from http://127.0.0.1:4321 · received 2026-11-22 01:40:12Z`,
 * or for many responses `RateAsset ×12 · live 10, cache 2 from … · received 01:40:12Z … 01:40:13Z`.
 * @example
 * ```ts
 * const df = frames.yieldCurve(await rp.rateAsset.getCurve({ currency: "EUR", market_date: "2026-11-20" }));
 * console.log(formatProvenance(frames.provenance(df)));
 * ```
 */
export function formatProvenance(list: readonly Provenance[]): string {
  if (list.length === 0) return "";
  const first = list[0]!;
  const operations = [...new Set(list.map((p) => p.operation))];
  const what =
    list.length === 1
      ? `${first.operation} ${requestSummary(first.request)}`.trim()
      : `${operations.join(", ")} ×${list.length}`;
  const counts = new Map<ProvenanceSource, number>();
  for (const p of list) counts.set(p.source, (counts.get(p.source) ?? 0) + 1);
  const sources = counts.size === 1 ? first.source : [...counts].map(([s, n]) => `${s} ${n}`).join(", ");
  const urls = [...new Set(list.map((p) => p.baseUrl))];
  // The file name only: the same replay shows the same line on every machine.
  const cassettes = [...new Set(list.map((p) => p.cassette?.split(/[\\/]/).pop()).filter((c): c is string => !!c))];
  const from = `${sources} from ${urls.join(", ")}${cassettes.length ? ` (cassette ${cassettes.join(", ")})` : ""}`;
  const times = list.map((p) => p.receivedAt).sort();
  const lo = times[0]!;
  const hi = times[times.length - 1]!;
  const when = lo === hi ? shortTime(lo) : `${shortTime(lo)} … ${shortTime(hi)}`;
  const verb = counts.size === 1 && first.source === "cassette" ? "recorded" : "received";
  return `${what} · ${from} · ${verb} ${when}`;
}
