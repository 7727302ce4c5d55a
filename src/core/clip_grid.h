/* animd core (private): the shared key grid of a clip.
 *
 * Most clips animate every track with LINEAR keys at the same times (one
 * sampler output, one frame grid). The tracks of a clip that do (the
 * LINEAR tracks whose key times equal those of the first LINEAR track with
 * two keys or more) are also stored key-major: per path (translation,
 * rotation, scale), one row per key holding that key's values for every
 * joint on the path, in blocks of 16 joints with one run of 16 floats per
 * component (SoA). Key design choice: sampling a pose then reads two
 * consecutive rows front to back (the segment is located once for all of
 * them), so the memory a pose touches is two contiguous runs that the
 * hardware prefetcher follows, instead of one scattered cache line per
 * track, and a SIMD kernel evaluates 16 joints per instruction. The
 * track-major copies in clip->tracks stay as they are for readers of the
 * public form. Tracks outside the grid are sampled one by one. The grid
 * has a scalar, an AVX2 and an AVX-512 kernel, all bit for bit equal. */
#ifndef ANIMD_CORE_CLIP_GRID_H
#define ANIMD_CORE_CLIP_GRID_H

#include "animd/sampling.h"
#include "cpu.h"

#define GRID_LANES 16

typedef struct anim__grid_path_s {
  uint32_t count;  /* Joints on this path. */
  uint32_t blocks; /* ceil(count / GRID_LANES). */
  /* count storage-order joints, ascending. */
  const uint32_t *joints;
  /* Per block: its first joint when its joints are consecutive, else
   * UINT32_MAX. */
  const uint32_t *first;
  /* key_count rows of row floats: block b, component c, lane l at
   * b * components * GRID_LANES + c * GRID_LANES + l. 64-byte aligned;
   * lanes past count hold zeros (rotations: the identity). */
  const float *values;
  size_t row;
} anim__grid_path_t;

typedef struct anim__grid_s {
  uint32_t rep;       /* Index in clip->tracks of a track on the grid: its
                       * times and cursor locate the segment for all. */
  uint32_t key_count; /* >= 2. */
  anim__grid_path_t path[3]; /* Indexed by anim_path. */
} anim__grid_t;

/* Whether raw track t belongs on the grid of representative rep. */
bool anim__grid_member(const anim_raw_track_t *rep, const anim_raw_track_t *t);

/* The grid's size for the sorted raw tracks (n of them): the index of the
 * representative in *rep (UINT32_MAX and 0 bytes when there is no grid)
 * and the bytes anim__grid_fill needs (64-byte aligned memory). */
size_t anim__grid_size(const anim_raw_track_t *const *sorted, size_t n,
                       uint32_t *rep);

/* Builds the grid in mem from the n built tracks (rotation values already
 * normalized; the members are those anim__grid_member picked). */
anim__grid_t *anim__grid_fill(void *mem, anim_track_t *tracks, size_t n,
                              uint32_t rep);

/* Writes the grid's joints of pose o for segment k (values of rows k and
 * k1 = k + 1) at fraction u in [0, 1); u == 0 copies row k. Same formulas
 * and operation order as the per-track sampler (slerp by Eberly's series
 * or the closed form), so both kernels give the same floats bit for bit.
 * Orient is not applied. */
void anim__grid_sample_scalar(const anim__grid_t *g, uint32_t k, uint32_t k1,
                              float u, const anim_pose_t *o);
void anim__grid_sample_avx2(const anim__grid_t *g, uint32_t k, uint32_t k1,
                            float u, const anim_pose_t *o);
void anim__grid_sample_avx512(const anim__grid_t *g, uint32_t k, uint32_t k1,
                              float u, const anim_pose_t *o);

/* Writes n joints' values, SoA in soa (component e of lane l at
 * soa[e * stride + l]), to their places in out (C floats per joint): the
 * SIMD kernels' path for blocks whose joints are not consecutive. */
static inline void anim__grid_scatter(float *out, uint32_t C,
                                      const uint32_t *joints, const float *soa,
                                      uint32_t stride, uint32_t n) {
  for (uint32_t l = 0; l < n; l++) {
    float *dst = out + (size_t)C * joints[l];
    for (uint32_t e = 0; e < C; e++) dst[e] = soa[e * stride + l];
  }
}

/* Samples the grid's three paths with sample_path(gp, out, k, k1, u, C),
 * a kernel file's own path sampler (C: components per joint). */
#define ANIM__GRID_SAMPLE_PATHS(sample_path, g, k, k1, u, o)                   \
  do {                                                                         \
    sample_path(&(g)->path[ANIM_PATH_TRANSLATION], &(o)->translation[0].x, k,  \
                k1, u, 3);                                                     \
    sample_path(&(g)->path[ANIM_PATH_ROTATION], &(o)->rotation[0].x, k, k1, u, \
                4);                                                            \
    sample_path(&(g)->path[ANIM_PATH_SCALE], &(o)->scale[0].x, k, k1, u, 3);   \
  } while (0)

/* anim_sampling_job_run with kernels no wider than isa (tests). */
anim_result anim__sampling_job_run_isa(const anim_sampling_job_t *job,
                                       anim__isa isa);

#endif
