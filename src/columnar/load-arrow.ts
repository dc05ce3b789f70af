/**
 * apache-arrow, loaded on first use. In a module of its own: its type is apache-arrow's whole module,
 * which the declarations of `toArrow` and `fromArrow` (reached from the package's root) would otherwise
 * import, and a kernel that type-checks each cell (tslab) would load with the package.
 */
type Arrow = typeof import("apache-arrow");
let loaded: Arrow | undefined;

/**
 * apache-arrow, loaded on first call and cached.
 * @example
 * ```ts
 * import { loadArrow } from "risk-portal-lab/frames";
 * const { tableFromArrays } = loadArrow(); // apache-arrow, loaded on first call
 * const t = tableFromArrays({ rate: Float64Array.of(0.03, 0.035) });
 * ```
 */
export function loadArrow(): Arrow {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= require("apache-arrow") as Arrow;
  return loaded;
}
