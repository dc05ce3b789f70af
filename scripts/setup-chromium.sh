#!/usr/bin/env bash
# Installs what the PNG export and the browser tests need (idempotent, safe to re-run): the Debian
# Chromium at /usr/bin/chromium, if it is missing (needs root, as in CI), and poppler-utils (pdftotext,
# pdfimages: the export tests read the PDFs `export --to pdf` writes), if pdftotext is missing. playwright-core (an npm
# dependency) drives it; no browser is ever downloaded by playwright (never run `npx playwright install`).
# Prints the Chromium version.
set -euo pipefail

chromium_bin="${RISK_PORTAL_LAB_CHROMIUM:-/usr/bin/chromium}"

if [ ! -x "$chromium_bin" ]; then
  if [ -n "${RISK_PORTAL_LAB_CHROMIUM:-}" ]; then
    echo "setup-chromium: RISK_PORTAL_LAB_CHROMIUM=$chromium_bin is not an executable" >&2
    exit 1
  fi
  echo "setup-chromium: installing the Debian chromium package"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends chromium fonts-liberation >/dev/null
fi

if ! command -v pdftotext >/dev/null 2>&1; then
  echo "setup-chromium: installing poppler-utils (pdftotext, pdfimages)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends poppler-utils >/dev/null
fi

# `chromium --version` goes through Debian's wrapper script (whose /dev/shm probe can print a shell
# warning in containers: harmless, hence stderr is only shown when the check fails).
if ! version="$("$chromium_bin" --headless --no-sandbox --disable-gpu --version 2>/tmp/setup-chromium.err)"; then
  cat /tmp/setup-chromium.err >&2
  echo "setup-chromium: $chromium_bin does not start" >&2
  exit 1
fi
echo "setup-chromium: $version ($chromium_bin)"
