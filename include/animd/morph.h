/* animd core: morph targets (blend shapes) and their weights.
 *
 * A mesh may carry morph targets (anim_mesh_t.target_*: per target, a
 * position delta and optionally a normal delta per vertex) and default
 * weights; a clip may carry weight tracks (anim_clip_t.weight_tracks), one
 * per mesh name, n weights per key. The morphed vertex is
 *   p = p0 + sum_i w_i * dp_i,   n = n0 + sum_i w_i * dn_i
 * (glTF 2.0, "Morph Targets"), and skinning applies to the morphed vertex
 * (anim_skinning_job_t.morph_weights). Weight tracks interpolate each
 * weight on its own: LINEAR lerps, STEP holds the key at or before t,
 * CUBICSPLINE is the glTF Hermite spline (tangents scaled by the key
 * interval); before the first key the first value, after the last the
 * last. No normalization: weights may be any finite numbers. */
#ifndef ANIMD_MORPH_H
#define ANIMD_MORPH_H

#include "animd/clip.h"
#include "animd/skinning.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The clip's weight track for the mesh named mesh, or NULL. */
const anim_weight_track_t *anim_clip_weight_track(const anim_clip_t *clip,
                                                  const char *mesh);

/* Writes track->target_count weights at clip time t (already wrapped, as
 * anim_sampling_job_t.sampled_time gives it) into out. */
void anim_weight_track_sample(const anim_weight_track_t *track, float t,
                              float *out);

/* Morphs vertices [first, first + count) of mesh with mesh->target_count
 * weights into out_positions (3 floats per vertex of the range) and, when
 * out_normals is not NULL and the mesh has normals, out_normals (the
 * stored normal plus the weighted deltas; not renormalized: skinning
 * renormalizes). Weights of 0 cost nothing. The caller checks the range. */
void anim_morph_vertices(const anim_mesh_t *mesh, const float *weights,
                         uint32_t first, uint32_t count, float *out_positions,
                         float *out_normals);

#ifdef __cplusplus
}
#endif
#endif
