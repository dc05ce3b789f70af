#!/usr/bin/env bash
# Sweeps the vol model's property tests over many fast-check seeds (issue 18): every property runs its
# 300 (or 100) cases once per seed, and a failure lists the seeds that failed.
#   bash scripts/vol-seed-sweep.sh [FROM] [TO] [JOBS]    default 1 2000 2
# The seeds are split over JOBS vitest processes; each prints its own summary line.
set -euo pipefail
cd "$(dirname "$0")/.."
from=${1:-1}
to=${2:-2000}
jobs=${3:-2}
per=$(((to - from + jobs) / jobs))
pids=()
for ((j = 0; j < jobs; j++)); do
  a=$((from + j * per))
  b=$((a + per - 1))
  ((b > to)) && b=$to
  ((a > to)) && break
  VOL_PROPERTY_SEEDS="$a-$b" npx vitest run test/vol/surface.properties.test.ts --testTimeout=0 > "/tmp/vol-seed-sweep-$a-$b.log" 2>&1 &
  pids+=("$!:$a-$b")
done
status=0
for p in "${pids[@]}"; do
  pid=${p%%:*}
  range=${p#*:}
  if wait "$pid"; then echo "seeds $range: all properties pass"; else echo "seeds $range: FAILED (see /tmp/vol-seed-sweep-$range.log)"; status=1; fi
done
exit $status
