/**
 * dtypes that say what the values are. danfo labels every column of numbers that are not all integers
 * `float32`, though it keeps JavaScript doubles; users see `float64`. danfo's own code checks the labels it
 * knows (`$setDtypes` against its DATA_TYPES, `asType`, `selectDtypes`), so inside a frame the label stays
 * `float32` (`$dtypes`): the public `dtypes` (and a Series' `dtype`) say `float64`, and every door where a
 * label comes in (constructor, asType, selectDtypes) reads `float64` as danfo's `float32`.
 */
import type { DanfoClasses, Frame } from "./types";

/** The label users see for danfo's own. */
export const publicDtype = (dtype: string): string => (dtype === "float32" ? "float64" : dtype);
/** danfo's label for one a user (or danfo, reading `dtypes`) passes in. */
export const internalDtype = (dtype: unknown): unknown => (dtype === "float64" ? "float32" : dtype);

const mapDtypes = (dtypes: unknown): unknown =>
  Array.isArray(dtypes) ? dtypes.map(internalDtype) : internalDtype(dtypes);

/** Installs the public dtypes and the doors that take labels in. */
export function installDtypes(
  cls: DanfoClasses,
  patch: (target: object, key: string, value: unknown, accessor?: boolean) => void,
): void {
  patch(
    cls.ndframe,
    "dtypes",
    function dtypes(this: Frame) {
      return this.$dtypes.map(publicDtype);
    },
    true,
  );
  const setDtypes = cls.upstream(cls.ndframe, "$setDtypes");
  patch(cls.ndframe, "$setDtypes", function $setDtypes(this: Frame, dtypes: unknown) {
    return setDtypes.call(this, mapDtypes(dtypes));
  });
  const frameAsType = cls.upstream(cls.frame, "asType");
  patch(cls.frame, "asType", function asType(this: Frame, column: unknown, dtype: unknown, options?: unknown) {
    return frameAsType.call(this, column, internalDtype(dtype), options);
  });
  const seriesAsType = cls.upstream(cls.series, "asType");
  patch(cls.series, "asType", function asType(this: Frame, dtype: unknown, options?: unknown) {
    return seriesAsType.call(this, internalDtype(dtype), options);
  });
  patch(cls.frame, "selectDtypes", function selectDtypes(this: Frame & { loc(spec: object): Frame }, include: unknown) {
    const supported = ["float64", "float32", "int32", "string", "boolean", "undefined"];
    if (!Array.isArray(include)) throw Error("ParamError: include must be an array");
    for (const dtype of include)
      if (!supported.includes(dtype as string)) throw Error("ParamError: include must be an array of valid dtypes");
    const wanted = new Set(include.map(internalDtype));
    return this.loc({ columns: this.$columns.filter((_, j) => wanted.has(this.$dtypes[j])) });
  });
}
