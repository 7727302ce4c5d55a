/* animd core: building clips from their raw form.
 *
 * Every track is validated against the skeleton in the caller's order, so
 * the first error names the raw track, key and component. The runtime clip
 * is one allocation: the clip, its tracks sorted by (storage joint, path),
 * the list of untracked (joint, path) pairs, then the copied keys. Tracks
 * whose keys sit on a frame grid are flagged fixed-rate so the sampler
 * finds their segment with one multiply instead of a search. */
#include <math.h>
#include <string.h>

#include "animd/clip.h"
#include "builder.h"
#include "clip_grid.h"
#include "clip_interp.h"
#include "clip_weights.h"
#include "pose_kernels.h"

#define MAX_KEYS (1u << 26)

static const char *const path_names[3] = {"translation", "rotation", "scale"};

static uint32_t path_components(anim_path p) {
  return p == ANIM_PATH_ROTATION ? 4u : 3u;
}

/* ---- validation ---------------------------------------------------------- */

static anim_result check_track(const anim_raw_track_t *t, size_t i,
                               const anim_skeleton_t *sk,
                               anim_build_error_t *err) {
  long joint = (long)t->joint;
  if (t->joint >= sk->joint_count)
    return builder_fail(err, ANIM_ERR_JOINT_RANGE, "joint", -1, (long)i, -1,
                        "track %zu: joint %lu is not in [0, %u)", i,
                        (unsigned long)t->joint, sk->joint_count);
  if ((unsigned)t->path > ANIM_PATH_SCALE)
    return builder_fail(err, ANIM_ERR_INVALID_ARGUMENT, "path", joint, (long)i,
                        -1, "track %zu: unknown path %d", i, (int)t->path);
  if ((unsigned)t->interpolation >= ANIM_INTERP_COUNT_)
    return builder_fail(err, ANIM_ERR_INVALID_ARGUMENT, "interpolation", joint,
                        (long)i, -1, "track %zu: unknown interpolation %d", i,
                        (int)t->interpolation);
  if (t->key_count == 0)
    return builder_fail(err, ANIM_ERR_NO_KEYS, "times", joint, (long)i, -1,
                        "track %zu has no keys", i);
  if (t->key_count > MAX_KEYS)
    return builder_fail(err, ANIM_ERR_INVALID_ARGUMENT, "times", joint, (long)i,
                        -1, "track %zu: %zu keys; at most %u", i, t->key_count,
                        MAX_KEYS);
  if (t->times == NULL)
    return builder_fail(err, ANIM_ERR_INVALID_ARGUMENT, "times", joint, (long)i,
                        -1, "track %zu: no times", i);
  for (size_t k = 0; k < t->key_count; k++) {
    float x = t->times[k];
    if (!isfinite(x))
      return builder_fail(err, ANIM_ERR_NOT_FINITE, "times", joint, (long)i,
                          (long)k, "track %zu: time %zu is not finite", i, k);
    if (x < 0.f)
      return builder_fail(err, ANIM_ERR_TIME_NEGATIVE, "times", joint, (long)i,
                          (long)k, "track %zu: time %zu is negative (%g)", i, k,
                          (double)x);
    if (k > 0 && !(x > t->times[k - 1]))
      return builder_fail(err, ANIM_ERR_TIMES_ORDER, "times", joint, (long)i,
                          (long)k,
                          "track %zu: time %zu (%g) is not after the one "
                          "before it (%g)",
                          i, k, (double)x, (double)t->times[k - 1]);
  }
  uint32_t c = path_components(t->path);
  bool cubic = t->interpolation == ANIM_INTERP_CUBICSPLINE;
  size_t stride = cubic ? 3u * c : c;
  size_t want = t->key_count * stride;
  if (t->values == NULL || t->value_count != want)
    return builder_fail(err, ANIM_ERR_VALUE_COUNT, "values", joint, (long)i, -1,
                        "track %zu: %zu values; %zu keys of %s need %zu", i,
                        t->values == NULL ? 0 : t->value_count, t->key_count,
                        path_names[t->path], want);
  for (size_t v = 0; v < want; v++) {
    if (!isfinite(t->values[v]))
      return builder_component(
          err,
          builder_fail(err, ANIM_ERR_NOT_FINITE, "values", joint, (long)i,
                       (long)(v / stride), "track %zu: value %zu is not finite",
                       i, v),
          (long)(v % stride));
  }
  if (t->path == ANIM_PATH_ROTATION) {
    size_t at = cubic ? 4u : 0u;
    for (size_t k = 0; k < t->key_count; k++) {
      const float *q = t->values + k * stride + at;
      if (!(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] > 1e-12f))
        return builder_component(
            err,
            builder_fail(err, ANIM_ERR_ZERO_QUATERNION, "values", joint,
                         (long)i, (long)k,
                         "track %zu: rotation key %zu has zero length", i, k),
            (long)at);
    }
  }
  if (t->interpolation == ANIM_INTERP_BEZIER) {
    if (t->bezier == NULL)
      return builder_fail(err, ANIM_ERR_INVALID_ARGUMENT, "bezier", joint,
                          (long)i, -1, "track %zu: BEZIER without curves", i);
    for (size_t v = 0; v < 4 * t->key_count; v++) {
      float b = t->bezier[v];
      if (!isfinite(b))
        return builder_component(
            err,
            builder_fail(err, ANIM_ERR_NOT_FINITE, "bezier", joint, (long)i,
                         (long)(v / 4), "track %zu: curve %zu is not finite", i,
                         v / 4),
            (long)(v % 4));
      if (b < 0.f || b > 1.f)
        return builder_component(
            err,
            builder_fail(err, ANIM_ERR_BEZIER_RANGE, "bezier", joint, (long)i,
                         (long)(v / 4),
                         "track %zu: curve %zu control %zu is %g, outside "
                         "[0, 1]",
                         i, v / 4, v % 4, (double)b),
            (long)(v % 4));
    }
  }
  return ANIM_OK;
}

typedef struct track_ref_s {
  uint32_t joint; /* storage order */
  uint32_t path;
  uint32_t index; /* caller order */
} track_ref_t;

static int track_ref_cmp(const void *pa, const void *pb) {
  const track_ref_t *a = pa, *b = pb;
  if (a->joint != b->joint) return a->joint < b->joint ? -1 : 1;
  if (a->path != b->path) return a->path < b->path ? -1 : 1;
  return (a->index > b->index) - (a->index < b->index);
}

/* ---- fixed-rate detection ------------------------------------------------ */

/* Keys on the grid times[0] + i * dt, each within 1% of dt. The sampler
 * only uses the grid as a first guess and then checks the real times, so
 * the tolerance affects speed, never results. */
static bool detect_fixed_rate(const float *times, uint32_t n, float *rate) {
  if (n < 2) return false;
  double t0 = times[0];
  double dt = ((double)times[n - 1] - t0) / (double)(n - 1);
  if (!(dt > 0.0)) return false;
  for (uint32_t i = 1; i + 1 < n; i++)
    if (fabs((double)times[i] - (t0 + dt * i)) > 0.01 * dt) return false;
  *rate = (float)(1.0 / dt);
  return true;
}

/* ---- build --------------------------------------------------------------- */

/* Whether sorted track i has the same key times as the one before it (its
 * times are then not stored again). */
static bool same_times(const anim_raw_track_t *const *sorted, size_t i) {
  return i > 0 && sorted[i]->key_count == sorted[i - 1]->key_count &&
         memcmp(sorted[i]->times, sorted[i - 1]->times,
                sorted[i]->key_count * sizeof(float)) == 0;
}

/* ---- events -------------------------------------------------------------- */

typedef struct event_ref_s {
  float t;
  uint32_t index; /* Raw order: ties keep it. */
} event_ref_t;

static int event_ref_cmp(const void *pa, const void *pb) {
  const event_ref_t *a = pa, *b = pb;
  if (a->t != b->t) return a->t < b->t ? -1 : 1;
  return a->index < b->index ? -1 : (a->index > b->index);
}

/* Checks the raw events against the clip's duration; *name_bytes gets the
 * bytes their names take with their terminators. */
static anim_result check_events(const anim_raw_clip_t *raw, float duration,
                                size_t *name_bytes, anim_build_error_t *err) {
  *name_bytes = 0;
  if (raw->event_count == 0) return ANIM_OK;
  if (raw->events == NULL)
    return builder_fail(err, ANIM_ERR_INVALID_ARGUMENT, "events", -1, -1, -1,
                        "%zu events but no event array", raw->event_count);
  if (raw->event_count > ANIM_EVENT_MAX)
    return builder_fail(err, ANIM_ERR_INVALID_ARGUMENT, "events", -1, -1, -1,
                        "%zu events; a clip holds at most %d", raw->event_count,
                        ANIM_EVENT_MAX);
  for (size_t i = 0; i < raw->event_count; i++) {
    const anim_event_t *e = &raw->events[i];
    if (!isfinite(e->t)) {
      builder_fail(err, ANIM_ERR_NOT_FINITE, "events", -1, -1, (long)i,
                   "event %zu: its time is not finite", i);
      if (err != NULL) err->component = 0;
      return ANIM_ERR_NOT_FINITE;
    }
    if (e->t < 0.f || e->t > duration) {
      builder_fail(err, ANIM_ERR_INVALID_ARGUMENT, "events", -1, -1, (long)i,
                   "event %zu: time %g is outside the clip [0, %g]", i,
                   (double)e->t, (double)duration);
      if (err != NULL) err->component = 0;
      return ANIM_ERR_INVALID_ARGUMENT;
    }
    size_t len = e->name != NULL ? strlen(e->name) : 0;
    if (len == 0 || len > ANIM_EVENT_NAME_MAX) {
      if (len == 0)
        builder_fail(err, ANIM_ERR_INVALID_ARGUMENT, "events", -1, -1, (long)i,
                     "event %zu: an event needs a name", i);
      else
        builder_fail(err, ANIM_ERR_INVALID_ARGUMENT, "events", -1, -1, (long)i,
                     "event %zu: a name of at most %d bytes", i,
                     ANIM_EVENT_NAME_MAX);
      if (err != NULL) err->component = 1;
      return ANIM_ERR_INVALID_ARGUMENT;
    }
    *name_bytes += len + 1;
  }
  return ANIM_OK;
}

/* Copies the events sorted by time into the block: the array at ev, their
 * names at names. refs is scratch for event_count entries. */
static void fill_events(anim_clip_t *c, const anim_raw_clip_t *raw,
                        anim_event_t *ev, char *names, event_ref_t *refs) {
  size_t n = raw->event_count;
  for (size_t i = 0; i < n; i++)
    refs[i] = (event_ref_t){raw->events[i].t, (uint32_t)i};
  qsort(refs, n, sizeof *refs, event_ref_cmp);
  for (size_t i = 0; i < n; i++) {
    const anim_event_t *e = &raw->events[refs[i].index];
    size_t len = strlen(e->name) + 1;
    memcpy(names, e->name, len);
    ev[i] = (anim_event_t){e->t, names};
    names += len;
  }
  c->events = n > 0 ? ev : NULL;
  c->event_count = (uint32_t)n;
}

anim_result anim_clip_build(const anim_raw_clip_t *raw,
                            const anim_skeleton_t *sk,
                            const anim_allocator_t *alloc_in, anim_clip_t **out,
                            anim_build_error_t *err) {
  builder_error_clear(err);
  if (out != NULL) *out = NULL;
  if (raw == NULL || sk == NULL || out == NULL)
    return builder_fail(err, ANIM_ERR_INVALID_ARGUMENT, "tracks", -1, -1, -1,
                        "no clip or no skeleton given");
  size_t tc = raw->track_count;
  if (tc > 0 && raw->tracks == NULL)
    return builder_fail(err, ANIM_ERR_INVALID_ARGUMENT, "tracks", -1, -1, -1,
                        "%zu tracks but no track array", tc);
  if (tc > 3u * (size_t)sk->joint_count)
    return builder_fail(err, ANIM_ERR_DUPLICATE_TRACK, "tracks", -1, -1, -1,
                        "%zu tracks for %u joints: some must repeat", tc,
                        sk->joint_count);
  if (!isfinite(raw->duration))
    return builder_fail(err, ANIM_ERR_NOT_FINITE, "duration", -1, -1, -1,
                        "duration is not finite");
  if (raw->duration < 0.f)
    return builder_fail(err, ANIM_ERR_INVALID_ARGUMENT, "duration", -1, -1, -1,
                        "duration is negative");
  float last = 0.f;
  for (size_t i = 0; i < tc; i++) {
    anim_result r = check_track(&raw->tracks[i], i, sk, err);
    if (r != ANIM_OK) return r;
    const anim_raw_track_t *t = &raw->tracks[i];
    if (t->times[t->key_count - 1] > last) last = t->times[t->key_count - 1];
  }
  anim_result wr = anim__weight_tracks_check(raw, &last, err);
  if (wr != ANIM_OK) return wr;
  if (raw->duration > 0.f && raw->duration < last)
    return builder_fail(err, ANIM_ERR_INVALID_ARGUMENT, "duration", -1, -1, -1,
                        "duration %g is before the last key (%g)",
                        (double)raw->duration, (double)last);
  size_t event_names;
  anim_result er = check_events(
      raw, raw->duration > last ? raw->duration : last, &event_names, err);
  if (er != ANIM_OK) return er;
  size_t ec = raw->event_count;

  anim_allocator_t alloc;
  if (!builder_allocator(alloc_in, &alloc))
    return builder_fail(err, ANIM_ERR_INVALID_ARGUMENT, "allocator", -1, -1, -1,
                        BUILDER_ALLOCATOR_MESSAGE);
  anim_result res = ANIM_OK;
  anim_clip_t *c = NULL;
  /* Scratch: the raw tracks in sorted order, then the sort keys, then the
   * events' sort keys. */
  const anim_raw_track_t **sorted =
      builder_alloc(&alloc, (tc + 1) * (sizeof *sorted + sizeof(track_ref_t)) +
                                ec * sizeof(event_ref_t));
  if (sorted == NULL)
    return builder_fail(err, ANIM_ERR_OUT_OF_MEMORY, "tracks", -1, -1, -1,
                        "out of memory");
  track_ref_t *refs = (track_ref_t *)(void *)(sorted + tc + 1);
  for (size_t i = 0; i < tc; i++) {
    refs[i].joint = sk->from_caller[raw->tracks[i].joint];
    refs[i].path = (uint32_t)raw->tracks[i].path;
    refs[i].index = (uint32_t)i;
  }
  qsort(refs, tc, sizeof *refs, track_ref_cmp);
  long dup = -1;
  for (size_t i = 1; i < tc; i++)
    if (refs[i].joint == refs[i - 1].joint &&
        refs[i].path == refs[i - 1].path &&
        (dup < 0 || refs[i].index < (uint32_t)dup))
      dup = (long)refs[i].index;
  if (dup >= 0) {
    const anim_raw_track_t *t = &raw->tracks[dup];
    res = builder_fail(err, ANIM_ERR_DUPLICATE_TRACK, "path", (long)t->joint,
                       dup, -1, "track %ld: joint %lu already has a %s track",
                       dup, (unsigned long)t->joint, path_names[t->path]);
    goto fail;
  }

  /* Sizes: untracked pairs, tracks off the grid, floats (key times once
   * for a run of tracks with equal times), SQUAD controls, the grid. */
  size_t missing = 3u * (size_t)sk->joint_count - tc;
  size_t floats = 0, controls = 0;
  for (size_t i = 0; i < tc; i++) {
    sorted[i] = &raw->tracks[refs[i].index];
    const anim_raw_track_t *t = sorted[i];
    floats += t->value_count;
    if (!same_times(sorted, i)) floats += t->key_count;
    if (t->interpolation == ANIM_INTERP_BEZIER) floats += 4 * t->key_count;
    if (t->interpolation == ANIM_INTERP_SQUAD &&
        t->path == ANIM_PATH_ROTATION && t->key_count > 1)
      controls += 3 * (t->key_count - 1);
  }
  uint32_t rep = UINT32_MAX;
  const size_t grid_bytes = anim__grid_size(sorted, tc, &rep);
  size_t others = 0;
  for (size_t i = 0; i < tc; i++)
    others += rep == UINT32_MAX || !anim__grid_member(sorted[rep], sorted[i]);
  size_t name_len = raw->name != NULL ? strlen(raw->name) : 0;
  size_t off_tracks = builder_align(sizeof *c);
  size_t off_missing = builder_align(off_tracks + tc * sizeof(anim_track_t));
  size_t off_others = builder_align(off_missing + missing * 4);
  size_t off_controls = builder_align(off_others + others * 4);
  size_t off_floats =
      builder_align(off_controls + controls * sizeof(anim_quat_t));
  /* Four zero floats after the keys let the sampler load a 3-component
   * value as 4 floats anywhere in the key data. */
  size_t off_name = off_floats + (floats + 4) * sizeof(float);
  /* Then the events and their names. */
  size_t off_events = builder_align(off_name + name_len + 1);
  size_t off_event_names = off_events + ec * sizeof(anim_event_t);
  /* The grid goes last, 64-byte aligned wherever the block starts. */
  size_t off_grid = builder_align(off_event_names + event_names);
  const size_t bytes = grid_bytes > 0 ? off_grid + grid_bytes + 63 : off_grid;
  char *block = builder_alloc(&alloc, bytes);
  if (block == NULL) {
    res = builder_fail(err, ANIM_ERR_OUT_OF_MEMORY, "tracks", -1, -1, -1,
                       "out of memory");
    goto fail;
  }
  c = (anim_clip_t *)block;
  memset(c, 0, sizeof *c);
  c->_alloc = alloc;
  c->_bytes = bytes;
  c->joint_count = sk->joint_count;
  c->track_count = (uint32_t)tc;
  c->tracks = (anim_track_t *)(block + off_tracks);
  c->_missing = (uint32_t *)(block + off_missing);
  c->_missing_count = (uint32_t)missing;
  c->_others = (uint32_t *)(block + off_others);
  c->_other_count = (uint32_t)others;
  c->name = block + off_name;
  memcpy(c->name, raw->name != NULL ? raw->name : "", name_len + 1);
  c->duration = raw->duration > last ? raw->duration : last;
  fill_events(c, raw, (anim_event_t *)(void *)(block + off_events),
              block + off_event_names, (event_ref_t *)(void *)(refs + tc + 1));

  anim_quat_t *ctl = (anim_quat_t *)(block + off_controls);
  float *f = (float *)(block + off_floats);
  memset(f + floats, 0, 4 * sizeof(float));
  for (size_t i = 0; i < tc; i++) {
    const anim_raw_track_t *t = sorted[i];
    anim_track_t *d = &c->tracks[i];
    uint32_t n = (uint32_t)t->key_count;
    memset(d, 0, sizeof *d);
    d->joint = refs[i].joint;
    d->path = (uint8_t)t->path;
    d->interpolation = (uint8_t)t->interpolation;
    d->components = (uint8_t)path_components(t->path);
    d->key_count = n;
    const float *times = i > 0 ? d[-1].times : NULL;
    if (!same_times(sorted, i)) {
      memcpy(f, t->times, n * sizeof(float));
      times = f;
      f += n;
    }
    float *values = f;
    memcpy(values, t->values, t->value_count * sizeof(float));
    f += t->value_count;
    d->times = times;
    d->values = values;
    if (t->interpolation == ANIM_INTERP_BEZIER) {
      memcpy(f, t->bezier, 4 * n * sizeof(float));
      d->bezier = f;
      f += 4 * n;
    }
    if (d->path == ANIM_PATH_ROTATION) {
      uint32_t stride = ci_stride(d);
      uint32_t at = d->interpolation == ANIM_INTERP_CUBICSPLINE ? 4u : 0u;
      for (uint32_t k = 0; k < n; k++) {
        float *q = values + (size_t)k * stride + at;
        anim_quat_t u =
            builder_unit_quat((anim_quat_t){q[0], q[1], q[2], q[3]});
        q[0] = u.x;
        q[1] = u.y;
        q[2] = u.z;
        q[3] = u.w;
      }
      if (d->interpolation == ANIM_INTERP_SQUAD && n > 1) {
        anim__squad_controls(values, n, ctl);
        d->squad_controls = ctl;
        ctl += 3 * (n - 1);
      }
    }
    float rate = 0.f;
    if (detect_fixed_rate(times, n, &rate)) {
      d->fixed_rate = 1;
      d->rate = rate;
    }
  }
  if (rep != UINT32_MAX) {
    uintptr_t g = (uintptr_t)(block + off_grid);
    c->_grid = anim__grid_fill((void *)((g + 63) & ~(uintptr_t)63), c->tracks,
                               tc, rep);
  }
  /* Tracks off the grid, and which of them can reuse the segment of the
   * one sampled before them. */
  for (size_t i = 0, o = 0; i < tc; i++) {
    if (rep != UINT32_MAX && anim__grid_member(sorted[rep], sorted[i]))
      continue;
    anim_track_t *d = &c->tracks[i];
    const anim_track_t *prev = o > 0 ? &c->tracks[c->_others[o - 1]] : NULL;
    d->_same_times =
        prev != NULL && prev->key_count == d->key_count &&
        memcmp(prev->times, d->times, d->key_count * sizeof(float)) == 0;
    c->_others[o++] = (uint32_t)i;
  }
  /* Untracked pairs in (joint, path) order: merge against sorted tracks. */
  size_t m = 0, ti = 0;
  for (uint32_t j = 0; j < sk->joint_count; j++) {
    for (uint32_t p = 0; p < 3; p++) {
      if (ti < tc && c->tracks[ti].joint == j && c->tracks[ti].path == p)
        ti++;
      else
        c->_missing[m++] = j * 4u + p;
    }
  }
  builder_free(&alloc, (void *)sorted);
  res = anim__weight_tracks_copy(raw, &alloc, c, err);
  if (res != ANIM_OK) {
    builder_free(&alloc, c);
    return res;
  }
  *out = c;
  return ANIM_OK;

fail:
  builder_free(&alloc, c);
  builder_free(&alloc, (void *)sorted);
  return res;
}

void anim_clip_free(anim_clip_t *clip) {
  if (clip == NULL) return;
  anim_allocator_t a = clip->_alloc;
  builder_free(&a, clip->_weights_block);
  builder_free(&a, clip);
}

size_t anim_clip_memory(const anim_clip_t *clip) {
  return clip != NULL ? clip->_bytes : 0;
}
