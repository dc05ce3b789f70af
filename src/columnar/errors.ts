/**
 * The columnar helpers' errors, one family with the client's (`err instanceof RiskPortalError` catches
 * them all): bad input to Arrow, SQL or Parquet, or what DuckDB refused.
 */
import { RiskPortalError } from "../errors";

/** Bad input to the columnar helpers (Arrow, SQL, Parquet), or what they refused: names the helper and the reason. */
export class ColumnarError extends RiskPortalError {
  constructor(message: string, operation: "Arrow" | "SQL" | "Parquet", cause?: unknown) {
    super(message, { operation, cause });
  }
}

/** A query DuckDB refused: its message, the SQL, and the names registered. */
export class SqlError extends ColumnarError {
  constructor(
    readonly sql: string,
    cause: unknown,
    registered: readonly string[],
  ) {
    const message = cause instanceof Error ? cause.message : String(cause);
    super(
      `${message.trim()}\n  in: ${sql.trim().replace(/\s+/g, " ").slice(0, 300)}\n  registered: ${registered.length ? registered.join(", ") : "(nothing)"}`,
      "SQL",
      cause,
    );
  }
}
