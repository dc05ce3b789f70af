/**
 * Operations that changed their input. danfo 1.2's `concat({ dfList, axis: 0 })` appends the other frames'
 * values to the FIRST frame's own column arrays: afterwards `first["x"]` throws (its columns are longer than
 * its index). `fillNa(value, { columns })` without `inplace` writes the fills into the frame's own rows: its
 * `values` (and print) show them while its columns do not. Each gets a copy of the frame instead.
 */
import { takeFrame } from "./build";
import { isFrame, type DanfoClasses, type Frame } from "./types";

type Patch = (target: object, key: string, value: unknown) => void;

/** Installs concat (on danfo's exports) and fillNa (on the base DataFrame prototype). */
export function installCopies(exports: Record<string, unknown>, cls: DanfoClasses, patch: Patch): void {
  const concat = exports.concat as ((options: { dfList: unknown[]; axis: number }) => unknown) | undefined;
  if (typeof concat === "function")
    patch(exports, "concat", function (options: { dfList: unknown[]; axis: number }) {
      const [first, ...rest] = Array.isArray(options?.dfList) ? options.dfList : [];
      if (options.axis !== 0 || !isFrame(first, cls.DataFrame)) return concat(options);
      return concat({ ...options, dfList: [takeFrame(cls.DataFrame, first, null, null), ...rest] });
    });
  const fillNa = cls.upstream(cls.frame, "fillNa");
  patch(
    cls.frame,
    "fillNa",
    function (this: Frame, values: unknown, options?: { columns?: unknown; inplace?: boolean }) {
      if (options?.inplace || options?.columns === undefined) return fillNa.call(this, values, options);
      return fillNa.call(takeFrame(cls.DataFrame, this, null, null), values, options);
    },
  );
}
