/**
 * A request's encoding, remembered. Validating and encoding a call's input (the brand's spelling turned
 * neutral, the request schema, the wire spelling, then JSON) was a fifth of the client's own work per
 * request for a small read (bench/throughput.mjs's profile), and a notebook asks the same few inputs
 * again and again. The encoding is a pure function of the operation, the brand, the unknown-field policy
 * and the input, so an input that is plain data (plain objects and arrays of strings, finite numbers,
 * booleans and null, nothing else: no Dates, no getters, no undefined, no proxies) is encoded once and
 * the encoding is reused, frozen. A flat input (fields of those values only: most reads) is found by its
 * names and values in a tree of maps; a nested one is keyed by its JSON text (which is then exact).
 * Anything else, refused inputs and large inputs are encoded every time, as before.
 */
import { types } from "node:util";
import type { Brand } from "../api/brand";
import { encodeRequest, type EncodeResult, type OperationDef, type WireOptions } from "../api/operation";

/** A request as it goes out: its encoding and its body's JSON text. */
export interface Encoded {
  readonly encoded: EncodeResult;
  readonly body?: string;
}

/**
 * Encodings remembered per operation and path, each at most this many: past it, the keyed path drops its
 * oldest half and the flat path's tree starts again.
 */
const MAX_ENTRIES = 256;
/** Inputs larger than this (JSON characters) are not remembered: uploads. */
const MAX_KEY_CHARS = 4096;
/** Nesting and width past which an input is not looked at for a key. */
const MAX_DEPTH = 8;
const MAX_WIDTH = 64;

const memo = new WeakMap<OperationDef, Map<string, Encoded>>();

/** The call's encoding: remembered when its input is plain data, else computed (see the module's note). */
export function encodeCall(
  op: OperationDef,
  input: unknown,
  brand: Brand,
  unknownFields: NonNullable<WireOptions["unknownFields"]>,
): Encoded {
  if (input !== null && typeof input === "object") {
    const flat = flatEncoding(op, input, brand, unknownFields);
    if (flat !== undefined) return flat;
  }
  return keyedEncoding(op, input, brand, unknownFields);
}

/**
 * Flat inputs (the usual read: a few named strings, numbers, booleans), looked up field by field in a tree
 * of maps: brand, policy, then each field's name and value in the input's order. No JSON text, no key
 * string to hash, no property descriptors: on the loopback benchmark that was 3% of a request's CPU
 * (bench/throughput.mjs). Each field is read once; an input that reads as the same names and values as
 * one remembered gets that one's encoding. What is remembered was checked as plain data first
 * ({@link plainJson}), as on the keyed path. Undefined: the input is not flat (the keyed path decides).
 */
function flatEncoding(
  op: OperationDef,
  input: object,
  brand: Brand,
  unknownFields: NonNullable<WireOptions["unknownFields"]>,
): Encoded | undefined {
  const memo = flatMemo.get(op);
  const start = (memo?.root.get(brand) as FlatNode | undefined)?.get(unknownFields) as FlatNode | undefined;
  const found = lookUpFlat(start, input);
  if (found === NOT_FLAT) return undefined;
  if (found !== undefined) return found;
  if (plainJson(input) === undefined) return encodeNow(op, input, brand, unknownFields);
  const fresh = encodeNow(op, input, brand, unknownFields);
  if (fresh.encoded.ok) rememberFlat(op, input, [brand, unknownFields], remembered(fresh));
  return fresh;
}

/** A tree of maps: a field's name, then its value, then the next field's name…; the encoding under {@link LEAF}. */
type FlatNode = Map<unknown, FlatNode | Encoded>;

/** The flat inputs' trees per operation, with how many encodings each holds. */
const flatMemo = new WeakMap<OperationDef, { root: FlatNode; size: number }>();
const LEAF = Symbol("encoding");
const NOT_FLAT = Symbol("not flat");

/**
 * The encoding remembered for the input's names and values, undefined when none is, or NOT_FLAT: a
 * prototype other than Object's, a value that is not a string, a finite number (not -0), a boolean or
 * null, an inherited enumerable key, or an own key that is not enumerable (the schema would read it).
 */
function lookUpFlat(start: FlatNode | undefined, input: object): Encoded | undefined | typeof NOT_FLAT {
  if (Object.getPrototypeOf(input) !== Object.prototype) return NOT_FLAT;
  let node = start;
  let count = 0;
  for (const name in input) {
    if (!Object.hasOwn(input, name)) return NOT_FLAT;
    const value = (input as Record<string, unknown>)[name];
    if (!isFlatValue(value)) return NOT_FLAT;
    count++;
    if (node !== undefined) node = (node.get(name) as FlatNode | undefined)?.get(value) as FlatNode | undefined;
  }
  if (count > MAX_WIDTH || Object.getOwnPropertyNames(input).length !== count) return NOT_FLAT;
  return node?.get(LEAF) as Encoded | undefined;
}

function isFlatValue(value: unknown): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value) && !Object.is(value, -0);
    default:
      return value === null;
  }
}

/** Files a checked encoding under the input's path (past {@link MAX_ENTRIES} for the operation, the tree starts again). */
function rememberFlat(op: OperationDef, input: object, prefix: readonly unknown[], encoding: Encoded): void {
  let memo = flatMemo.get(op);
  if (!memo || memo.size >= MAX_ENTRIES) flatMemo.set(op, (memo = { root: new Map(), size: 0 }));
  let node = memo.root;
  const step = (key: unknown): void => {
    let next = node.get(key) as FlatNode | undefined;
    if (next === undefined) node.set(key, (next = new Map()));
    node = next;
  };
  for (const key of prefix) step(key);
  for (const name in input) {
    step(name);
    step((input as Record<string, unknown>)[name]);
  }
  if (!node.has(LEAF)) memo.size++;
  node.set(LEAF, encoding);
}

/** An encoding as it is remembered: frozen, so no caller can change what a later call sends. */
function remembered(fresh: Encoded): Encoded {
  deepFreeze(fresh.encoded);
  return Object.freeze(fresh);
}

/** Inputs that are not flat (nested lists and objects), keyed by their JSON text. */
function keyedEncoding(
  op: OperationDef,
  input: unknown,
  brand: Brand,
  unknownFields: NonNullable<WireOptions["unknownFields"]>,
): Encoded {
  const data = input === undefined ? "" : plainJson(input);
  if (data === undefined) return encodeNow(op, input, brand, unknownFields);
  // The brand object as well as its name: a key per brand object in use (a client has one).
  let byKey = memo.get(op);
  if (!byKey) memo.set(op, (byKey = new Map()));
  const key = `${brand.name}\u0000${unknownFields}\u0000${data}`;
  const hit = byKey.get(key);
  if (hit && brandOfEntry.get(hit) === brand) return hit;
  const fresh = encodeNow(op, input, brand, unknownFields);
  if (!fresh.encoded.ok) return fresh;
  remembered(fresh);
  brandOfEntry.set(fresh, brand);
  if (byKey.size >= MAX_ENTRIES) for (const old of [...byKey.keys()].slice(0, MAX_ENTRIES / 2)) byKey.delete(old);
  byKey.set(key, fresh);
  return fresh;
}

/** The brand each remembered encoding was made for. */
const brandOfEntry = new WeakMap<Encoded, Brand>();

function encodeNow(
  op: OperationDef,
  input: unknown,
  brand: Brand,
  unknownFields: WireOptions["unknownFields"],
): Encoded {
  const encoded = encodeRequest(op, input, { brand, unknownFields });
  return { encoded, body: encoded.ok && encoded.body !== undefined ? JSON.stringify(encoded.body) : undefined };
}

/** The input's JSON text when it is plain data that JSON spells exactly, small enough; else undefined. */
export function plainJson(input: unknown): string | undefined {
  if (!isPlain(input, 0)) return undefined;
  const text = JSON.stringify(input);
  return text.length <= MAX_KEY_CHARS ? text : undefined;
}

function isPlain(value: unknown, depth: number): boolean {
  // NaN and ±Infinity are refused by the encoder; -0 reads as 0 in JSON (see isFlatValue).
  if (value === null || typeof value !== "object") return isFlatValue(value);
  if (depth >= MAX_DEPTH || types.isProxy(value)) return false;
  return Array.isArray(value) ? isPlainArray(value, depth) : isPlainObject(value, depth);
}

function isPlainArray(value: unknown[], depth: number): boolean {
  if (value.length > MAX_WIDTH || Object.getPrototypeOf(value) !== Array.prototype) return false;
  // Own names: the indices and `length`, nothing else (no holes, no extra properties).
  if (Object.getOwnPropertyNames(value).length !== value.length + 1) return false;
  for (let i = 0; i < value.length; i++) if (!isPlain(value[i], depth + 1)) return false;
  return true;
}

function isPlainObject(value: object, depth: number): boolean {
  // Not a null prototype either: a schema reading a field named like Object.prototype's would see it differ.
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  const names = Object.getOwnPropertyNames(value);
  if (names.length > MAX_WIDTH) return false;
  for (const name of names) {
    // A data property, enumerable: what JSON.stringify writes is what the schema reads.
    const field = Object.getOwnPropertyDescriptor(value, name)!;
    if (!field.enumerable || !("value" in field) || !isPlain(field.value, depth + 1)) return false;
  }
  return true;
}

function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== "object" || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const v of Object.values(value)) deepFreeze(v);
}
