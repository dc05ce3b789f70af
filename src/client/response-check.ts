/**
 * The response check without zod's copy, for answers that fit. zod's `safeParse` builds a new object for
 * every object and array of an answer; an answer that fits a schema needing no transformation comes out
 * of zod equal to what went in (its keys, for a stripping object, in the schema's order). Such a schema
 * is also compiled, once, into a JSON Schema validator (ajv, from `z.toJSONSchema`): an answer it takes
 * is the result as JSON.parse made it. Everything else goes through zod as before, so errors are zod's:
 * an answer the validator refuses, and every schema holding what JSON Schema does not say exactly
 * (transforms, defaults, refinements, records, unions of objects, formats without a pattern, …).
 */
import type Ajv from "ajv";
import { z } from "zod";

/** `true`: zod accepts the value and returns an equal one. `false`: zod must say (it may refuse or change it). */
type Check = (value: unknown) => boolean;

/** Compiled checks by schema; `null`: the schema cannot be compiled (zod always). */
const compiled = new WeakMap<z.ZodType, Check | null>();

/** What `safeParse` returns, for a value that fits or zod's answer. */
export type CheckResult<T> = { success: true; data: T } | { success: false; error: z.ZodError };

/**
 * The schema's result for `json`, fresh from JSON.parse of `text`: the value itself when the compiled
 * check takes it, else zod's `safeParse`. A text with a `"__proto__"` key goes to zod (its copy leaves
 * such a key out; looking for it in the text is cheaper than in every object).
 */
export function checkResponse<S extends z.ZodType>(schema: S, json: unknown, text: string): CheckResult<z.output<S>> {
  let check = compiled.get(schema);
  if (check === undefined) compiled.set(schema, (check = compileCheck(schema) ?? null));
  if (check?.(json) && !text.includes('"__proto__"') && !prototypeEnumerable())
    return { success: true, data: json as z.output<S> };
  return schema.safeParse(json);
}

/** Whether Object.prototype holds an enumerable key (someone added one): zod's copy would take it. */
function prototypeEnumerable(): boolean {
  for (const _ in Object.prototype) return true;
  return false;
}

/**
 * A check that says `true` only where zod accepts the value and returns an equal one (but for an own
 * `__proto__` key: see {@link checkResponse}), or undefined when the schema is not exact in JSON Schema.
 */
export function compileCheck(schema: z.ZodType): Check | undefined {
  let exact = true;
  try {
    const json = z.toJSONSchema(schema, {
      target: "draft-7",
      io: "output",
      unrepresentable: "any",
      override: ({ zodSchema, jsonSchema }) => {
        exact &&= exactInJsonSchema(zodSchema as unknown as z.ZodType);
        // The pattern decides (not the format's name), once per string (see {@link rememberedPattern}).
        delete jsonSchema.format;
        if (typeof jsonSchema.pattern === "string") {
          jsonSchema.format = rememberedPattern(jsonSchema.pattern);
          delete jsonSchema.pattern;
        }
      },
    });
    return exact ? (validator().compile(json) as Check) : undefined;
  } catch {
    // A schema JSON Schema cannot hold, or no code generation here (a content security policy): zod decides.
    return undefined;
  }
}

let ajv: Ajv | undefined;
/** The formats made by {@link rememberedPattern}, by pattern. */
const patternFormats = new Map<string, string>();
/** The most strings a format remembers as passed (then it starts again). */
const PASSED_STRINGS = 4096;

/**
 * A format that tests `pattern` and remembers the strings that passed: an answer repeats its dates (a
 * curve's expiries, request after request), and a date-time's pattern costs more than a look-up.
 */
function rememberedPattern(pattern: string): string {
  let name = patternFormats.get(pattern);
  if (name === undefined) {
    const regex = new RegExp(pattern);
    const passed = new Set<string>();
    name = `pattern-${patternFormats.size}`;
    patternFormats.set(pattern, name);
    validator().addFormat(name, (s: string) => {
      if (passed.has(s)) return true;
      if (!regex.test(s)) return false;
      if (passed.size >= PASSED_STRINGS) passed.clear();
      passed.add(s);
      return true;
    });
  }
  return name;
}

/**
 * The one validator, loaded on the first check (importing the client does not load it). It reads zod's
 * patterns without the `u` flag, as zod does.
 */
function validator(): Ajv {
  if (ajv === undefined) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { default: Ajv } = require("ajv") as typeof import("ajv");
    ajv = new Ajv({ strict: false, unicodeRegExp: false });
  }
  return ajv;
}

/** Kinds whose JSON Schema says exactly what zod accepts, and which zod returns unchanged. */
const EXACT_TYPES = new Set(["string", "number", "boolean", "null", "unknown", "any", "enum", "literal"]);
EXACT_TYPES.add("optional").add("nullable").add("array").add("object").add("lazy").add("union");
/** The checks JSON Schema states as zod runs them (a format only with its pattern: see {@link exactCheck}). */
const EXACT_CHECKS = new Set(["string_format", "min_length", "max_length", "length_equals"]);
EXACT_CHECKS.add("greater_than").add("less_than").add("number_format");
const PRIMITIVES = new Set(["string", "number", "boolean", "null", "enum", "literal"]);

interface Internals {
  def: { type: string; coerce?: boolean; checks?: unknown[]; options?: unknown[]; catchall?: unknown; shape?: object };
  optin?: string;
}
const internals = (schema: unknown): Internals => (schema as { _zod: Internals })._zod;

/** Whether one node of the schema (its own kind and checks, not its children's) is exact in JSON Schema. */
function exactInJsonSchema(schema: z.ZodType): boolean {
  const { def, optin } = internals(schema);
  // A format's schema (`z.url()`, `z.iso.datetime()`) is a check itself.
  const checks = [...("check" in def ? [schema] : []), ...(def.checks ?? [])];
  if (!EXACT_TYPES.has(def.type) || def.coerce || !checks.every(exactCheck)) return false;
  // A union's first member that fits is zod's answer: only primitives are sure to be it unchanged.
  if (def.type === "union") return def.options!.every((o) => PRIMITIVES.has(internals(o).def.type));
  if (def.type === "object") {
    // A field named like a property of Object.prototype (`toString`): zod reads an absent one from the prototype.
    if (Object.keys(def.shape!).some((key) => key in Object.prototype)) return false;
    if (def.catchall !== undefined) return ["unknown", "any", "never"].includes(internals(def.catchall).def.type);
  }
  // An optional field with a default: zod fills it in.
  return optin !== "defaulted";
}

function exactCheck(check: unknown): boolean {
  const def = internals(check).def as { check?: string; pattern?: unknown };
  if (!EXACT_CHECKS.has(def.check ?? "")) return false;
  // A format zod checks in code (a URL) has no pattern for JSON Schema; a pattern with flags is written without them.
  return def.check !== "string_format" || (def.pattern instanceof RegExp && def.pattern.flags === "");
}
