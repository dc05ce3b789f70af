export { RiskPortalClient, optionsFromEnv, DEFAULT_TIMEOUT_MS, type RiskPortalClientOptions } from "./client";
export type { AuthOptions, GetToken, TokenInfo } from "./auth";
export type { CallOptions } from "./pipeline";
export { DEFAULT_RETRY, backoffDelayMs, parseRetryAfterMs, type RetryOptions, type RetryInfo } from "./retry";
export { Redactor, REDACTED, MASK, maskSecret } from "./redact";
export * from "./errors";
export {
  Cassette,
  CassetteMissError,
  CASSETTE_MODES,
  replayResponse,
  type CassetteMode,
  type CassetteOptions,
  type CassetteFile,
  type CassetteStats,
  type Exchange,
  type RecordedResponse,
} from "./cassette";
export { ResponseCache, DEFAULT_CACHE_TTL_MS, DEFAULT_CACHE_ENTRIES, type CacheOptions, type CacheStats, type CacheEntry } from "./cache";
export { provenanceOf, attachProvenance, formatProvenance, type Provenance, type ProvenanceSource } from "./provenance";
export { canonicalRequest, canonicalValue, requestKey, describeDifferences, type CanonicalRequest } from "./canonical";
