/* Helpers for the importer tests: reading the shared test assets
 * ($ANIMD_SHARED/assets, or ../shared/assets from the repository root),
 * decoding them with the import time written to the test log, and
 * summing mesh counts over a bundle. */
#ifndef ANIMD_TESTS_IMPORT_TEST_UTIL_H
#define ANIMD_TESTS_IMPORT_TEST_UTIL_H

#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "formats/bundle.h"

/* The shared assets folder: $ANIMD_SHARED/assets or ../shared/assets. */
static inline const char *shared_assets_dir(char *buf, size_t cap) {
  const char *shared = getenv("ANIMD_SHARED");
  snprintf(buf, cap, "%s/assets", shared ? shared : "../shared");
  return buf;
}

/* True when the shared assets are there. Otherwise says, in one line,
 * that the tests named by what are skipped and what they need; a suite
 * adds its asset tests only when this is true. */
static inline bool shared_assets_present(const char *what) {
  char dir[1024];
  shared_assets_dir(dir, sizeof dir);
  char probe[1100];
  snprintf(probe, sizeof probe, "%s/README.md", dir);
  FILE *f = fopen(probe, "r");
  if (f != NULL) {
    fclose(f);
    return true;
  }
  printf("skipped: %s: needs the shared test assets (%s; set "
         "ANIMD_SHARED)\n",
         what, dir);
  fflush(stdout);
  return false;
}

/* Reads assets/<rel> into a malloc'd buffer; fails the test if missing. */
static inline char *asset_read(const char *rel, size_t *len) {
  const char *shared = getenv("ANIMD_SHARED");
  char path[1024];
  snprintf(path, sizeof path, "%s/assets/%s", shared ? shared : "../shared",
           rel);
  FILE *f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  rewind(f);
  char *buf = malloc((size_t)n + 1);
  ck_assert_ptr_nonnull(buf);
  ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  *len = (size_t)n;
  return buf;
}

/* Appends a line to $ANIMD_BUILD/import-times.log (or stderr). */
static inline void import_time_log(const char *rel, double ms) {
  const char *build = getenv("ANIMD_BUILD");
  FILE *f = NULL;
  if (build != NULL) {
    char path[1024];
    snprintf(path, sizeof path, "%s/import-times.log", build);
    f = fopen(path, "a");
  }
  fprintf(f ? f : stderr, "import %-50s %9.3f ms\n", rel, ms);
  if (f) fclose(f);
}

/* Decodes asset rel with content type ct; asserts success. */
static inline void asset_decode(const char *rel, const char *ct,
                                const fmt_decode_options_t *opts,
                                fmt_bundle_t *b) {
  size_t len;
  char *body = asset_read(rel, &len);
  fmt_error_t err;
  memset(&err, 0, sizeof err);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int rc = fmt_decode(ct, body, len, opts, b, &err);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  free(body);
  ck_assert_msg(rc == 0, "%s: %s at %s: %s", rel, fmt_error_name(err.code),
                err.at, err.message);
  import_time_log(rel, (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
                           (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
}

/* Decodes a buffer expecting failure with status and at. */
#define ck_decode_fails(ct, body, len, opts, status_, at_)                     \
  do {                                                                         \
    fmt_bundle_t b_;                                                           \
    fmt_error_t e_;                                                            \
    memset(&e_, 0, sizeof e_);                                                 \
    int rc_ = fmt_decode((ct), (body), (len), (opts), &b_, &e_);               \
    ck_assert_msg(rc_ == -1, "decoding succeeded, expected %d at %s",          \
                  (status_), (at_));                                           \
    ck_assert_msg(fmt_error_status(e_.code) == (status_) &&                    \
                      strcmp(e_.at, (at_)) == 0,                               \
                  "got %d at \"%s\" (%s: %s), expected %d at \"%s\"",          \
                  fmt_error_status(e_.code), e_.at, fmt_error_name(e_.code),   \
                  e_.message, (status_), (at_));                               \
    ck_assert_uint_eq(b_.skeleton_count + b_.clip_count + b_.mesh_count, 0);   \
  } while (0)

static inline size_t bundle_vertices(const fmt_bundle_t *b) {
  size_t n = 0;
  for (size_t i = 0; i < b->mesh_count; i++)
    n += b->meshes[i].mesh->vertex_count;
  return n;
}

static inline size_t bundle_triangles(const fmt_bundle_t *b) {
  size_t n = 0;
  for (size_t i = 0; i < b->mesh_count; i++)
    n += b->meshes[i].mesh->index_count / 3;
  return n;
}

/* Caller-order joint i of a skeleton: its name and caller-order parent. */
static inline const char *joint_name(const anim_skeleton_t *s, uint32_t i) {
  return s->names[s->from_caller[i]];
}
static inline int32_t joint_parent(const anim_skeleton_t *s, uint32_t i) {
  int16_t p = s->parents[s->from_caller[i]];
  return p < 0 ? -1 : (int32_t)s->to_caller[p];
}

#endif

static inline uint32_t lcg_next(uint32_t *seed) {
  *seed = *seed * 1103515245u + 12345u;
  return *seed >> 8;
}

/* Decodes n deterministic mutations of a file (a few bytes replaced by
 * characters that matter to parsers, or a cut at a random length): each
 * must decode or fail with 400/413, never crash or leak. */
static inline void mutate_decode(const char *rel, const char *ct,
                                 const fmt_decode_options_t *opts, int n) {
  static const char alphabet[] = "0123456789-.e{}[]\",: \n\t(x\377";
  size_t len;
  char *orig = asset_read(rel, &len);
  char *buf = malloc(len + 1);
  uint32_t seed = 12345;
#define NEXT() lcg_next(&seed)
  for (int i = 0; i < n; i++) {
    memcpy(buf, orig, len);
    size_t used = len;
    if (i % 8 == 7) {
      used = NEXT() % len;
    } else {
      int edits = 1 + (int)(NEXT() % 4);
      for (int k = 0; k < edits; k++) {
        size_t at = NEXT() % len;
        buf[at] = alphabet[NEXT() % (sizeof alphabet - 1)];
      }
    }
    fmt_bundle_t b;
    fmt_error_t e;
    memset(&e, 0, sizeof e);
    if (fmt_decode(ct, buf, used, opts, &b, &e) == 0) {
      fmt_bundle_free(&b);
    } else {
      ck_assert_msg(fmt_error_status(e.code) == 400 ||
                        fmt_error_status(e.code) == 413,
                    "%s mutation %d: status %d (%s)", rel, i,
                    fmt_error_status(e.code), e.message);
      ck_assert_uint_eq(b.skeleton_count + b.clip_count + b.mesh_count, 0);
    }
  }
#undef NEXT
  free(buf);
  free(orig);
}
