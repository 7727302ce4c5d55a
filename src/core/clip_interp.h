/* animd core (private): evaluating one clip track between two keys.
 *
 * LINEAR and STEP are inlined by the sampler; the other interpolations
 * (CUBICSPLINE, BEZIER, SQUAD) go through anim__track_segment. */
#ifndef ANIMD_CORE_CLIP_INTERP_H
#define ANIMD_CORE_CLIP_INTERP_H

#include "animd/clip.h"

/* Floats per key in values: components, or 3 * components (CUBICSPLINE). */
static inline uint32_t ci_stride(const anim_track_t *tr) {
  return tr->interpolation == ANIM_INTERP_CUBICSPLINE ? 3u * tr->components
                                                      : tr->components;
}

/* The value of key k (skipping a CUBICSPLINE in-tangent). */
static inline const float *ci_key_value(const anim_track_t *tr, uint32_t k) {
  uint32_t c = tr->components;
  if (tr->interpolation == ANIM_INTERP_CUBICSPLINE)
    return tr->values + (size_t)k * 3u * c + c;
  return tr->values + (size_t)k * c;
}

/* Writes into out (components floats) the track's value at fraction u in
 * (0, 1) of the segment from key k to key k + 1 (k + 1 < key_count). */
void anim__track_segment(const anim_track_t *tr, uint32_t k, float u,
                         float *out);

/* The easing factor y(s) where x(s) = u on the cubic Bezier curve from
 * (0, 0) to (1, 1) with control points (x1, y1), (x2, y2) = curve[0..3]. */
float anim__bezier_factor(const float *curve, float u);

/* Fills 3 * (n - 1) controls (a, b, c per segment) for n unit rotation
 * keys (n >= 2), neighbours clamped at the ends. */
void anim__squad_controls(const float *keys, uint32_t n, anim_quat_t *out);

#endif
