#!/usr/bin/env bash
# The package's TypeScript declarations type-check against programs using
# the whole API, with tsc --noEmit --strict from npm, pinned in
# packages/tooling: animd.d.ts against packages/animd-client/test/usage.ts,
# and the three.js adapter's three.d.ts against test/usage_three.ts, which
# loads a glTF with three's GLTFLoader, with three's own types
# (@types/three of the three release web/three installs, pinned in
# packages/tooling-three). scripts/install-deps --test installs both.
set -euo pipefail
# No daemon code runs here: a sanitizer stage has nothing to check, the
# release stage runs it.
case "${ANIMD_BUILD:-}" in
*/asan | */tsan) echo "skipped: no daemon code runs (release stage only)"; exit 77 ;;
esac
TSC=packages/tooling/node_modules/.bin/tsc
THREE_TYPES=packages/tooling-three/node_modules/@types/three
[ -x "$TSC" ] || { echo "FAIL: $TSC is missing: run make deps-test"; exit 1; }
[ -f "$THREE_TYPES/index.d.ts" ] || { echo "FAIL: $THREE_TYPES is missing: run make deps-test"; exit 1; }
# The types are those of the three we serve: the same minor release.
three=$(node -p "require('./web/three/package.json').dependencies.three")
types=$(node -p "require('./$THREE_TYPES/package.json').version")
echo "three $three, @types/three $types"
[ "${three%.*}" = "${types%.*}" ] || { echo "FAIL: @types/three $types is not for three $three"; exit 1; }
"$TSC" --version
"$TSC" --noEmit --strict -p packages/animd-client/test
echo "ok: animd.d.ts type-checks against usage.ts"
"$TSC" --noEmit --strict -p packages/animd-client/test/tsconfig.three.json
echo "ok: three.d.ts type-checks against usage_three.ts and @types/three $types"
