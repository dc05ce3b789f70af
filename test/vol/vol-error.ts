/** The vol tests' way to look at a refusal. */
import { expect } from "vitest";
import { VolModelError } from "../../src/vol/errors";

/** The VolModelError `f` throws (fails the test when `f` throws anything else, or nothing). */
export function errorOf(f: () => unknown): VolModelError {
  try {
    f();
  } catch (error) {
    expect(error).toBeInstanceOf(VolModelError);
    return error as VolModelError;
  }
  throw new Error("expected a VolModelError, nothing was thrown");
}
