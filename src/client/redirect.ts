/**
 * Redirects are the pipeline's, never the fetch implementation's: every fetch the client makes (API
 * calls and the OAuth2 token request, under `globalThis.fetch`, cross-fetch or a `fetch` option) is
 * sent with `redirect: "manual"`, and {@link followSameOrigin} follows a redirect only within the
 * origin it was sent to, the caller building each hop's headers (its credential) afresh. A redirect to
 * another origin stops the call: fetch would carry a custom header such as `x-api-key` along (it drops
 * only `Authorization`), and a token request would take a token from whoever the redirect names.
 */
import type { Redactor } from "../record/redact";

/** The redirect statuses the pipeline follows (within the origin). */
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Most redirects followed in one exchange (fetch's own limit is 20; an API has no use for a chain). */
export const MAX_REDIRECTS = 5;

/** One request of an exchange: where, how, and the body (a 303 drops it). */
export interface Hop {
  url: string;
  method: string;
  body?: string;
}

/** Why a redirect was not followed; the caller turns it into its own error (see {@link redirectMessage}). */
export class RedirectRefused {
  constructor(
    readonly status: number,
    readonly reason: "another origin" | "no location" | "bad location" | "too many" | "hidden" | "followed by fetch",
    readonly location?: string,
  ) {}
}

/**
 * Sends `first` with `send` (which must call fetch with `redirect: "manual"` and the hop's own headers)
 * and follows same-origin redirects, at most {@link MAX_REDIRECTS}: 303 turns a POST into a GET without
 * its body (the server says the result is elsewhere; the request is not sent again); 301, 302, 307 and
 * 308 keep the method and body (an API call is not a form: a GET in its place would call nothing).
 * Throws {@link RedirectRefused} for a redirect to another origin, without a usable Location, one too
 * many, or one the fetch implementation hid or followed itself.
 */
export async function followSameOrigin(
  first: Hop,
  send: (hop: Hop) => Promise<Response>,
): Promise<{ response: Response; hop: Hop }> {
  const response = await send(first);
  return isRedirect(response, first) ? followRedirects(first, response, send) : { response, hop: first };
}

/**
 * Whether `response`, the answer to `hop`, is a redirect to follow: throws {@link RedirectRefused} when fetch
 * followed or hid one itself. For a caller that sends the first hop itself (no async function between it
 * and fetch on the usual path) and then, on a redirect, goes on with {@link followRedirects}.
 */
export function isRedirect(response: Response, hop: Hop): boolean {
  checkNotFollowed(response, hop);
  return REDIRECT_STATUSES.has(response.status);
}

/** {@link followSameOrigin} from the redirect `response` that answered `first`. */
export async function followRedirects(
  first: Hop,
  response: Response,
  send: (hop: Hop) => Promise<Response>,
): Promise<{ response: Response; hop: Hop }> {
  let hop = first;
  for (let redirects = 0; ; redirects++) {
    await discardBody(response);
    hop = nextHop(hop, response, redirects);
    response = await send(hop);
    if (!isRedirect(response, hop)) return { response, hop };
  }
}

/** A fetch that ignored `redirect: "manual"` (or a browser's opaque redirect) cannot be trusted with the answer. */
function checkNotFollowed(response: Response, hop: Hop): void {
  if (response.type === "opaqueredirect" || (response.status === 0 && response.type !== "error"))
    throw new RedirectRefused(0, "hidden");
  const redirected = response.redirected;
  // A fetch that says whether it followed one (node-fetch, Node's, a browser's) is taken at its word; for
  // one that does not, the answer's URL tells (its string compared first: no parsing on the usual path).
  // Reading the URL costs: node-fetch spells it afresh, a rope that each comparison flattens.
  if (redirected === true) throw new RedirectRefused(response.status, "followed by fetch", response.url);
  if (typeof redirected === "boolean") return;
  const url = response.url;
  if (url && url !== hop.url && new URL(url).origin !== new URL(hop.url).origin)
    throw new RedirectRefused(response.status, "followed by fetch", url);
}

function nextHop(hop: Hop, response: Response, redirects: number): Hop {
  const location = response.headers.get("location") ?? undefined;
  if (location === undefined || location.trim() === "") throw new RedirectRefused(response.status, "no location");
  let target: URL;
  try {
    target = new URL(location, hop.url);
  } catch {
    throw new RedirectRefused(response.status, "bad location", location);
  }
  if (target.origin !== new URL(hop.url).origin)
    throw new RedirectRefused(response.status, "another origin", target.href);
  if (redirects >= MAX_REDIRECTS) throw new RedirectRefused(response.status, "too many", target.href);
  target.hash = "";
  if (response.status === 303 && hop.method !== "GET" && hop.method !== "HEAD")
    return { url: target.href, method: "GET" };
  return { ...hop, url: target.href };
}

/** Lets go of a body that will not be read (a web stream from Node's fetch, a Node stream from node-fetch). */
export async function discardBody(response: Response): Promise<void> {
  const body = response.body as unknown as { cancel?: () => Promise<void>; destroy?: () => void } | null;
  if (typeof body?.cancel === "function") await body.cancel().catch(() => undefined);
  else body?.destroy?.();
}

/**
 * What an error says of a redirect not followed: the status, where it pointed (redacted) and, for another
 * origin, that the credential was not sent there and which setting to change if the service has moved.
 */
export function redirectMessage(
  operation: string,
  refused: RedirectRefused,
  redactor: Redactor,
  setting: string,
): string {
  const where = refused.location === undefined ? "" : redactor.text(refused.location);
  const head = `${operation}: the server answered HTTP ${refused.status}`;
  switch (refused.reason) {
    case "another origin":
      return `${head} with a redirect to another origin, ${where}: not followed, and the credential was not sent there. If the service has moved, set ${setting} to ${new URL(refused.location!).origin}.`;
    case "no location":
      return `${head} without a Location: a redirect to nowhere.`;
    case "bad location":
      return `${head} with a redirect to ${JSON.stringify(where)}, which is not a URL.`;
    case "too many":
      return `${head}: more than ${MAX_REDIRECTS} redirects (the last to ${where}); not followed further.`;
    case "hidden":
      return `${operation}: the fetch implementation hid a redirect (an opaque redirect): not followed, and the credential was not sent there.`;
    case "followed by fetch":
      return `${operation}: the fetch implementation followed a redirect to ${where} itself, despite redirect: "manual" — the answer is refused, and the credential may have gone along: use a fetch that honours redirect: "manual".`;
  }
}
