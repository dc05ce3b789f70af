/** The caller's API keys (operation 13) as a frame, key values masked unless asked for. */
import type { DataFrame } from "../../vendor/danfo";
import type { ApiKeyEntry } from "../api/user";
import { maskSecret } from "../record/redact";
import { columnRecord, type ColumnTable } from "../table/column-table";
import { toDataFrame } from "./danfo";
import { provenanceFrom } from "./provenance";
import { tableFromRecords } from "./records";

export interface ApiKeysOptions {
  /** Show the key values in full. Default false: only their last 4 characters (`••••1a2b`). */
  reveal?: boolean;
}

/** `MASK` and `maskSecret` live with the redactor: cassettes keep the same last 4 characters frames show. */
export { MASK, maskSecret } from "../record/redact";

/** Extra fields whose names say they hold a secret are masked too (a newer server may add some). */
const SECRET_FIELD = /secret|token|password|exposed|api[_-]?key|credential/i;

function masked(value: unknown): unknown {
  return typeof value === "string" ? maskSecret(value) : value;
}

/**
 * API keys as a column table: `id, name, exposed_value`, then any extra fields. `exposed_value` (and
 * any extra field named like a secret) is masked to its last 4 characters unless `{ reveal: true }`.
 * @example
 * ```ts
 * const keys = frames.apiKeysColumns(await rp.user.apiKeys()); // exposed_value masked
 * ```
 */
export function apiKeysColumns(entries: readonly ApiKeyEntry[], options: ApiKeysOptions = {}): ColumnTable {
  const reveal = options.reveal === true;
  const records = reveal
    ? entries
    : entries.map((e) => {
        const out = columnRecord<unknown>();
        for (const [k, v] of Object.entries(e ?? {}))
          out[k] = k === "exposed_value" || SECRET_FIELD.test(k) ? masked(v) : v;
        return out;
      });
  return tableFromRecords(
    records,
    [
      { name: "id", hint: "string" },
      { name: "name", hint: "string" },
      { name: "exposed_value", hint: "string" },
    ],
    { source: "ApiKeys", provenance: provenanceFrom(entries) },
  );
}

/**
 * API keys as a danfo DataFrame (see {@link apiKeysColumns}); values masked unless `{ reveal: true }`.
 *
 * @example
 * ```ts
 * const df = frames.apiKeys(await rp.user.apiKeys());
 * ```
 */
export function apiKeys(entries: readonly ApiKeyEntry[], options: ApiKeysOptions = {}): DataFrame {
  return toDataFrame(apiKeysColumns(entries, options));
}
