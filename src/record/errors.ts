/** The errors of record and replay: a cassette that cannot be read or written, a request it has no answer for. */
import { ConfigurationError, RiskPortalError, type ErrorDetails } from "../errors";
import type { CanonicalRequest } from "./canonical";

/**
 * A cassette file is unreadable, corrupt or cannot be written: a local fault, never retried against the
 * server. `file` names the cassette; `exchange` the index of the bad exchange, when one is at fault.
 */
export class CassetteError extends ConfigurationError {
  readonly file: string;
  readonly exchange?: number;
  constructor(message: string, details: ErrorDetails, file: string, exchange?: number) {
    super(message, details);
    this.file = file;
    this.exchange = exchange;
  }
}

/** A replay found no recorded exchange for a request. Says which recorded request is closest, and how it differs. */
export class CassetteMissError extends RiskPortalError {
  readonly cassette: string;
  /** The closest recorded request, if the cassette has any. */
  readonly closest?: CanonicalRequest;
  /** How the request differs from the closest recorded one, one line per field. */
  readonly differences: string[];

  constructor(
    message: string,
    details: ErrorDetails,
    cassette: string,
    closest: CanonicalRequest | undefined,
    differences: string[],
  ) {
    super(message, details);
    this.cassette = cassette;
    this.closest = closest;
    this.differences = differences;
  }
}
