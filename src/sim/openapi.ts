/** `GET /openapi.json`: an OpenAPI 3.1 description generated from the same zod schemas the client uses. */
import { z } from "zod";
import { HEADERS, typeName } from "../api/assumptions";
import { OPERATIONS } from "../api";
import { problemDetails } from "../api/common";
import { TOKEN_PATH } from "./auth";

type JsonSchema = Record<string, unknown>;

function schemaOf(schema: z.ZodType): JsonSchema {
  // The wire form is the schemas' output (dates as strings); where a transform hides it (the launchers
  // flatten `parameters`), the input form.
  let out = z.toJSONSchema(schema, { io: "output", unrepresentable: "any" }) as JsonSchema;
  if (out.type !== "object") out = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" });
  delete out.$schema;
  return out;
}

export function buildOpenApi(namespace: string): JsonSchema {
  const paths: Record<string, JsonSchema> = {};
  const problem = {
    description: "Problem details (RFC 9457)",
    content: { "application/problem+json": { schema: schemaOf(problemDetails) } },
  };
  for (const op of OPERATIONS) {
    const operation: JsonSchema = {
      operationId: op.name,
      summary: `${op.name} (${op.retry === "read" ? "read: safe to retry" : "write: never re-sent"})`,
      security: [{ bearer: [] }, { apiKey: [] }, { oauth2apikey: [] }],
      responses: {
        200: {
          description: "Success",
          content: {
            "application/json": {
              schema: withType(schemaOf(op.response), op.responseType && typeName(namespace, op.responseType)),
            },
          },
        },
        400: problem,
        401: problem,
        ...(op.answersNotFound ? { 404: problem } : {}),
        429: problem,
      },
    };
    if (op.requestIn === "body") {
      const body = withType(schemaOf(op.request), op.requestType && typeName(namespace, op.requestType));
      operation.requestBody = {
        required: true,
        content: Object.fromEntries(
          ["application/json-patch+json", "application/json", "text/json", "application/*+json"].map((t) => [
            t,
            { schema: body },
          ]),
        ),
      };
    }
    if (op.requestIn === "query") {
      const shape = schemaOf(op.request) as { properties?: Record<string, JsonSchema>; required?: string[] };
      operation.parameters = Object.entries(shape.properties ?? {}).map(([name, schema]) => ({
        name,
        in: "query",
        required: shape.required?.includes(name) ?? false,
        schema,
      }));
    }
    paths[op.path] = { [op.method.toLowerCase()]: operation };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Risk Portal Service (simulator)",
      version: "1.0.0",
      description: "Generated from risk-portal-lab's wire schemas (src/api).",
    },
    paths,
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer" },
        apiKey: { type: "apiKey", in: "header", name: HEADERS.apiKey },
        oauth2apikey: { type: "oauth2", flows: { clientCredentials: { tokenUrl: TOKEN_PATH, scopes: {} } } },
      },
    },
  };
}

/** Adds the `$type` discriminator (a constant) first among the properties. */
function withType(schema: JsonSchema, type: string | undefined): JsonSchema {
  if (!type || schema.type !== "object") return schema;
  const { $type: _declared, ...rest } = schema.properties as JsonSchema;
  const properties = { $type: { type: "string", const: type }, ...rest };
  return { ...schema, properties };
}
