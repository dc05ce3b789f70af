/**
 * The compiled response check (src/client/response-check.ts) says "fits" only when zod accepts the value
 * and returns it unchanged: same values, same keys in the same order. Checked against zod itself on the
 * real replies and on thousands of mutations of them, and on a schema that holds every kind it compiles.
 * Whatever the check says, `checkResponse` gives zod's answer (errors included).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import * as api from "../../src/api";
import type { OperationDef } from "../../src/api/operation";
import {
  checkResponse,
  compileCheck,
  isCanonicalDateTime,
  ZOD_DATE_TIME_SOURCES,
} from "../../src/client/response-check";
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

/** The check agrees with zod on `value`: "fits" only when zod accepts it unchanged; checkResponse is zod's answer. */
function agree(schema: z.ZodType, value: unknown): boolean {
  const check = compileCheck(schema);
  const fits = check !== undefined && check(value);
  const byZod = schema.safeParse(value);
  if (fits) {
    expect(byZod.success).toBe(true);
    expect(JSON.stringify(byZod.data)).toBe(JSON.stringify(value));
  }
  const got = checkResponse(schema, value);
  expect(got.success).toBe(byZod.success);
  if (!got.success) expect(got.error.issues).toEqual(byZod.error!.issues);
  else expect(JSON.stringify(got.data)).toBe(JSON.stringify(byZod.data));
  return fits;
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
    for (const [k, v] of entries) target[k] = v;
  } else if (r < 0.75) {
    // An own `__proto__` key, as JSON.parse makes it.
    Object.defineProperty(target, "__proto__", {
      value: { a: 1 },
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else if (r < 0.8) {
    // Another prototype, with an enumerable key (what Object.assign of a parsed `__proto__` does).
    Object.setPrototypeOf(target, { polluted: true });
  } else target[key] = undefined;
  return value;
}

describe("the compiled response check", () => {
  it("takes the real replies as they are: the parsed JSON is the result, no copy", () => {
    const curve = JSON.parse(JSON.stringify(curveReply)) as unknown;
    expect(agree(api.getRateAsset.response, curve)).toBe(true);
    const result = checkResponse(api.getRateAsset.response, curve);
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
    // Kinds that change the value, or that hold code, are not compiled: zod answers.
    for (const other of [
      z.object({ a: z.string().transform((s) => s.trim()) }),
      z.object({ a: z.number().default(1) }),
      z.object({ a: z.string() }).refine(() => true),
      z.union([z.object({ a: z.number() }), z.object({ b: z.number() })]),
      z.record(z.string(), z.number()),
      z.string().trim(),
    ])
      expect(compileCheck(other)).toBeUndefined();
  });

  it("agrees with zod where walking keys with for…in could differ from Object.keys", () => {
    // A field named like a property of Object.prototype: zod reads an absent one from the prototype.
    const named = z.object({ toString: z.string().optional(), a: z.number() });
    expect(compileCheck(named)).toBeUndefined();
    agree(named, JSON.parse('{"a":1}'));
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
          const got = checkResponse(schema, value);
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

describe("date-times recognised without zod's pattern", () => {
  const patterns = [z.iso.datetime({ offset: true }), z.iso.datetime({ offset: true, local: true })].map(
    (s) => (s._zod.def as { pattern: RegExp }).pattern,
  );

  it("is on for this zod's date-time patterns (off, and zod decides, for any other)", () => {
    for (const pattern of patterns) expect(ZOD_DATE_TIME_SOURCES.has(pattern.source)).toBe(true);
    expect(ZOD_DATE_TIME_SOURCES.has(z.iso.datetime({ offset: true, precision: 3 })._zod.def.pattern!.source)).toBe(
      false,
    );
  });

  it("says yes exactly where the patterns do, for every day of 14 months of 12 years in its shape", () => {
    let yes = 0;
    for (const year of ["0000", "1600", "1900", "1999", "2000", "2023", "2024", "2025", "2026", "2100", "2400", "9999"])
      for (let month = 0; month <= 13; month++)
        for (let day = 0; day <= 32; day++)
          for (const tail of ["T00:00:00Z", "T23:59:59+05:30", "T12:34:56.789-00:00"]) {
            const s = `${year}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}${tail}`;
            const fast = isCanonicalDateTime(s);
            for (const pattern of patterns) expect(fast, s).toBe(pattern.test(s));
            if (fast) yes++;
          }
    // Every real day, in each of the three forms: 0000, 1600, 2000, 2024 and 2400 have a 29 February.
    expect(yes).toBe((5 * 366 + 7 * 365) * 3);
  });

  it("never says yes where a pattern says no, on 40,000 mutations of date-times", () => {
    const next = random(20261126);
    const alphabet = "0123456789-:TZ+.z t";
    const seeds = [
      "2026-11-20T00:00:00+00:00",
      "2024-02-29T23:59:59Z",
      "2026-01-31T12:00:00.5-11:59",
      "1900-02-28T00:00:00Z",
    ];
    let yes = 0;
    for (let i = 0; i < 40_000; i++) {
      const chars = [...seeds[i % seeds.length]!];
      for (let m = 1 + Math.floor(next() * 3); m > 0; m--) {
        const at = Math.floor(next() * (chars.length + 1));
        const c = alphabet[Math.floor(next() * alphabet.length)]!;
        const kind = next();
        if (kind < 0.6) chars[at] = c;
        else if (kind < 0.8) chars.splice(at, 0, c);
        else chars.splice(at, 1);
      }
      const s = chars.join("");
      if (isCanonicalDateTime(s)) {
        yes++;
        for (const pattern of patterns) expect(pattern.test(s), s).toBe(true);
      }
    }
    expect(yes).toBeGreaterThan(2000);
  });
});
