/**
 * The frames' errors, one family with the client's (`err instanceof RiskPortalError` catches them all):
 * a transaction table of no known shape, bad input to the columnar helpers.
 */
import { RiskPortalError } from "../client/errors";

/** The transaction table's layout is none of the four known ones (A13). */
export class TableShapeError extends RiskPortalError {
  constructor(message: string) {
    super(message, { operation: "GetTransactionTable" });
  }
}

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
