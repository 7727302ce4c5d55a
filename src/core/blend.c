/* animd core: the blending job.
 *
 * Joint by joint: normal layers are accumulated with weight w = layer
 * weight * mask weight (translation and scale as weighted sums, rotations
 * sign-aligned to the first contributing layer and summed), the rest pose
 * is mixed in with weight (threshold - total) when the total is below the
 * threshold, the sums are divided by the total weight (rotations
 * normalized), and additive layers are applied on top. Every input of a
 * joint is read before its output is written, so the output may be one of
 * the layers' poses. */
#include <math.h>

#include "animd/blend.h"
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

anim_result anim_blend_job_run(const anim_blend_job_t *job) {
  anim_result res = anim_blend_job_validate(job);
  if (res != ANIM_OK) return res;
  const anim_skeleton_t *sk = job->skeleton;
  float threshold = job->threshold > 0.f ? job->threshold : 0.1f;
  const anim_pose_t *o = &job->output;

  for (uint32_t j = 0; j < sk->joint_count; j++) {
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
        w = mask_weight(l, j);
        lt = l->pose.translation[j];
        lq = l->pose.rotation[j];
        ls = l->pose.scale[j];
      } else {
        /* The rest pose fills what the layers leave below the threshold. */
        w = threshold - total;
        lt = sk->rest[j].translation;
        lq = anim_quat_mul_inl(sk->orient[j], sk->rest[j].rotation);
        ls = sk->rest[j].scale;
      }
      if (!(w > 0.f)) continue;
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
    /* total > 0: the rest pose alone brings it up to the threshold. */
    float inv = 1.f / total;
    t.x *= inv;
    t.y *= inv;
    t.z *= inv;
    s.x *= inv;
    s.y *= inv;
    s.z *= inv;
    q = pk_quat_normalize(q);

    for (size_t i = 0; i < job->additive_count; i++) {
      const anim_blend_layer_t *l = &job->additive_layers[i];
      float w = mask_weight(l, j);
      if (!(w > 0.f)) continue;
      anim_vec3_t pt = l->pose.translation[j], ps = l->pose.scale[j];
      anim_quat_t pq = l->pose.rotation[j];
      anim_vec3_t rt, rs;
      anim_quat_t rq;
      if (l->reference.translation != NULL) {
        rt = l->reference.translation[j];
        rq = l->reference.rotation[j];
        rs = l->reference.scale[j];
      } else {
        rt = sk->rest[j].translation;
        rq = anim_quat_mul_inl(sk->orient[j], sk->rest[j].rotation);
        rs = sk->rest[j].scale;
      }
      t.x += w * (pt.x - rt.x);
      t.y += w * (pt.y - rt.y);
      t.z += w * (pt.z - rt.z);
      /* p * r^-1 with unit r: r^-1 is the conjugate. */
      anim_quat_t rc = {-rq.x, -rq.y, -rq.z, rq.w};
      anim_quat_t d = pk_quat_normalize(anim_quat_mul_inl(pq, rc));
      q = pk_quat_normalize(anim_quat_mul_inl(quat_pow(d, w), q));
      s.x *= 1.f + (ratio(ps.x, rs.x) - 1.f) * w;
      s.y *= 1.f + (ratio(ps.y, rs.y) - 1.f) * w;
      s.z *= 1.f + (ratio(ps.z, rs.z) - 1.f) * w;
    }
    o->translation[j] = t;
    o->rotation[j] = q;
    o->scale[j] = s;
  }
  return ANIM_OK;
}
