#!/usr/bin/env bash
# Runs one OpenAPI check of this folder under node, from the repository's
# root: tests/openapi/run.sh [--no-daemon] SCRIPT.js. The node modules are
# pinned by package-lock.json and installed by scripts/install-deps --test.
# --no-daemon: the check runs no daemon code, so a sanitizer stage has
# nothing to check and the release stage runs it (77 = skipped).
set -euo pipefail
if [ "${1:-}" = "--no-daemon" ]; then
  shift
  case "${ANIMD_BUILD:-}" in
  */asan | */tsan) echo "skipped: no daemon code runs (release stage only)"; exit 77 ;;
  esac
fi
cd "$(dirname "$0")/../.."
if [ ! -d tests/openapi/node_modules ]; then
  echo "tests/openapi/node_modules is missing: run scripts/install-deps --test" >&2
  exit 1
fi
exec node "tests/openapi/$1"
