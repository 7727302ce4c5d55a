#!/usr/bin/env bash
# The package's TypeScript declarations (packages/animd-client/animd.d.ts)
# type-check against a program using the whole API
# (packages/animd-client/test/usage.ts), with tsc from npm, pinned in
# packages/tooling (scripts/install-deps --test installs it).
set -euo pipefail
# No daemon code runs here: a sanitizer stage has nothing to check, the
# release stage runs it.
case "${ANIMD_BUILD:-}" in
*/asan | */tsan) echo "skipped: no daemon code runs (release stage only)"; exit 77 ;;
esac
TSC=packages/tooling/node_modules/.bin/tsc
[ -x "$TSC" ] || { echo "FAIL: $TSC is missing: run make deps-test"; exit 1; }
"$TSC" --version
"$TSC" -p packages/animd-client/test
echo "ok: animd.d.ts type-checks against usage.ts"
