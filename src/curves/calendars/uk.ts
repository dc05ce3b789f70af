/**
 * England & Wales settlement: QuantLib 1.29's `UnitedKingdom(UnitedKingdom.Settlement)`, which already
 * has the royal one-offs of 2022 and 2023 (the newest QuantLib has nothing more).
 */
import { MON, TUE, type DayFacts } from "./rules";

/** The bank holidays of May, June and August, with the one-off moves and additions. */
function bankHoliday({ y, m, d, w }: DayFacts): boolean {
  return (
    // Early May Bank Holiday (first Monday of May), moved to 8 May for V.E. day's 50th and 75th anniversaries
    (d <= 7 && w === MON && m === 5 && y !== 1995 && y !== 2020) ||
    (d === 8 && m === 5 && (y === 1995 || y === 2020)) ||
    // Spring Bank Holiday (last Monday of May), moved for the Golden, Diamond and Platinum Jubilees, each
    // with an extra day beside it
    (d >= 25 && w === MON && m === 5 && y !== 2002 && y !== 2012 && y !== 2022) ||
    ((d === 3 || d === 4) && m === 6 && y === 2002) ||
    ((d === 4 || d === 5) && m === 6 && y === 2012) ||
    ((d === 2 || d === 3) && m === 6 && y === 2022) ||
    // Summer Bank Holiday (last Monday of August)
    (d >= 25 && w === MON && m === 8) ||
    // Royal Wedding (2011-04-29), the Queen's state funeral (2022-09-19), the King's coronation (2023-05-08)
    (d === 29 && m === 4 && y === 2011) ||
    (d === 19 && m === 9 && y === 2022) ||
    (d === 8 && m === 5 && y === 2023)
  );
}

/** England & Wales's weekday closures. */
export function ukHoliday(f: DayFacts): boolean {
  const { y, m, d, w, dd, em } = f;
  return (
    // New Year's Day, moved to Monday from a weekend
    ((d === 1 || ((d === 2 || d === 3) && w === MON)) && m === 1) ||
    dd === em - 3 ||
    dd === em ||
    bankHoliday(f) ||
    // Christmas and Boxing Day, moved to Monday or Tuesday from a weekend
    ((d === 25 || (d === 27 && (w === MON || w === TUE))) && m === 12) ||
    ((d === 26 || (d === 28 && (w === MON || w === TUE))) && m === 12) ||
    // Millennium (1999-12-31)
    (d === 31 && m === 12 && y === 1999)
  );
}
