/* animd core: the blending job.
 *
 * Per joint: normal layers are accumulated with weight w = layer weight *
 * mask weight (translation and scale as weighted sums, rotations
 * sign-aligned to the first contributing layer and summed), the rest pose
 * is mixed in with weight (threshold - total) when the total is below the
 * threshold, the sums are divided by the total weight (rotations
 * normalized), and additive layers are applied on top. The work goes in
 * chunks of 64 joints, layer by layer (passes in core/blend_simd.h, AVX2
 * ones in blend_avx2.c); every input of a chunk is read before its output
 * is written, so the output may be one of the layers' poses. */
#include <math.h>
#include <string.h>

#include "animd/blend.h"
#include "blend_simd.h"
#include "pose_kernels.h"

static bool pose_ok(const anim_pose_t *p, uint32_t n) {
  return p->translation != NULL && p->rotation != NULL && p->scale != NULL &&
         p->joint_count >= n;
}

static anim_result check_layer(const anim_blend_layer_t *l, uint32_t n,
                               bool additive) {
  if (!(l->weight >= 0.f) || !isfinite(l->weight))
    return ANIM_ERR_INVALID_ARGUMENT;
  const anim_pose_t *p = &l->pose;
  if (p->translation == NULL || p->rotation == NULL || p->scale == NULL)
    return ANIM_ERR_INVALID_ARGUMENT;
  if (p->joint_count < n) return ANIM_ERR_BUFFER_TOO_SMALL;
  if (additive) {
    const anim_pose_t *r = &l->reference;
    bool none =
        r->translation == NULL && r->rotation == NULL && r->scale == NULL;
    if (!none) {
      if (r->translation == NULL || r->rotation == NULL || r->scale == NULL)
        return ANIM_ERR_INVALID_ARGUMENT;
      if (r->joint_count < n) return ANIM_ERR_BUFFER_TOO_SMALL;
    }
  }
  return ANIM_OK;
}

anim_result anim_blend_job_validate(const anim_blend_job_t *job) {
  if (job == NULL || job->skeleton == NULL) return ANIM_ERR_INVALID_ARGUMENT;
  uint32_t n = job->skeleton->joint_count;
  if ((job->layer_count > 0 && job->layers == NULL) ||
      (job->additive_count > 0 && job->additive_layers == NULL))
    return ANIM_ERR_INVALID_ARGUMENT;
  if (!(job->threshold >= 0.f) || !isfinite(job->threshold))
    return ANIM_ERR_INVALID_ARGUMENT;
  const anim_pose_t *o = &job->output;
  if (o->translation == NULL || o->rotation == NULL || o->scale == NULL)
    return ANIM_ERR_INVALID_ARGUMENT;
  if (!pose_ok(o, n)) return ANIM_ERR_BUFFER_TOO_SMALL;
  for (size_t i = 0; i < job->layer_count; i++) {
    anim_result r = check_layer(&job->layers[i], n, false);
    if (r != ANIM_OK) return r;
  }
  for (size_t i = 0; i < job->additive_count; i++) {
    anim_result r = check_layer(&job->additive_layers[i], n, true);
    if (r != ANIM_OK) return r;
  }
  return ANIM_OK;
}

static float mask_weight(const anim_blend_layer_t *l, uint32_t j) {
  if (l->joint_weights == NULL) return l->weight;
  float m = l->joint_weights[j];
  m = m > 0.f ? (m < 1.f ? m : 1.f) : 0.f; /* also maps NaN to 0 */
  return l->weight * m;
}

/* q^w for a unit quaternion along the shortest arc: slerp(I, q, w), also
 * for w > 1. */
static anim_quat_t quat_pow(anim_quat_t q, float w) {
  if (q.w < 0.f) {
    q.x = -q.x;
    q.y = -q.y;
    q.z = -q.z;
    q.w = -q.w;
  }
  float s = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z);
  if (!(s > 1e-12f)) {
    anim_quat_t id = {0.f, 0.f, 0.f, 1.f};
    return id;
  }
  float half = atan2f(s, q.w) * w;
  float k = sinf(half) / s;
  anim_quat_t r = {q.x * k, q.y * k, q.z * k, cosf(half)};
  return r;
}

static float ratio(float p, float r) { return fabsf(r) > 1e-12f ? p / r : 1.f; }

/* Joints go in chunks of BLEND_CHUNK through a stack accumulator whose
 * arrays have the poses' layout (3 floats a vector, 4 a quaternion, joint
 * after joint), so translations and scales are weighted as flat float
 * arrays. Without masks every joint of a layer has the same weight, the
 * totals are one number and each layer is one pass over the chunk the
 * compiler vectorizes; only the rotations' signs are per joint. With a
 * mask anywhere, the chunk goes joint by joint. */
#define BLEND_CHUNK 64

_Static_assert(sizeof(anim_vec3_t) == 3 * sizeof(float) &&
                   sizeof(anim_quat_t) == 4 * sizeof(float),
               "poses are flat float arrays");

typedef struct blend_acc_s {
  float t[3 * BLEND_CHUNK], s[3 * BLEND_CHUNK], q[4 * BLEND_CHUNK];
  float total[BLEND_CHUNK]; /* Joint by joint only. */
} blend_acc_t;

/* The rest pose rotation (orient applied) of joint j. */
static anim_quat_t rest_rotation(const anim_skeleton_t *sk, uint32_t j) {
  return anim_quat_mul_inl(sk->orient[j], sk->rest[j].rotation);
}

/* The passes a run uses: portable or AVX2 (core/blend_simd.h). */
typedef struct blend_passes_s {
  void (*flat_set)(float *restrict sum, const float *restrict v, float w,
                   uint32_t m);
  void (*flat_add)(float *restrict sum, const float *restrict v, float w,
                   uint32_t m);
  void (*quat_add_aligned)(float *restrict sum, const float *restrict first,
                           const float *restrict q, float w, uint32_t n);
  void (*quat_normalize)(float *restrict out, const float *restrict q,
                         uint32_t n);
  void (*flat_finish)(float *out, const float *sum, const float *v0, float w0,
                      const float *va, float wa, const float *v, float w,
                      float inv, uint32_t m);
  void (*quat_finish)(float *out, const float *sum, float w0,
                      const float *first, const float *qa, float wa,
                      const float *q, float w, uint32_t n, bool normalize);
} blend_passes_t;

static void flat_set_portable(float *restrict sum, const float *restrict v,
                              float w, uint32_t m) {
  blend_flat_set(sum, v, w, m);
}

static void flat_add_portable(float *restrict sum, const float *restrict v,
                              float w, uint32_t m) {
  blend_flat_add(sum, v, w, m);
}

static void quat_add_aligned_portable(float *restrict sum,
                                      const float *restrict first,
                                      const float *restrict q, float w,
                                      uint32_t n) {
  blend_quat_add_aligned(sum, first, q, w, n);
}

static void quat_normalize_portable(float *restrict out,
                                    const float *restrict q, uint32_t n) {
  blend_quat_normalize(out, q, n);
}

static void flat_finish_portable(float *out, const float *sum, const float *v0,
                                 float w0, const float *va, float wa,
                                 const float *v, float w, float inv,
                                 uint32_t m) {
  blend_flat_finish(out, sum, v0, w0, va, wa, v, w, inv, m);
}

static void quat_finish_portable(float *out, const float *sum, float w0,
                                 const float *first, const float *qa, float wa,
                                 const float *q, float w, uint32_t n,
                                 bool normalize) {
  blend_quat_finish(out, sum, w0, first, qa, wa, q, w, n, normalize);
}

static const blend_passes_t passes_portable = {
    flat_set_portable,       flat_add_portable,    quat_add_aligned_portable,
    quat_normalize_portable, flat_finish_portable, quat_finish_portable};

static const blend_passes_t passes_avx2 = {
    anim__blend_flat_set_avx2,         anim__blend_flat_add_avx2,
    anim__blend_quat_add_aligned_avx2, anim__blend_quat_normalize_avx2,
    anim__blend_flat_finish_avx2,      anim__blend_quat_finish_avx2};

/* Normal layers without masks (count of them with weight > 0, at least
 * two) for joints j0 .. j0 + n, when the rest pose does not join: divided
 * by the total weight (inv its reciprocal) and normalized into dt, ds and
 * dq. Layers go two a pass where they can (the first two into the sums,
 * the last two with the division and normalization), the ones between
 * one a pass, in the order of a pass per layer (the same bits). */
static void blend_fused(blend_acc_t *a, const blend_passes_t *ps,
                        const anim_blend_job_t *job, uint32_t j0, uint32_t n,
                        size_t count, float inv, float *dt, float *ds,
                        float *dq) {
  const float *first = NULL, *ft = NULL, *fs = NULL;
  const float *ht = NULL, *hs = NULL, *hq = NULL; /* Held for the last pass. */
  float fw = 0.f, hw = 0.f;
  bool summed = false;
  size_t p = 0;
  for (size_t i = 0; i < job->layer_count; i++) {
    const anim_blend_layer_t *l = &job->layers[i];
    float w = l->weight;
    if (!(w > 0.f)) continue;
    const float *lt = &l->pose.translation[j0].x;
    const float *ls = &l->pose.scale[j0].x;
    const float *lq = &l->pose.rotation[j0].x;
    if (p == 0) {
      first = lq;
      ft = lt;
      fs = ls;
      fw = w;
    } else if (p == 1 && count >= 4) {
      ps->flat_finish(a->t, NULL, ft, fw, NULL, 0.f, lt, w, 1.f, 3 * n);
      ps->flat_finish(a->s, NULL, fs, fw, NULL, 0.f, ls, w, 1.f, 3 * n);
      ps->quat_finish(a->q, NULL, fw, first, NULL, 0.f, lq, w, n, false);
      summed = true;
    } else if (p + 2 == count) {
      ht = lt;
      hs = ls;
      hq = lq;
      hw = w;
    } else if (p + 1 == count) {
      ps->flat_finish(dt, summed ? a->t : NULL, ft, fw, ht, hw, lt, w, inv,
                      3 * n);
      ps->flat_finish(ds, summed ? a->s : NULL, fs, fw, hs, hw, ls, w, inv,
                      3 * n);
      ps->quat_finish(dq, summed ? a->q : NULL, fw, first, hq, hw, lq, w, n,
                      true);
      return;
    } else {
      ps->flat_add(a->t, lt, w, 3 * n);
      ps->flat_add(a->s, ls, w, 3 * n);
      ps->quat_add_aligned(a->q, first, lq, w, n);
    }
    p++;
  }
}

/* Normal layers without masks and the rest pose for joints j0 .. j0 + n,
 * divided by the total weight (every joint's) and normalized into dt, ds
 * and dq. The total is known before the passes: when the rest pose does
 * not join, blend_fused's last pass also divides and normalizes. */
static void blend_uniform(blend_acc_t *a, const blend_passes_t *ps,
                          const anim_blend_job_t *job, uint32_t j0, uint32_t n,
                          float threshold, float *dt, float *ds, float *dq) {
  float total = 0.f;
  size_t count = 0;
  for (size_t i = 0; i < job->layer_count; i++)
    if (job->layers[i].weight > 0.f) {
      total += job->layers[i].weight;
      count++;
    }
  float rest_w = threshold - total;
  bool rest = rest_w > 0.f;
  float inv = 1.f / (rest ? total + rest_w : total);
  if (count >= 2 && !rest) {
    blend_fused(a, ps, job, j0, n, count, inv, dt, ds, dq);
    return;
  }
  /* The first layer's rotations: the others are aligned to them. */
  const float *first = NULL;
  for (size_t i = 0; i < job->layer_count; i++) {
    const anim_blend_layer_t *l = &job->layers[i];
    float w = l->weight;
    if (!(w > 0.f)) continue;
    const float *lt = &l->pose.translation[j0].x;
    const float *ls = &l->pose.scale[j0].x;
    const float *lq = &l->pose.rotation[j0].x;
    if (first == NULL) {
      first = lq;
      ps->flat_set(a->t, lt, w, 3 * n);
      ps->flat_set(a->s, ls, w, 3 * n);
      ps->flat_set(a->q, lq, w, 4 * n);
    } else {
      ps->flat_add(a->t, lt, w, 3 * n);
      ps->flat_add(a->s, ls, w, 3 * n);
      ps->quat_add_aligned(a->q, first, lq, w, n);
    }
  }
  /* The rest pose fills what the layers leave below the threshold. */
  const anim_skeleton_t *sk = job->skeleton;
  for (uint32_t j = 0; rest && j < n; j++) {
    const anim_transform_t *r = &sk->rest[j0 + j];
    anim_quat_t l = rest_rotation(sk, j0 + j);
    float *t = a->t + 3 * j, *s = a->s + 3 * j, *q = a->q + 4 * j;
    float sw = rest_w;
    if (first == NULL) {
      t[0] = t[1] = t[2] = s[0] = s[1] = s[2] = 0.f;
      q[0] = q[1] = q[2] = q[3] = 0.f;
    } else if (blend_dot4(first + 4 * j, &l.x) < 0.f) {
      sw = -rest_w;
    }
    t[0] += rest_w * r->translation.x;
    t[1] += rest_w * r->translation.y;
    t[2] += rest_w * r->translation.z;
    s[0] += rest_w * r->scale.x;
    s[1] += rest_w * r->scale.y;
    s[2] += rest_w * r->scale.z;
    q[0] += sw * l.x;
    q[1] += sw * l.y;
    q[2] += sw * l.z;
    q[3] += sw * l.w;
  }
  ps->flat_set(dt, a->t, inv, 3 * n);
  ps->flat_set(ds, a->s, inv, 3 * n);
  ps->quat_normalize(dq, a->q, n);
}

/* The same sums joint by joint, for layers with masks: per-joint totals
 * into a->total. */
static void blend_per_joint(blend_acc_t *a, const anim_blend_job_t *job,
                            uint32_t j0, uint32_t n, float threshold) {
  const anim_skeleton_t *sk = job->skeleton;
  for (uint32_t j = 0; j < n; j++) {
    uint32_t g = j0 + j;
    anim_vec3_t t = {0.f, 0.f, 0.f}, s = {0.f, 0.f, 0.f};
    anim_quat_t q = {0.f, 0.f, 0.f, 0.f};
    anim_quat_t first = {0.f, 0.f, 0.f, 0.f};
    bool have_first = false;
    float total = 0.f;
    for (size_t i = 0; i <= job->layer_count; i++) {
      anim_vec3_t lt, ls;
      anim_quat_t lq;
      float w;
      if (i < job->layer_count) {
        const anim_blend_layer_t *l = &job->layers[i];
        w = mask_weight(l, g);
        if (!(w > 0.f)) continue;
        lt = l->pose.translation[g];
        lq = l->pose.rotation[g];
        ls = l->pose.scale[g];
      } else {
        w = threshold - total;
        if (!(w > 0.f)) continue;
        lt = sk->rest[g].translation;
        lq = rest_rotation(sk, g);
        ls = sk->rest[g].scale;
      }
      if (!have_first) {
        first = lq;
        have_first = true;
      } else if (pk_quat_dot(first, lq) < 0.f) {
        w = -w;
      }
      float aw = fabsf(w);
      t.x += aw * lt.x;
      t.y += aw * lt.y;
      t.z += aw * lt.z;
      s.x += aw * ls.x;
      s.y += aw * ls.y;
      s.z += aw * ls.z;
      q.x += w * lq.x;
      q.y += w * lq.y;
      q.z += w * lq.z;
      q.w += w * lq.w;
      total += aw;
    }
    float *at = a->t + 3 * j, *as = a->s + 3 * j, *aq = a->q + 4 * j;
    at[0] = t.x;
    at[1] = t.y;
    at[2] = t.z;
    as[0] = s.x;
    as[1] = s.y;
    as[2] = s.z;
    aq[0] = q.x;
    aq[1] = q.y;
    aq[2] = q.z;
    aq[3] = q.w;
    a->total[j] = total;
  }
}

/* One additive layer with weight > 0 on the chunk's blended pose. */
static void apply_additive(blend_acc_t *a, const anim_skeleton_t *sk,
                           const anim_blend_layer_t *l, uint32_t j0,
                           uint32_t n) {
  bool has_ref = l->reference.translation != NULL;
  for (uint32_t j = 0; j < n; j++) {
    uint32_t g = j0 + j;
    float w = mask_weight(l, g);
    if (!(w > 0.f)) continue;
    anim_vec3_t pt = l->pose.translation[g], ps = l->pose.scale[g];
    anim_quat_t pq = l->pose.rotation[g];
    anim_vec3_t rt, rs;
    anim_quat_t rq;
    if (has_ref) {
      rt = l->reference.translation[g];
      rq = l->reference.rotation[g];
      rs = l->reference.scale[g];
    } else {
      rt = sk->rest[g].translation;
      rq = rest_rotation(sk, g);
      rs = sk->rest[g].scale;
    }
    float *t = a->t + 3 * j, *s = a->s + 3 * j, *aq = a->q + 4 * j;
    t[0] += w * (pt.x - rt.x);
    t[1] += w * (pt.y - rt.y);
    t[2] += w * (pt.z - rt.z);
    /* p * r^-1 with unit r: r^-1 is the conjugate. */
    anim_quat_t rc = {-rq.x, -rq.y, -rq.z, rq.w};
    anim_quat_t d = pk_quat_normalize(anim_quat_mul_inl(pq, rc));
    anim_quat_t q = {aq[0], aq[1], aq[2], aq[3]};
    q = pk_quat_normalize(anim_quat_mul_inl(quat_pow(d, w), q));
    aq[0] = q.x;
    aq[1] = q.y;
    aq[2] = q.z;
    aq[3] = q.w;
    s[0] *= 1.f + (ratio(ps.x, rs.x) - 1.f) * w;
    s[1] *= 1.f + (ratio(ps.y, rs.y) - 1.f) * w;
    s[2] *= 1.f + (ratio(ps.z, rs.z) - 1.f) * w;
  }
}

static bool any_mask(const anim_blend_job_t *job) {
  for (size_t i = 0; i < job->layer_count; i++)
    if (job->layers[i].joint_weights != NULL && job->layers[i].weight > 0.f)
      return true;
  return false;
}

static bool any_additive(const anim_blend_job_t *job) {
  for (size_t i = 0; i < job->additive_count; i++)
    if (job->additive_layers[i].weight > 0.f) return true;
  return false;
}

anim_result anim_blend_job_run(const anim_blend_job_t *job) {
  return anim__blend_job_run_isa(job, anim__cpu_isa());
}

anim_result anim__blend_job_run_isa(const anim_blend_job_t *job,
                                    anim__isa isa) {
  anim_result res = anim_blend_job_validate(job);
  if (res != ANIM_OK) return res;
  const blend_passes_t *ps =
      anim__isa_cap(isa) >= ANIM__ISA_AVX2 ? &passes_avx2 : &passes_portable;
  const anim_skeleton_t *sk = job->skeleton;
  float threshold = job->threshold > 0.f ? job->threshold : 0.1f;
  bool masked = any_mask(job), additive = any_additive(job);
  const anim_pose_t *o = &job->output;
  blend_acc_t a;
  for (uint32_t j0 = 0; j0 < sk->joint_count; j0 += BLEND_CHUNK) {
    uint32_t left = (uint32_t)sk->joint_count - j0;
    uint32_t n = left < BLEND_CHUNK ? left : BLEND_CHUNK;
    /* Every input of the chunk is read before its output is written (the
     * output may be one of the layers' poses). */
    float *ot = &o->translation[j0].x, *os = &o->scale[j0].x;
    float *oq = &o->rotation[j0].x;
    float *dt = additive ? a.t : ot, *ds = additive ? a.s : os;
    float *dq = additive ? a.q : oq;
    /* Sums over total weights (> 0: the rest pose brings them up to the
     * threshold), rotations normalized. */
    if (!masked) {
      blend_uniform(&a, ps, job, j0, n, threshold, dt, ds, dq);
    } else {
      blend_per_joint(&a, job, j0, n, threshold);
      for (uint32_t j = 0; j < n; j++) {
        float inv = 1.f / a.total[j];
        for (int c = 0; c < 3; c++) {
          dt[3 * j + c] = a.t[3 * j + c] * inv;
          ds[3 * j + c] = a.s[3 * j + c] * inv;
        }
      }
      ps->quat_normalize(dq, a.q, n);
    }
    if (!additive) continue;
    for (size_t i = 0; i < job->additive_count; i++)
      if (job->additive_layers[i].weight > 0.f)
        apply_additive(&a, sk, &job->additive_layers[i], j0, n);
    memcpy(ot, a.t, 3 * n * sizeof(float));
    memcpy(os, a.s, 3 * n * sizeof(float));
    memcpy(oq, a.q, 4 * n * sizeof(float));
  }
  return ANIM_OK;
}
