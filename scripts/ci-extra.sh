#!/usr/bin/env bash
# Extra CI suites, called by .ci/run after `npm test` on SQLite and MariaDB: `bash scripts/ci-extra.sh RESULTS_DIR`.
# Each run writes a Jest JSON report into RESULTS_DIR, so the final test count includes these suites.
#   1. test/robustness-slow/ (jest.slow.config.js): database outages on a private MariaDB server this suite starts
#      itself (connections killed, server shut down, crashed and frozen under load). Database-independent: run once.
#   2. A deeper fuzzing pass of POST /hooks and the JSON API: on SQLite FUZZ_SCALE=5 (five times the runs of
#      `npm test`) and, when PARLEY_MYSQL_URL is set (as .ci/run sets it), on MariaDB FUZZ_SCALE=2 (the inputs are
#      the same on both; MariaDB's pass checks the driver's answers to them, and keeps the run under 30 minutes).
set -uo pipefail
cd "$(dirname "$0")/.."

results="${1:?usage: scripts/ci-extra.sh RESULTS_DIR}"
mkdir -p "$results"
status=0

echo "--- robustness (slow): database outages on a private MariaDB"
npx jest -c jest.slow.config.js --json --outputFile="$results/robustness-slow.json" || status=1

fuzz=(test/robustness/fuzz-webhook.test.ts test/robustness/fuzz-api.test.ts)
echo "--- robustness: deep fuzzing (SQLite)"
FUZZ_SCALE=5 npx jest "${fuzz[@]}" --json --outputFile="$results/fuzz-deep-sqlite.json" || status=1
if [ -n "${PARLEY_MYSQL_URL:-}" ]; then
  echo "--- robustness: deep fuzzing (MariaDB)"
  PARLEY_TEST_DATABASE="$PARLEY_MYSQL_URL" FUZZ_SCALE=2 npx jest "${fuzz[@]}" --json --outputFile="$results/fuzz-deep-mariadb.json" || status=1
fi

exit $status
