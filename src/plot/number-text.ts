/**
 * Numbers as a table display shows them (`tableHtml`): per column, rounded for reading, never
 * with binary float noise (`2.2487030000000003` shows `2.248703`); the data itself is never changed.
 */

/** Significant digits a number shows by default: past the 10th, doubles carry arithmetic noise, not data. */
const BASE_SIGNIFICANT = 10;
/** Digits tried, at most, to tell a column's values apart: 15 significant digits always read back exactly. */
const MAX_SIGNIFICANT = 15;
/** Largest `digits` accepted (what `toFixed` allows and more than a double holds after the point). */
export const MAX_DIGITS = 20;

/**
 * Decimal places for a table's number columns: one count for every column that holds a fraction
 * (whole-number columns stay whole), or a count per column name (applied to that column, whole or not).
 */
export type Digits = number | Readonly<Record<string, number>>;

/** Groups the integer digits of a plain decimal text with commas (`8585.6` → `8,585.6`). */
function grouped(text: string): string {
  if (text.includes("e")) return text;
  const sign = text.startsWith("-") ? "-" : "";
  const [whole, fraction] = text.slice(sign.length).split(".");
  const digits = whole!.replace(/\B(?=(\d{3})+$)/g, ",");
  return `${sign}${digits}${fraction === undefined ? "" : `.${fraction}`}`;
}

/** Trailing zeros of a fraction (and a bare point) dropped: `2.2487030` → `2.248703`; `1.5e-9` kept as is. */
function trimmed(text: string): string {
  const [mantissa, exponent] = text.split("e");
  const m = mantissa!.includes(".") ? mantissa!.replace(/0+$/, "").replace(/\.$/, "") : mantissa!;
  return exponent === undefined ? m : `${m}e${exponent}`;
}

/**
 * A number with `significant` digits (never fewer than its integer digits: a notional is not rounded to
 * thousands), trailing zeros dropped, integer digits grouped; below 1e-6 or from 1e21 in exponent form.
 */
export function roundedNumber(v: number, significant: number = BASE_SIGNIFICANT): string {
  if (!Number.isFinite(v)) return String(v);
  if (v === 0) return Object.is(v, -0) ? "-0" : "0";
  const magnitude = Math.abs(v);
  if (magnitude < 1e-6 || magnitude >= 1e21) return trimmed(v.toExponential(significant - 1));
  const integerDigits = Math.floor(Math.log10(magnitude)) + 1;
  const decimals = Math.min(MAX_DIGITS, Math.max(0, significant - integerDigits));
  return grouped(trimmed(v.toFixed(decimals)));
}

/** A number to `digits` decimal places, integer digits grouped (`8,585.65`). */
export function fixedNumber(v: number, digits: number): string {
  if (!Number.isFinite(v)) return String(v);
  if (Math.abs(v) >= 1e21) return v.toExponential(digits);
  return grouped(v.toFixed(digits));
}

/**
 * How one column's numbers are written: to the decimal places asked for, or else with the fewest
 * significant digits from 10 up to 15 at which the column's different values (those shown) read
 * differently. `asked` applies to a column with a fraction in it unless it was asked for by name.
 */
export function columnNumberText(
  values: readonly unknown[],
  asked: { digits: number; byName: boolean } | undefined,
): (v: number) => string {
  const numbers = values.filter((v): v is number => typeof v === "number" && Number.isFinite(v));
  const whole = numbers.every((v) => Number.isInteger(v));
  if (asked && (asked.byName || !whole)) return (v) => fixedNumber(v, asked.digits);
  const distinct = [...new Set(numbers)];
  for (let significant = BASE_SIGNIFICANT; significant < MAX_SIGNIFICANT; significant++) {
    if (new Set(distinct.map((v) => roundedNumber(v, significant))).size === distinct.length)
      return (v) => roundedNumber(v, significant);
  }
  return (v) => roundedNumber(v, MAX_SIGNIFICANT);
}

/** `digits` checked: whole numbers from 0 to {@link MAX_DIGITS}, naming only columns the table has. */
export function checkDigits(digits: unknown, columns: readonly string[], caller: string): Digits | undefined {
  if (digits === undefined) return undefined;
  const check = (d: unknown, name: string) => {
    if (!(typeof d === "number" && Number.isInteger(d) && d >= 0 && d <= MAX_DIGITS))
      throw new RangeError(
        `${caller}: ${name} must be a whole number from 0 to ${MAX_DIGITS} (decimal places); got ${String(d)}`,
      );
  };
  if (typeof digits !== "object" || digits === null) {
    check(digits, "digits");
    return digits as number;
  }
  for (const [name, d] of Object.entries(digits)) {
    if (!columns.includes(name))
      throw new RangeError(
        `${caller}: digits names "${name}", which is not a column of this table (its columns: ${columns.join(", ")})`,
      );
    check(d, `digits.${name}`);
  }
  return digits as Digits;
}

/** What `digits` asks of one column, if anything. */
export function digitsFor(digits: Digits | undefined, column: string): { digits: number; byName: boolean } | undefined {
  if (digits === undefined) return undefined;
  if (typeof digits === "number") return { digits, byName: false };
  // Own entries only: a column named `constructor` is not asked for by Object.prototype's.
  const d = Object.hasOwn(digits, column) ? digits[column] : undefined;
  return d === undefined ? undefined : { digits: d, byName: true };
}
