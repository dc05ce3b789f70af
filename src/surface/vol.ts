/**
 * `vol` as the package root exports it: the surface model a notebook builds, checks, calibrates and
 * prices with. The parametrisation converters (`rawToNatural`, …) are behind `vol.convertSlice`; the
 * constants, the SVI and normal-distribution kernels (`sviW1`, `erfcx`, …) are in `risk-portal-lab/vol`,
 * which holds the whole folder. Every type of the folder is here too.
 */
import * as folder from "../vol";
import { guardAnswers } from "../await-guard";

export type * from "../vol";
export { VolModelError, VolSurfaceModel } from "../vol";
// Each function behind the one guard ({@link guardAnswers}): a Promise where an answer belongs is an
// error naming the function. Same function, name, length and type; the classes above are the folder's own.
export const fromSurface = guardAnswers("vol.fromSurface", folder.fromSurface);
export const buildSurface = guardAnswers("vol.buildSurface", folder.buildSurface);
export const surfaceFromEquityVolCurve = guardAnswers(
  "vol.surfaceFromEquityVolCurve",
  folder.surfaceFromEquityVolCurve,
);
export const calibrate = guardAnswers("vol.calibrate", folder.calibrate);
export const convertSlice = guardAnswers("vol.convertSlice", folder.convertSlice);
export const crossCheck = guardAnswers("vol.crossCheck", folder.crossCheck);
export const formatSummary = guardAnswers("vol.formatSummary", folder.formatSummary);
export const diagnose = guardAnswers("vol.diagnose", folder.diagnose);
export const repairButterfly = guardAnswers("vol.repairButterfly", folder.repairButterfly);
export const butterflyG = guardAnswers("vol.butterflyG", folder.butterflyG);
export const impliedDensity = guardAnswers("vol.impliedDensity", folder.impliedDensity);
export const localVol = guardAnswers("vol.localVol", folder.localVol);
export const priceOptions = guardAnswers("vol.priceOptions", folder.priceOptions);
export const strikeDeltas = guardAnswers("vol.strikeDeltas", folder.strikeDeltas);
// One option a call, in loops: its input object is checked field by field by black76 itself (a Promise there
// throws), so the guard looks into it only then.
export const black76 = guardAnswers("vol.black76", folder.black76, { fieldsChecked: true });
export const black76Strikes = guardAnswers("vol.black76Strikes", folder.black76Strikes);
// The same for the normal model and the implied vols (one option a call, or a smile of prices at once).
export const bachelier = guardAnswers("vol.bachelier", folder.bachelier, { fieldsChecked: true });
export const bachelierStrikes = guardAnswers("vol.bachelierStrikes", folder.bachelierStrikes);
export const impliedVol = guardAnswers("vol.impliedVol", folder.impliedVol, { fieldsChecked: true });
export const impliedVols = guardAnswers("vol.impliedVols", folder.impliedVols);
