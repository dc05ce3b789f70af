/**
 * The compiled response check ({@link checkResponse}: ajv, from the schema's JSON Schema) says "fits" only
 * when zod accepts the value and returns an equal one: the same keys and values (in the order the server
 * sent them, where zod's copy would put a stripping object's fields in the schema's order). Checked
 * against zod itself on the real replies and on thousands of mutations of them, and on a schema that holds
 * every kind it compiles. Whatever the check says, `checkResponse` gives zod's answer (errors included).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import * as api from "../../src/api";
import type { OperationDef } from "../../src/api/operation";
import { checkResponse, compileCheck } from "../../src/client/response-check";
import { curveReply, reportInfoReply } from "../helpers/samples";
import { random } from "../helpers/random";

/** Every operation the api declares. */
function operations(): OperationDef[] {
  const found = new Set<OperationDef>();
  const walk = (value: unknown, depth: number): void => {
    if (depth > 4 || value === null || typeof value !== "object") return;
    const op = value as OperationDef;
    if (typeof op.path === "string" && op.response instanceof z.ZodType && typeof op.method === "string") found.add(op);
    else for (const v of Object.values(value)) walk(v, depth + 1);
  };
  walk(api, 0);
  return [...found];
}

/**
 * The check agrees with zod on `value` (as JSON.parse of its text would make it): checkResponse returns the
 * value itself ("fits") only when zod accepts it and returns an equal one; otherwise it is zod's answer.
 */
function agree(schema: z.ZodType, value: unknown): boolean {
  const got = checkResponse(schema, value, JSON.stringify(value) ?? "");
  const fits = got.success && got.data === value;
  const byZod = schema.safeParse(value);
  if (fits) {
    expect(byZod.success).toBe(true);
    expect(sorted(byZod.data)).toBe(sorted(value));
  }
  expect(got.success).toBe(byZod.success);
  if (!got.success) expect(got.error.issues).toEqual(byZod.error!.issues);
  else expect(sorted(got.data)).toBe(sorted(byZod.data));
  return fits;
}

/** The value's JSON text with every object's keys sorted: the same text for equal values, whatever the keys' order. */
function sorted(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** Every object and array inside a value, with the value itself. */
function containers(value: unknown, out: (Record<string, unknown> | unknown[])[] = []) {
  if (value !== null && typeof value === "object") {
    out.push(value as Record<string, unknown>);
    for (const v of Object.values(value)) containers(v, out);
  }
  return out;
}

const REPLACEMENTS: unknown[] = [
  null,
  "x",
  "",
  1.5,
  -3,
  0,
  true,
  [],
  {},
  "2026-11-20",
  "2026-11-20T00:00:00Z",
  "succeeded",
];

/** One random change somewhere in a copy of `base` (a key dropped, added, moved, a value of another kind). */
function mutate(base: unknown, rnd: () => number): unknown {
  const value = JSON.parse(JSON.stringify(base)) as unknown;
  const all = containers(value);
  const target = all[Math.floor(rnd() * all.length)]!;
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
  if (Array.isArray(target)) {
    const r = target.length ? rnd() : 1;
    if (r < 0.5) target[Math.floor(rnd() * target.length)] = pick(REPLACEMENTS);
    else if (r < 0.75) target.reverse();
    else target.push(pick([...REPLACEMENTS, target[0]]));
    return value;
  }
  const keys = Object.keys(target);
  const key = keys.length ? pick(keys) : "k";
  const r = rnd();
  if (r < 0.25) target[key] = pick(REPLACEMENTS);
  else if (r < 0.4) delete target[key];
  else if (r < 0.55) target[pick(["extra", "1", "status", "data", "id"])] = pick(REPLACEMENTS);
  else if (r < 0.7) {
    // The same fields in another order.
    const entries = Object.entries(target).reverse();
    for (const k of keys) delete target[k];
    // Defined, as JSON.parse does (an assignment to `__proto__` would set the prototype).
    for (const [k, v] of entries)
      Object.defineProperty(target, k, { value: v, enumerable: true, writable: true, configurable: true });
  } else if (r < 0.8) {
    // An own `__proto__` key, as JSON.parse makes it (JSON.parse makes no object of another prototype).
    Object.defineProperty(target, "__proto__", {
      value: { a: 1 },
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else target[key] = undefined;
  return value;
}

describe("the compiled response check", () => {
  it("takes the real replies as they are: the parsed JSON is the result, no copy", () => {
    const curve = JSON.parse(JSON.stringify(curveReply)) as unknown;
    expect(agree(api.getRateAsset.response, curve)).toBe(true);
    const result = checkResponse(api.getRateAsset.response, curve, JSON.stringify(curve));
    expect(result.success && result.data).toBe(curve);
    expect(agree(api.getReportInfos.response, JSON.parse(JSON.stringify(reportInfoReply)))).toBe(true);
  });

  it("agrees with zod on 3,000 mutations of the replies", () => {
    const rnd = random(30);
    let fits = 0;
    let refused = 0;
    for (const [schema, base] of [
      [api.getRateAsset.response, curveReply],
      [api.getReportInfos.response, reportInfoReply],
    ] as const) {
      for (let i = 0; i < 1500; i++) {
        let value = mutate(base, rnd);
        if (rnd() < 0.5) value = mutate(value, rnd);
        if (agree(schema, value)) fits++;
        else if (!schema.safeParse(value).success) refused++;
      }
    }
    // Both sides were exercised: values that fit, and values zod refuses.
    expect(fits).toBeGreaterThan(300);
    expect(refused).toBeGreaterThan(1000);
  });

  it("agrees with zod on every kind it compiles, and leaves the others to zod", () => {
    const schema = z.looseObject({
      id: z.string().min(2),
      when: z.iso.datetime({ offset: true, local: true }).nullish(),
      n: z.number().int().optional(),
      flag: z.boolean(),
      kind: z.enum(["a", "b"]),
      tag: z.literal("T"),
      either: z.union([z.literal(1), z.string(), z.null()]),
      items: z.array(z.strictObject({ x: z.number(), y: z.string().nullable() })).max(3),
      inner: z.object({ a: z.number() }),
      free: z.unknown().optional(),
    });
    expect(compileCheck(schema)).toBeDefined();
    const base = {
      id: "ab",
      when: "2026-11-20T00:00:00+00:00",
      n: 3,
      flag: true,
      kind: "a",
      tag: "T",
      either: 1,
      items: [{ x: 1, y: null }],
      inner: { a: 1 },
      free: { anything: [1] },
      more: 1,
    };
    expect(agree(schema, base)).toBe(true);
    const rnd = random(31);
    for (let i = 0; i < 1000; i++) agree(schema, mutate(base, rnd));
    // Lengths of strings beyond the Basic Multilingual Plane, and of lone surrogates, counted as zod counts them.
    for (const id of ["😀", "😀😀", "\ud83d", "\ud83d\ud83d", "\ude00\ud83d", "👨‍👩‍👧"]) agree(schema, { ...base, id });
    expect(agree(schema, { ...base, id: "😀😀" })).toBe(true);
    // Kinds that change the value, or that hold code, are not compiled: zod answers.
    for (const other of [
      z.object({ a: z.string().transform((s) => s.trim()) }),
      z.object({ a: z.number().default(1) }),
      z.object({ a: z.string() }).refine(() => true),
      z.union([z.object({ a: z.number() }), z.object({ b: z.number() })]),
      z.record(z.string(), z.number()),
      z.string().trim(),
      z.url(),
      z.string().regex(/^a$/i),
    ])
      expect(compileCheck(other)).toBeUndefined();
  });

  it("agrees with zod where keys are named like Object.prototype's, out of order, or inherited", () => {
    // A field named like a property of Object.prototype: zod reads an absent one from the prototype.
    const named = z.object({ toString: z.string().optional(), a: z.number() });
    for (const text of ['{"a":1}', '{"a":1,"toString":"x"}', '{"toString":1,"a":1}']) agree(named, JSON.parse(text));
    // Keys out of the schema's order, extra keys before a field, index-like and __proto__ keys, a missing field.
    const loose = z.looseObject({ a: z.number(), b: z.string().optional(), c: z.boolean() });
    const strict = z.strictObject({ a: z.number(), b: z.string().optional() });
    for (const text of [
      '{"a":1,"b":"x","c":true}',
      '{"a":1,"c":true}',
      '{"a":1,"c":true,"b":"x"}',
      '{"b":"x","a":1,"c":true}',
      '{"a":1,"x":2,"c":true}',
      '{"a":1,"c":true,"x":2}',
      '{"a":1,"c":true,"1":2}',
      '{"a":1,"c":true,"__proto__":2}',
      '{"a":1,"b":"x"}',
      '{"a":1}',
      '{"a":1,"b":"x","x":2}',
    ]) {
      agree(loose, JSON.parse(text));
      agree(strict, JSON.parse(text));
    }
    // An enumerable key on Object.prototype is listed by for…in (and copied by zod): zod decides.
    for (const key of ["polluted", "b"]) {
      Object.defineProperty(Object.prototype, key, {
        value: "x",
        enumerable: true,
        configurable: true,
        writable: true,
      });
      try {
        for (const [schema, text] of [
          [loose, '{"a":1,"c":true}'],
          [strict, '{"a":1}'],
        ] as const) {
          const value: unknown = JSON.parse(text);
          const got = checkResponse(schema, value, text);
          const byZod = schema.safeParse(value);
          expect(got.success).toBe(byZod.success);
          if (got.success) expect(JSON.stringify(got.data)).toBe(JSON.stringify(byZod.data));
        }
      } finally {
        delete (Object.prototype as Record<string, unknown>)[key];
      }
    }
  });

  it("agrees with zod on every operation's response schema, for values of the wrong kind", () => {
    for (const op of operations()) {
      for (const value of [null, {}, [], "x", 1, { $type: "x" }, { is_success: true }]) agree(op.response, value);
    }
    expect(operations().length).toBeGreaterThan(10);
  });
});
