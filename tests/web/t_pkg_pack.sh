#!/usr/bin/env bash
# The npm package: its version is the daemon's (ANIMD_VERSION in
# include/animd/animd.h) in package.json and in the module's `version`
# export; `npm pack` makes a tarball holding only the files listed; that
# tarball installs offline into a scratch project, where Node imports it
# as an ES module by name and tsc finds its types through `exports`, those
# of animd-client/three (three.d.ts) with three's own (@types/three, from
# packages/tooling-three, as an app would install it beside three).
set -euo pipefail
# No daemon code runs here: a sanitizer stage has nothing to check, the
# release stage runs it.
case "${ANIMD_BUILD:-}" in
*/asan | */tsan) echo "skipped: no daemon code runs (release stage only)"; exit 77 ;;
esac
ROOT=$PWD
PKG=$ROOT/packages/animd-client
TSC=$ROOT/packages/tooling/node_modules/.bin/tsc
THREE_TYPES=$ROOT/packages/tooling-three/node_modules/@types/three
[ -x "$TSC" ] || { echo "FAIL: $TSC is missing: run make deps-test"; exit 1; }
[ -f "$THREE_TYPES/index.d.ts" ] || { echo "FAIL: $THREE_TYPES is missing: run make deps-test"; exit 1; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/animd-pack.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

want=$(sed -n 's/^#define ANIMD_VERSION "\(.*\)"$/\1/p' include/animd/animd.h)
[ -n "$want" ] || { echo "FAIL: no ANIMD_VERSION in include/animd/animd.h"; exit 1; }
in_json=$(node -p "require('$PKG/package.json').version")
in_js=$(node --input-type=module -e "import { version } from '$PKG/animd.js'; console.log(version);")
echo "ANIMD_VERSION $want, package.json $in_json, animd.js $in_js"
[ "$in_json" = "$want" ] || { echo "FAIL: package.json version $in_json is not ANIMD_VERSION $want"; exit 1; }
[ "$in_js" = "$want" ] || { echo "FAIL: animd.js version $in_js is not ANIMD_VERSION $want"; exit 1; }

export npm_config_cache=$TMP/npm-cache npm_config_update_notifier=false
(cd "$PKG" && npm pack --pack-destination "$TMP" --json --loglevel=error) > "$TMP/pack.json"
tgz=$TMP/animd-client-$want.tgz
[ -f "$tgz" ] || { echo "FAIL: npm pack made no $tgz"; cat "$TMP/pack.json"; exit 1; }
files=$(tar -tzf "$tgz" | sort | tr '\n' ' ')
echo "tarball: $(stat -c %s "$tgz") bytes: $files"
for f in package/package.json package/animd.js package/animd.d.ts package/three.js \
    package/three.d.ts package/README.md; do
  [[ " $files" == *" $f "* ]] || { echo "FAIL: $f is not in the tarball"; exit 1; }
done
[[ "$files" != *package/test/* ]] || { echo "FAIL: the tarball carries the type tests"; exit 1; }

mkdir "$TMP/app"
cd "$TMP/app"
printf '{"name":"scratch","private":true,"type":"module"}\n' > package.json
npm install --offline --no-audit --no-fund --loglevel=error "$tgz"
[ ! -L node_modules/animd-client ] || { echo "FAIL: installed as a link, not from the tarball"; exit 1; }
cat > main.js <<'JS'
import { Animd, AnimdError, FIELDS, decodeStreamFrame, version } from 'animd-client';
import pkg from 'animd-client/package.json' with { type: 'json' };
const a = new Animd({ url: 'http://127.0.0.1:1' });
let refused = null;
try { a.connect({ reconect: false }); } catch (e) { refused = e instanceof AnimdError ? e.message : String(e); }
console.log(JSON.stringify({ version, pkg: pkg.version, url: a.url, play: FIELDS.play.length,
  decode: typeof decodeStreamFrame, refused }));
JS
out=$(node main.js)
echo "imported: $out"
node -e '
const o = JSON.parse(process.argv[1]);
const want = process.argv[2];
if (o.version !== want || o.pkg !== want) throw new Error("version " + o.version + "/" + o.pkg);
if (o.url !== "http://127.0.0.1:1" || o.decode !== "function" || o.play < 10) throw new Error("exports");
if (!/did you mean .reconnect./.test(o.refused)) throw new Error("refused: " + o.refused);
' "$out" "$want"
mkdir -p node_modules/@types
ln -s "$THREE_TYPES" node_modules/@types/three
cat > types.ts <<'TS'
import { Animd, version, type Pose } from 'animd-client';
import { GltfRig, rigGltf, type RigState } from 'animd-client/three';
import type { GLTF } from 'three/addons/loaders/GLTFLoader.js';
export const v: string = version;
const animd = new Animd({ url: 'http://127.0.0.1:1' });
export const p: Promise<Pose> = animd.pose({ clip: 'wave', t: 0.5 });
export async function rig(gltf: GLTF): Promise<RigState> {
  const r: GltfRig = await rigGltf(animd, gltf, { skeleton: 'CesiumMan' });
  await r.play(animd.connect(), { clip: 'Walk', mode: 'thin', encoding: 'q16' });
  // @ts-expect-error the adapter's types are checked, not any
  await r.play(animd.connect(), { mode: 'medium' });
  return r.state;
}
TS
cat > tsconfig.json <<'JSON'
{"compilerOptions": {"strict": true, "noEmit": true, "module": "NodeNext", "moduleResolution": "NodeNext",
  "target": "ES2022", "lib": ["ES2022", "DOM"], "types": []}, "files": ["types.ts"]}
JSON
"$TSC" -p .
echo "ok: animd-client-$want.tgz installs offline, imports by name (ESM) and types resolve (animd-client/three too)"
