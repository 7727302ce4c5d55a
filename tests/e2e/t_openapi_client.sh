#!/usr/bin/env bash
# OpenAPI: a TypeScript client generated from docs/openapi.yaml (openapi-
# typescript) compiles (tsc --noEmit).
# The checks live in tests/openapi (node modules pinned by its
# package-lock.json, installed by scripts/install-deps --test).
set -euo pipefail
# No daemon code runs here: a sanitizer stage has nothing to check, the
# release stage runs it.
case "${ANIMD_BUILD:-}" in
*/asan | */tsan) echo "skipped: no daemon code runs (release stage only)"; exit 77 ;;
esac
cd "$(dirname "$0")/../.."
if [ ! -d tests/openapi/node_modules ]; then
  echo "tests/openapi/node_modules is missing: run scripts/install-deps --test" >&2
  exit 1
fi
exec node tests/openapi/client.js
