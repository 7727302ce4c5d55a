/* animd core: a clip's morph weight tracks, checked and copied at build.
 *
 * The tracks live in their own block beside the clip's (the pose sampler
 * never reads them, so its layout and speed are untouched): the track
 * array, then per track its mesh name, times and values. */
#include <math.h>
#include <string.h>

#include "builder.h"
#include "clip_weights.h"

#define MAX_WEIGHT_KEYS (1u << 26)

static anim_result fail(anim_build_error_t *err, size_t track, long key,
                        int component, const char *message) {
  anim_result r =
      builder_fail(err, ANIM_ERR_INVALID_ARGUMENT, "weight_tracks", -1,
                   (long)track, key, "weight track %zu: %s", track, message);
  if (err != NULL) err->component = component;
  return r;
}

static anim_result check_one(const anim_raw_weight_track_t *t, size_t i,
                             anim_build_error_t *err) {
  if (t->mesh == NULL || t->mesh[0] == '\0')
    return fail(err, i, -1, -1, "no mesh name");
  if (t->interpolation != ANIM_INTERP_LINEAR &&
      t->interpolation != ANIM_INTERP_STEP &&
      t->interpolation != ANIM_INTERP_CUBICSPLINE)
    return fail(err, i, -1, -1,
                "interpolation must be LINEAR, STEP or CUBICSPLINE");
  if (t->target_count == 0 || t->target_count > ANIM_MAX_MORPH_TARGETS)
    return fail(err, i, -1, -1, "target count must be 1 to 256");
  if (t->key_count == 0 || t->key_count > MAX_WEIGHT_KEYS || !t->times ||
      !t->values)
    return fail(err, i, -1, -1, "no keys");
  size_t per = (size_t)t->target_count *
               (t->interpolation == ANIM_INTERP_CUBICSPLINE ? 3u : 1u);
  if (t->value_count != per * t->key_count)
    return fail(err, i, -1, -1,
                "value count is not key count times the weights per key");
  for (size_t k = 0; k < t->key_count; k++) {
    float tk = t->times[k];
    if (!isfinite(tk) || tk < 0.f || (k > 0 && !(tk > t->times[k - 1])))
      return fail(err, i, (long)k, -1,
                  "key times must be finite, >= 0 and increasing");
    for (size_t c = 0; c < per; c++)
      if (!isfinite(t->values[k * per + c]))
        return fail(err, i, (long)k, (int)c, "weight is not finite");
  }
  return ANIM_OK;
}

anim_result anim__weight_tracks_check(const anim_raw_clip_t *raw, float *last,
                                      anim_build_error_t *err) {
  size_t n = raw->weight_track_count;
  if (n > 0 && raw->weight_tracks == NULL)
    return fail(err, 0, -1, -1, "no weight track array");
  for (size_t i = 0; i < n; i++) {
    const anim_raw_weight_track_t *t = &raw->weight_tracks[i];
    anim_result r = check_one(t, i, err);
    if (r != ANIM_OK) return r;
    for (size_t j = 0; j < i; j++)
      if (strcmp(raw->weight_tracks[j].mesh, t->mesh) == 0)
        return fail(err, i, -1, -1, "a second weight track for its mesh");
    if (t->times[t->key_count - 1] > *last) *last = t->times[t->key_count - 1];
  }
  return ANIM_OK;
}

anim_result anim__weight_tracks_copy(const anim_raw_clip_t *raw,
                                     const anim_allocator_t *alloc,
                                     anim_clip_t *c, anim_build_error_t *err) {
  size_t n = raw->weight_track_count;
  if (n == 0) return ANIM_OK;
  size_t bytes = builder_align(n * sizeof(anim_weight_track_t));
  for (size_t i = 0; i < n; i++) {
    const anim_raw_weight_track_t *t = &raw->weight_tracks[i];
    bytes += builder_align(strlen(t->mesh) + 1) +
             (t->key_count + t->value_count) * sizeof(float);
  }
  char *block = builder_alloc(alloc, bytes);
  if (block == NULL)
    return builder_fail(err, ANIM_ERR_OUT_OF_MEMORY, "weight_tracks", -1, -1,
                        -1, "out of memory");
  anim_weight_track_t *tracks = (anim_weight_track_t *)(void *)block;
  char *at = block + builder_align(n * sizeof *tracks);
  for (size_t i = 0; i < n; i++) {
    const anim_raw_weight_track_t *t = &raw->weight_tracks[i];
    anim_weight_track_t *d = &tracks[i];
    size_t len = strlen(t->mesh) + 1;
    memcpy(at, t->mesh, len);
    d->mesh = at;
    at += builder_align(len);
    float *f = (float *)(void *)at;
    memcpy(f, t->times, t->key_count * sizeof(float));
    memcpy(f + t->key_count, t->values, t->value_count * sizeof(float));
    d->times = f;
    d->values = f + t->key_count;
    at += (t->key_count + t->value_count) * sizeof(float);
    d->interpolation = (uint8_t)t->interpolation;
    d->target_count = t->target_count;
    d->key_count = (uint32_t)t->key_count;
  }
  c->weight_tracks = tracks;
  c->weight_track_count = (uint32_t)n;
  c->_weights_block = block;
  c->_bytes += bytes;
  return ANIM_OK;
}
