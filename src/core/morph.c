/* animd core: morph weights sampled from a clip's weight tracks, and
 * vertices moved by the weighted targets (animd/morph.h).
 *
 * The segment holding t is found by binary search: a weight track has few
 * keys and one lookup per mesh per frame, next to thousands of vertices. */
#include <string.h>

#include "animd/morph.h"

const anim_weight_track_t *anim_clip_weight_track(const anim_clip_t *clip,
                                                  const char *mesh) {
  if (clip == NULL || mesh == NULL) return NULL;
  for (uint32_t i = 0; i < clip->weight_track_count; i++)
    if (strcmp(clip->weight_tracks[i].mesh, mesh) == 0)
      return &clip->weight_tracks[i];
  return NULL;
}

/* Key k's values (skipping CUBICSPLINE in-tangents). */
static const float *key_values(const anim_weight_track_t *tr, uint32_t k) {
  size_t n = tr->target_count;
  if (tr->interpolation == ANIM_INTERP_CUBICSPLINE)
    return tr->values + (size_t)k * 3u * n + n;
  return tr->values + (size_t)k * n;
}

void anim_weight_track_sample(const anim_weight_track_t *tr, float t,
                              float *out) {
  const uint32_t n = tr->target_count, last = tr->key_count - 1;
  if (!(t > tr->times[0]) || last == 0) {
    memcpy(out, key_values(tr, 0), n * sizeof(float));
    return;
  }
  if (t >= tr->times[last]) {
    memcpy(out, key_values(tr, last), n * sizeof(float));
    return;
  }
  /* times[k] <= t < times[k + 1]. */
  uint32_t lo = 0, hi = last;
  while (hi - lo > 1) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (tr->times[mid] <= t)
      lo = mid;
    else
      hi = mid;
  }
  const uint32_t k = lo;
  const float dt = tr->times[k + 1] - tr->times[k];
  const float u = (t - tr->times[k]) / dt;
  const float *a = key_values(tr, k), *b = key_values(tr, k + 1);
  if (tr->interpolation == ANIM_INTERP_STEP) {
    memcpy(out, a, n * sizeof(float));
  } else if (tr->interpolation == ANIM_INTERP_CUBICSPLINE) {
    /* Per key: in-tangents a_i, values v_i, out-tangents b_i. */
    const float *out_tan = a + n, *in_tan = b - n;
    float u2 = u * u, u3 = u2 * u;
    float h00 = 2.f * u3 - 3.f * u2 + 1.f;
    float h10 = (u3 - 2.f * u2 + u) * dt;
    float h01 = -2.f * u3 + 3.f * u2;
    float h11 = (u3 - u2) * dt;
    for (uint32_t i = 0; i < n; i++)
      out[i] = h00 * a[i] + h10 * out_tan[i] + h01 * b[i] + h11 * in_tan[i];
  } else {
    for (uint32_t i = 0; i < n; i++) out[i] = a[i] + (b[i] - a[i]) * u;
  }
}

/* dst[3v..] += w * src[3v..] over count vertices. */
static void add_scaled(float *dst, const float *src, float w, uint32_t count) {
  for (size_t e = 0; e < 3u * (size_t)count; e++) dst[e] += w * src[e];
}

void anim_morph_vertices(const anim_mesh_t *m, const float *weights,
                         uint32_t first, uint32_t count, float *out_positions,
                         float *out_normals) {
  const size_t n = m->vertex_count, at = 3u * (size_t)first;
  memcpy(out_positions, m->positions + at, 3u * (size_t)count * sizeof(float));
  const bool normals = out_normals != NULL && m->normals != NULL;
  if (normals)
    memcpy(out_normals, m->normals + at, 3u * (size_t)count * sizeof(float));
  for (uint32_t i = 0; i < m->target_count; i++) {
    const float w = weights[i];
    if (w == 0.f) continue;
    add_scaled(out_positions, m->target_positions + 3u * n * i + at, w, count);
    if (normals && m->target_normals != NULL)
      add_scaled(out_normals, m->target_normals + 3u * n * i + at, w, count);
  }
}
