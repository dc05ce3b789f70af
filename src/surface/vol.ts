/**
 * `vol` as the package root exports it: the surface model a notebook builds, checks, calibrates and
 * prices with. The parametrisation converters (`rawToNatural`, …) are behind `vol.convertSlice`; the
 * constants, the SVI and normal-distribution kernels (`sviW1`, `erfcx`, …) are in `risk-portal-lab/vol`
 * (src/subpath/vol.ts), which holds the whole folder. Every type of the folder is here too.
 */
export type * from "../vol";
export {
  VolModelError,
  VolSurfaceModel,
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
} from "../vol";
