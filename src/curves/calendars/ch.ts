/** Zurich (Swiss franc settlement): QuantLib 1.29's `Switzerland()`. */
import type { DayFacts } from "./rules";

/** Zurich's weekday closures. */
export function switzerlandHoliday({ m, d, dd, em }: DayFacts): boolean {
  return (
    (d === 1 && m === 1) ||
    // Berchtoldstag
    (d === 2 && m === 1) ||
    // Good Friday, Easter Monday, Ascension Day (Easter + 39), Whit Monday (Easter + 50)
    dd === em - 3 ||
    dd === em ||
    dd === em + 38 ||
    dd === em + 49 ||
    // Labour Day, National Day, Christmas, St. Stephen's Day
    (d === 1 && m === 5) ||
    (d === 1 && m === 8) ||
    (d === 25 && m === 12) ||
    (d === 26 && m === 12)
  );
}
