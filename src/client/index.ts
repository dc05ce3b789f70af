/**
 * What the root exports of the client: the client, its option and error types, and provenance. The
 * pipeline's parts (cassettes, the cache, redaction, canonical requests, retry arithmetic) are under
 * `risk-portal-lab/internals`.
 */
export { RiskPortalClient, type RiskPortalClientOptions } from "./client";
export type { AuthOptions, GetToken, TokenInfo } from "./auth";
export type { BodySink, CallOptions, Streamed } from "./pipeline";
export type { RetryOptions, RetryInfo } from "./retry";
export {
  RiskPortalError,
  ConfigurationError,
  CassetteError,
  RequestValidationError,
  ResponseValidationError,
  HttpError,
  BadRequestError,
  AuthenticationError,
  PermissionError,
  NotFoundError,
  RateLimitError,
  ServerError,
  OperationFailedError,
  TimeoutError,
  AbortError,
  NetworkError,
  RedirectError,
  ResponseTooLargeError,
  ProtocolError,
  CassetteMissError,
  type ErrorDetails,
  type WriteOutcome,
} from "./errors";
export type {
  CassetteMode,
  CassetteOptions,
  CassetteFile,
  CassetteStats,
  Exchange,
  RecordedResponse,
} from "../record/cassette";
export type { CacheOptions, CacheStats, CacheEntry } from "../record/cache";
export { DateMismatchError, type DateMismatchPolicy } from "./date-mismatch";
export { provenanceOf, formatProvenance, type Provenance, type ProvenanceSource } from "./provenance";
export type { CanonicalRequest } from "../record/canonical";
