#!/usr/bin/env bash
# Sets up what the notebook tests need (idempotent, safe to re-run):
#   1. the Debian Jupyter packages, if `jupyter-nbconvert` is missing (needs root, as in CI);
#   2. the tslab kernels ("tslab" for TypeScript, "jslab" for JavaScript), registered with the absolute
#      path of this repo's node_modules/.bin/tslab so that the kernel starts without PATH changes;
#   3. Deno's kernel ("deno"), from the npm registry's `deno` package in node_modules (no other download),
#      registered by `deno jupyter --install` with the absolute path of that binary.
# Run it after `npm ci` (tslab is a devDependency). Prints the registered kernelspecs.
set -euo pipefail
cd "$(dirname "$0")/.."
repo_root="$(pwd -P)"
tslab_bin="$repo_root/node_modules/.bin/tslab"
export PYDEVD_DISABLE_FILE_VALIDATION=1 # else every jupyter start prints a pydevd "frozen modules" warning

if ! command -v jupyter-nbconvert >/dev/null 2>&1; then
  echo "setup-jupyter: installing the Debian Jupyter packages"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends \
    jupyter-nbconvert python3-nbclient jupyter-client python3-ipykernel >/dev/null
fi

if [ ! -x "$tslab_bin" ]; then
  echo "setup-jupyter: $tslab_bin not found; run \`npm ci\` first" >&2
  exit 1
fi

# Re-registering replaces an existing spec, so this also repairs a spec left by another checkout.
"$tslab_bin" install --python=/usr/bin/python3 --binary="$tslab_bin"

deno_bin="$repo_root/node_modules/.bin/deno"
if [ ! -x "$deno_bin" ]; then
  echo "setup-jupyter: $deno_bin not found; run \`npm ci\` first" >&2
  exit 1
fi
"$deno_bin" jupyter --install --force 2> >(grep -v 'is unstable' >&2)

jupyter kernelspec list
