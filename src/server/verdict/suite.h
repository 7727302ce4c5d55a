/* server/verdict: a test suite, {"name", "cases": [CASE, ...]}, each case
 * named uniquely and holding exactly one of "pose" + "expect" (a POST
 * /v1/pose body with its times, and expected model-space positions and
 * rotations of joints, expect.h), "compare" (a POST /v1/compare body,
 * compare.h), "check" (a clip and the parameters of GET
 * /v1/clips/{id}/check, check.h) or "golden" (recorded poses, golden.h).
 * POST /v1/test and `animd test` run suites through here, so both give
 * the same verdicts and, through report.h, the same report bytes.
 *
 * Key design choice: three steps for the three places they run. Parsing
 * (verdict_suite_parse) needs nothing but the text, with every error's at
 * inside the suite ("cases[2].compare.a.clip"); resolving
 * (verdict_suite_resolve) reads the store, on the loop thread of a server,
 * where a fleet's miss is fetched and the request run again; running
 * (verdict_suite_run) evaluates every case on the calling thread (the
 * pool), and a case that cannot run (too many frames, a foot the skeleton
 * lacks) fails alone, with the error as its message and detail. */
#ifndef ANIMD_SERVER_VERDICT_SUITE_H
#define ANIMD_SERVER_VERDICT_SUITE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "server/errors.h"
#include "server/request/blend.h"
#include "server/request/requests.h"
#include "server/request/target.h"
#include "server/verdict/check.h"
#include "server/verdict/compare.h"
#include "server/verdict/expect.h"
#include "server/verdict/golden.h"
#include "server/verdict/report.h"
#include "store/store.h"

/* The frames of all of a suite's cases together: at most this many times
 * max_frames (each case is also held to max_frames alone). */
#define VERDICT_SUITE_FRAMES_FACTOR 10

typedef struct verdict_case_s {
  const char *name; /* Borrowed from the suite's JSON. */
  verdict_case_kind kind;
  char at[40]; /* "cases[i].pose", "cases[i].compare", ... */
  /* pose + expect */
  srv_blend_body_t pose;
  srv_blend_t blend;
  verdict_expect_t *expect;
  size_t expect_count;
  /* compare */
  verdict_compare_t compare;
  /* check */
  const char *check_skeleton, *check_clip;
  verdict_check_params_t check;
  store_asset_t *check_asset; /* The clip, retained once resolved. */
  /* golden */
  verdict_golden_t golden;
  /* private */
  bool _parsed;
} verdict_case_t;

typedef struct verdict_suite_s {
  const char *name;
  verdict_case_t *cases;
  size_t case_count;
  /* private */
  json_t *_root;
} verdict_suite_t;

/* Parses the suite text (len bytes): at most max_cases cases (413
 * too_large at "cases" beyond), golden files relative to suite_dir (NULL:
 * over HTTP, where a golden carries "base64"). 0 (free out with
 * verdict_suite_free), or -1 with err (400 with its at) and nothing to
 * free. */
int verdict_suite_parse(const char *text, size_t len, const char *suite_dir,
                        unsigned max_cases, verdict_suite_t *out,
                        srv_error_t *err);

/* Resolves every case's names in st, case by case in order (a store
 * reader's thread). 0, or -1 with err: 404 not_found (miss filled for a
 * name a shared store might hold), 409 ambiguous, 400 unknown_joint or
 * skeleton_mismatch, each at its place in the suite. */
int verdict_suite_resolve(store_t *st, verdict_suite_t *s, srv_error_t *err,
                          srv_lookup_miss_t *miss);

/* The suite's evaluation cost in schedule units (schedule.h), resolved. */
unsigned long verdict_suite_cost(const verdict_suite_t *s);

/* Runs every case of the resolved suite on the calling thread, each held
 * to max_frames and all of them to VERDICT_SUITE_FRAMES_FACTOR times
 * that; with pictures, a failing pose, compare or golden case gets an SVG
 * of its poses at the worst frame. The cases' masks are read here (on
 * the pool). Fills *out (free it with
 * verdict_suite_result_free; it borrows names from s). 0, or -1 when out
 * of memory. */
int verdict_suite_run(verdict_suite_t *s, unsigned max_frames, bool pictures,
                      verdict_suite_result_t *out);

void verdict_suite_free(verdict_suite_t *s);

#endif
