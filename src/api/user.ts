/** The caller's API keys (operation 13). */
import { z } from "zod";
import { lazy } from "./lazy";
import { noInput } from "./common";
import { defineOperation } from "./operation";
import type * as wire from "./wire-types";

/**
 * An API key entry (`{brand}ExposedApiKey`; every field nullable on the pages). `exposed_value` is a
 * secret: errors redact it, frames mask it.
 */
export const apiKeyEntry = lazy(() =>
  z.looseObject({
    $type: z.string().optional(),
    name: z.string().nullish(),
    exposed_value: z.string().nullish(),
    id: z.string().nullish(),
  }),
);
export type ApiKeyEntry = wire.ApiKeyEntry;
export const apiKeysResponse = lazy(() => z.array(apiKeyEntry));
export type ApiKeysResponse = wire.ApiKeysResponse;

/** 13. GET /api/User/me/ApiKeys */
export const getApiKeys = defineOperation({
  name: "ApiKeys",
  method: "GET",
  path: "/api/User/me/ApiKeys",
  retry: "read",
  requestIn: "none",
  request: noInput,
  response: apiKeysResponse,
});
