/**
 * Throughput of the holiday calendars (src/curves/calendar.ts): `isBusinessDay` and `advance` calls per second.
 *
 * What (on each of the five calendars in turn, 1e5 calls per round):
 *   - isBusinessDay("YYYY-MM-DD"): the notebook call, a string parsed and checked each time;
 *   - isBusinessDay(Date at 00:00 UTC);
 *   - advance(day, "3M", { roll: "modified-following" }), advance(day, "2D") and advance(day, "10Y",
 *     { endOfMonth: true }): month arithmetic and a roll, a business-day walk, the end-of-month rule;
 *   - naive: weekend check plus a Set of holiday strings (QuantLib's from the test's reference, corrected
 *     as the library's table says), with `new Date(day).getUTCDay()`: how one writes it first.
 * Days are spread over 2000–2040 (random, seeded), made before timing; the calendars' years are marked
 * before timing (the cold figure, marking all 81 years of one calendar, is given apart).
 * How: the built package (dist/curves/calendar.js) in this process; warm-up calls, then BENCH_CALENDAR_ROUNDS
 * (default 15) timed rounds, interleaved; median / min / max calls per second of wall time, the spread, and
 * the median per CPU-second.
 * Check: isBusinessDay must equal the naive answer (QuantLib 1.29's holidays with the listed corrections)
 * on every sampled day of every calendar, else the run fails (exit 1).
 * Writes bench/results/calendar.json. Run: `npm run build && node bench/calendar.mjs`.
 *
 * Measured (2 vCPUs shared, load ~3–6; medians of 15 rounds of 1e5 calls, calls/s wall): isBusinessDay
 * of a string 2.8 M before the hand-written day reader, 10.7 M after (Date 19.6 M; the naive Set 2.6 M);
 * advance "3M" modified-following 0.9 M before the tenor and formatted-day caches, 2.0 M after; "2D" 1.1 M
 * → 3.9 M; "10Y" end-of-month 0.8 M → 1.4 M. Cold: 2–21 ms to mark all 81 years of one calendar.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import {
  REPO_ROOT,
  envInt,
  formatTable,
  isMain,
  perSecond,
  requireBuilt,
  round,
  runStandalone,
  statRow,
  summarise,
  timeVariants,
} from "./common.mjs";

const DAY_MS = 86_400_000;
const iso = (n) => new Date(n * DAY_MS).toISOString().slice(0, 10);

export function settingsFromEnv() {
  return { calls: envInt("BENCH_CALENDAR_CALLS", 100_000), rounds: envInt("BENCH_CALENDAR_ROUNDS", 15), warmup: 3 };
}

/** The days QuantLib 1.29 closes on weekdays, per calendar, with the library's corrections applied. */
function referenceHolidays(cal) {
  const ref = JSON.parse(
    readFileSync(join(REPO_ROOT, "test", "curves", "fixtures", "quantlib-calendars.json"), "utf8"),
  );
  const out = {};
  for (const name of ref.calendars) {
    let acc = 0;
    const set = new Set(ref.holidays[name].map((x) => iso((acc += x))));
    for (const d of cal.QUANTLIB_DIFFERENCES[name])
      void (d.quantlib === "holiday" ? set.delete(d.date) : set.add(d.date));
    out[name] = set;
  }
  return out;
}

function sampleDays(count) {
  let seed = 45;
  const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
  const first = Date.UTC(2000, 0, 1) / DAY_MS;
  const days = Array.from({ length: count }, () => first + Math.floor(next() * 40 * 365));
  return { strings: days.map(iso), dates: days.map((n) => new Date(n * DAY_MS)) };
}

export function measureCalendar(settings = settingsFromEnv(), log = () => {}) {
  const cal = requireBuilt("curves", "calendar.js");
  const cold = {};
  for (const name of cal.CALENDARS) {
    const t0 = performance.now();
    cal.calendar(name).holidays("1990-01-01", "2070-12-31");
    cold[name] = round(performance.now() - t0, 2);
  }
  const holidays = referenceHolidays(cal);
  const { strings, dates } = sampleDays(settings.calls);
  const calendars = cal.CALENDARS.map((name) => cal.calendar(name));
  let which = 0;
  const next = () => calendars[which++ % calendars.length];
  const loop = (fn) => () => {
    const c = next();
    let s = 0;
    for (let i = 0; i < strings.length; i++) s += fn(c, i) ? 1 : 0;
    return s;
  };
  const mf = { roll: "modified-following" };
  const eom = { endOfMonth: true };
  const variants = {
    isBusinessDay: { name: 'isBusinessDay("YYYY-MM-DD")', run: loop((c, i) => c.isBusinessDay(strings[i])) },
    isBusinessDayDate: { name: "isBusinessDay(Date)", run: loop((c, i) => c.isBusinessDay(dates[i])) },
    naive: {
      name: "naive: weekday + Set of holiday strings",
      run: loop((c, i) => {
        const w = new Date(strings[i]).getUTCDay();
        return w !== 0 && w !== 6 && !holidays[c.name].has(strings[i]);
      }),
    },
    advance3M: { name: 'advance(day, "3M", modified-following)', run: loop((c, i) => c.advance(strings[i], "3M", mf)) },
    advance2D: { name: 'advance(day, "2D")', run: loop((c, i) => c.advance(strings[i], "2D")) },
    advance10YEom: {
      name: 'advance(day, "10Y", { endOfMonth })',
      run: loop((c, i) => c.advance(strings[i], "10Y", eom)),
    },
  };
  let sink = 0;
  const { ms, cpuMs } = timeVariants(variants, settings, {
    onResult: (_, r) => (sink += typeof r === "number" ? r : 0),
    onRound: (r) => log(`round ${r + 1}/${settings.rounds}`),
  });
  const rates = Object.fromEntries(
    Object.entries(variants).map(([key, v]) => [
      key,
      {
        name: v.name,
        wall: summarise(ms[key].map((t) => perSecond(strings.length, t))),
        cpu: summarise(cpuMs[key].map((t) => perSecond(strings.length, t))),
      },
    ]),
  );
  const wrong = [];
  for (const c of calendars)
    for (const day of strings) {
      const w = new Date(day).getUTCDay();
      if (c.isBusinessDay(day) !== (w !== 0 && w !== 6 && !holidays[c.name].has(day))) wrong.push(`${c.name} ${day}`);
    }
  return { settings, coldMs: cold, rates, check: { ok: wrong.length === 0, wrong: wrong.slice(0, 20) }, sink };
}

export function formatCalendar(result) {
  const f = (x) => `${round(x / 1e6, 2)} M/s`;
  const rows = Object.values(result.rates).map((r) => statRow(r.name, r.wall, r.cpu, f));
  const cold = Object.entries(result.coldMs)
    .map(([name, ms]) => `${name} ${ms} ms`)
    .join(", ");
  return [
    formatTable(["calls per second", "median", "min", "max", "spread", "per CPU-s"], rows),
    `cold (all 81 years marked, first call): ${cold}`,
    `check against QuantLib's holidays: ${result.check.ok ? "ok" : `FAILED ${result.check.wrong.join(", ")}`}`,
  ].join("\n");
}

if (isMain(import.meta.url))
  runStandalone("calendar", (log) => measureCalendar(settingsFromEnv(), log), formatCalendar);
