/**
 * The brand: the one setting that decides every spelling on the wire that carries the service maker's
 * name (A1). The interface spec neutralises it (`Service.Web.Core.X, Service.Web.Core`, enum values
 * `Provider` / `provider`, fields such as `service_created`); the public API reference spells it with the
 * maker's brand (`Derivitec.Web.Core.X, Derivitec.Web.Core`, `Derivitec` / `derivitec`,
 * `derivitec_created`). A caller may write either spelling; what goes on the wire is the brand's.
 *
 * Requests are rewritten twice around validation: {@link toNeutral} turns the brand's (and the published
 * brand's) spellings into the neutral ones the schemas know, {@link toBrand} turns the validated neutral
 * body into the brand's spelling. The simulator does the same on the other side, so its service logic
 * only ever sees the neutral spelling.
 */
import { isRecord } from "./guards";

/** A1: the spec's neutral brand, the default. */
export const DEFAULT_BRAND = "Service";
/** The brand the service's public API reference uses. */
export const PUBLISHED_BRAND = "Derivitec";

/** Fields whose names carry the brand: `{brand}_created`, `{brand}_modified`, `{brand}_modified_by` (record audit fields). */
export const BRANDED_FIELD_SUFFIXES = ["created", "modified", "modified_by"] as const;

export interface Brand {
  /** The namespace of `$type` values (`Service`, `Derivitec`). */
  readonly name: string;
  /** The brand's value of `identifier_type` (`Provider` for the neutral brand, else the brand's name). */
  readonly identifierType: string;
  /** The brand's value of `portfolio_type` (`provider` for the neutral brand, else the name in lower case). */
  readonly portfolioType: string;
  /** Prefix of the branded field names (`service`, `derivitec`). */
  readonly fieldPrefix: string;
  /** `Tradables.ApiGetVolRequest` → `{name}.Web.Core.Tradables.ApiGetVolRequest, {name}.Web.Core`. */
  type(shortName: string): string;
}

const BRAND_NAME = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;
const brands = new Map<string, Brand>();

/**
 * The brand of this name (validated: a .NET namespace such as `Service` or `Derivitec`).
 * @example
 * ```ts
 * import { brandOf } from "risk-portal-lab/api";
 * const brand = brandOf("Derivitec"); // the brand's spellings of $type, enum values and field names
 * ```
 */
export function brandOf(name: string = DEFAULT_BRAND): Brand {
  let brand = brands.get(name);
  if (brand) return brand;
  if (typeof name !== "string" || !BRAND_NAME.test(name))
    throw new TypeError(`a brand is a .NET namespace such as "Service" or "Derivitec", got ${JSON.stringify(name)}`);
  const neutral = name === DEFAULT_BRAND;
  const fieldPrefix = name.toLowerCase().replace(/\./g, "_");
  brand = Object.freeze({
    name,
    identifierType: neutral ? "Provider" : name,
    portfolioType: neutral ? "provider" : fieldPrefix,
    fieldPrefix,
    type: (shortName: string) => typeName(name, shortName),
  });
  brands.set(name, brand);
  return brand;
}

/**
 * `typeName("Service", "Tradables.ApiGetVolRequest")` → `Service.Web.Core.Tradables.ApiGetVolRequest, Service.Web.Core`.
 * @example
 * ```ts
 * import { typeName } from "risk-portal-lab/api";
 * typeName("Derivitec", "Tradables.ApiGetVolRequest"); // "Derivitec.Web.Core.Tradables.ApiGetVolRequest, Derivitec.Web.Core"
 * ```
 */
export function typeName(namespace: string, name: string): string {
  return `${namespace}.Web.Core.${name}, ${namespace}.Web.Core`;
}

const TYPE_VALUE = /^\s*([A-Za-z_][\w.]*?)\.Web\.Core\.([\w.]+)\s*,\s*([A-Za-z_][\w.]*?)\.Web\.Core\s*$/;

/** `{ brand: "Derivitec", name: "Tradables.ApiGetVolRequest" }` for a `$type` value of the `X.Web.Core` form, else undefined. */
export function parseTypeName(value: string): { brand: string; name: string } | undefined {
  const m = TYPE_VALUE.exec(value);
  return m && m[1] === m[3] ? { brand: m[1]!, name: m[2]! } : undefined;
}

/**
 * The short name of a `$type` value (`BuyEvent` for `Service.Web.Core.TradeEvents.BuyEvent, Service.Web.Core`).
 * @example
 * ```ts
 * import { shortTypeName } from "risk-portal-lab/api";
 * shortTypeName("Service.Web.Core.TradeEvents.BuyEvent, Service.Web.Core"); // "BuyEvent"
 * ```
 */
export function shortTypeName(fullName: string): string {
  const head = fullName.split(",")[0]!.trim();
  return head.slice(head.lastIndexOf(".") + 1);
}

const neutralBrand = () => brandOf(DEFAULT_BRAND);

/**
 * The neutral spelling of a request body: `$type` values of the brand (or the neutral one) become
 * `Service.Web.Core.…`, the brand's `identifier_type` / `portfolio_type` values become `Provider` /
 * `provider`, and branded field names (`derivitec_created`) become `service_created`. The published
 * brand's field names are accepted whatever the brand, so that a body copied from the public pages is
 * understood. Plain objects and arrays are copied; nothing the caller passed is changed.
 */
export function toNeutral(value: unknown, brand: Brand): unknown {
  let r = neutralRewriters.get(brand);
  if (!r) neutralRewriters.set(brand, (r = neutralRewriter(brand)));
  return rewrite(value, r);
}

/** {@link toNeutral}'s rewriter for each brand, made once (it runs on every request). */
const neutralRewriters = new Map<Brand, Rewriter>();

function neutralRewriter(brand: Brand): Rewriter {
  const prefixes = new Set([brand.fieldPrefix, brandOf(PUBLISHED_BRAND).fieldPrefix]);
  prefixes.delete(neutralBrand().fieldPrefix);
  return {
    key: (k) => {
      if (!prefixes.size) return k;
      const underscore = k.indexOf("_");
      if (underscore < 0 || !prefixes.has(k.slice(0, underscore))) return k;
      const suffix = k.slice(underscore + 1);
      return (BRANDED_FIELD_SUFFIXES as readonly string[]).includes(suffix)
        ? `${neutralBrand().fieldPrefix}_${suffix}`
        : k;
    },
    value: (k, v) => {
      if (typeof v !== "string") return v;
      if (k === "$type") {
        const t = parseTypeName(v);
        return t && (t.brand === brand.name || t.brand === DEFAULT_BRAND) ? neutralBrand().type(t.name) : v;
      }
      if (k === "identifier_type" && v.toLowerCase() === brand.identifierType.toLowerCase())
        return neutralBrand().identifierType;
      if (k === "portfolio_type" && v.toLowerCase() === brand.portfolioType.toLowerCase())
        return neutralBrand().portfolioType;
      return v;
    },
  };
}

/** The brand's spelling of a neutral body (the inverse of {@link toNeutral}); the neutral brand returns it as it is. */
export function toBrand<T>(value: T, brand: Brand): T {
  if (brand.name === DEFAULT_BRAND) return value;
  const neutral = neutralBrand();
  return rewrite(value, {
    key: (k) => {
      if (!k.startsWith(`${neutral.fieldPrefix}_`)) return k;
      const suffix = k.slice(neutral.fieldPrefix.length + 1);
      return (BRANDED_FIELD_SUFFIXES as readonly string[]).includes(suffix) ? `${brand.fieldPrefix}_${suffix}` : k;
    },
    value: (k, v) => {
      if (typeof v !== "string") return v;
      if (k === "$type") {
        const t = parseTypeName(v);
        return t && t.brand === DEFAULT_BRAND
          ? brand.type(t.name)
          : v.replace(/\bService(?=\.|ExposedApiKey)/g, brand.name);
      }
      if (k === "identifier_type" && v === neutral.identifierType) return brand.identifierType;
      if (k === "portfolio_type" && v === neutral.portfolioType) return brand.portfolioType;
      return v;
    },
  }) as T;
}

interface Rewriter {
  key(key: string): string;
  value(key: string, value: unknown): unknown;
}

/** An empty copy of a plain object or array (filled by {@link rewrite}), or the value rewritten. */
function copy(r: Rewriter, from: unknown, parentKey: string): unknown {
  if (Array.isArray(from)) return new Array<unknown>(from.length);
  if (isRecord(from) && Object.getPrototypeOf(from) === Object.prototype) return {};
  return r.value(parentKey, from);
}

/** A copy of plain objects and arrays with keys and string values rewritten; other values are kept as they are. */
function rewrite(value: unknown, r: Rewriter): unknown {
  // An explicit stack: a body nested thousands deep must not overflow the call stack.
  const root: { v: unknown } = { v: value };
  const stack: { from: unknown; to: Record<string, unknown> | unknown[]; at: string | number }[] = [];
  const start = copy(r, value, "");
  root.v = start;
  if (start !== value && (Array.isArray(start) || isRecord(start)))
    stack.push({ from: value, to: start as Record<string, unknown>, at: "" });
  while (stack.length) {
    const { from, to } = stack.pop()!;
    if (Array.isArray(from)) {
      const out = to as unknown[];
      // Array elements inherit the key of the array (`portfolio_names: ["…"]` is no enum, but a `$type` array would be).
      for (let i = 0; i < from.length; i++) {
        const item = from[i];
        const c = copy(r, item, "");
        out[i] = c;
        if (c !== item && (Array.isArray(c) || isRecord(c)))
          stack.push({ from: item, to: c as Record<string, unknown>, at: i });
      }
      continue;
    }
    const out = to as Record<string, unknown>;
    for (const [k, item] of Object.entries(from as Record<string, unknown>)) {
      const key = r.key(k);
      const c = copy(r, item, k);
      out[key] = c;
      if (c !== item && (Array.isArray(c) || isRecord(c)))
        stack.push({ from: item, to: c as Record<string, unknown>, at: key });
    }
  }
  return root.v;
}
