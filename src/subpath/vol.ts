/**
 * `risk-portal-lab/vol`: the whole vol folder, for what the root's `vol` namespace (src/surface/vol.ts)
 * leaves out. At run time it is the same code as the root's (dist/subpath/vol.js reads it from the one
 * bundle, dist/index.js), so a class or error from here is the root's own.
 */
export * from "../vol";
