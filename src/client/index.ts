export { RiskPortalClient, optionsFromEnv, DEFAULT_TIMEOUT_MS, type RiskPortalClientOptions } from "./client";
export type { AuthOptions } from "./auth";
export type { CallOptions } from "./pipeline";
export { DEFAULT_RETRY, backoffDelayMs, parseRetryAfterMs, type RetryOptions, type RetryInfo } from "./retry";
export { Redactor, REDACTED } from "./redact";
export * from "./errors";
