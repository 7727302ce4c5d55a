/* animd core: two-bone and aim inverse kinematics (animd/ik.h).
 *
 * Key design choice: plain scalar float math on the three (or one) model
 * matrices a job reads, each step of ozz-animation 0.16's jobs written out
 * as a small function (soften the target, bend the mid joint by the law of
 * cosines, swing the start joint onto the target, turn the chain's plane
 * to the pole), with every division guarded so that a degenerate chain
 * gives identity corrections instead of NaN. */
#include "animd/ik.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The helpers below run a few times a job: inlined, their vectors stay in
 * registers instead of going through the calling convention. */
#define IK_INLINE static inline __attribute__((always_inline))

/* ---- small vector and quaternion helpers -------------------------------- */

static anim_vec3_t v3(float x, float y, float z) {
  anim_vec3_t v = {x, y, z};
  return v;
}
static anim_vec3_t add(anim_vec3_t a, anim_vec3_t b) {
  return v3(a.x + b.x, a.y + b.y, a.z + b.z);
}
static anim_vec3_t sub(anim_vec3_t a, anim_vec3_t b) {
  return v3(a.x - b.x, a.y - b.y, a.z - b.z);
}
static anim_vec3_t scale(anim_vec3_t a, float s) {
  return v3(a.x * s, a.y * s, a.z * s);
}
static float dot(anim_vec3_t a, anim_vec3_t b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
static anim_vec3_t cross(anim_vec3_t a, anim_vec3_t b) {
  return v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z,
            a.x * b.y - a.y * b.x);
}
static float len2(anim_vec3_t a) { return dot(a, a); }

static anim_quat_t quat(float x, float y, float z, float w) {
  anim_quat_t q = {x, y, z, w};
  return q;
}
static const anim_quat_t identity = {0, 0, 0, 1};

/* a * b: b applied first. */
static anim_quat_t qmul(anim_quat_t a, anim_quat_t b) {
  return quat(a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
              a.w * b.y + a.y * b.w + a.z * b.x - a.x * b.z,
              a.w * b.z + a.z * b.w + a.x * b.y - a.y * b.x,
              a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z);
}

IK_INLINE anim_quat_t qnormalize(anim_quat_t q) {
  float l = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
  if (!(l > 0.0f)) return identity;
  float r = 1.0f / l;
  return quat(q.x * r, q.y * r, q.z * r, q.w * r);
}

/* v rotated by unit q. */
IK_INLINE anim_vec3_t qrotate(anim_quat_t q, anim_vec3_t v) {
  anim_vec3_t u = v3(q.x, q.y, q.z);
  anim_vec3_t t = scale(cross(u, v), 2.0f);
  return add(add(v, scale(t, q.w)), cross(u, t));
}

/* Rotation by angle about unit axis. */
static anim_quat_t axis_angle(anim_vec3_t axis, float angle) {
  float s = sinf(0.5f * angle);
  return quat(axis.x * s, axis.y * s, axis.z * s, cosf(0.5f * angle));
}

/* The shortest rotation taking direction from to direction to (any
 * lengths; identity when either is about zero; half a turn about an axis
 * orthogonal to from when they are opposite). */
IK_INLINE anim_quat_t from_to(anim_vec3_t from, anim_vec3_t to) {
  float norms = sqrtf(len2(from) * len2(to));
  if (!(norms >= 1e-6f)) return identity;
  float real = norms + dot(from, to);
  if (real < 1e-6f * norms) {
    anim_vec3_t axis = fabsf(from.x) > fabsf(from.z) ? v3(-from.y, from.x, 0)
                                                     : v3(0, -from.z, from.y);
    return qnormalize(quat(axis.x, axis.y, axis.z, 0));
  }
  anim_vec3_t c = cross(from, to);
  return qnormalize(quat(c.x, c.y, c.z, real));
}

/* The turn about unit axis taking normal from onto normal to, both
 * orthogonal to axis: the same rotation as the one about axis by the angle
 * between them (its sign from which side to lies), built from their cross
 * product rather than from the cosine, which loses half the digits near
 * zero angles. */
IK_INLINE anim_quat_t plane_turn(anim_vec3_t from, anim_vec3_t to,
                                 anim_vec3_t axis) {
  float norms = sqrtf(len2(from) * len2(to));
  float real = norms + dot(from, to);
  if (real < 1e-6f * norms) return quat(axis.x, axis.y, axis.z, 0);
  /* cross(from, to) lies along axis; projecting drops rounding off it. */
  float along = dot(cross(from, to), axis);
  return qnormalize(quat(axis.x * along, axis.y * along, axis.z * along, real));
}

/* q with w >= 0 (the same rotation), so a blend with identity takes the
 * short way. */
IK_INLINE anim_quat_t positive_w(anim_quat_t q) {
  return q.w < 0.0f ? quat(-q.x, -q.y, -q.z, -q.w) : q;
}

/* identity blended toward q by weight in [0, 1], shortest path. */
IK_INLINE anim_quat_t weigh(anim_quat_t q, float weight) {
  q = positive_w(q);
  if (weight >= 1.0f) return q;
  float w = weight > 0.0f ? weight : 0.0f;
  return qnormalize(quat(q.x * w, q.y * w, q.z * w, 1.0f + (q.w - 1.0f) * w));
}

static anim_vec3_t point(const anim_mat4_t *m, anim_vec3_t p) {
  const float *a = m->m;
  return v3(a[0] * p.x + a[4] * p.y + a[8] * p.z + a[12],
            a[1] * p.x + a[5] * p.y + a[9] * p.z + a[13],
            a[2] * p.x + a[6] * p.y + a[10] * p.z + a[14]);
}
static anim_vec3_t vector(const anim_mat4_t *m, anim_vec3_t v) {
  const float *a = m->m;
  return v3(a[0] * v.x + a[4] * v.y + a[8] * v.z,
            a[1] * v.x + a[5] * v.y + a[9] * v.z,
            a[2] * v.x + a[6] * v.y + a[10] * v.z);
}
static anim_vec3_t origin(const anim_mat4_t *m) {
  return v3(m->m[12], m->m[13], m->m[14]);
}

/* The inverse of affine m in float (cofactors of the 3x3 part), as the
 * jobs need it for a few points: false when m is singular. */
IK_INLINE bool invert(const anim_mat4_t *m, anim_mat4_t *out) {
  const float *a = m->m;
  float c0 = a[5] * a[10] - a[6] * a[9];
  float c1 = a[6] * a[8] - a[4] * a[10];
  float c2 = a[4] * a[9] - a[5] * a[8];
  float det = a[0] * c0 + a[1] * c1 + a[2] * c2;
  if (!(fabsf(det) > 1e-30f) || !isfinite(det)) return false;
  float r = 1.0f / det;
  float *o = out->m;
  o[0] = c0 * r;
  o[1] = (a[2] * a[9] - a[1] * a[10]) * r;
  o[2] = (a[1] * a[6] - a[2] * a[5]) * r;
  o[4] = c1 * r;
  o[5] = (a[0] * a[10] - a[2] * a[8]) * r;
  o[6] = (a[2] * a[4] - a[0] * a[6]) * r;
  o[8] = c2 * r;
  o[9] = (a[1] * a[8] - a[0] * a[9]) * r;
  o[10] = (a[0] * a[5] - a[1] * a[4]) * r;
  o[3] = o[7] = o[11] = 0.0f;
  o[12] = -(o[0] * a[12] + o[4] * a[13] + o[8] * a[14]);
  o[13] = -(o[1] * a[12] + o[5] * a[13] + o[9] * a[14]);
  o[14] = -(o[2] * a[12] + o[6] * a[13] + o[10] * a[14]);
  o[15] = 1.0f;
  return true;
}

/* Whether the n floats at v are all finite: an exponent field of all ones
 * (infinity, NaN) is the only one that carries into bit 31 when its lowest
 * bit is added. No branch per float, so the loop vectorizes. */
static bool all_finite(const float *v, size_t n) {
  uint32_t carry = 0;
  for (size_t i = 0; i < n; i++) {
    uint32_t u;
    memcpy(&u, v + i, sizeof u);
    carry |= (u & 0x7f800000u) + 0x00800000u;
  }
  return (carry & 0x80000000u) == 0;
}
static bool finite_mat(const anim_mat4_t *m) { return all_finite(m->m, 16); }
static bool unit(anim_vec3_t v) { return fabsf(len2(v) - 1.0f) <= 2e-3f; }
static float clamp1(float c) { return c < -1.0f ? -1.0f : c > 1.0f ? 1.0f : c; }

/* ---- two-bone ----------------------------------------------------------- */

anim_ik_two_bone_job_t anim_ik_two_bone_job_defaults(void) {
  anim_ik_two_bone_job_t j = {
      .pole = {0, 1, 0}, .mid_axis = {0, 0, 1}, .soften = 1.0f, .weight = 1.0f};
  return j;
}

anim_result anim_ik_two_bone_job_validate(const anim_ik_two_bone_job_t *job) {
  if (job == NULL || job->start == NULL || job->mid == NULL ||
      job->end == NULL || job->start_correction == NULL ||
      job->mid_correction == NULL)
    return ANIM_ERR_INVALID_ARGUMENT;
  const float scalars[12] = {job->target.x,   job->target.y,   job->target.z,
                             job->pole.x,     job->pole.y,     job->pole.z,
                             job->mid_axis.x, job->mid_axis.y, job->mid_axis.z,
                             job->twist,      job->soften,     job->weight};
  bool finite = all_finite(scalars, 12) & finite_mat(job->start) &
                finite_mat(job->mid) & finite_mat(job->end);
  if (!finite || !unit(job->mid_axis)) return ANIM_ERR_INVALID_ARGUMENT;
  return ANIM_OK;
}

/* The chain seen from the start and mid joints' spaces (_ss, _ms). */
typedef struct chain_s {
  anim_mat4_t inv_start;
  anim_vec3_t start_mid_ms, mid_end_ms; /* Bones in mid space. */
  anim_vec3_t start_mid_ss;             /* Start->mid in start space. */
  float l1_2, l2_2, start_end_2;        /* Squared lengths (start space). */
} chain_t;

static bool chain_setup(const anim_ik_two_bone_job_t *job, chain_t *c) {
  anim_mat4_t inv_mid;
  if (!invert(job->start, &c->inv_start) || !invert(job->mid, &inv_mid))
    return false;
  anim_vec3_t start_ms = point(&inv_mid, origin(job->start));
  anim_vec3_t end_ms = point(&inv_mid, origin(job->end));
  anim_vec3_t mid_ss = point(&c->inv_start, origin(job->mid));
  anim_vec3_t end_ss = point(&c->inv_start, origin(job->end));
  c->start_mid_ms = scale(start_ms, -1.0f);
  c->mid_end_ms = end_ms;
  c->start_mid_ss = mid_ss;
  c->l1_2 = len2(mid_ss);
  c->l2_2 = len2(sub(end_ss, mid_ss));
  c->start_end_2 = len2(end_ss);
  /* A zero-length bone has no direction to bend. */
  return c->l1_2 > 1e-12f && c->l2_2 > 1e-12f;
}

/* The target in start space, pulled in by soften; *reached as ik.h says. */
static anim_vec3_t soften_target(const anim_ik_two_bone_job_t *job,
                                 const chain_t *c, float *target_2,
                                 bool *reached) {
  anim_vec3_t t = point(&c->inv_start, job->target);
  float d2 = len2(t), d = sqrtf(d2);
  float l1 = sqrtf(c->l1_2), l2 = sqrtf(c->l2_2);
  float chain = l1 + l2;
  float soften = job->soften < 0.0f   ? 0.0f
                 : job->soften > 1.0f ? 1.0f
                                      : job->soften;
  float da = chain * soften, ds = chain - da;
  *reached = !(d > da) && d > fabsf(l1 - l2);
  *target_2 = d2;
  if (d > da && d > 0.0f && ds > 0.0f) {
    float a = (d - da) / ds;
    float k = (a + 3.0f) * (a + 3.0f);
    float ratio = 81.0f / (k * k);
    float l = da + ds - ds * ratio;
    *target_2 = l * l;
    t = scale(t, l / d);
  }
  return t;
}

/* The mid joint's correction (mid space): the law of cosines gives the
 * angle at mid for the target distance (a) and for the current one (b);
 * the sign of b says on which side of mid_axis the chain bends. The turn
 * by a - b about mid_axis needs only the cosine and sine of (a - b) / 2,
 * which follow from the half angles' (from the cosines: cos^2(a/2) =
 * (1 + cos a) / 2 for a in [0, pi]) by the difference formulas: square
 * roots instead of arc cosines, a sine and a cosine. */
static anim_quat_t bend_mid(const anim_ik_two_bone_job_t *job, const chain_t *c,
                            float target_2) {
  float sum = c->l1_2 + c->l2_2;
  float half_rlen = 0.5f / sqrtf(c->l1_2 * c->l2_2);
  float cos_a = clamp1((sum - target_2) * half_rlen);
  float cos_b = clamp1((sum - c->start_end_2) * half_rlen);
  float ca = sqrtf(0.5f + 0.5f * cos_a), sa = sqrtf(0.5f - 0.5f * cos_a);
  float cb = sqrtf(0.5f + 0.5f * cos_b), sb = sqrtf(0.5f - 0.5f * cos_b);
  anim_vec3_t side = cross(c->start_mid_ms, job->mid_axis);
  if (dot(side, c->mid_end_ms) < 0.0f) sb = -sb;
  float s = sa * cb - ca * sb, w = ca * cb + sa * sb;
  anim_vec3_t axis = job->mid_axis;
  return quat(axis.x * s, axis.y * s, axis.z * s, w);
}

/* The start joint's correction (start space): the end swung onto the
 * target line, the chain's plane turned to the pole, then twisted. */
static anim_quat_t swing_start(const anim_ik_two_bone_job_t *job,
                               const chain_t *c, anim_quat_t mid_rot,
                               anim_vec3_t target_ss, float target_2) {
  anim_vec3_t pole_ss = vector(&c->inv_start, job->pole);
  anim_vec3_t mid_end_final =
      vector(&c->inv_start, vector(job->mid, qrotate(mid_rot, c->mid_end_ms)));
  anim_vec3_t start_end_final = add(c->start_mid_ss, mid_end_final);
  anim_quat_t swing = from_to(start_end_final, target_ss);
  if (!(target_2 > 0.0f)) return swing;
  anim_vec3_t ref_normal = cross(target_ss, pole_ss);
  anim_vec3_t mid_axis_ss =
      vector(&c->inv_start, vector(job->mid, job->mid_axis));
  anim_vec3_t joint_normal = qrotate(swing, mid_axis_ss);
  float ref_2 = len2(ref_normal), joint_2 = len2(joint_normal);
  anim_vec3_t axis = scale(target_ss, 1.0f / sqrtf(target_2));
  anim_quat_t plane = identity;
  /* A pole along the target line defines no plane: the swing alone. */
  if (ref_2 > 0.0f && joint_2 > 0.0f)
    plane = plane_turn(joint_normal, ref_normal, axis);
  anim_quat_t r = qmul(plane, swing);
  if (job->twist != 0.0f) r = qmul(axis_angle(axis, job->twist), r);
  return r;
}

anim_result anim_ik_two_bone_job_run(const anim_ik_two_bone_job_t *job) {
  anim_result r = anim_ik_two_bone_job_validate(job);
  if (r != ANIM_OK) return r;
  *job->start_correction = identity;
  *job->mid_correction = identity;
  if (job->reached != NULL) *job->reached = false;
  if (job->weight <= 0.0f) return ANIM_OK;
  chain_t c;
  if (!chain_setup(job, &c)) return ANIM_OK;
  float target_2;
  bool reached;
  anim_vec3_t target_ss = soften_target(job, &c, &target_2, &reached);
  anim_quat_t mid = bend_mid(job, &c, target_2);
  anim_quat_t start = swing_start(job, &c, mid, target_ss, target_2);
  *job->start_correction = weigh(start, job->weight);
  *job->mid_correction = weigh(mid, job->weight);
  if (job->reached != NULL) *job->reached = reached && job->weight >= 1.0f;
  return ANIM_OK;
}

/* ---- aim ------------------------------------------------------------------
 */

anim_ik_aim_job_t anim_ik_aim_job_defaults(void) {
  anim_ik_aim_job_t j = {
      .forward = {1, 0, 0}, .up = {0, 1, 0}, .pole = {0, 1, 0}, .weight = 1.0f};
  return j;
}

anim_result anim_ik_aim_job_validate(const anim_ik_aim_job_t *job) {
  if (job == NULL || job->joint == NULL || job->correction == NULL)
    return ANIM_ERR_INVALID_ARGUMENT;
  const float scalars[17] = {job->target.x,  job->target.y,  job->target.z,
                             job->forward.x, job->forward.y, job->forward.z,
                             job->up.x,      job->up.y,      job->up.z,
                             job->offset.x,  job->offset.y,  job->offset.z,
                             job->pole.x,    job->pole.y,    job->pole.z,
                             job->twist,     job->weight};
  bool finite = all_finite(scalars, 17) & finite_mat(job->joint);
  if (!finite || !unit(job->forward)) return ANIM_ERR_INVALID_ARGUMENT;
  return ANIM_OK;
}

/* The direction, from the joint, of the point where the forward ray cast
 * from offset meets the sphere through the target; false when the offset
 * lies farther from the forward line than the target from the joint. */
static bool offset_forward(anim_vec3_t forward, anim_vec3_t offset,
                           anim_vec3_t target, anim_vec3_t *out) {
  float along = dot(forward, offset);
  float across_2 = len2(offset) - along * along;
  float r2 = len2(target);
  if (across_2 > r2) return false;
  float inside = sqrtf(r2 - across_2);
  *out = add(offset, scale(forward, inside - along));
  return true;
}

anim_result anim_ik_aim_job_run(const anim_ik_aim_job_t *job) {
  anim_result r = anim_ik_aim_job_validate(job);
  if (r != ANIM_OK) return r;
  *job->correction = identity;
  if (job->reached != NULL) *job->reached = false;
  anim_mat4_t inv;
  if (!invert(job->joint, &inv)) return ANIM_OK;
  anim_vec3_t target = point(&inv, job->target);
  float target_2 = len2(target);
  anim_vec3_t forward;
  bool reached = offset_forward(job->forward, job->offset, target, &forward);
  if (job->reached != NULL) *job->reached = reached;
  if (!reached || !(target_2 > 0.0f)) return ANIM_OK;
  anim_quat_t swing = from_to(forward, target);
  anim_vec3_t up = qrotate(swing, job->up);
  anim_vec3_t pole = vector(&inv, job->pole);
  anim_vec3_t ref_normal = cross(pole, target);
  anim_vec3_t joint_normal = cross(up, target);
  float ref_2 = len2(ref_normal), joint_2 = len2(joint_normal);
  anim_vec3_t axis = scale(target, 1.0f / sqrtf(target_2));
  anim_quat_t plane = identity;
  if (ref_2 > 0.0f && joint_2 > 0.0f)
    plane = plane_turn(joint_normal, ref_normal, axis);
  anim_quat_t q = qmul(plane, swing);
  if (job->twist != 0.0f) q = qmul(axis_angle(axis, job->twist), q);
  *job->correction = weigh(q, job->weight);
  return ANIM_OK;
}
