/**
 * `risk-portal-lab/api`: the wire model, for tools built on the package — the zod schemas, the 13
 * operation declarations (`OPERATIONS`), the resource groups, and the spec's constants and assumptions
 * (`REPORT_STATUSES`, `PORTFOLIO_TYPES`, `SERVICE_DEFAULTS`, `ASSUMPTIONS`, …). A notebook needs none of
 * it: the client validates with these schemas, and the root exports their request and response types.
 * At run time it is the same code as the root's (dist/subpath/api.js reads it from dist/index.js).
 */
export * from "../api";
