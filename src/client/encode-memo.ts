/**
 * A flat input's encoding, remembered: validating and encoding a call's input (the brand's spelling, the
 * request schema, the wire spelling, JSON) is the largest part of the client's own work on a small read,
 * and a notebook asks the same few inputs again and again. A flat input (a plain object whose own fields
 * are strings, finite numbers, booleans or null: most reads) is copied field by field, and the copy is
 * both what is encoded and, as JSON, the key, so the encoding always matches the key. Anything else is
 * encoded every time.
 */
import type { Brand } from "../api/brand";
import { encodeRequest, type EncodeResult, type OperationDef, type WireOptions } from "../api/operation";

/** Encodings remembered per operation, at most this many (then it starts again). */
const MAX_ENTRIES = 256;
const memo = new WeakMap<OperationDef, Map<string, EncodeResult>>();

/** The call's encoding (see the module's note); a remembered one is frozen, so no caller can change it. */
export function encodeCall(
  op: OperationDef,
  input: unknown,
  brand: Brand,
  unknownFields: NonNullable<WireOptions["unknownFields"]>,
): EncodeResult {
  const flat = flatCopy(input);
  if (flat === undefined) return encodeRequest(op, input, { brand, unknownFields });
  let byKey = memo.get(op);
  if (byKey === undefined) memo.set(op, (byKey = new Map()));
  const key = `${brand.name}\u0000${unknownFields}\u0000${JSON.stringify(flat)}`;
  const known = byKey.get(key);
  if (known !== undefined) return known;
  const encoded = encodeRequest(op, flat, { brand, unknownFields });
  if (!encoded.ok) return encoded;
  if (byKey.size >= MAX_ENTRIES) byKey.clear();
  byKey.set(key, deepFreeze(encoded));
  return encoded;
}

/** A plain copy of a flat input, or undefined (another prototype, a hidden or inherited field, a value of another kind). */
function flatCopy(input: unknown): Record<string, unknown> | undefined {
  if (input === null || typeof input !== "object" || Object.getPrototypeOf(input) !== Object.prototype)
    return undefined;
  const copy: Record<string, unknown> = {};
  let count = 0;
  for (const name in input) {
    const value = (input as Record<string, unknown>)[name];
    const flat = typeof value === "string" || typeof value === "boolean" || value === null;
    if (
      name === "__proto__" ||
      !Object.hasOwn(input, name) ||
      !(flat || (Number.isFinite(value) && !Object.is(value, -0)))
    )
      return undefined;
    copy[name] = value;
    count++;
  }
  return Object.getOwnPropertyNames(input).length === count ? copy : undefined;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
