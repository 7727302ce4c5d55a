/* animd core: the sampling job, time wrapping and the sampling context.
 *
 * For each track the segment holding t is found in O(1) when the track is
 * fixed-rate (a grid guess corrected against the real key times), from the
 * context's cursor when playback moves forward, and by binary search
 * otherwise; all three find the same unique segment, so results never
 * depend on the path taken. LINEAR and STEP are evaluated inline; the other
 * interpolations call into clip_interp.c. */
#include <math.h>

#include "animd/sampling.h"
#include "clip_grid.h"
#include "clip_interp.h"
#include "pose_kernels.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* A time inside the clip, 0 <= t < d: the same in every mode, t itself
 * as a float, except that a loop never returns d (t just below d may
 * round up to it). */
static inline float inside_clip(double t, float duration, anim_wrap wrap) {
  const float f = (float)t;
  if (wrap != ANIM_WRAP_LOOP || f < duration) return f;
  return nextafterf(duration, 0.f);
}

float anim_wrap_time(double t, float duration, anim_wrap wrap) {
  const double d = duration;
  if (!isfinite(t) || !(d > 0.0) || !isfinite(d)) return 0.f;
  if (t >= 0.0 && t < d) return inside_clip(t, duration, wrap);
  switch (wrap) {
  case ANIM_WRAP_LOOP: {
    double r = t - d * floor(t / d);
    if (!(r >= 0.0 && r < d)) return 0.f;
    float f = (float)r;
    return f < duration ? f : nextafterf(duration, 0.f);
  }
  case ANIM_WRAP_PINGPONG: {
    double p = 2.0 * d;
    double r = t - p * floor(t / p);
    if (!(r >= 0.0 && r < p)) r = 0.0;
    return (float)(r > d ? p - r : r);
  }
  default: return t < 0.0 ? 0.f : (t > d ? duration : (float)t);
  }
}

/* anim_wrap_time, with its common case inline (the wrapped time heads the
 * chain of dependent steps a pose waits for before its kernel starts). */
static inline float wrap_time(double t, float duration, anim_wrap wrap) {
  const double d = duration;
  if (t >= 0.0 && t < d && d < INFINITY) return inside_clip(t, duration, wrap);
  return anim_wrap_time(t, duration, wrap);
}

anim_result anim_sampling_context_init(anim_sampling_context_t *ctx,
                                       const anim_clip_t *clip,
                                       uint32_t *cursors, uint32_t count) {
  if (ctx == NULL || clip == NULL || (cursors == NULL && clip->track_count > 0))
    return ANIM_ERR_INVALID_ARGUMENT;
  if (count < clip->track_count) return ANIM_ERR_BUFFER_TOO_SMALL;
  ctx->clip = clip;
  ctx->cursors = cursors;
  ctx->cursor_count = count;
  for (uint32_t i = 0; i < count; i++) cursors[i] = 0;
  return ANIM_OK;
}

anim_result anim_sampling_job_validate(const anim_sampling_job_t *job) {
  if (job == NULL || job->skeleton == NULL || job->clip == NULL)
    return ANIM_ERR_INVALID_ARGUMENT;
  if (job->clip->joint_count != job->skeleton->joint_count)
    return ANIM_ERR_MISMATCH;
  if ((unsigned)job->wrap >= ANIM_WRAP_COUNT_) return ANIM_ERR_INVALID_ARGUMENT;
  const anim_pose_t *o = &job->output;
  if (o->translation == NULL || o->rotation == NULL || o->scale == NULL)
    return ANIM_ERR_INVALID_ARGUMENT;
  if (o->joint_count < job->skeleton->joint_count)
    return ANIM_ERR_BUFFER_TOO_SMALL;
  const anim_sampling_context_t *c = job->context;
  if (c != NULL) {
    if (c->clip != job->clip) return ANIM_ERR_MISMATCH;
    if (c->cursors == NULL && job->clip->track_count > 0)
      return ANIM_ERR_INVALID_ARGUMENT;
    if (c->cursor_count < job->clip->track_count)
      return ANIM_ERR_BUFFER_TOO_SMALL;
  }
  return ANIM_OK;
}

/* The largest k in [0, n - 2] with times[k] <= t, for times[0] < t <
 * times[n - 1]. */
static uint32_t search(const float *times, uint32_t n, float t) {
  uint32_t lo = 0, hi = n - 1; /* times[lo] <= t < times[hi] */
  while (hi - lo > 1) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (times[mid] <= t)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

/* Segment k and fraction u in [0, 1) of t; u == 0 means "key k exactly"
 * (also before the first key and after the last). */
static inline uint32_t locate(const anim_track_t *tr, float t, uint32_t *cursor,
                              float *u) {
  const float *times = tr->times;
  uint32_t n = tr->key_count;
  *u = 0.f;
  if (!(t > times[0])) return 0;
  if (t >= times[n - 1]) return n - 1;
  uint32_t k;
  if (tr->fixed_rate) {
    float g = (t - times[0]) * tr->rate;
    k = g < (float)(n - 2) ? (uint32_t)g : n - 2;
    while (k > 0 && t < times[k]) k--;
    while (k + 2 < n && t >= times[k + 1]) k++;
  } else if (cursor != NULL) {
    k = *cursor;
    if (k + 1 < n && times[k] <= t) {
      if (!(t < times[k + 1])) {
        if (k + 2 < n && t < times[k + 2])
          k++;
        else
          k = search(times, n, t);
      }
    } else {
      k = search(times, n, t);
    }
    *cursor = k;
  } else {
    k = search(times, n, t);
  }
  *u = (t - times[k]) / (times[k + 1] - times[k]);
  return k;
}

static inline anim_quat_t quat_at(const float *v) {
  anim_quat_t q = {v[0], v[1], v[2], v[3]};
  return q;
}

static inline anim_vec3_t vec3_at(const float *v) {
  anim_vec3_t r = {v[0], v[1], v[2]};
  return r;
}

/* LINEAR kernels on keys a and the next one. The SSE2 versions load four
 * floats per value (the clip pads its key data so a 3-component load may
 * run one float past the last key) and compute the same formulas. */
#if defined(__SSE2__)
static inline void lerp3(anim_vec3_t *dst, const float *a, float u) {
  __m128 va = _mm_loadu_ps(a), vb = _mm_loadu_ps(a + 3);
  __m128 r = _mm_add_ps(va, _mm_mul_ps(_mm_sub_ps(vb, va), _mm_set1_ps(u)));
  _mm_storel_pi((__m64 *)(void *)dst, r);
  _mm_store_ss(&dst->z, _mm_movehl_ps(r, r));
}

static inline void slerp4(anim_quat_t *dst, const float *a, float u) {
  __m128 va = _mm_loadu_ps(a), vb = _mm_loadu_ps(a + 4);
  __m128 m = _mm_mul_ps(va, vb);
  m = _mm_add_ps(m, _mm_shuffle_ps(m, m, _MM_SHUFFLE(2, 3, 0, 1)));
  m = _mm_add_ps(m, _mm_shuffle_ps(m, m, _MM_SHUFFLE(1, 0, 3, 2)));
  float x = _mm_cvtss_f32(m);
  if (x < 0.f) {
    x = -x;
    vb = _mm_xor_ps(vb, _mm_set1_ps(-0.f));
  }
  if (x > 1.f) x = 1.f;
  float w0, w1;
  pk_slerp_weights(x, u, &w0, &w1);
  __m128 r = _mm_add_ps(_mm_mul_ps(va, _mm_set1_ps(w0)),
                        _mm_mul_ps(vb, _mm_set1_ps(w1)));
  _mm_storeu_ps(&dst->x, r);
}
#else
static inline void lerp3(anim_vec3_t *dst, const float *a, float u) {
  *dst = pk_vec3_lerp(vec3_at(a), vec3_at(a + 3), u);
}

static inline void slerp4(anim_quat_t *dst, const float *a, float u) {
  *dst = pk_quat_slerp(quat_at(a), quat_at(a + 4), u);
}
#endif

anim_result anim_sampling_job_run(const anim_sampling_job_t *job) {
  return anim__sampling_job_run_isa(job, anim__job_isa(ANIM__JOB_SAMPLING));
}

anim_result anim__sampling_job_run_isa(const anim_sampling_job_t *job,
                                       anim__isa isa) {
  isa = anim__isa_cap(isa);
  anim_result r = anim_sampling_job_validate(job);
  if (r != ANIM_OK) return r;
  const anim_skeleton_t *sk = job->skeleton;
  const anim_clip_t *clip = job->clip;
  const anim_pose_t *o = &job->output;
  float t = wrap_time(job->time, clip->duration, job->wrap);
  if (job->sampled_time != NULL) *job->sampled_time = t;

  for (uint32_t m = 0; m < clip->_missing_count; m++) {
    uint32_t j = clip->_missing[m] >> 2;
    switch (clip->_missing[m] & 3u) {
    case ANIM_PATH_TRANSLATION:
      o->translation[j] = sk->rest[j].translation;
      break;
    case ANIM_PATH_ROTATION:
      o->rotation[j] = sk->has_orient ? anim_quat_mul_inl(sk->orient[j],
                                                          sk->rest[j].rotation)
                                      : sk->rest[j].rotation;
      break;
    default: o->scale[j] = sk->rest[j].scale; break;
    }
  }

  uint32_t *cursors = job->context != NULL ? job->context->cursors : NULL;
  uint32_t k = 0;
  float u = 0.f;
  const anim__grid_t *g = clip->_grid;
  if (g != NULL) {
    k = locate(&clip->tracks[g->rep], t,
               cursors != NULL ? &cursors[g->rep] : NULL, &u);
    /* The next row, or this one at the last key; not chosen from u, so
     * the kernels' loads need not wait for its division (they read row k1
     * only when u != 0). */
    const uint32_t k1 = k + 1 < g->key_count ? k + 1 : k;
    if (isa >= ANIM__ISA_AVX512)
      anim__grid_sample_avx512(g, k, k1, u, o);
    else if (isa >= ANIM__ISA_AVX2)
      anim__grid_sample_avx2(g, k, k1, u, o);
    else
      anim__grid_sample_scalar(g, k, k1, u, o);
    if (sk->has_orient) {
      const anim__grid_path_t *gr = &g->path[ANIM_PATH_ROTATION];
      for (uint32_t m = 0; m < gr->count; m++) {
        const uint32_t j = gr->joints[m];
        o->rotation[j] = anim_quat_mul_inl(sk->orient[j], o->rotation[j]);
      }
    }
  }
  for (uint32_t x = 0; x < clip->_other_count; x++) {
    const uint32_t i = clip->_others[x];
    const anim_track_t *tr = &clip->tracks[i];
    /* Tracks sharing the previous track's times share its segment. */
    if (!tr->_same_times)
      k = locate(tr, t, cursors != NULL ? &cursors[i] : NULL, &u);
    uint32_t j = tr->joint;
    bool key = u == 0.f || tr->interpolation == ANIM_INTERP_STEP;
    bool linear = tr->interpolation == ANIM_INTERP_LINEAR;
    if (tr->path == ANIM_PATH_ROTATION) {
      anim_quat_t *dst = &o->rotation[j];
      if (key) {
        *dst = quat_at(ci_key_value(tr, k));
      } else if (linear) {
        slerp4(dst, tr->values + 4u * k, u);
      } else {
        float v[4];
        anim__track_segment(tr, k, u, v);
        *dst = quat_at(v);
      }
      if (sk->has_orient) *dst = anim_quat_mul_inl(sk->orient[j], *dst);
    } else {
      anim_vec3_t *dst =
          tr->path == ANIM_PATH_TRANSLATION ? &o->translation[j] : &o->scale[j];
      if (key) {
        *dst = vec3_at(ci_key_value(tr, k));
      } else if (linear) {
        lerp3(dst, tr->values + 3u * k, u);
      } else {
        float w[3];
        anim__track_segment(tr, k, u, w);
        *dst = vec3_at(w);
      }
    }
  }
  return ANIM_OK;
}
