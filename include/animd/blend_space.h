/* animd core: blend-space weights, 1D and 2D, and their synchronized
 * times.
 *
 * 1D: the points sorted by position; a parameter between two neighbouring
 * points weighs them linearly (w = 1 - u and u), one at or beyond an end
 * gives that end weight 1. 2D: the Delaunay triangulation of the points
 * (Bowyer-Watson in double over the points in the order given, so
 * co-circular points, a square's corners, are split the same way every
 * time); a parameter inside a triangle (within 1e-9 of its barycentric
 * coordinates) gets those coordinates, one outside the convex hull the
 * weights of the nearest point of the hull (linear along its edge).
 *
 * Sync: the clips play at one phase phi = t / D with D = sum w_i d_i the
 * weighted duration; clip i is sampled at phi * d_i (D = 0: at 0). Without
 * sync every clip is sampled at t.
 *
 * No allocation: at most ANIM_BLEND_SPACE_MAX points, scratch on the
 * stack. */
#ifndef ANIMD_BLEND_SPACE_H
#define ANIMD_BLEND_SPACE_H

#include "animd/base.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ANIM_BLEND_SPACE_MAX 64

typedef struct anim_blend_space_job_s {
  uint32_t dimensions;  /* 1 or 2. */
  const float *points;  /* dimensions floats per point. */
  uint32_t point_count; /* 1D: >= 1; 2D: >= 3 not all collinear. */
  const float *param;   /* dimensions floats. */
  float *weights;       /* point_count entries, summing to 1. */
  /* Optional: the first point found to be at fault (duplicate, or -1 for
   * collinear points). */
  int32_t *bad_point;
  /* Optional (2D): the points' triangulation from
   * anim_blend_space_triangulate (3 indices per triangle), so that a
   * blend space evaluated many times is triangulated once. NULL: the job
   * triangulates. */
  const uint8_t *triangles;
  uint32_t triangle_count;
} anim_blend_space_job_t;

/* ANIM_ERR_INVALID_ARGUMENT: NULL job, points, param or weights, a
 * dimension other than 1 or 2, no points or more than
 * ANIM_BLEND_SPACE_MAX, two points at the same place (bad_point: the
 * later one), fewer than three points in 2D or all of them on one line
 * (bad_point -1); ANIM_ERR_NOT_FINITE: a NaN or infinite coordinate. */
anim_result anim_blend_space_job_validate(const anim_blend_space_job_t *job);
anim_result anim_blend_space_job_run(const anim_blend_space_job_t *job);

/* The Delaunay triangles of point_count 2D points (as the job makes
 * them) into triangles, 3 indices each, at most max triangles
 * (2 * point_count + 1 always suffice); their count, or 0 for points the
 * job refuses or too little room. */
uint32_t anim_blend_space_triangulate(const float *points, uint32_t point_count,
                                      uint8_t *triangles, uint32_t max);

/* The sampling times of count clips of durations d with weights w at time
 * t: synchronized (phi * d_i) or not (t). */
void anim_blend_space_times(const float *durations, const float *weights,
                            uint32_t count, double t, bool sync, double *times);

#ifdef __cplusplus
}
#endif
#endif
