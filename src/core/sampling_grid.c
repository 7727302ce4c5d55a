/* animd core: the scalar kernel that samples a clip's shared key grid.
 *
 * The reference for the SIMD kernel (sampling_avx512.c) and the path on
 * CPUs without AVX-512: lane by lane over the grid's blocks, the same
 * lerp and slerp (pk_slerp_weights, dot product summed in pairs) as the
 * per-track sampler in sampling.c, so a grid joint gets the same floats
 * whichever way it is sampled. */
#include "clip_grid.h"
#include "pose_kernels.h"

void anim__grid_sample_scalar(const anim__grid_t *g, uint32_t k, uint32_t k1,
                              float u, const anim_pose_t *o) {
  for (uint32_t p = 0; p < 3; p++) {
    const anim__grid_path_t *gp = &g->path[p];
    const uint32_t c = p == ANIM_PATH_ROTATION ? 4u : 3u;
    const float *ra = gp->values + k * gp->row;
    const float *rb = gp->values + k1 * gp->row;
    for (uint32_t m = 0; m < gp->count; m++) {
      const size_t at =
          (size_t)(m / GRID_LANES) * c * GRID_LANES + m % GRID_LANES;
      const float *a = ra + at, *b = rb + at;
      const uint32_t j = gp->joints[m];
      if (p != ANIM_PATH_ROTATION) {
        anim_vec3_t *dst =
            p == ANIM_PATH_TRANSLATION ? &o->translation[j] : &o->scale[j];
        anim_vec3_t v = {a[0], a[GRID_LANES], a[2 * GRID_LANES]};
        if (u != 0.f) {
          v.x = a[0] + (b[0] - a[0]) * u;
          v.y = a[GRID_LANES] + (b[GRID_LANES] - a[GRID_LANES]) * u;
          v.z = a[2 * GRID_LANES] + (b[2 * GRID_LANES] - a[2 * GRID_LANES]) * u;
        }
        *dst = v;
        continue;
      }
      anim_quat_t qa = {a[0], a[GRID_LANES], a[2 * GRID_LANES],
                        a[3 * GRID_LANES]};
      if (u == 0.f) {
        o->rotation[j] = qa;
        continue;
      }
      anim_quat_t qb = {b[0], b[GRID_LANES], b[2 * GRID_LANES],
                        b[3 * GRID_LANES]};
      /* The dot product in pairs, as the SSE per-track sampler sums it. */
      float x = (qa.x * qb.x + qa.y * qb.y) + (qa.z * qb.z + qa.w * qb.w);
      anim_quat_t r = pk_quat_slerp_dot(qa, qb, x, u);
      o->rotation[j] = r;
    }
  }
}
