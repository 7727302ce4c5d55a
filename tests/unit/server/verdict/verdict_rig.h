/* The rigs of the verdict tests: skeleton `name` of three joints (root at
 * the origin, "arm" at (0,1,0) and `third` at (0,0,1), both children of
 * root) with clips "turn" (the root turns from 0 to 90 degrees about z in
 * 1 s, slerped) and "moved" (the same with its last key at 80 degrees), so
 * every error is a chord: 2 * r * sin(angle / 2). */
#ifndef ANIMD_TESTS_VERDICT_RIG_H
#define ANIMD_TESTS_VERDICT_RIG_H

#include <check.h>
#include <stdio.h>
#include <string.h>

#include "formats/native_json.h"
#include "store/store.h"

static const char verdict_rig_text[] =
    "{\"skeleton\":{\"name\":\"%s\",\"joints\":["
    "{\"name\":\"root\",\"parent\":-1,\"translation\":[0,0,0]},"
    "{\"name\":\"arm\",\"parent\":0,\"translation\":[0,1,0]},"
    "{\"name\":\"%s\",\"parent\":0,\"translation\":[0,0,1]}]},"
    "\"clips\":[{\"name\":\"turn\",\"tracks\":[{\"joint\":\"root\","
    "\"path\":\"rotation\",\"times\":[0,1],\"values\":[0,0,0,1,0,0,"
    "0.70710678118654752,0.70710678118654752]}]},"
    "{\"name\":\"moved\",\"tracks\":[{\"joint\":\"root\","
    "\"path\":\"rotation\",\"times\":[0,1],\"values\":[0,0,0,1,0,0,"
    "0.64278760968653933,0.76604444311897804]}]}]}";

/* The rig's native JSON text into buf. */
static inline void verdict_rig(char *buf, size_t cap, const char *name,
                               const char *third) {
  snprintf(buf, cap, verdict_rig_text, name, third);
}

/* Adds the rig to st. */
static inline void verdict_rig_ingest(store_t *st, const char *name,
                                      const char *third) {
  char text[2048];
  verdict_rig(text, sizeof text, name, third);
  fmt_error_t fe = {0};
  fmt_bundle_t b;
  ck_assert_int_eq(fmt_decode_native_json(text, strlen(text), NULL, &b, &fe),
                   0);
  store_ingest_result_t res;
  ck_assert_int_eq(store_ingest(st, &b, NULL, &res, &fe), 0);
  store_ingest_result_free(&res);
  fmt_bundle_free(&b);
}

#endif
