/**
 * Provenance: where a response came from. The request pipeline attaches one record to every response
 * object it returns (a private field, see {@link Stamps}; attachProvenance, for other objects, a
 * non-enumerable property: JSON, spreads and equality checks see neither), the frame adapters carry it
 * into `meta.provenance`, and table displays show it in one line.
 */
import type { CanonicalRequest } from "../record/canonical";

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

/** What names a provenance's request, when it is read: the call's request, secrets masked. */
export interface RequestNamer {
  maskedRequest(): CanonicalRequest;
}

/**
 * A provenance as the pipeline attaches it to every answer: its raw parts (most answers never have their
 * provenance read). {@link provenanceOf} spells it out, once, as the plain {@link Provenance}. Its
 * fields read as the provenance's own (`request` too, through a getter), for a copy of the package that
 * reads it directly.
 */
export class ProvenanceRecord {
  #spelled?: Provenance;
  constructor(
    readonly operation: string,
    readonly receivedAt: string,
    readonly source: ProvenanceSource,
    readonly baseUrl: string,
    /** The server's request id, when it sent one. */
    readonly requestId: string | undefined,
    readonly cassette: string | undefined,
    readonly url: string | undefined,
    readonly namer: RequestNamer,
  ) {}
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
  // Not enumerable: no key listing, spread, JSON or display sees it.
  if (attachable(value)) Object.defineProperty(value, KEY, { value: provenance, configurable: true, writable: true });
  return value;
}

/** {@link attachProvenance} for an answer the pipeline has just decoded. */
export function attachToAnswer<T>(value: T, record: ProvenanceRecord): T {
  return attachProvenance(value, record);
}

/** An object that can take a provenance: not a primitive, and not frozen or sealed (a schema's frozen output is left without). */
function attachable(value: unknown): value is object {
  return value !== null && typeof value === "object" && Object.isExtensible(value);
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
  const attached = (value as Record<symbol, unknown>)[KEY] as (Provenance & { [SPELL]?: () => Provenance }) | undefined;
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
