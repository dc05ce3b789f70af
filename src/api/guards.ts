/** Small type guards shared by the wire model. */

/** A non-null object that is not an array (a JSON object, or any object instance). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
