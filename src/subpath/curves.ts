/**
 * `risk-portal-lab/curves`: the whole curves folder, for what the root's `curves` namespace
 * leaves out. At run time it is the same code as the root's (dist/subpath/curves.js reads it from the one
 * bundle, dist/index.js), so a class or error from here is the root's own.
 */
export * from "../curves";
// The root namespace's functions, behind the Promise guard ({@link guardAnswers}): the same values here.
export {
  fromResponse,
  spread,
  butterfly,
  parseTenor,
  dayCountFraction,
  calendar,
  calendarFor,
} from "../surface/curves";
