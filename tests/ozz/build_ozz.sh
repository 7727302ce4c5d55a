# tests/ozz/build_ozz.sh: sourced by the scripts of tests/ozz (run_ik.sh,
# run_bench.sh) from the project's root. Builds, under $OZZ_IK_DIR
# (default /tmp/animd-ozz-ik; nothing is written to the repository, no
# ozz code is committed):
#   - ozz-animation 0.16.0 (6cbdc790...) extracted from a git directory of
#     github.com/guillaumeblanc/ozz-animation (OZZ_MIRROR, default: the
#     mirror beside the worktree, ../.mirror/guillaumeblanc+ozz-animation/
#     repo), ozz_base and ozz_animation static with cmake, Release, its
#     default SSE math (the scalar reference math, ozz_build_simd_ref, uses
#     bit-trick estimates for reciprocals and square roots: percent-level);
#   - libanimd.a (make, the release build).
# Sets ROOT, DIR, SRC (ozz's sources) and LIBS (ozz's libraries). Exits 77
# (skipped) with a line saying why when cmake, g++ or the mirror are
# missing. The first run builds ozz (about a minute on 2 cores); later
# runs reuse it.
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT=$PWD
DIR=${OZZ_IK_DIR:-/tmp/animd-ozz-ik}
COMMIT=6cbdc790123aa4731d82e255df187b3a8a808256
MIRROR=${OZZ_MIRROR:-}
if [ -z "$MIRROR" ]; then
  for m in "$ROOT/../.mirror/guillaumeblanc+ozz-animation/repo" \
           /work/.mirror/guillaumeblanc+ozz-animation/repo; do
    [ -d "$m" ] && { MIRROR=$m; break; }
  done
fi
for tool in cmake g++ git; do
  command -v $tool >/dev/null ||
    { echo "skipped: $tool is missing (apt-get install -y cmake g++)"; exit 77; }
done
if [ -z "$MIRROR" ] || ! git --git-dir="$MIRROR" cat-file -e "$COMMIT" 2>/dev/null; then
  echo "skipped: no ozz-animation mirror holding $COMMIT (set OZZ_MIRROR to a git directory of github.com/guillaumeblanc/ozz-animation)"
  exit 77
fi
mkdir -p "$DIR"
SRC=$DIR/ozz BUILD=$DIR/build
if [ ! -f "$SRC/CMakeLists.txt" ]; then
  mkdir -p "$SRC"
  git --git-dir="$MIRROR" archive "$COMMIT" CMakeLists.txt build-utils include \
    src extern LICENSE.md 2>/dev/null | tar -x -C "$SRC"
fi
LIBS="$BUILD/src/animation/runtime/libozz_animation.a $BUILD/src/base/libozz_base.a"
if [ ! -f "$BUILD/src/base/libozz_base.a" ] ||
   [ ! -f "$BUILD/src/animation/runtime/libozz_animation.a" ]; then
  echo "== building ozz-animation 0.16 in $BUILD" >&2
  mkdir -p "$BUILD"
  (cd "$BUILD" &&
   cmake "$SRC" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" \
     -Dozz_build_tools=OFF -Dozz_build_fbx=OFF \
     -Dozz_build_gltf=OFF -Dozz_build_samples=OFF -Dozz_build_howtos=OFF \
     -Dozz_build_tests=OFF -Dozz_build_postfix=OFF >cmake.log 2>&1 &&
   nice make -j2 ozz_base ozz_animation >make.log 2>&1) ||
    { echo "ozz build failed: see $BUILD/make.log" >&2; exit 1; }
fi
# The release library, whatever build the caller's make is running (a
# sanitizer stage passes SAN=1 down through MAKEFLAGS).
MAKEFLAGS= MAKELEVEL= nice make -j2 SAN= build/release/libanimd.a >/dev/null
