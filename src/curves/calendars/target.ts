/**
 * TARGET (the euro's payment system; ECB): QuantLib 1.29's `TARGET()`. TARGET started on 1999-01-04; before
 * 1999 the rule gives what QuantLib gives (New Year's Day and Christmas only, plus 1998-12-31), not a
 * calendar anyone settled on.
 */
import type { DayFacts } from "./rules";

/** TARGET's weekday closures. */
export function targetHoliday({ y, m, d, dd, em }: DayFacts): boolean {
  return (
    (d === 1 && m === 1) ||
    // Good Friday and Easter Monday, from 2000
    (dd === em - 3 && y >= 2000) ||
    (dd === em && y >= 2000) ||
    // Labour Day, from 2000
    (d === 1 && m === 5 && y >= 2000) ||
    (d === 25 && m === 12) ||
    // Day of Goodwill (26 December), from 2000
    (d === 26 && m === 12 && y >= 2000) ||
    // 31 December 1998, 1999 (euro launch, millennium) and 2001 (euro cash changeover)
    (d === 31 && m === 12 && (y === 1998 || y === 1999 || y === 2001))
  );
}
