#!/usr/bin/env bash
# Runs the test suite (or the files given) under the current Node LTS (26; NODE_LTS=22 for the oldest
# supported line): the package declares `engines.node >= 22`, and CI runs `npm test` under Node 22, then
# this under 26. The binary comes from scripts/node-lts.sh.
# Its directory goes first on PATH, so everything the tests start runs under it too: the simulator CLI
# and the runner (`process.execPath`), and the tslab kernels Jupyter starts (`#!/usr/bin/env node`).
set -euo pipefail
cd "$(dirname "$0")/.."
node_bin="$(bash scripts/node-lts.sh)"
echo "test-node-lts: $("$node_bin" --version) ($node_bin)"
PATH="$(dirname "$node_bin"):$PATH" exec "$node_bin" node_modules/vitest/vitest.mjs run "$@"
