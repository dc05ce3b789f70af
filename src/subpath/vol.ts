/**
 * `risk-portal-lab/vol`: the whole vol folder, for what the root's `vol` namespace
 * leaves out. At run time it is the same code as the root's (dist/subpath/vol.js reads it from the one
 * bundle, dist/index.js), so a class or error from here is the root's own.
 */
export * from "../vol";
// The root namespace's functions, behind the Promise guard ({@link guardAnswers}): the same values here.
export {
  fromSurface,
  buildSurface,
  surfaceFromEquityVolCurve,
  calibrate,
  convertSlice,
  crossCheck,
  formatSummary,
  diagnose,
  repairButterfly,
  butterflyG,
  impliedDensity,
  localVol,
  priceOptions,
  strikeDeltas,
  black76,
  black76Strikes,
  bachelier,
  bachelierStrikes,
  impliedVol,
  impliedVols,
} from "../surface/vol";
