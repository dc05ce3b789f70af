/**
 * Schemas built on their first use (issue 46, item 4): the wire model is some 560 zod schemas, and
 * building them all was a third of what `require("risk-portal-lab")` cost, for the one or two operations
 * a notebook calls. Each schema constant of the api room is `lazy(() => z.…)`: it reads and behaves as the
 * schema itself (its methods, `_zod`, `instanceof`, spreading a shape object), and the schema is built
 * when any of those is first touched; what it accepts and every message it gives are the schema's own.
 */

/**
 * `build()`'s object, made on first use. A stand-in forwards every operation to it; the stand-in's own
 * target only mirrors the properties the object reports as non-configurable (zod's `_zod`), which a
 * forwarding object must hold itself. Methods run with the stand-in as `this`, as they would with the
 * object: a schema made from it (`.optional()`, `z.array(…)`) holds the stand-in, and so builds nothing
 * until it is built itself; then the stand-ins it holds are replaced by their schemas ({@link settle}), so
 * that checking a value goes through no stand-in below the top.
 */
export function lazy<T extends object>(build: () => T): T {
  let built: T | undefined;
  const real = (): T => {
    if (built === undefined) {
      // Kept before settling, so that a schema that holds its own stand-in (a recursive one) finds itself.
      built = build();
      settle(built, stand);
    }
    return built;
  };
  const mirror = {} as T;
  /** A descriptor of the object, mirrored first when it is non-configurable (the forwarding rule). */
  const described = (key: PropertyKey): PropertyDescriptor | undefined => {
    const descriptor = Reflect.getOwnPropertyDescriptor(real(), key);
    if (descriptor && !descriptor.configurable && !Reflect.getOwnPropertyDescriptor(mirror, key))
      Reflect.defineProperty(mirror, key, descriptor);
    return descriptor;
  };
  const stand: T = new Proxy(mirror, {
    get: (_mirror, key, receiver) => Reflect.get(real(), key, receiver),
    set: (_mirror, key, value) => Reflect.set(real(), key, value),
    has: (_mirror, key) => Reflect.has(real(), key),
    ownKeys: () => {
      const keys = Reflect.ownKeys(real());
      for (const key of keys) described(key);
      return keys;
    },
    getOwnPropertyDescriptor: (_mirror, key) => described(key),
    defineProperty: (_mirror, key, descriptor) =>
      Reflect.defineProperty(real(), key, descriptor) && (described(key), true),
    deleteProperty: (_mirror, key) => Reflect.deleteProperty(real(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(real()),
  });
  STANDS.set(stand, real);
  return stand;
}

/** Each stand-in's object, built on the call. */
const STANDS = new WeakMap<object, () => object>();

/** The object a stand-in stands for (built now), or `value` itself. */
function resolved(value: unknown): unknown {
  const real = typeof value === "object" && value !== null ? STANDS.get(value) : undefined;
  return real ? real() : value;
}

/** What a zod schema holds its parts in: `def` (inner types, options, items, a shape). */
interface ZodParts {
  _zod?: { def?: Record<string, unknown> };
}

/**
 * A built schema made ready to check values: its JSON-schema step told of its stand-in ({@link aliased}),
 * and every stand-in among its parts (`def`'s values, the items of its arrays, the fields of its shape),
 * and its parts' parts, replaced by the schema it stands for. Parts are zod's own objects, made for this
 * schema; what each accepts is the same schema, so what the whole accepts, and every message, is unchanged.
 */
function settle(schema: object, stand: object, seen = new Set<object>()): void {
  if (seen.has(schema)) return;
  seen.add(schema);
  if (seen.size === 1) aliased(schema, stand);
  const def = (schema as ZodParts)._zod?.def;
  if (typeof def !== "object" || def === null) return;
  for (const key of Object.keys(def)) {
    let value = def[key];
    const real = resolved(value);
    if (real !== value) value = def[key] = real;
    const parts: unknown[] = [];
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) parts.push((value[i] = resolved(value[i])));
    } else if (key === "shape" && typeof value === "object" && value !== null) {
      const shape = value as Record<string, unknown>;
      for (const field of Object.keys(shape)) parts.push((shape[field] = resolved(shape[field])));
    } else parts.push(value);
    for (const part of parts)
      if (typeof part === "object" && part !== null && "_zod" in part && !STANDS.has(part)) settle(part, stand, seen);
  }
}

/** What zod's JSON-schema generation keeps per schema it has seen (`ctx.seen`), keyed by the schema. */
interface JsonSchemaContext {
  seen: Map<unknown, unknown>;
}

/**
 * `schema` with its JSON-schema step told that the stand-in is itself: zod's generator files what it
 * has seen under the schema it was given (the stand-in, in a shape or at the top), and each schema's own
 * step looks itself up under its own identity (the built schema); without the alias, `z.toJSONSchema` of
 * an optional field, a default or a pipe found nothing there and threw.
 */
function aliased<T extends object>(schema: T, stand: T): T {
  const internals = (
    schema as { _zod?: { processJSONSchema?: (ctx: JsonSchemaContext, ...rest: unknown[]) => unknown } }
  )._zod;
  const step = internals?.processJSONSchema;
  if (internals && typeof step === "function")
    internals.processJSONSchema = (ctx, ...rest) => {
      if (!ctx.seen.has(schema) && ctx.seen.has(stand)) ctx.seen.set(schema, ctx.seen.get(stand));
      return step.call(internals, ctx, ...rest);
    };
  return schema;
}
