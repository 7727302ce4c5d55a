/* animd core: the retarget job (animd/retarget.h): a clip of one skeleton
 * baked for another, frame by frame, in caller memory.
 *
 * The rest of both skeletons is their bind pose (the inverse bind
 * matrices inverted), computed once. Per frame: the source is sampled and
 * its model rotations (and its root's model matrix) computed; the
 * target's model rotations follow in storage order, mapped joints from
 * the rule, the others from their parents and rest; local rotations come
 * from the parents. Model rotations are plain quaternion products, which
 * is what the rule states; positions go through the local-to-model job. */
#include <math.h>
#include <string.h>

#include "animd/hierarchy.h"
#include "animd/retarget.h"
#include "animd/sampling.h"
#include "core/math_inline.h"

/* Scratch carved into aligned arrays. */
typedef struct layout_s {
  anim_vec3_t *s_t, *s_s;  /* Source pose translation and scale. */
  anim_quat_t *s_r;        /* Source pose rotation. */
  anim_mat4_t *s_model;    /* Source model matrices. */
  anim_quat_t *s_q, *s_q0; /* Source model rotations: now, rest. */
  anim_vec3_t *d_t, *d_s;  /* Target pose translation and scale. */
  anim_quat_t *d_r;        /* Target pose rotation. */
  anim_mat4_t *d_model;    /* Target model matrices. */
  anim_quat_t *d_q, *d_q0; /* Target model rotations: now, rest. */
  int32_t *pair_of;        /* Target joint -> pair index, or -1. */
  uint32_t *cursors;       /* Sampling context. */
} layout_t;

/* Places count items of size bytes at *at (aligned to 64), advancing it;
 * returns the start. With base NULL it only counts. */
static void *carve(unsigned char *base, size_t *at, size_t count, size_t size) {
  size_t start = (*at + 63) & ~(size_t)63;
  *at = start + count * size;
  return base != NULL ? base + start : NULL;
}

static size_t layout(unsigned char *base, uint32_t ns, uint32_t nt,
                     uint32_t tracks, layout_t *l) {
  size_t at = 0;
  layout_t x;
  x.s_t = carve(base, &at, ns, sizeof(anim_vec3_t));
  x.s_s = carve(base, &at, ns, sizeof(anim_vec3_t));
  x.s_r = carve(base, &at, ns, sizeof(anim_quat_t));
  x.s_model = carve(base, &at, ns, sizeof(anim_mat4_t));
  x.s_q = carve(base, &at, ns, sizeof(anim_quat_t));
  x.s_q0 = carve(base, &at, ns, sizeof(anim_quat_t));
  x.d_t = carve(base, &at, nt, sizeof(anim_vec3_t));
  x.d_s = carve(base, &at, nt, sizeof(anim_vec3_t));
  x.d_r = carve(base, &at, nt, sizeof(anim_quat_t));
  x.d_model = carve(base, &at, nt, sizeof(anim_mat4_t));
  x.d_q = carve(base, &at, nt, sizeof(anim_quat_t));
  x.d_q0 = carve(base, &at, nt, sizeof(anim_quat_t));
  x.pair_of = carve(base, &at, nt, sizeof(int32_t));
  x.cursors = carve(base, &at, tracks ? tracks : 1, sizeof(uint32_t));
  if (l != NULL) *l = x;
  return at + 63; /* Room to align the caller's block. */
}

uint32_t anim_retarget_frame_count(float duration, float fps) {
  if (!(fps > 0.0f) || !isfinite(fps) || !(duration >= 0.0f) ||
      !isfinite(duration))
    return 0;
  double n = ceil((double)duration * fps - 1e-3);
  if (n < 0.0) n = 0.0;
  if (n + 1.0 > (double)(UINT32_MAX / 8)) return 0;
  return (uint32_t)n + 1u;
}

size_t anim_retarget_scratch_bytes(const anim_skeleton_t *source,
                                   const anim_clip_t *clip,
                                   const anim_skeleton_t *target) {
  if (source == NULL || clip == NULL || target == NULL) return 0;
  return layout(NULL, source->joint_count, target->joint_count,
                clip->track_count, NULL);
}

static uint32_t depth_of(const anim_skeleton_t *s, uint32_t j) {
  uint32_t d = 0;
  for (int32_t p = s->parents[j]; p >= 0; p = s->parents[p]) d++;
  return d;
}

int32_t anim_retarget_root_pair(const anim_skeleton_t *target,
                                const anim_retarget_pair_t *pairs,
                                size_t count) {
  if (target == NULL || pairs == NULL) return -1;
  int32_t best = -1;
  uint32_t best_depth = 0;
  for (size_t i = 0; i < count; i++) {
    if (pairs[i].target >= target->joint_count) continue;
    uint32_t d = depth_of(target, pairs[i].target);
    if (best < 0 || d < best_depth ||
        (d == best_depth && pairs[i].target < pairs[best].target)) {
      best = (int32_t)i;
      best_depth = d;
    }
  }
  return best;
}

anim_result anim_retarget_job_validate(const anim_retarget_job_t *job) {
  if (job == NULL || job->source == NULL || job->clip == NULL ||
      job->target == NULL || job->pairs == NULL || job->pair_count == 0 ||
      job->times == NULL || job->rotations == NULL ||
      job->translations == NULL || job->scratch == NULL)
    return ANIM_ERR_INVALID_ARGUMENT;
  if (!(job->fps > 0.0f) || !isfinite(job->fps) ||
      job->pair_count > job->target->joint_count ||
      job->root_pair >= job->pair_count)
    return ANIM_ERR_INVALID_ARGUMENT;
  if (job->clip->joint_count != job->source->joint_count ||
      job->frame_count !=
          anim_retarget_frame_count(job->clip->duration, job->fps))
    return ANIM_ERR_MISMATCH;
  for (size_t i = 0; i < job->pair_count; i++) {
    const anim_retarget_pair_t *p = &job->pairs[i];
    if (p->source >= job->source->joint_count ||
        p->target >= job->target->joint_count)
      return ANIM_ERR_INVALID_ARGUMENT;
  }
  if (job->scratch_bytes <
      anim_retarget_scratch_bytes(job->source, job->clip, job->target))
    return ANIM_ERR_BUFFER_TOO_SMALL;
  return ANIM_OK;
}

static inline anim_quat_t conjugate(anim_quat_t q) {
  return (anim_quat_t){-q.x, -q.y, -q.z, q.w};
}

/* Model rotations of a pose: products of the local rotations (unit
 * quaternions, so their products stay unit within rounding). */
static void model_rotations(const anim_skeleton_t *s, const anim_quat_t *local,
                            anim_quat_t *out) {
  for (uint32_t j = 0; j < s->joint_count; j++) {
    int32_t p = s->parents[j];
    out[j] = p < 0 ? local[j] : anim_quat_mul_inl(out[p], local[j]);
  }
}

static anim_vec3_t position(const anim_mat4_t *m) {
  return anim_vec3(m->m[12], m->m[13], m->m[14]);
}

static anim_result model_matrices(const anim_skeleton_t *s, anim_vec3_t *t,
                                  anim_quat_t *r, anim_vec3_t *sc,
                                  anim_mat4_t *out, uint32_t to) {
  anim_local_to_model_job_t m = {.skeleton = s,
                                 .input = {.translation = t,
                                           .rotation = r,
                                           .scale = sc,
                                           .joint_count = s->joint_count},
                                 .from = 0,
                                 .to = to,
                                 .output = out,
                                 .output_count = s->joint_count};
  return anim_local_to_model_job_run(&m);
}

/* The bind pose: model matrices, the inverses of the inverse bind
 * matrices, and their rotations (columns normalized: scale removed). */
static anim_result bind_pose(const anim_skeleton_t *s, anim_mat4_t *model,
                             anim_quat_t *rotation) {
  for (uint32_t j = 0; j < s->joint_count; j++) {
    anim_result rc = anim_mat4_inverse(&s->inverse_bind[j], &model[j]);
    if (rc != ANIM_OK) return rc;
    anim_mat4_t r = model[j];
    for (int c = 0; c < 3; c++) {
      anim_vec3_t col = anim_vec3(r.m[4 * c], r.m[4 * c + 1], r.m[4 * c + 2]);
      float len = anim_vec3_length(col);
      if (len < ANIM_EPS_LENGTH) return ANIM_ERR_SINGULAR;
      for (int i = 0; i < 3; i++) r.m[4 * c + i] /= len;
    }
    rotation[j] = anim_quat_from_mat4(&r);
  }
  return ANIM_OK;
}

/* The height of joint j above the lowest joint along up, at rest. */
static float rest_height(const anim_skeleton_t *s, const anim_mat4_t *model,
                         uint32_t j, anim_vec3_t up) {
  float low = anim_vec3_dot(up, position(&model[0]));
  for (uint32_t i = 1; i < s->joint_count; i++) {
    float h = anim_vec3_dot(up, position(&model[i]));
    if (h < low) low = h;
  }
  return anim_vec3_dot(up, position(&model[j])) - low;
}

anim_result anim_retarget_job_run(const anim_retarget_job_t *job) {
  anim_result rc = anim_retarget_job_validate(job);
  if (rc != ANIM_OK) return rc;
  const anim_skeleton_t *src = job->source, *dst = job->target;
  uint32_t ns = src->joint_count, nt = dst->joint_count;
  unsigned char *base = job->scratch;
  base += (64 - (uintptr_t)base % 64) % 64;
  layout_t l;
  layout(base, ns, nt, job->clip->track_count, &l);

  anim_vec3_t up = job->up;
  if (anim_vec3_length(up) < ANIM_EPS_LENGTH) up = anim_vec3(0, 1, 0);
  up = anim_vec3_normalize(up);

  /* Rest: the bind pose's model rotations and positions of both. */
  anim_pose_t sp = {l.s_t, l.s_r, l.s_s, ns};
  anim_pose_t dp = {l.d_t, l.d_r, l.d_s, nt};
  if ((rc = anim_pose_set_rest(dst, &dp)) != ANIM_OK ||
      (rc = bind_pose(src, l.s_model, l.s_q0)) != ANIM_OK ||
      (rc = bind_pose(dst, l.d_model, l.d_q0)) != ANIM_OK)
    return rc;
  const anim_retarget_pair_t root = job->pairs[job->root_pair];
  anim_vec3_t ts0 = position(&l.s_model[root.source]);
  anim_vec3_t td0 = position(&l.d_model[root.target]);
  float hs = rest_height(src, l.s_model, root.source, up);
  float hd = rest_height(dst, l.d_model, root.target, up);
  float k = hs > 1e-6f ? hd / hs : 1.0f;
  if (job->scale != NULL) *job->scale = k;

  /* A target joint in two pairs is found here, in linear time. */
  for (uint32_t j = 0; j < nt; j++) l.pair_of[j] = -1;
  for (size_t i = 0; i < job->pair_count; i++) {
    if (l.pair_of[job->pairs[i].target] >= 0) return ANIM_ERR_INVALID_ARGUMENT;
    l.pair_of[job->pairs[i].target] = (int32_t)i;
  }

  anim_sampling_context_t ctx;
  anim_sampling_context_init(&ctx, job->clip, l.cursors,
                             job->clip->track_count ? job->clip->track_count
                                                    : 1);
  int32_t root_parent = dst->parents[root.target];
  size_t nf = job->frame_count;
  for (uint32_t f = 0; f < nf; f++) {
    double t =
        f + 1u == nf ? (double)job->clip->duration : f / (double)job->fps;
    if (t > job->clip->duration) t = job->clip->duration;
    job->times[f] = (float)t;
    anim_sampling_job_t sj = {.skeleton = src,
                              .clip = job->clip,
                              .time = t,
                              .context = &ctx,
                              .output = sp};
    if ((rc = anim_sampling_job_run(&sj)) != ANIM_OK) return rc;
    model_rotations(src, l.s_r, l.s_q);
    if ((rc = model_matrices(src, l.s_t, l.s_r, l.s_s, l.s_model,
                             root.source)) != ANIM_OK)
      return rc;
    /* Target model rotations, parents first; its pose keeps rest T, S. */
    for (uint32_t j = 0; j < nt; j++) {
      int32_t p = dst->parents[j];
      int32_t pi = l.pair_of[j];
      anim_quat_t rest_local =
          anim_quat_mul_inl(dst->orient[j], dst->rest[j].rotation);
      if (pi < 0) {
        l.d_r[j] = rest_local;
        l.d_q[j] = p < 0 ? rest_local : anim_quat_mul_inl(l.d_q[p], rest_local);
        continue;
      }
      /* Products of unit quaternions: normalized once, at the end. */
      uint32_t s = job->pairs[pi].source;
      anim_quat_t change = anim_quat_mul_inl(l.s_q[s], conjugate(l.s_q0[s]));
      anim_quat_t q = anim_quat_mul_inl(change, l.d_q0[j]);
      l.d_q[j] = q;
      l.d_r[j] = p < 0 ? q : anim_quat_mul_inl(conjugate(l.d_q[p]), q);
      anim_quat_t animated = anim_quat_normalize(
          anim_quat_mul_inl(conjugate(dst->orient[j]), l.d_r[j]));
      float *out = job->rotations + ((size_t)pi * nf + f) * 4;
      if (f > 0 && animated.x * out[-4] + animated.y * out[-3] +
                           animated.z * out[-2] + animated.w * out[-1] <
                       0.0f)
        animated =
            anim_quat(-animated.x, -animated.y, -animated.z, -animated.w);
      out[0] = animated.x;
      out[1] = animated.y;
      out[2] = animated.z;
      out[3] = animated.w;
    }
    /* The root's model position, as a local translation. */
    anim_vec3_t ts = position(&l.s_model[root.source]);
    anim_vec3_t td =
        anim_vec3_add(td0, anim_vec3_scale(anim_vec3_sub(ts, ts0), k));
    if (root_parent >= 0) {
      anim_mat4_t inv;
      if ((rc = model_matrices(dst, l.d_t, l.d_r, l.d_s, l.d_model,
                               (uint32_t)root_parent)) != ANIM_OK ||
          (rc = anim_mat4_inverse(&l.d_model[root_parent], &inv)) != ANIM_OK)
        return rc;
      td = anim_mat4_transform_point(&inv, td);
    }
    float *tr = job->translations + (size_t)f * 3;
    tr[0] = td.x;
    tr[1] = td.y;
    tr[2] = td.z;
  }
  return ANIM_OK;
}
