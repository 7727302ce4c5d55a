/* animd core: building a clip's shared key grid (see clip_grid.h).
 *
 * The grid is planned on the sorted raw tracks before the clip's one
 * allocation is sized, and filled from the built tracks afterwards, so its
 * rotations are the normalized ones the per-track sampler reads. */
#include <string.h>

#include "clip_grid.h"

static uint32_t components_of(uint32_t path) {
  return path == ANIM_PATH_ROTATION ? 4u : 3u;
}

/* A LINEAR track of n keys at times, against the grid's keys. */
static bool on_grid(uint32_t interp, size_t n, const float *times,
                    size_t grid_n, const float *grid_times) {
  return interp == ANIM_INTERP_LINEAR && n == grid_n &&
         (times == grid_times ||
          memcmp(times, grid_times, n * sizeof(float)) == 0);
}

bool anim__grid_member(const anim_raw_track_t *rep, const anim_raw_track_t *t) {
  return on_grid(t->interpolation, t->key_count, t->times, rep->key_count,
                 rep->times);
}

/* Sizes of one path's parts: joints, block firsts, values. */
static size_t path_bytes(uint32_t count, uint32_t path, size_t keys) {
  size_t blocks = (count + GRID_LANES - 1) / GRID_LANES;
  size_t lists = (count + blocks) * sizeof(uint32_t);
  size_t values =
      keys * blocks * components_of(path) * GRID_LANES * sizeof(float);
  return ((lists + 63) & ~(size_t)63) + values;
}

size_t anim__grid_size(const anim_raw_track_t *const *sorted, size_t n,
                       uint32_t *rep) {
  *rep = UINT32_MAX;
  for (size_t i = 0; i < n && *rep == UINT32_MAX; i++)
    if (sorted[i]->interpolation == ANIM_INTERP_LINEAR &&
        sorted[i]->key_count >= 2)
      *rep = (uint32_t)i;
  if (*rep == UINT32_MAX) return 0;
  const anim_raw_track_t *r = sorted[*rep];
  uint32_t count[3] = {0, 0, 0};
  for (size_t i = 0; i < n; i++)
    if (anim__grid_member(r, sorted[i])) count[sorted[i]->path]++;
  size_t bytes = (sizeof(anim__grid_t) + 63) & ~(size_t)63;
  for (uint32_t p = 0; p < 3; p++)
    bytes += path_bytes(count[p], p, r->key_count);
  return bytes;
}

anim__grid_t *anim__grid_fill(void *mem, anim_track_t *tracks, size_t n,
                              uint32_t rep) {
  unsigned char *at = mem;
  anim__grid_t *g = (anim__grid_t *)at;
  memset(g, 0, sizeof *g);
  at += (sizeof *g + 63) & ~(size_t)63;
  const anim_track_t *r = &tracks[rep];
  g->rep = rep;
  g->key_count = r->key_count;
  for (uint32_t p = 0; p < 3; p++) {
    anim__grid_path_t *gp = &g->path[p];
    const uint32_t c = components_of(p);
    for (size_t i = 0; i < n; i++)
      if (tracks[i].path == p &&
          on_grid(tracks[i].interpolation, tracks[i].key_count, tracks[i].times,
                  r->key_count, r->times))
        gp->count++;
    gp->blocks = (gp->count + GRID_LANES - 1) / GRID_LANES;
    gp->row = (size_t)gp->blocks * c * GRID_LANES;
    uint32_t *joints = (uint32_t *)at;
    uint32_t *first = joints + gp->count;
    float *values =
        (float *)(at + (((gp->count + gp->blocks) * sizeof(uint32_t) + 63) &
                        ~(size_t)63));
    at = (unsigned char *)(values + g->key_count * gp->row);
    gp->joints = joints;
    gp->first = first;
    gp->values = values;
    /* Padding lanes: zeros, and w = 1 for rotations. */
    memset(values, 0, g->key_count * gp->row * sizeof(float));
    if (p == ANIM_PATH_ROTATION)
      for (size_t k = 0; k < g->key_count; k++)
        for (uint32_t b = 0; b < gp->blocks; b++)
          for (uint32_t l = 0; l < GRID_LANES; l++)
            values[k * gp->row + (b * c + 3) * GRID_LANES + l] = 1.f;
    uint32_t m = 0;
    for (size_t i = 0; i < n; i++) {
      const anim_track_t *t = &tracks[i];
      if (t->path != p || !on_grid(t->interpolation, t->key_count, t->times,
                                   r->key_count, r->times))
        continue;
      const uint32_t b = m / GRID_LANES, l = m % GRID_LANES;
      joints[m++] = t->joint;
      for (size_t k = 0; k < g->key_count; k++)
        for (uint32_t e = 0; e < c; e++)
          values[k * gp->row + (b * c + e) * GRID_LANES + l] =
              t->values[k * c + e];
    }
    for (uint32_t b = 0; b < gp->blocks; b++) {
      const uint32_t lo = b * GRID_LANES;
      const uint32_t hi = lo + GRID_LANES < m ? lo + GRID_LANES : m;
      first[b] = joints[lo];
      for (uint32_t i = lo + 1; i < hi; i++)
        if (joints[i] != joints[lo] + (i - lo)) first[b] = UINT32_MAX;
    }
  }
  return g;
}
