/**
 * The response check without zod's copy, for answers that fit. zod's `safeParse` builds a new object for
 * every object and array of an answer, field by field: for a 20-point curve that was the pipeline's largest
 * cost per request (bench/throughput.mjs's profile). An answer that fits its schema exactly, needing no
 * transformation, comes out of zod as a copy equal to what went in. So each response schema is compiled
 * once into a plain check that answers one question: does zod accept this value and return it unchanged
 * (the same values, the same keys in the same order)? When it says yes, the parsed JSON is the result;
 * on any doubt (an error, a transform, a key zod would drop or move, a kind of schema it does not know) the
 * answer goes through zod as before, so errors are zod's, unchanged.
 *
 * Supported: string, number, boolean, null, unknown/any, enum, literal, optional, nullable, array,
 * object (loose, strict or stripping) and unions of primitives, with the checks that only accept or refuse
 * (formats, regexes, lengths, bounds). A schema with anything else (transforms, pipes, defaults,
 * refinements, records, lazy, unions of objects) is not compiled: its answers always go through zod.
 * The check is generated as one JavaScript function per schema node (as zod's own objects are), so that
 * each field is read by its name: closures over a generic walk were no faster than zod.
 */
import { z } from "zod";
import { daysInMonth, digits } from "../api/date-text";

/** `true`: zod accepts the value and returns it unchanged. `false`: zod must say (it may refuse or change it). */
type Check = (value: unknown) => boolean;

/** Compiled checks by schema; `null`: the schema cannot be compiled (zod always). */
const compiled = new WeakMap<z.ZodType, Check | null>();

/** What `safeParse` returns, for a value that fits or zod's answer. */
export type CheckResult<T> = { success: true; data: T } | { success: false; error: z.ZodError };

/**
 * The schema's result for a value fresh from JSON.parse: the value itself when it fits exactly, else zod's
 * `safeParse`.
 */
export function checkResponse<S extends z.ZodType>(schema: S, json: unknown): CheckResult<z.output<S>> {
  let check = compiled.get(schema);
  if (check === undefined) {
    check = compileCheck(schema) ?? null;
    compiled.set(schema, check);
  }
  if (check !== null && !prototypeEnumerable() && check(json)) return { success: true, data: json as z.output<S> };
  return schema.safeParse(json);
}

/** Whether Object.prototype holds an enumerable key (someone added one): the compiled checks' for…in would list it. */
function prototypeEnumerable(): boolean {
  for (const _ in Object.prototype) return true;
  return false;
}

/** The schema's zod internals: its definition and its traits. */
interface Internals {
  def: Record<string, unknown> & { type: string; checks?: z.ZodType[] };
  traits: Set<string>;
  check?: (payload: { value: unknown; issues: unknown[] }) => unknown;
  optin?: string;
  optout?: string;
}

const internals = (schema: unknown): Internals => (schema as { _zod: Internals })._zod;

/** Checks that only accept or refuse a value (never change it, never depend on other fields). */
const PURE_CHECKS = new Set([
  "string_format",
  "min_length",
  "max_length",
  "length_equals",
  "greater_than",
  "less_than",
  "multiple_of",
  "number_format",
]);

/**
 * A check of a value, or undefined when the schema holds something this module does not compile. The value
 * must be a tree, as JSON.parse makes it (zod's memoizer shares the copy of an object met twice: the
 * check does not look for that).
 */
export function compileCheck(schema: z.ZodType): Check | undefined {
  const gen: Generator = { nodes: new Map(), source: [], context: [] };
  const root = node(gen, schema);
  if (root === undefined) return undefined;
  try {
    const make = new Function("c", `"use strict";\n${gen.source.join("\n")}\nreturn ${root};`) as (
      c: unknown[],
    ) => Check;
    return make(gen.context);
  } catch {
    // No code generation here (a content security policy): zod checks every answer.
    return undefined;
  }
}

/** One compilation: a function name per schema node, their source, and the values they refer to (`c[i]`). */
interface Generator {
  nodes: Map<unknown, string | null>;
  source: string[];
  context: unknown[];
}

/** A value the generated code refers to, as `c[i]`. */
function ref(gen: Generator, value: unknown): string {
  gen.context.push(value);
  return `c[${gen.context.length - 1}]`;
}

/** The name of the generated function that checks `schema`, or undefined when it cannot be compiled. */
function node(gen: Generator, schema: unknown): string | undefined {
  const known = gen.nodes.get(schema);
  if (known !== undefined) return known ?? undefined;
  // A schema met again while its own function is being made (a cycle through lazy is never compiled).
  gen.nodes.set(schema, null);
  const zod = internals(schema);
  const own = ownBody(gen, zod);
  const checks = own === undefined ? undefined : checksOf(zod);
  if (own === undefined || checks === undefined) return undefined;
  const name = `n${gen.source.length}`;
  const passed = checks.length ? ref(gen, new PassedChecks(checks)) : "";
  // A date-time zod's pattern takes, recognised in JavaScript (no hash of a fresh string to compute)...
  const first = checks.length === 1 && isZodDateTime(checks[0]!) ? "isCanonicalDateTime(v) || " : "";
  // ...else the look-up of a string that passed before, in the node's own code (the usual answer: a repeated date).
  const tail = checks.length ? `return ${first}${passed}.passed.has(v) || passes(${passed}, v);` : "return true;";
  gen.source.push(`function ${name}(v) {\n${own}\n${tail}\n}`);
  gen.nodes.set(schema, name);
  if (checks.length && !gen.context.includes(passes)) gen.source.push(`const passes = ${ref(gen, passes)};`);
  // Bound by name, as `passes` is (a function read from `c` on every call is not inlined).
  if (first && !gen.context.includes(isCanonicalDateTime))
    gen.source.push(`const isCanonicalDateTime = ${ref(gen, isCanonicalDateTime)};`);
  return name;
}

/** The schema's checks, as zod runs them after the type (the schema itself first when it is a check); undefined when one is not pure. */
function checksOf(zod: Internals): Internals[] | undefined {
  const list = [...(zod.traits.has("$ZodCheck") ? [zod] : []), ...(zod.def.checks ?? []).map(internals)];
  for (const check of list) {
    const def = check.def as { check?: string; when?: unknown };
    if (!PURE_CHECKS.has(def.check ?? "") || typeof check.check !== "function") return undefined;
    if (def.when !== undefined && typeof def.when !== "function") return undefined;
  }
  return list;
}

/**
 * A node's checks, and the strings that passed them lately: an answer repeats its dates (a curve's
 * expiries, request after request), and a date-time's pattern costs more than a look-up. The checks are
 * pure (see {@link PURE_CHECKS}), so a string that passed once passes again.
 */
class PassedChecks {
  readonly passed = new Set<string>();
  constructor(readonly checks: Internals[]) {}
}

/**
 * zod's date-time patterns (zod 4: `z.iso.datetime({ offset: true })`, and with `local: true`), as their
 * source: a check with another pattern (another zod, other options) is not given {@link isCanonicalDateTime}.
 */
const DATE = String.raw`(?:(?:\d\d[2468][048]|\d\d[13579][26]|\d\d0[48]|[02468][048]00|[13579][26]00)-02-29|\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)|(?:02)-(?:0[1-9]|1\d|2[0-8])))`;
const QUALIFIED = String.raw`(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?(?:Z|([+-](?:[01]\d|2[0-3]):[0-5]\d))`;
const LOCAL = String.raw`(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d+)?)?`;
export const ZOD_DATE_TIME_SOURCES = new Set([`^${DATE}T(?:${QUALIFIED})$`, `^${DATE}T(?:${QUALIFIED}|${LOCAL})$`]);

/** A check that is zod's date-time format with one of the patterns {@link isCanonicalDateTime} is a part of. */
function isZodDateTime(check: Internals): boolean {
  const def = check.def as { check?: string; format?: string; pattern?: unknown };
  return (
    def.check === "string_format" &&
    def.format === "datetime" &&
    def.pattern instanceof RegExp &&
    def.pattern.flags === "" &&
    ZOD_DATE_TIME_SOURCES.has(def.pattern.source)
  );
}

/**
 * `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)` with a real calendar date (leap years as Gregorian) and
 * hours to 23, minutes and seconds to 59: a string every pattern of {@link ZOD_DATE_TIME_SOURCES} takes.
 * False says nothing: the pattern decides (test/client/response-check.test.ts compares the two).
 */
export function isCanonicalDateTime(s: unknown): boolean {
  if (typeof s !== "string") return false;
  const n = s.length;
  // "-", "-", "T", ":", ":" where the date and the time have them.
  if (n < 20 || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45 || s.charCodeAt(10) !== 84) return false;
  if (s.charCodeAt(13) !== 58 || s.charCodeAt(16) !== 58) return false;
  const year = digits(s, 0, 4);
  const month = digits(s, 5, 7);
  const day = digits(s, 8, 10);
  if (year < 0 || month < 1 || month > 12 || day < 1) return false;
  if (day > daysInMonth(year, month) || !clock(digits(s, 11, 13), digits(s, 14, 16))) return false;
  const seconds = digits(s, 17, 19);
  if (seconds < 0 || seconds > 59) return false;
  let at = 19;
  let c = s.charCodeAt(at);
  if (c === 46) {
    // A fraction: "." and one digit at least.
    const start = ++at;
    while (at < n && (s.charCodeAt(at) - 48) >>> 0 <= 9) at++;
    if (at === start) return false;
    c = s.charCodeAt(at);
  }
  if (c === 90) return at + 1 === n; // "Z"
  // "+HH:MM" or "-HH:MM", and nothing after.
  if ((c !== 43 && c !== 45) || at + 6 !== n || s.charCodeAt(at + 3) !== 58) return false;
  return clock(digits(s, at + 1, at + 3), digits(s, at + 4, at + 6));
}

/** Hours 00–23 and minutes 00–59. */
function clock(hours: number, minutes: number): boolean {
  return hours >= 0 && hours <= 23 && minutes >= 0 && minutes <= 59;
}

/** The most strings a node remembers as passed (then it starts again). */
const PASSED_STRINGS = 4096;

/** Whether a value that has passed its type passes the node's checks, as zod runs them (no issue added). */
function passes(node: PassedChecks, value: unknown): boolean {
  const text = typeof value === "string";
  if (text && node.passed.has(value)) return true;
  const payload = { value, issues: [] as unknown[] };
  for (const check of node.checks) {
    // As zod: a check with a condition (lengths: the value has one) runs only when it holds.
    const when = (check.def as { when?: (p: typeof payload) => boolean }).when;
    if (when !== undefined && !when(payload)) continue;
    check.check!(payload);
    if (payload.issues.length) return false;
  }
  if (text) {
    if (node.passed.size >= PASSED_STRINGS) node.passed.clear();
    node.passed.add(value);
  }
  return true;
}

/** The statements that refuse a value of the wrong kind (the checks come after), or undefined. */
function ownBody(gen: Generator, zod: Internals): string | undefined {
  const def = zod.def;
  if (def.coerce) return undefined;
  switch (def.type) {
    case "string":
      return `if (typeof v !== "string") return false;`;
    case "number":
      return `if (typeof v !== "number" || !Number.isFinite(v)) return false;`;
    case "boolean":
      return `if (typeof v !== "boolean") return false;`;
    case "null":
      return `if (v !== null) return false;`;
    case "unknown":
    case "any":
      return "";
    case "enum":
    case "literal":
      return valueIn(gen, zod);
    case "optional":
      return maybe(gen, def.innerType, "undefined");
    case "nullable":
      return maybe(gen, def.innerType, "null");
    case "array":
      return arrayOf(gen, def.element);
    case "object":
      return objectOf(gen, def);
    case "union":
      return primitiveUnion(gen, def.options as z.ZodType[]);
    default:
      return undefined;
  }
}

/** An enum or a literal: one of its values (zod keeps them in `_zod.values`). */
function valueIn(gen: Generator, zod: Internals): string | undefined {
  const values = (zod as { values?: Set<unknown> }).values;
  if (!(values instanceof Set)) return undefined;
  return `if (!${ref(gen, values)}.has(v)) return false;`;
}

/** optional (`empty` undefined) or nullable (`empty` null): that value as it is, else the inner schema's check. */
function maybe(gen: Generator, inner: unknown, empty: "undefined" | "null"): string | undefined {
  // An inner default fills an absent value in: a transformation.
  if (internals(inner).optin === "defaulted") return undefined;
  const check = node(gen, inner);
  if (check === undefined) return undefined;
  return `if (v === ${empty}) return true;\nif (!${check}(v)) return false;`;
}

function arrayOf(gen: Generator, element: unknown): string | undefined {
  const check = node(gen, element);
  if (check === undefined) return undefined;
  return `if (!Array.isArray(v)) return false;\nfor (let i = 0; i < v.length; i++) if (!${check}(v[i])) return false;`;
}

/** A union whose members are all primitives: any member that fits leaves the value as it is. */
function primitiveUnion(gen: Generator, options: z.ZodType[]): string | undefined {
  const checks: string[] = [];
  for (const option of options) {
    if (!PRIMITIVES.has(internals(option).def.type)) return undefined;
    const check = node(gen, option);
    if (check === undefined) return undefined;
    checks.push(`${check}(v)`);
  }
  return `if (!(${checks.join(" || ") || "false"})) return false;`;
}

const PRIMITIVES = new Set(["string", "number", "boolean", "null", "enum", "literal"]);

/**
 * An object: its fields' checks, and its own keys in the order zod's copy has them (the schema's fields
 * in the schema's order, the present ones, then the other keys in the value's order). A key zod would
 * drop (a stripping object's extra key, `__proto__`) or reorder (index-like keys come first), an extra key
 * a strict object refuses, an absent required field: zod decides.
 *
 * The keys are walked with `for…in` (no array of keys per object: a curve's points are many small
 * objects), which lists the same keys in the same order as `Object.keys` for a plain object whose
 * prototype holds nothing enumerable (with an enumerable key on Object.prototype, which for…in lists and
 * zod's copy takes, {@link checkResponse} leaves every answer to zod).
 * Each schema field must come after the previous one seen; an extra key (where allowed) after all of them.
 * A field named like a property of Object.prototype (`toString`) is not compiled: zod reads an absent
 * one from the prototype.
 */
function objectOf(gen: Generator, def: Internals["def"]): string | undefined {
  const shape = def.shape as Record<string, unknown>;
  if (Object.getOwnPropertySymbols(shape).length) return undefined;
  const catchall = def.catchall === undefined ? "strip" : internals(def.catchall).def.type;
  if (catchall !== "strip" && catchall !== "unknown" && catchall !== "any" && catchall !== "never") return undefined;
  const keys = Object.keys(shape);
  const cases: string[] = [];
  let required = 0;
  for (const [index, key] of keys.entries()) {
    const field = internals(shape[key]);
    const check = node(gen, shape[key]);
    if (check === undefined || key === "__proto__" || /^\d/.test(key) || key in Object.prototype) return undefined;
    // `optional` absent keys are left out of zod's copy; other absence rules (defaults) change the value.
    const optional = field.optin === "optional" && field.optout === "optional";
    if (field.optin !== undefined && !optional) return undefined;
    if (!optional) required++;
    const name = JSON.stringify(key);
    cases.push(
      `case ${name}: if (at >= ${index}) return false; at = ${index};${optional ? "" : " seen++;"} if (!${check}(v[${name}])) return false; break;`,
    );
  }
  const extras = catchall === "unknown" || catchall === "any";
  // An extra key: after it no schema field may come (zod's copy puts them first).
  const other = extras
    ? `default: if (x === "__proto__" || (x.charCodeAt(0) - 48) >>> 0 < 10) return false; at = ${keys.length};`
    : "default: return false;";
  return [
    // Another prototype may hold enumerable keys zod would copy (JSON.parse makes none).
    `if (typeof v !== "object" || v === null || Object.getPrototypeOf(v) !== Object.prototype) return false;`,
    `let at = -1;`,
    `let seen = 0;`,
    `for (const x in v) {`,
    `switch (x) {`,
    ...cases,
    other,
    `}`,
    `}`,
    `return seen === ${required};`,
  ].join("\n");
}
