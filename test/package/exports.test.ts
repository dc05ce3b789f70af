/**
 * The package's public surface, pinned: a change to what the root exports is deliberate (this list is
 * edited with it, and the README's list of the surface with both).
 */
import { describe, expect, it } from "vitest";
import * as root from "../../src";

const ROOT_EXPORTS = [
  "ASSUMPTIONS",
  "AbortError",
  "AuthenticationError",
  "BadRequestError",
  "CASSETTE_MODES",
  "Cassette",
  "CassetteError",
  "CassetteMissError",
  "ConfigurationError",
  "DEFAULT_BRAND",
  "DEFAULT_CACHE_ENTRIES",
  "DEFAULT_CACHE_TTL_MS",
  "DEFAULT_RETRY",
  "DEFAULT_TIMEOUT_MS",
  "DEFAULT_TYPE_NAMESPACE",
  "HttpError",
  "IDENTIFIER_TYPES",
  "MASK",
  "NetworkError",
  "NotFoundError",
  "NotebookError",
  "OperationFailedError",
  "PORTFOLIO_TYPES",
  "PUBLISHED_BRAND",
  "PUBLISHED_PORTFOLIO_TYPES",
  "PermissionError",
  "REDACTED",
  "REPORT_END_STATUSES",
  "REPORT_STATUSES",
  "RateLimitError",
  "Redactor",
  "RequestValidationError",
  "ResponseCache",
  "ResponseValidationError",
  "RiskPortalClient",
  "RiskPortalError",
  "SERVICE_DEFAULTS",
  "STRIKE_TYPE",
  "ServerError",
  "TRADE_EVENT_NAMES",
  "TimeoutError",
  "api",
  "attachProvenance",
  "backoffDelayMs",
  "canonicalRequest",
  "canonicalValue",
  "closeAllConnections",
  "connect",
  "describeDifferences",
  "errorFromResponse",
  "formatIssues",
  "formatProvenance",
  "frames",
  "manualClock",
  "maskSecret",
  "optionsFromEnv",
  "parseRetryAfterMs",
  "plot",
  "provenanceOf",
  "replayResponse",
  "requestKey",
  "runNotebook",
  "startSimulator",
  "vol",
];

describe("the root exports", () => {
  it("are exactly the pinned list (change both together, on purpose)", () => {
    expect(Object.keys(root).sort()).toEqual([...ROOT_EXPORTS].sort());
  });
});
