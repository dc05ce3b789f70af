/**
 * What the simulator checks on a request before any route (issue 28): the `Host` it was addressed to
 * and the spelling of its path. Pure functions; `app.ts` answers what they refuse.
 *
 * - **Host.** Only loopback names and addresses are served: `localhost`, `127.0.0.0/8` in dotted
 *   decimal, `[::1]` (any spelling of it), each with or without a port, plus the name the simulator
 *   was asked to bind (`startSimulator({ host })`) unless that is a wildcard. A web page the user has
 *   open can make the browser send requests to 127.0.0.1 under its own name (DNS rebinding); the
 *   browser then sends that name as `Host`, and the simulator refuses it.
 * - **Path.** The router matches the percent-decoded path, so a spelling that decodes to another path
 *   would be decided on one path and routed to another. The simulator's paths are plain ASCII and
 *   have no parameters, so it refuses, as 400: a request target that is not a path (absolute-form, `*`)
 *   or carries a fragment; a percent-encoded unreserved character (`A–Z a–z 0–9 - . _ ~`), slash or
 *   backslash (`%61`, `%2F`, `%5C`: RFC 3986 §6.2.2.2 says the first are the same URI, and the last
 *   two would be separators to some readers); a raw backslash; an empty segment (`//`); a dot segment
 *   (`.` or `..`). Other percent-encodings decode to paths no route has, and the router answers them.
 *   What remains decodes to itself wherever it matters, and auth, the rate limit and faults are
 *   decided on the route the router matched.
 */
import { isIPv6 } from "node:net";
import { TOKEN_PATH } from "./auth";

/** Routes any caller may reach without credentials (the route's own path as declared); every other route, and no route, needs them. */
export const PUBLIC_ROUTES: ReadonlySet<string> = new Set(["/health", "/openapi.json", TOKEN_PATH]);

/** Bind addresses that name no host: never accepted as a `Host`. */
const WILDCARDS = new Set(["0.0.0.0", "::", "[::]"]);

/** The names a simulator bound to `bindHost` answers to besides the loopback ones. */
export function extraHostNames(bindHost: string | undefined): string[] {
  if (bindHost === undefined || WILDCARDS.has(bindHost)) return [];
  return [isIPv6(bindHost) ? `[${bindHost.toLowerCase()}]` : bindHost.toLowerCase()];
}

/** Whether `host` (a `Host` header value: a name or address and an optional port) is loopback, or one of `extra`. */
export function isAllowedHost(host: string, extra: readonly string[] = []): boolean {
  const m = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::\d{0,5})?$/.exec(host);
  if (!m) return false;
  const name = m[1]!.toLowerCase();
  if (extra.includes(name)) return true;
  if (name.startsWith("[")) return isIPv6(name.slice(1, -1)) && new URL(`http://${name}/`).hostname === "[::1]";
  if (name === "localhost") return true;
  const v4 = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(name);
  return v4 !== null && v4.slice(1).every((octet) => Number(octet) <= 255);
}

/** Why the request target `url` (as on the request line) is refused, or undefined when it is a plain path. */
export function pathIssue(url: string): string | undefined {
  if (!url.startsWith("/"))
    return "the request target must be a path starting with '/' (the simulator is no proxy: no absolute-form)";
  const path = url.split("?", 1)[0]!;
  if (path.includes("#")) return "a request target carries no fragment ('#')";
  if (path.includes("\\")) return "a backslash in the path is refused";
  for (const m of path.matchAll(/%([0-9A-Fa-f]{2})/g)) {
    const char = String.fromCharCode(parseInt(m[1]!, 16));
    if (/[A-Za-z0-9\-._~/\\]/.test(char))
      return `the path encodes ${JSON.stringify(char)} as ${m[0]}; send it as it is (${char === "/" || char === "\\" ? "an encoded separator is refused" : "unreserved characters are never percent-encoded"})`;
  }
  const segments = path.split("/").slice(1);
  if (segments.slice(0, -1).includes("")) return "an empty path segment ('//') is refused";
  if (segments.some((s) => s === "." || s === "..")) return "a dot segment ('.' or '..') in the path is refused";
  return undefined;
}
