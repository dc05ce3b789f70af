/**
 * Schemas built on their first use (issue 46, item 4): the wire model is some 560 zod schemas, and
 * building them all was a third of what `require("risk-portal-lab")` cost, for the one or two operations
 * a notebook calls. Each schema constant of src/api is `lazy(() => z.…)`: it reads and behaves as the
 * schema itself (its methods, `_zod`, `instanceof`, spreading a shape object), and the schema is built
 * when any of those is first touched; what it accepts and every message it gives are the schema's own.
 */

/**
 * `build()`'s object, made on first use. A stand-in forwards every operation to it; the stand-in's own
 * target only mirrors the properties the object reports as non-configurable (zod's `_zod`), which a
 * forwarding object must hold itself. Methods run with the stand-in as `this`, as they would with the
 * object: a schema made from it (`.optional()`, `z.array(…)`) holds the stand-in, and so builds nothing
 * until it is built itself.
 */
export function lazy<T extends object>(build: () => T): T {
  let built: T | undefined;
  const real = (): T => (built ??= aliased(build(), stand));
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
  return stand;
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
