/**
 * `risk-portal-lab/internals`: the request pipeline's parts, for tools built on the package (a cassette
 * inspector, a cache of one's own, a retry policy reused elsewhere). A notebook needs none of them.
 * These may change between minor versions. At run time it is the same code as the root's
 * (dist/subpath/internals.js reads it from dist/index.js), so `errorFromResponse` makes the root's errors.
 */
export * from "../internals";
