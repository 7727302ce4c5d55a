/* animd core: the seed-000 solver (local rotations from joint positions).
 *
 * solve.h states the exact definition. Key design choice: each joint's
 * rotation is the rest rotation followed by the shortest swing that aims it
 * at one fixed child (its "aim child", chosen once per run), computed with
 * the half-way quaternion (u x d, |u||d| + u.d) rather than acos of a dot
 * product, so non-unit and nearly parallel bones stay exact; anti-parallel
 * or zero-length bones keep the previous frame's rotation. The scratch holds
 * per joint the solved model rotation of the current frame and the aim
 * child's storage index. */
#include <math.h>

#include "animd/solve.h"

#define ANTI_PARALLEL_COS (-1.0f + 1e-6f)

anim_result anim_solve_job_validate(const anim_solve_job_t *job) {
  if (!job || !job->skeleton || !job->positions || !job->local_rotations ||
      !job->delta_rotations || !job->scratch)
    return ANIM_ERR_INVALID_ARGUMENT;
  const size_t n = job->skeleton->joint_count;
  if (n == 0 || job->frame_count == 0 ||
      job->frame_count > SIZE_MAX / 3 / n / sizeof(anim_quat_t))
    return ANIM_ERR_INVALID_ARGUMENT;
  const size_t entries = job->frame_count * n;
  if (job->output_count < entries) return ANIM_ERR_BUFFER_TOO_SMALL;
  if (job->position_count && job->position_count < 3 * entries)
    return ANIM_ERR_BUFFER_TOO_SMALL;
  if (job->scratch_count < ANIM_SOLVE_SCRATCH_PER_JOINT * n)
    return ANIM_ERR_BUFFER_TOO_SMALL;
  return ANIM_OK;
}

static anim_vec3_t vec3_at(const float *p) {
  return anim_vec3(p[0], p[1], p[2]);
}

/* Scratch layout: model rotation (4 floats) then the aim child's storage
 * index as a float (exact below 2^24), or -1. */
static float *slot(const anim_solve_job_t *job, uint32_t j) {
  return job->scratch + (size_t)ANIM_SOLVE_SCRATCH_PER_JOINT * j;
}

static anim_vec3_t rest_offset(const anim_skeleton_t *sk, uint32_t j,
                               uint32_t c) {
  return anim_vec3_mul(sk->rest[j].scale, sk->rest[c].translation);
}

static void find_aim_children(const anim_solve_job_t *job) {
  const anim_skeleton_t *sk = job->skeleton;
  const uint32_t n = sk->joint_count;
  for (uint32_t j = 0; j < n; j++) slot(job, j)[4] = -1.0f;
  for (uint32_t caller = 0; caller < n; caller++) {
    uint32_t c = sk->from_caller[caller];
    int32_t p = sk->parents[c];
    if (p < 0 || slot(job, (uint32_t)p)[4] >= 0.0f) continue;
    if (anim_vec3_length(rest_offset(sk, (uint32_t)p, c)) > ANIM_EPS_LENGTH)
      slot(job, (uint32_t)p)[4] = (float)c;
  }
}

/* Shortest-arc rotation from u to d, or false when it is undefined. */
static bool swing(anim_vec3_t u, anim_vec3_t d, anim_quat_t *q) {
  float lu = anim_vec3_length(u), ld = anim_vec3_length(d);
  if (!(ld > ANIM_EPS_LENGTH) || !isfinite(ld) || !(lu > ANIM_EPS_LENGTH))
    return false;
  float dot = anim_vec3_dot(u, d);
  if (dot <= ANTI_PARALLEL_COS * lu * ld) return false;
  anim_vec3_t axis = anim_vec3_cross(u, d);
  *q = anim_quat_normalize(anim_quat(axis.x, axis.y, axis.z, lu * ld + dot));
  return true;
}

static anim_quat_t get_quat(const float *s) {
  return anim_quat(s[0], s[1], s[2], s[3]);
}

static void put_quat(float *s, anim_quat_t q) {
  s[0] = q.x;
  s[1] = q.y;
  s[2] = q.z;
  s[3] = q.w;
}

static anim_quat_t negate(anim_quat_t q) {
  return anim_quat(-q.x, -q.y, -q.z, -q.w);
}

anim_result anim_solve_job_run(const anim_solve_job_t *job) {
  anim_result r = anim_solve_job_validate(job);
  if (r != ANIM_OK) return r;
  const anim_skeleton_t *sk = job->skeleton;
  const uint32_t n = sk->joint_count;
  find_aim_children(job);
  for (size_t f = 0; f < job->frame_count; f++) {
    const float *x = job->positions + f * n * 3;
    anim_quat_t *local = job->local_rotations + f * n;
    anim_quat_t *delta = job->delta_rotations + f * n;
    const anim_quat_t *prev = f ? local - n : NULL;
    for (uint32_t j = 0; j < n; j++) {
      const uint32_t cj = sk->to_caller[j];
      const int32_t p = sk->parents[j];
      const anim_quat_t gp =
          p < 0 ? anim_quat_identity() : get_quat(slot(job, (uint32_t)p));
      const anim_quat_t r0 = anim_quat_mul(sk->orient[j], sk->rest[j].rotation);
      anim_quat_t l = prev ? prev[cj] : r0;
      const float aim = slot(job, j)[4];
      if (aim >= 0.0f) {
        const uint32_t c = (uint32_t)aim;
        const anim_quat_t cand = anim_quat_mul(gp, r0);
        anim_vec3_t u = anim_quat_rotate(cand, rest_offset(sk, j, c));
        anim_vec3_t d = anim_vec3_sub(vec3_at(x + 3 * sk->to_caller[c]),
                                      vec3_at(x + 3 * cj));
        anim_quat_t s;
        if (swing(u, d, &s))
          l = anim_quat_mul(anim_quat_conjugate(gp), anim_quat_mul(s, cand));
      }
      l = anim_quat_normalize(l);
      if (prev ? anim_quat_dot(l, prev[cj]) < 0.0f : l.w < 0.0f) l = negate(l);
      local[cj] = l;
      put_quat(slot(job, j), anim_quat_normalize(anim_quat_mul(gp, l)));
      delta[cj] = prev ? anim_quat_mul(anim_quat_conjugate(prev[cj]), l)
                       : anim_quat_identity();
    }
  }
  return ANIM_OK;
}
