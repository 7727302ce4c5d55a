# animd build: the core library (libanimd.a), the formats, store and server
# layers, the animd daemon, the Check test runner and the benchmarks.
#
#   make              build/release/animd and libanimd.a
#   make SAN=1        the same under build/asan with ASan + UBSan
#                     (SAN=thread: build/tsan with ThreadSanitizer)
#   make run          install what is missing, build, start on 127.0.0.1:8080
#                     (PORT=9000 for another port)
#   make deps         install what building and running need (deps-test:
#                     and what the tests and benchmarks need)
#   make check        install what is missing, run the threaded suites with
#                     ThreadSanitizer, then the whole suite with ASan+UBSan
#                     and then without (the CI command)
#   make bench        core benchmarks (bench-http, bench-ws, bench-thin,
#                     bench-fleet, bench-instructions: server ones)
#   make bench-ozz    IK and blend jobs beside ozz-animation 0.16's
#   make soak         10 minutes of mixed load; RSS, descriptors and /healthz
#                     latency sampled every second (SOAK_SECONDS)
#   make soak-fleet the same against a fleet (Redis, three daemons,
#                     HAProxy) with a node killed every fifth of the run
#   make abuse        loop stalls under heavy requests, measured: worst
#                     /healthz latency and stream gap per request (about two
#                     minutes, bounded by ABUSE_SECONDS; not part of check),
#                     then each hardening item's figure at a small scale
#   make check-floats every float of magnitude 1e-4 to 1e6 printed by the
#                     answer printer and by the printf method, compared
#                     (two to four minutes on two cores; not part of check)
#   make cluster      a fleet on loopback: redis-server, three daemons and
#                     HAProxy in front; prints the front URL, Ctrl-C stops
#   make install      PREFIX=/usr/local DESTDIR= (SYSTEMD_UNIT_DIR)
#   make man          the manual pages animd(8) and animd.conf(5), their
#                     options taken from animd --help (build/*/man)
#   make deb          build/deb/animd_<version>_amd64.deb (dpkg-buildpackage)
#   make check-deb    builds it, lintian, runs the daemon extracted from it
#   make fuzz         build the libFuzzer targets (clang) under build/fuzz and
#                     run each for FUZZ_SECONDS (60); not part of check
#   make fuzz-build   only build them
#
# Every .c file under src/<layer>/ is picked up by wildcard; files ending in
# _avx2.c are compiled with -mavx2 -mfma, files ending in _avx512.c for
# AVX-512 (F, VL, DQ, BW), and both must only be called after a run-time CPU
# check. The core's kernels are compiled with -O3 in the release build.

CC ?= cc
PKG_CONFIG ?= pkg-config
PREFIX ?= /usr/local
SAN ?=

ifeq ($(SAN),1)
B := build/asan
OPT := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
       -fno-omit-frame-pointer
LDSAN := -fsanitize=address,undefined
else ifeq ($(SAN),thread)
B := build/tsan
OPT := -O1 -g -fsanitize=thread -fno-omit-frame-pointer
LDSAN := -fsanitize=thread
else
B := build/release
OPT := -O2 -g
LDSAN :=
endif

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
        -Wmissing-prototypes -Wno-unused-parameter
CPPFLAGS_ALL := -Iinclude -Isrc -I/usr/share/include/llhttp -D_GNU_SOURCE
CFLAGS_ALL := -std=c11 $(OPT) $(WARN) -MMD -MP $(CFLAGS)

# ---- external libraries (Debian package in brackets) -----------------------
# pkg-config name : Debian package
PKG_DEBS := libuv:libuv1-dev jansson:libjansson-dev check:check \
            libcrypto:libssl-dev hiredis:libhiredis-dev zlib:zlib1g-dev \
            liburing:liburing-dev
LLHTTP_DIR := /usr/share/llhttp
LLHTTP_SRC := $(LLHTTP_DIR)/api.c $(LLHTTP_DIR)/http.c $(LLHTTP_DIR)/llhttp.c
WSLAY_H := /usr/include/wslay/wslay.h

NODEPS_GOALS := deps deps-test deps-deb deb check-deb clean distclean run check check-layers \
                check-error-codes check-error-docs check-format format help
ifeq ($(filter-out $(NODEPS_GOALS),$(or $(MAKECMDGOALS),all)),)
else
  ifeq ($(shell command -v $(PKG_CONFIG) 2>/dev/null),)
    $(error pkg-config is missing: install Debian package pkg-config (make deps))
  endif
  $(foreach pd,$(PKG_DEBS),$(if $(shell $(PKG_CONFIG) --exists $(word 1,$(subst :, ,$(pd))) && echo y),,\
    $(error library $(word 1,$(subst :, ,$(pd))) is missing: install Debian package $(word 2,$(subst :, ,$(pd))) (make deps))))
  ifeq ($(wildcard $(LLHTTP_DIR)/llhttp.c),)
    $(error llhttp sources are missing: install Debian package node-llhttp (make deps))
  endif
  ifeq ($(wildcard $(WSLAY_H)),)
    $(error wslay is missing: install Debian package libwslay-dev (make deps))
  endif
  PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags libuv jansson libcrypto hiredis \
                  zlib liburing)
  PKG_LIBS := $(shell $(PKG_CONFIG) --libs libuv jansson libcrypto hiredis \
                zlib liburing) -lwslay
  CHECK_CFLAGS := $(shell $(PKG_CONFIG) --cflags check)
  CHECK_LIBS := $(shell $(PKG_CONFIG) --libs check)
endif

# ---- sources ----------------------------------------------------------------
CORE_SRC := $(sort $(wildcard src/core/*.c))
FORMATS_SRC := $(sort $(wildcard src/formats/*.c))
STORE_SRC := $(sort $(wildcard src/store/*.c))
SERVER_SRC := $(sort $(wildcard src/server/*.c src/server/*/*.c))
SERVER_ASM := $(sort $(wildcard src/server/*.S src/server/*/*.S))
UNIT_SRC := $(sort $(wildcard tests/unit/*.c tests/unit/*/*.c \
                            tests/unit/*/*/*.c))
BENCH_SRC := $(sort $(wildcard tests/bench/bench_*.c))
CLI_SRC := $(sort $(wildcard src/cli/*.c))

obj = $(patsubst %.c,$(B)/%.o,$(1))
CORE_OBJ := $(call obj,$(CORE_SRC))
FORMATS_OBJ := $(call obj,$(FORMATS_SRC))
STORE_OBJ := $(call obj,$(STORE_SRC))
SERVER_OBJ := $(call obj,$(SERVER_SRC)) $(patsubst %.S,$(B)/%.o,$(SERVER_ASM))
LLHTTP_OBJ := $(patsubst $(LLHTTP_DIR)/%.c,$(B)/llhttp/%.o,$(LLHTTP_SRC))
UNIT_OBJ := $(call obj,$(UNIT_SRC))
BENCH_BIN := $(patsubst tests/bench/%.c,$(B)/bench/%,$(BENCH_SRC))

LIBANIMD := $(B)/libanimd.a
LIBFORMATS := $(B)/libanimd_formats.a
LIBSTORE := $(B)/libanimd_store.a
LIBSERVER := $(B)/libanimd_server.a
ANIMD := $(B)/animd
UNIT := $(B)/tests/run_unit

# Layers link top-down: server, store, formats, core.
APP_LIBS := $(LIBSERVER) $(LIBSTORE) $(LIBFORMATS) $(LIBANIMD)
SYS_LIBS := $(PKG_LIBS) -lpthread -lm

.PHONY: all lib deps deps-test run check test-ozz-ik check-layers check-error-codes check-error-docs \
        check-format format check-threads test \
        build-tests bench bench-ozz bench-http bench-ws bench-instructions bench-thin bench-fleet soak soak-fleet abuse check-floats \
        cluster install man deps-deb deb check-deb \
        clean distclean help fuzz fuzz-build \
        fuzz-programs
.DEFAULT_GOAL := all
# Keep intermediate objects (bench programs' .o) so a second make does nothing.
.SECONDARY:

all: $(ANIMD) $(LIBANIMD) $(B)/clients/c/animd_frame.checked

# The C client's decoder is a C99 header for devices: compiled alone,
# pedantic, so it stays C99 with no warning.
$(B)/clients/c/animd_frame.checked: clients/c/animd_frame.h
	@mkdir -p $(@D)
	$(CC) -x c -std=c99 -Wall -Wextra -Werror -pedantic -fsyntax-only $<
	@touch $@
lib: $(LIBANIMD)

# ---- compile ------------------------------------------------------------------
$(B)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_ALL) $(PKG_CFLAGS) $(CPPFLAGS) $(CFLAGS_ALL) -c $< -o $@

# The core sees only libc and libm: no package include paths. Its kernels
# gain 10-17% from -O3 over -O2 (sanitizer builds keep their -O1), and its
# functions and loops start on 64-byte boundaries, so their timings do not
# move when unrelated code shifts them (up to 20% at 16-byte shifts).
CORE_OPT := $(if $(SAN),,-O3 -falign-functions=64 -falign-loops=64)
CORE_CFLAGS = $(CPPFLAGS_ALL) $(CPPFLAGS) $(CFLAGS_ALL) $(CORE_OPT)
ISA_AVX2 := -mavx2 -mfma
ISA_AVX512 := $(ISA_AVX2) -mavx512f -mavx512vl -mavx512dq -mavx512bw -mavx512cd

$(B)/src/core/%_avx2.o: src/core/%_avx2.c
	@mkdir -p $(@D)
	$(CC) $(CORE_CFLAGS) $(ISA_AVX2) -c $< -o $@

$(B)/src/core/%_avx512.o: src/core/%_avx512.c
	@mkdir -p $(@D)
	$(CC) $(CORE_CFLAGS) $(ISA_AVX512) -c $< -o $@

$(B)/src/core/%.o: src/core/%.c
	@mkdir -p $(@D)
	$(CC) $(CORE_CFLAGS) -c $< -o $@

# The blending job's sqrtf never sees a negative argument: without errno
# its normalization pass vectorizes.
$(B)/src/core/blend.o $(B)/src/core/blend_avx2.o: CORE_OPT += -fno-math-errno

# The formats layer's SIMD printers (float_list_avx512.c, float_list_avx2.c),
# each run only where the core reports its instruction set.
$(B)/src/formats/%_avx512.o: src/formats/%_avx512.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_ALL) $(CPPFLAGS) $(CFLAGS_ALL) $(ISA_AVX512) -c $< -o $@

$(B)/src/formats/%_avx2.o: src/formats/%_avx2.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_ALL) $(CPPFLAGS) $(CFLAGS_ALL) $(ISA_AVX2) -c $< -o $@

$(B)/%.o: %.S
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_ALL) -MMD -MP -c $< -o $@

# The demo asset is embedded with .incbin, which -MMD does not see.
$(B)/src/server/demo.o: $(wildcard config/demo.json)
# So are the browser files (the client and the viewer).
$(B)/src/server/web/files.o: $(wildcard packages/animd-client/*.js \
  web/*.js web/*.html)
# And the OpenAPI document, docs/openapi.yaml converted to JSON (Debian's
# python3-yaml) into the build tree.
$(B)/openapi.json: docs/openapi.yaml scripts/yaml-to-json
	@mkdir -p $(@D)
	scripts/yaml-to-json $< > $@.tmp
	mv $@.tmp $@
$(B)/src/server/api/openapi_doc.o: $(B)/openapi.json
$(B)/src/server/api/openapi_doc.o: CPPFLAGS_ALL += \
  -DANIMD_OPENAPI_JSON='"$(B)/openapi.json"'

# Debian's llhttp C sources are compiled into the build as they are.
$(B)/llhttp/%.o: $(LLHTTP_DIR)/%.c
	@mkdir -p $(@D)
	$(CC) -I/usr/share/include/llhttp -std=c11 $(OPT) -w -c $< -o $@

$(B)/tests/%.o: tests/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_ALL) -I$(B)/tests $(PKG_CFLAGS) $(CHECK_CFLAGS) $(CPPFLAGS) \
	  $(CFLAGS_ALL) -Wno-missing-prototypes -c $< -o $@

# ---- archives and programs -----------------------------------------------------
$(LIBANIMD): $(CORE_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^
$(LIBFORMATS): $(FORMATS_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^
$(LIBSTORE): $(STORE_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^
$(LIBSERVER): $(SERVER_OBJ) $(LLHTTP_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

CLI_OBJ := $(call obj,$(CLI_SRC))
$(ANIMD): $(B)/src/main.o $(CLI_OBJ) $(APP_LIBS)
	$(CC) $(LDSAN) $(LDFLAGS) -o $@ $(B)/src/main.o $(CLI_OBJ) $(APP_LIBS) \
	  $(SYS_LIBS)

# Each tests/unit file defines one or more "Suite *name_suite(void)"; the
# runner calls them all, so the run ends with one Check summary line.
$(B)/tests/suites.inc: $(UNIT_SRC)
	@mkdir -p $(@D)
	sed -n 's/^Suite \*\([a-z0-9_]*_suite\)(void).*/ANIMD_SUITE(\1)/p' \
	  $(filter-out tests/unit/run_unit.c,$(UNIT_SRC)) > $@.tmp
	mv $@.tmp $@

$(B)/tests/unit/run_unit.o: $(B)/tests/suites.inc

$(UNIT): $(UNIT_OBJ) $(CLI_OBJ) $(APP_LIBS)
	$(CC) $(LDSAN) $(LDFLAGS) -o $@ $(UNIT_OBJ) $(CLI_OBJ) $(APP_LIBS) $(CHECK_LIBS) \
	  $(SYS_LIBS)

$(B)/bench/%: $(B)/tests/bench/%.o $(APP_LIBS)
	@mkdir -p $(@D)
	$(CC) $(LDSAN) $(LDFLAGS) -o $@ $< $(APP_LIBS) $(SYS_LIBS)

# ---- workflows ------------------------------------------------------------------
# What running needs (make deps), and what the tests and benchmarks need
# besides (make deps-test: Chromium, Python and npm test clients).
deps:
	scripts/install-deps

deps-test:
	scripts/install-deps --test

# The C sources against .clang-format (make format rewrites them).
check-format:
	scripts/check-format
format:
	scripts/check-format --fix

# Every #include respects the layers and the server's rooms.
check-layers:
	scripts/check-layers

# No error code spelled outside the one table (src/formats/error_codes.h),
# and docs/api.md's error table listing every code with its status.
# (scripts/check-error-codes --report lists the literals without failing.)
check-error-codes:
	scripts/check-error-codes
check-error-docs:
	scripts/check-error-docs

# make run PORT=9000 serves on another port (8080 by default), with
# three.js from npm as make deps installed it (web/three) under /three/.
PORT ?= 8080
THREE_PKG := web/three/node_modules/three
run: deps
	$(MAKE) --no-print-directory -j2 all
	$(B)/animd --config config/animd.conf --listen 127.0.0.1:$(PORT) --demo \
	  --three-dir $(CURDIR)/$(THREE_PKG)

# Runs the unit and end-to-end suites; ANIMD_BIN tells the e2e suite which
# daemon to start.
# Benchmarks are built (not run) with the release tests so they keep compiling.
build-tests: all $(UNIT) $(if $(SAN),,$(BENCH_BIN) $(B)/lock_count.so)

# Counts the daemon's lock acquisitions per thread kind when preloaded
# (tests/e2e/t_locks_per_request.py; not with a sanitizer's runtime).
$(B)/lock_count.so: tests/locks/lock_count.c
	@mkdir -p $(@D)
	$(CC) -std=c11 -O2 $(WARN) -shared -fPIC -o $@ $< -ldl

# Check's default per-test timeout (4 s) is raised: the sanitizer build on a
# loaded 2-core machine runs the heavier property tests several times slower.
test: $(UNIT) $(ANIMD) $(if $(SAN),,$(B)/lock_count.so)
	CK_DEFAULT_TIMEOUT=$${CK_DEFAULT_TIMEOUT:-30} ANIMD_BIN=$(abspath $(ANIMD)) \
	  ANIMD_BUILD=$(abspath $(B)) $(UNIT)

# The suites whose code crosses threads (pool, store, stream loops, rate
# limits, the Redis backend's loads on the pool, and the daemon under
# WebSocket load and with several HTTP loops),
# built with ThreadSanitizer; a race report fails the test it happens in
# (tests/tsan.supp: the one known false report, and why).
TSAN_SUITES := server_pool store store_lookup ws_loops server_auth_rate_limit \
               server_redis_backend
check-threads:
	$(MAKE) --no-print-directory -j2 SAN=thread build-tests
	@for s in $(TSAN_SUITES); do \
	  TSAN_OPTIONS=halt_on_error=1:suppressions=$(abspath tests/tsan.supp) CK_RUN_SUITE=$$s \
	    $(MAKE) --no-print-directory SAN=thread test || exit 1; done
	TSAN_OPTIONS=halt_on_error=1:suppressions=$(abspath tests/tsan.supp) CK_RUN_SUITE=e2e ANIMD_E2E=ws \
	  $(MAKE) --no-print-directory SAN=thread test
	TSAN_OPTIONS=halt_on_error=1:suppressions=$(abspath tests/tsan.supp) CK_RUN_SUITE=e2e ANIMD_E2E=http_loops \
	  $(MAKE) --no-print-directory SAN=thread test

# Sanitizers first, release last: the output ends with Check's summary line.
check: deps-test
	scripts/check-layers
	scripts/check-error-codes
	scripts/check-error-docs
	scripts/check-format
	$(MAKE) --no-print-directory check-threads
	$(MAKE) --no-print-directory -j2 SAN=1 build-tests
	$(MAKE) --no-print-directory SAN=1 test
	$(MAKE) --no-print-directory -j2 build-tests
	$(MAKE) --no-print-directory test

# Our IK jobs against ozz-animation 0.16's (tests/ozz/run_ik.sh; 77 =
# skipped without cmake, g++ or the mirror, OZZ_MIRROR).
test-ozz-ik:
	tests/ozz/run_ik.sh

bench: $(BENCH_BIN)
	@for b in $(BENCH_BIN); do echo "== $$b"; $$b || exit 1; done

# The same IK and blend jobs through ozz-animation 0.16, beside ours
# (tests/ozz/run_bench.sh; skipped without cmake, g++ or the mirror).
bench-ozz:
	@tests/ozz/run_bench.sh || [ $$? -eq 77 ]

bench-http: $(ANIMD)
	scripts/bench-http $(abspath $(ANIMD))

bench-ws: $(ANIMD)
	scripts/bench-ws $(abspath $(ANIMD))

# Instructions per request under callgrind, the same on any machine
# (BENCH_OTHER=path/to/animd compares another build request by request).
bench-instructions: $(ANIMD)
	scripts/bench-instructions $(abspath $(ANIMD)) $(BENCH_OTHER)

# Mixed load against the release daemon for SOAK_SECONDS (600), RSS, open
# descriptors and /healthz latency sampled every second (not part of check).
soak: $(ANIMD)
	ANIMD_BIN=$(abspath $(ANIMD)) /usr/bin/python3 tests/soak/soak.py

# A fleet (redis-server, three daemons, HAProxy) under mixed load for
# SOAK_SECONDS (600), a node killed and restarted every fifth of it and
# Redis once; no acknowledged upload lost, no delete undone, RSS, descriptors
# and /healthz p99 per node checked (not part of check).
soak-fleet: $(ANIMD)
	ANIMD_BIN=$(abspath $(ANIMD)) timeout $$(( $${SOAK_SECONDS:-600} + 300 )) \
	  /usr/bin/python3 tests/soak/soak_fleet.py

# The heavy requests of issue 12 against the release daemon, one at a time,
# with /healthz and a 60 fps stream probed meanwhile, then the hardening
# items and the third audit's items at a small scale (not part of check).
ABUSE_SECONDS ?= 900
abuse: $(ANIMD)
	ANIMD_BIN=$(abspath $(ANIMD)) timeout $(ABUSE_SECONDS) \
	  /usr/bin/python3 tests/abuse/loop_stalls.py
	ANIMD_BIN=$(abspath $(ANIMD)) timeout $(ABUSE_SECONDS) \
	  /usr/bin/python3 tests/abuse/hardening_items.py
	ANIMD_BIN=$(abspath $(ANIMD)) timeout $(ABUSE_SECONDS) \
	  /usr/bin/python3 tests/abuse/audit_round3.py

# The integer float-printing path of formats/buf.c against the printf
# method over its whole range (tests/exhaustive/float_text.c).
check-floats: $(B)/check_floats
	$(B)/check_floats

$(B)/check_floats: $(B)/tests/exhaustive/float_text.o $(LIBFORMATS) $(LIBANIMD)
	$(CC) $(LDSAN) $(LDFLAGS) -o $@ $< $(LIBFORMATS) $(LIBANIMD) -lpthread -lm

cluster: $(ANIMD)
	scripts/cluster $(abspath $(ANIMD))

# Cache hit ratio with and without clip hashing, HAProxy's added latency,
# Redis's limits (scripts/bench-fleet; redis-server, haproxy, wrk).
bench-fleet: $(ANIMD)
	scripts/bench-fleet $(abspath $(ANIMD))

bench-thin: $(ANIMD)
	scripts/bench-thin $(abspath $(ANIMD))

# The manual pages: man/*.scd with the options of the binary's --help
# filled in (scripts/make-man; scdoc).
MAN_PAGES := $(B)/man/animd.8 $(B)/man/animd.conf.5
man: $(MAN_PAGES)
$(B)/man/%: man/%.scd scripts/make-man $(ANIMD)
	scripts/make-man $(ANIMD) $< $@

# The JavaScript client is also installed as a file, for pages that bundle
# it rather than load it from the daemon.
CLIENT_JS := packages/animd-client/animd.js packages/animd-client/three.js
SYSTEMD_UNIT_DIR ?= $(PREFIX)/lib/systemd/system
# three.js's modules (build/ and examples/jsm/, from make deps) go to
# $(PREFIX)/share/animd/three, the installed config's three_dir.
THREE_DEST = $(abspath $(DESTDIR)$(PREFIX)/share/animd/three)
install: $(ANIMD) $(MAN_PAGES)
	@test -f $(THREE_PKG)/build/three.module.js || \
	  { echo "three.js is missing from $(THREE_PKG): make deps"; exit 1; }
	install -D -m 0755 $(ANIMD) $(DESTDIR)$(PREFIX)/bin/animd
	install -d $(DESTDIR)/etc/animd
	sed -e 's|^three_dir = .*|three_dir = $(PREFIX)/share/animd/three|' \
	  config/animd.conf > $(DESTDIR)/etc/animd/animd.conf
	cd $(THREE_PKG) && find build examples/jsm -name '*.js' \
	  -exec install -D -m 0644 {} $(THREE_DEST)/{} \;
	install -m 0644 $(THREE_PKG)/LICENSE $(THREE_DEST)/LICENSE
	install -d $(DESTDIR)$(SYSTEMD_UNIT_DIR)
	sed -e 's|/usr/local/bin/animd|$(PREFIX)/bin/animd|' \
	  -e 's|/usr/local/share/doc/animd|$(PREFIX)/share/doc/animd|' \
	  -e 's|^Documentation=|Documentation=man:animd(8) |' \
	  systemd/animd.service \
	  > $(DESTDIR)$(SYSTEMD_UNIT_DIR)/animd.service
	install -D -m 0644 $(B)/man/animd.8 $(DESTDIR)$(PREFIX)/share/man/man8/animd.8
	install -D -m 0644 $(B)/man/animd.conf.5 \
	  $(DESTDIR)$(PREFIX)/share/man/man5/animd.conf.5
	install -d $(DESTDIR)$(PREFIX)/share/animd/client
	install -m 0644 $(CLIENT_JS) $(DESTDIR)$(PREFIX)/share/animd/client/
	install -D -m 0644 README.md $(DESTDIR)$(PREFIX)/share/doc/animd/README.md
	install -d $(DESTDIR)$(PREFIX)/share/doc/animd/docs
	install -m 0644 docs/*.md $(DESTDIR)$(PREFIX)/share/doc/animd/docs/
	install -D -m 0644 $(LIBANIMD) $(DESTDIR)$(PREFIX)/lib/libanimd.a
	install -d $(DESTDIR)$(PREFIX)/include/animd
	install -m 0644 include/animd/*.h $(DESTDIR)$(PREFIX)/include/animd/

# The Debian package, built by dpkg-buildpackage in a copy of the tree
# under build/deb (scripts/make-deb), and its check: lintian, the package
# extracted to a scratch root, its daemon run on loopback, its man pages
# rendered (scripts/check-deb).
deps-deb:
	scripts/install-deps --deb
deb: deps-deb
	scripts/make-deb
check-deb: deb
	scripts/check-deb

clean:
	rm -rf build

distclean: clean
	rm -rf tests/e2e/node_modules tests/web/node_modules web/three/node_modules \
	  packages/tooling/node_modules packages/tooling-three/node_modules \
	  examples/node/node_modules \
	  examples/vite/node_modules tests/openapi/node_modules

help:
	@sed -n '1,/^$$/p' Makefile

# ---- fuzzing --------------------------------------------------------------------
# tests/fuzz/fuzz_<name>.c become libFuzzer programs build/fuzz/fuzz_<name>,
# and tests/fuzz/fuzz_decode.c one program per decoder (fuzz_decode_<fmt>),
# all built with clang, ASan and UBSan into build/fuzz (a separate tree).
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_OPT := -O1 -g -fsanitize=fuzzer-no-link,address,undefined \
            -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_LD := -fsanitize=fuzzer,address,undefined
FUZZ_CT_native := application/json
FUZZ_CT_glb := model/gltf-binary
FUZZ_CT_gltf := model/gltf+json
FUZZ_CT_bvh := application/x-bvh
FUZZ_CT_md5mesh := application/x-md5mesh
FUZZ_CT_md5anim := application/x-md5anim
FUZZ_NAMES := $(addprefix decode_,native glb gltf bvh md5mesh md5anim) \
  $(filter-out decode,$(patsubst tests/fuzz/fuzz_%.c,%,\
    $(wildcard tests/fuzz/fuzz_*.c)))

fuzz-build:
	$(MAKE) --no-print-directory -j2 B=build/fuzz CC=$(FUZZ_CC) \
	  OPT="$(FUZZ_OPT)" LDSAN="$(FUZZ_LD)" fuzz-programs

FUZZ_BIN := $(addprefix $(B)/fuzz_,$(FUZZ_NAMES))
FUZZ_DECODE_OBJ := $(patsubst decode_%,$(B)/tests/fuzz/fuzz_decode_%.o,\
  $(filter decode_%,$(FUZZ_NAMES)))

fuzz-programs: $(FUZZ_BIN)

$(FUZZ_DECODE_OBJ): $(B)/tests/fuzz/fuzz_decode_%.o: tests/fuzz/fuzz_decode.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_ALL) $(PKG_CFLAGS) $(CPPFLAGS) $(CFLAGS_ALL) \
	  -DFUZZ_CONTENT_TYPE='"$(FUZZ_CT_$*)"' -c $< -o $@

$(FUZZ_BIN): $(B)/fuzz_%: $(B)/tests/fuzz/fuzz_%.o $(APP_LIBS)
	$(CC) $(LDSAN) $(LDFLAGS) -o $@ $< $(APP_LIBS) $(SYS_LIBS)

fuzz: fuzz-build
	scripts/fuzz-run $(FUZZ_SECONDS) $(FUZZ_NAMES)

-include $(shell find $(B) -name "*.d" 2>/dev/null)
