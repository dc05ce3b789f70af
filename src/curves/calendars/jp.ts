/**
 * Tokyo: QuantLib 1.29's `Japan()` (the newest QuantLib is the same). The equinox days come from
 * QuantLib's approximation (the official ones are announced a year ahead by the National Astronomical
 * Observatory); the substitute-holiday law is written out only where QuantLib writes it.
 */
import { MON, TUE, WED, type DayFacts } from "./rules";

const trunc = Math.trunc;

/** Day of March of the vernal equinox and of September of the autumnal one, as QuantLib computes them. */
export function equinoxes(y: number): { ve: number; ae: number } {
  const moving = (y - 2000) * 0.242194;
  const leaps = trunc((y - 2000) / 4) + trunc((y - 2000) / 100) - trunc((y - 2000) / 400);
  return { ve: trunc(20.69115 + moving - leaps), ae: trunc(23.09 + moving - leaps) };
}

/** New Year, Coming of Age, National Foundation, the Emperor's Birthday, the vernal equinox, Golden Week. */
function firstHalf({ y, m, d, w }: DayFacts, ve: number): boolean {
  return (
    // New Year's Day and the bank holidays of 2 and 3 January
    (d <= 3 && m === 1) ||
    // Coming of Age Day: second Monday of January from 2000, 15 January before
    (w === MON && d >= 8 && d <= 14 && m === 1 && y >= 2000) ||
    ((d === 15 || (d === 16 && w === MON)) && m === 1 && y < 2000) ||
    // National Foundation Day
    ((d === 11 || (d === 12 && w === MON)) && m === 2) ||
    // Emperor's Birthday: 23 February from 2020 (Naruhito), 23 December 1989–2018 (Akihito)
    ((d === 23 || (d === 24 && w === MON)) && m === 2 && y >= 2020) ||
    ((d === 23 || (d === 24 && w === MON)) && m === 12 && y >= 1989 && y < 2019) ||
    ((d === ve || (d === ve + 1 && w === MON)) && m === 3) ||
    // Greenery / Showa Day, Constitution Memorial Day, Holiday for a Nation, Children's Day, and any of
    // the last three observed on 6 May when on a weekend
    ((d === 29 || (d === 30 && w === MON)) && m === 4) ||
    (d >= 3 && d <= 5 && m === 5) ||
    (d === 6 && m === 5 && (w === MON || w === TUE || w === WED))
  );
}

/** Marine Day, Mountain Day, Respect for the Aged Day, the autumnal equinox, Sports Day (with the Olympic moves). */
function secondHalf({ y, m, d, w }: DayFacts, ae: number): boolean {
  return (
    // Marine Day: third Monday of July from 2003, 20 July 1996–2002; 23 July 2020 and 22 July 2021 (Olympics)
    (w === MON && d >= 15 && d <= 21 && m === 7 && ((y >= 2003 && y < 2020) || y >= 2022)) ||
    ((d === 20 || (d === 21 && w === MON)) && m === 7 && y >= 1996 && y < 2003) ||
    (d === 23 && m === 7 && y === 2020) ||
    (d === 22 && m === 7 && y === 2021) ||
    // Mountain Day: 11 August from 2016; 10 August 2020 and 9 August 2021 (Olympics)
    ((d === 11 || (d === 12 && w === MON)) && m === 8 && ((y >= 2016 && y < 2020) || y >= 2022)) ||
    (d === 10 && m === 8 && y === 2020) ||
    (d === 9 && m === 8 && y === 2021) ||
    // Respect for the Aged Day: third Monday of September from 2003, 15 September before
    (w === MON && d >= 15 && d <= 21 && m === 9 && y >= 2003) ||
    ((d === 15 || (d === 16 && w === MON)) && m === 9 && y < 2003) ||
    // a single day between Respect for the Aged Day and the autumnal equinox is a holiday too
    (w === TUE && d + 1 === ae && d >= 16 && d <= 22 && m === 9 && y >= 2003) ||
    ((d === ae || (d === ae + 1 && w === MON)) && m === 9) ||
    // Sports Day: second Monday of October from 2000, 10 October before; 24 July 2020, 23 July 2021 (Olympics)
    (w === MON && d >= 8 && d <= 14 && m === 10 && ((y >= 2000 && y < 2020) || y >= 2022)) ||
    ((d === 10 || (d === 11 && w === MON)) && m === 10 && y < 2000) ||
    (d === 24 && m === 7 && y === 2020) ||
    (d === 23 && m === 7 && y === 2021)
  );
}

/** Culture Day, Labour Thanksgiving, the 31 December bank holiday and the one-off imperial holidays. */
function yearEndAndOneOffs({ y, m, d, w }: DayFacts): boolean {
  return (
    ((d === 3 || (d === 4 && w === MON)) && m === 11) ||
    ((d === 23 || (d === 24 && w === MON)) && m === 11) ||
    (d === 31 && m === 12) ||
    // Enthronement Ceremony of Emperor Akihito (1990-11-12), marriage of Prince Naruhito (1993-06-09)
    (d === 12 && m === 11 && y === 1990) ||
    (d === 9 && m === 6 && y === 1993) ||
    // Emperor Naruhito's accession (2019-05-01) with the holidays around it (30 April, 2 May) under the
    // public holidays law, and his Enthronement Ceremony (2019-10-22)
    (d === 30 && m === 4 && y === 2019) ||
    ((d === 1 || d === 2) && m === 5 && y === 2019) ||
    (d === 22 && m === 10 && y === 2019)
  );
}

/** Tokyo's weekday closures. */
export function japanHoliday(f: DayFacts): boolean {
  const { ve, ae } = equinoxes(f.y);
  return firstHalf(f, ve) || secondHalf(f, ae) || yearEndAndOneOffs(f);
}
