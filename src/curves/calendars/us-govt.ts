/**
 * US government bond market (SIFMA's recommended full closes): QuantLib 1.29's
 * `UnitedStates(UnitedStates.GovernmentBond)`. Where 1.29 is out of date, differences.ts says so.
 */
import { FRI, MON, THU, type DayFacts } from "./rules";

/** The federal holidays SIFMA closes on, as QuantLib 1.29 has them (Good Friday is in usGovtHoliday). */
function federal({ y, m, d, w }: DayFacts): boolean {
  return (
    // New Year's Day, moved to Monday from a Sunday (not to Friday from a Saturday)
    ((d === 1 || (d === 2 && w === MON)) && m === 1) ||
    // Martin Luther King's birthday: third Monday of January, from 1983
    (d >= 15 && d <= 21 && w === MON && m === 1 && y >= 1983) ||
    // Washington's birthday: third Monday of February
    (d >= 15 && d <= 21 && w === MON && m === 2) ||
    // Memorial Day: last Monday of May
    (d >= 25 && w === MON && m === 5) ||
    // Juneteenth, from 2022 (declared in 2021, first observed by the market in 2022), moved from a weekend
    ((d === 19 || (d === 20 && w === MON) || (d === 18 && w === FRI)) && m === 6 && y >= 2022) ||
    // Independence Day, moved from a weekend
    ((d === 4 || (d === 5 && w === MON) || (d === 3 && w === FRI)) && m === 7) ||
    // Labor Day: first Monday of September; Columbus Day: second Monday of October
    (d <= 7 && w === MON && m === 9) ||
    (d >= 8 && d <= 14 && w === MON && m === 10) ||
    // Veterans Day, moved to Monday from a Sunday (not to Friday from a Saturday)
    ((d === 11 || (d === 12 && w === MON)) && m === 11) ||
    // Thanksgiving: fourth Thursday of November
    (d >= 22 && d <= 28 && w === THU && m === 11) ||
    // Christmas, moved from a weekend
    ((d === 25 || (d === 26 && w === MON) || (d === 24 && w === FRI)) && m === 12)
  );
}

/**
 * The US government bond market's weekday closures as QuantLib 1.29 has them: the federal holidays,
 * Good Friday (every year but 2015), and the one-off closures.
 */
export function usGovtHoliday(f: DayFacts): boolean {
  const { y, m, d, dd, em } = f;
  return (
    federal(f) ||
    (dd === em - 3 && y !== 2015) ||
    // President Reagan's funeral, Hurricane Sandy (the 30th; on the 29th SIFMA recommended an early
    // close), President G. H. W. Bush's funeral
    (y === 2004 && m === 6 && d === 11) ||
    (y === 2012 && m === 10 && d === 30) ||
    (y === 2018 && m === 12 && d === 5)
  );
}
