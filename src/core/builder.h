/* animd core (private): allocation and error reporting for the builders.
 *
 * The one allocation rule of the core: skeleton, clip and mesh builders
 * allocate through the caller's optional anim_allocator_t, where NULL, or
 * both hooks NULL, means malloc/free and one hook without the other is
 * refused (ANIM_ERR_INVALID_ARGUMENT, field "allocator") before anything is
 * allocated. Blocks are assumed to be aligned for any type, as malloc's
 * are; builder_alloc_aligned gives stronger alignment for SIMD streams.
 * Builders report their first problem in an anim_build_error_t. */
#ifndef ANIMD_CORE_BUILDER_H
#define ANIMD_CORE_BUILDER_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <float.h>
#include <math.h>

#include "animd/math.h"

/* The message and field of a refused allocator (one hook of two). */
#define BUILDER_ALLOCATOR_MESSAGE "allocator needs both hooks or neither"

/* Resolves the caller's allocator into *out; false when only one of the
 * two hooks is given. */
static inline bool builder_allocator(const anim_allocator_t *a,
                                     anim_allocator_t *out) {
  anim_allocator_t r = {0, 0, 0};
  if (a != NULL && (a->alloc != NULL) != (a->free != NULL)) return false;
  if (a != NULL && a->alloc != NULL) r = *a;
  *out = r;
  return true;
}

static inline void *builder_alloc(const anim_allocator_t *a, size_t size) {
  if (size == 0) size = 1;
  return a->alloc != NULL ? a->alloc(size, a->user_data) : malloc(size);
}

/* size bytes starting on a multiple of align (a power of two), from a
 * block align - 1 bytes larger whose start goes to *block (what
 * builder_free takes); NULL when the allocator fails. */
static inline void *builder_alloc_aligned(const anim_allocator_t *a,
                                          size_t size, size_t align,
                                          void **block) {
  unsigned char *b = builder_alloc(a, size + align - 1);
  *block = b;
  if (b == NULL) return NULL;
  return b + ((align - (uintptr_t)b % align) % align);
}

static inline void builder_free(const anim_allocator_t *a, void *p) {
  if (p == NULL) return;
  if (a->free != NULL)
    a->free(p, a->user_data);
  else
    free(p);
}

/* q scaled to unit length, leaving a quaternion that is already unit within
 * float rounding exactly as it is, so that building from a built object's
 * own numbers (a store reload, a re-upload of a describe answer) gives the
 * same floats bit for bit: plain renormalization moves about a third of
 * unit quaternions by one ulp. The length is taken in double and after
 * scaling by the largest component, so huge or tiny inputs neither overflow
 * nor underflow; a zero quaternion becomes the identity. */
static inline anim_quat_t builder_unit_quat(anim_quat_t q) {
  double m = fmax(fmax(fabs(q.x), fabs(q.y)), fmax(fabs(q.z), fabs(q.w)));
  if (!(m > 0.0) || !isfinite(m)) {
    anim_quat_t id = {0.f, 0.f, 0.f, 1.f};
    return id;
  }
  double x = q.x / m, y = q.y / m, z = q.z / m, w = q.w / m;
  double len = m * sqrt(x * x + y * y + z * z + w * w);
  if (fabs(len - 1.0) <= 4.0 * FLT_EPSILON) return q;
  double s = 1.0 / sqrt(x * x + y * y + z * z + w * w);
  anim_quat_t r = {(float)(x * s), (float)(y * s), (float)(z * s),
                   (float)(w * s)};
  return r;
}

/* Rounds n up to a multiple of 16 bytes. */
static inline size_t builder_align(size_t n) {
  return (n + 15u) & ~(size_t)15u;
}

static inline void builder_error_clear(anim_build_error_t *err) {
  if (err == NULL) return;
  err->code = ANIM_OK;
  err->joint = err->track = err->key = err->component = -1;
  err->field = "";
  err->message[0] = '\0';
}

#if defined(__GNUC__)
__attribute__((format(printf, 7, 8)))
#endif
static inline anim_result
builder_fail(anim_build_error_t *err, anim_result code, const char *field,
             long joint, long track, long key, const char *fmt, ...) {
  if (err != NULL) {
    err->code = code;
    err->field = field;
    err->joint = (int32_t)joint;
    err->track = (int32_t)track;
    err->key = (int32_t)key;
    err->component = -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
  }
  return code;
}

static inline anim_result builder_component(anim_build_error_t *err,
                                            anim_result code, long c) {
  if (err != NULL) err->component = (int32_t)c;
  return code;
}

#endif
