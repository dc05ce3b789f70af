/**
 * `risk-portal-lab/internals`: the request pipeline's parts, for tools built on the package (a cassette inspector, a
 * cache of one's own, a retry policy reused elsewhere, tests). A notebook needs none of them: the root
 * exports what it does. These may change between minor versions.
 */
export { optionsFromEnv, DEFAULT_TIMEOUT_MS } from "./client/client";
export { DEFAULT_RETRY, backoffDelayMs, parseRetryAfterMs } from "./client/retry";
export { Redactor, REDACTED, MASK, maskSecret } from "./record/redact";
export { errorFromResponse, formatIssues } from "./client/errors";
export { Cassette, CASSETTE_MODES, replayResponse } from "./record/cassette";
export { ResponseCache, DEFAULT_CACHE_TTL_MS, DEFAULT_CACHE_ENTRIES } from "./record/cache";
export { attachProvenance } from "./client/provenance";
export { canonicalRequest, canonicalValue, requestKey, describeDifferences } from "./record/canonical";
