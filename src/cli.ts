#!/usr/bin/env node
/**
 * `risk-portal-lab <command>`:
 *   sim [--port 8787] [--data-dir DIR] [--seed N] [--rows N] [--json]   start the simulator
 */
import { parseArgs } from "node:util";

const USAGE = `usage: risk-portal-lab <command> [options]

commands:
  sim    start the embedded simulator of the service on 127.0.0.1
         --port N        port (default 8787; 0 picks a free one)
         --data-dir DIR  keep uploads and launched reports across restarts
         --seed N        seed of the generated data (default 1)
         --rows N        rows per portfolio transaction table (default 5000)
         --no-rate-limit turn the per-credential rate limit off
         --json          print exactly one JSON line {url, credentials} (for scripts)
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === "--help" || command === "-h" || command === "help") {
    process.stdout.write(USAGE);
    return command ? 0 : 2;
  }
  if (command === "sim") return sim(rest);
  process.stderr.write(`risk-portal-lab: unknown command ${JSON.stringify(command)}\n\n${USAGE}`);
  return 2;
}

async function sim(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: "string", default: "8787" },
      "data-dir": { type: "string" },
      seed: { type: "string", default: "1" },
      rows: { type: "string" },
      "no-rate-limit": { type: "boolean", default: false },
      json: { type: "boolean", default: false },
    },
    strict: true,
  });
  const port = wholeNumber(values.port!, "--port");
  const seed = wholeNumber(values.seed!, "--seed");
  const rows = values.rows === undefined ? undefined : wholeNumber(values.rows, "--rows");
  const { startSimulator } = await import("./sim");
  const simulator = await startSimulator({ port, seed, dataDir: values["data-dir"], transactionRows: rows, rateLimit: values["no-rate-limit"] ? false : undefined });
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ url: simulator.url, credentials: simulator.credentials })}\n`);
  } else {
    const c = simulator.credentials;
    process.stdout.write(
      [
        `risk-portal-lab simulator listening on ${simulator.url}${values["data-dir"] ? ` (state in ${values["data-dir"]})` : ""}`,
        "",
        "credentials:",
        `  bearer token   ${c.bearerToken}`,
        `  API key        ${c.apiKey}`,
        `  client id      ${c.clientId}`,
        `  client secret  ${c.clientSecret}`,
        `  token URL      ${c.tokenUrl}`,
        "",
        "try:",
        `  curl -s -H 'x-api-key: ${c.apiKey}' ${simulator.url}/api/Report/LookBacks`,
        `  export RISK_PORTAL_BASE_URL=${simulator.url} RISK_PORTAL_API_KEY=${c.apiKey}`,
        "",
        "Ctrl-C stops it.",
        "",
      ].join("\n"),
    );
  }
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await simulator.close();
  return 0;
}

function wholeNumber(text: string, flag: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`${flag} must be a whole number >= 0, got ${JSON.stringify(text)}`);
  return n;
}

class UsageError extends Error {}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const usage = error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS");
    process.stderr.write(`risk-portal-lab: ${(error as Error).message ?? String(error)}\n${usage ? `\n${USAGE}` : ""}`);
    process.exit(usage ? 2 : 1);
  },
);
