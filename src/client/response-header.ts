/**
 * Reading a header of an answer, cheaply. Every answer has two looked up (its Content-Type and the
 * server's request id); node-fetch's (cross-fetch's, in Node) `headers.get` lower-cases the name and
 * every header's name it holds to compare them, a few microseconds a request (bench/throughput.mjs's
 * profile). Its headers also hand out their map (`raw()`: names as they arrived — Node's HTTP parser
 * lower-cases them — to their values), where a lower-case name is one look-up; what it does not find
 * there is looked for as `get` would (a name spelled otherwise, by a Response built by hand). Other
 * fetch implementations' headers (Node's own, a browser's) are asked with `get`.
 */

/** node-fetch's headers: their map, names to values. */
interface RawHeaders {
  raw(): Record<string, string[] | undefined>;
}

/** The value of header `name` (lower case), as `headers.get(name)` says it: values joined with ", ", or null. */
export function responseHeader(headers: Headers, name: string): string | null {
  if (typeof (headers as Partial<RawHeaders>).raw !== "function") return headers.get(name);
  const map = (headers as unknown as RawHeaders).raw();
  if (map === null || typeof map !== "object") return headers.get(name);
  const values = map[name];
  // One value (the usual): itself, not a join's copy.
  if (Array.isArray(values))
    return values.length === 1 && typeof values[0] === "string" ? values[0] : values.join(", ");
  if (values !== undefined) return headers.get(name);
  // Header names are ASCII tokens: only a name of the same length can be the same name spelled otherwise.
  for (const key in map) if (key.length === name.length && key.toLowerCase() === name) return headers.get(name);
  return null;
}
