/**
 * One HTTP exchange of a call: the request and the same-origin redirects it meets (fetch never follows one,
 * `redirect: "manual"`; every hop's headers are built afresh, the credential added again), with a single
 * refresh-and-resend when the server says 401.
 */
import { REQUEST_CONTENT_TYPE } from "../api/assumptions";
import { RiskPortalError, withOutcome } from "./errors";
import { discardBody, followRedirects, isRedirect, RedirectRefused, type Hop } from "./redirect";
import { PreparedCall } from "./call";
import { redirectFailure } from "./failures";

/**
 * One HTTP exchange: the request and the same-origin redirects it meets (`followRedirects`: fetch
 * never follows one, `redirect: "manual"`; every hop's headers are built afresh, the credential added
 * again), with a single refresh-and-resend when the server says 401.
 */
export async function exchange(call: PreparedCall): Promise<Response> {
  for (;;) {
    const sent = { used: "" };
    const first: Hop = { url: call.url, method: call.op.method, body: call.body };
    let response: Response;
    try {
      // The first hop sent here, the redirects (rare) followed in their own function.
      response = await sendHop(call, sent, first);
      call.finalUrl = undefined;
      if (isRedirect(response, first)) {
        const followed = await followRedirects(first, response, (hop) => sendHop(call, sent, hop));
        response = followed.response;
        call.finalUrl = followed.hop.url === call.url ? undefined : followed.hop.url;
      }
    } catch (error) {
      if (error instanceof RedirectRefused) throw redirectFailure(call, error);
      throw error;
    }
    // One refresh and one more request after a 401; the second answer is the answer, whatever it is.
    if (response.status !== 401 || call.refreshed || !(await refreshAfterUnauthorized(call, sent.used)))
      return response;
    await discardBody(response);
  }
}

/** After a 401: the credential `used` renewed (true) or not renewable (false), once per call. */
async function refreshAfterUnauthorized(call: PreparedCall, used: string): Promise<boolean> {
  call.refreshed = true;
  try {
    return await call.config.auth.refreshAfterUnauthorized(used, call.signal, call.deadlineAtMs);
  } catch (error) {
    // The server had refused the write (401): a token that cannot be renewed leaves it not applied.
    if (call.write && error instanceof RiskPortalError && error.outcome === undefined)
      throw withOutcome(error, "not-applied", ` The server had answered HTTP 401: ${call.op.name} was not applied.`);
    throw error;
  }
}

/** One hop of {@link exchange}: its headers built afresh, the credential added (and noted in `sent`). */
function sendHop(call: PreparedCall, sent: { used: string }, hop: Hop): Promise<Response> {
  const headers = requestHeaders(call, hop.body !== undefined);
  const applied = call.config.auth.apply(headers, call.signal, call.deadlineAtMs);
  // A static credential is a string: no promise to wait for.
  if (typeof applied !== "string") return applied.then((used) => fetchHop(call, sent, hop, headers, used));
  return fetchHop(call, sent, hop, headers, applied);
}

/** The request of one hop leaves, with its credential (noted in `sent`). */
function fetchHop(
  call: PreparedCall,
  sent: { used: string },
  hop: Hop,
  headers: Record<string, string>,
  used: string,
): Promise<Response> {
  sent.used = used;
  // Aborted before it left (a signal aborted already, or while a token was fetched): nothing was sent.
  if (call.signal.aborted) throw call.signal.reason;
  call.sends++;
  return call.config.fetch(hop.url, {
    method: hop.method,
    headers,
    body: hop.body,
    signal: call.signal,
    redirect: "manual",
  });
}

/** A hop's request headers, names in lower case (one spelling per header): the client's, the call's, the body's type. */
function requestHeaders(call: PreparedCall, hasBody: boolean): Record<string, string> {
  const headers: Record<string, string> = { ...call.config.headers };
  for (const [k, v] of Object.entries(call.options.headers ?? {})) headers[k.toLowerCase()] = v;
  if (hasBody) headers["content-type"] = REQUEST_CONTENT_TYPE;
  return headers;
}
