/**
 * `risk-portal-lab/frames`: the whole frames folder, for what the root's `frames` namespace (src/surface/frames.ts)
 * leaves out. At run time it is the same code as the root's (dist/subpath/frames.js reads it from the one
 * bundle, dist/index.js), so a class or error from here is the root's own.
 */
export * from "../frames";
