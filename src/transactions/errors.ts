/**
 * The transaction tables' error, one family with the client's (`err instanceof RiskPortalError` catches them
 * all): a transaction table of no known shape.
 */
import { RiskPortalError } from "../errors";

/** The transaction table's layout is none of the four known ones (A13). */
export class TableShapeError extends RiskPortalError {
  constructor(message: string) {
    super(message, { operation: "GetTransactionTable" });
  }
}
