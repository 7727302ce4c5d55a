/* animd core: root motion extraction, accumulation over loops and motion
 * blending (animd/motion.h).
 *
 * The clip's first and last frames are read straight from the root
 * joint's first and last keys (sampling clamps to them at 0 and at the
 * duration), so a loop's motion costs no second sampling. Loops are
 * accumulated in double by exponentiation by squaring: a clock of hours
 * (thousands of loops) costs a dozen products. */
#include <math.h>

#include "animd/motion.h"
#include "clip_interp.h"

/* ---- motions in double, for accumulation ---------------------------------
 */

typedef struct dmotion_s {
  double p[3];
  double q[4]; /* x, y, z, w */
} dmotion_t;

static dmotion_t d_identity(void) {
  dmotion_t m = {{0, 0, 0}, {0, 0, 0, 1}};
  return m;
}

static dmotion_t d_from(anim_motion_t m) {
  dmotion_t d = {{m.translation.x, m.translation.y, m.translation.z},
                 {m.rotation.x, m.rotation.y, m.rotation.z, m.rotation.w}};
  return d;
}

static void d_rotate(const double q[4], const double v[3], double out[3]) {
  /* v + 2w (u x v) + 2 u x (u x v), u = q.xyz */
  double c[3] = {q[1] * v[2] - q[2] * v[1], q[2] * v[0] - q[0] * v[2],
                 q[0] * v[1] - q[1] * v[0]};
  double cc[3] = {q[1] * c[2] - q[2] * c[1], q[2] * c[0] - q[0] * c[2],
                  q[0] * c[1] - q[1] * c[0]};
  for (int i = 0; i < 3; i++) out[i] = v[i] + 2 * (q[3] * c[i] + cc[i]);
}

static dmotion_t d_mul(const dmotion_t *a, const dmotion_t *b) {
  dmotion_t m;
  d_rotate(a->q, b->p, m.p);
  for (int i = 0; i < 3; i++) m.p[i] += a->p[i];
  const double *x = a->q, *y = b->q;
  m.q[0] = x[3] * y[0] + x[0] * y[3] + x[1] * y[2] - x[2] * y[1];
  m.q[1] = x[3] * y[1] - x[0] * y[2] + x[1] * y[3] + x[2] * y[0];
  m.q[2] = x[3] * y[2] + x[0] * y[1] - x[1] * y[0] + x[2] * y[3];
  m.q[3] = x[3] * y[3] - x[0] * y[0] - x[1] * y[1] - x[2] * y[2];
  return m;
}

static dmotion_t d_inverse(const dmotion_t *a) {
  dmotion_t m;
  m.q[0] = -a->q[0], m.q[1] = -a->q[1], m.q[2] = -a->q[2], m.q[3] = a->q[3];
  d_rotate(m.q, a->p, m.p);
  for (int i = 0; i < 3; i++) m.p[i] = -m.p[i];
  return m;
}

/* l^k by squaring; k may be negative. */
static dmotion_t d_pow(dmotion_t l, double k) {
  if (k < 0) {
    l = d_inverse(&l);
    k = -k;
  }
  dmotion_t r = d_identity();
  while (k >= 1) {
    double half = floor(k / 2);
    if (k - 2 * half >= 1) r = d_mul(&r, &l);
    l = d_mul(&l, &l);
    k = half;
  }
  return r;
}

/* ---- the motion of one transform ----------------------------------------
 */

/* The component of v along axis a (x, y, z). */
static float along(anim_quat_t q, int a) {
  return a == 0 ? q.x : (a == 1 ? q.y : q.z);
}

/* ozz's heading (ToEuler's x) of q, with the axes turned so that up plays
 * y: up y reads (x, y, z), up z reads (y, z, x), up x reads (z, x, y). */
static double heading(anim_quat_t q, anim_axis up) {
  int ry = (int)up, rx = (ry + 2) % 3, rz = (ry + 1) % 3;
  double x = along(q, rx), y = along(q, ry), z = along(q, rz), w = q.w;
  double sqw = w * w, sqx = x * x, sqy = y * y, sqz = z * z;
  double unit = sqx + sqy + sqz + sqw;
  double test = x * y + z * w;
  if (test > 0.499 * unit) return 2 * atan2(x, w);
  if (test < -0.499 * unit) return -2 * atan2(x, w);
  return atan2(2 * y * w - 2 * x * z, sqx - sqy - sqz + sqw);
}

anim_motion_t anim_motion_of(const anim_motion_settings_t *settings,
                             anim_vec3_t t, anim_quat_t r, anim_vec3_t tr,
                             anim_quat_t rr) {
  unsigned mask = settings->translation;
  anim_motion_t m = {
      .translation = {(mask & ANIM_MOTION_X) ? t.x - tr.x : 0.f,
                      (mask & ANIM_MOTION_Y) ? t.y - tr.y : 0.f,
                      (mask & ANIM_MOTION_Z) ? t.z - tr.z : 0.f},
      .rotation = anim_quat_identity(),
  };
  if (settings->rotation == ANIM_MOTION_NONE) return m;
  anim_quat_t delta = anim_quat_mul(r, anim_quat_conjugate(rr));
  if (settings->rotation == ANIM_MOTION_FULL) {
    m.rotation = anim_quat_normalize(delta);
    return m;
  }
  double h = heading(delta, settings->up) / 2;
  float s = (float)sin(h), c = (float)cos(h);
  m.rotation = anim_quat(settings->up == ANIM_AXIS_X ? s : 0.f,
                         settings->up == ANIM_AXIS_Y ? s : 0.f,
                         settings->up == ANIM_AXIS_Z ? s : 0.f, c);
  return m;
}

void anim_motion_remove(anim_pose_t *pose, uint32_t joint, anim_motion_t m) {
  /* The pose keeps the rest: q^-1 (T - p), q^-1 R. */
  anim_quat_t inv = anim_quat_conjugate(m.rotation);
  anim_vec3_t *t = &pose->translation[joint];
  anim_quat_t *q = &pose->rotation[joint];
  *t = anim_quat_rotate(inv, anim_vec3_sub(*t, m.translation));
  *q = anim_quat_mul(inv, *q);
}

anim_motion_t anim_motion_mul(anim_motion_t a, anim_motion_t b) {
  anim_motion_t m = {
      .translation = anim_vec3_add(a.translation,
                                   anim_quat_rotate(a.rotation, b.translation)),
      .rotation = anim_quat_mul(a.rotation, b.rotation),
  };
  return m;
}

anim_motion_t anim_motion_inverse(anim_motion_t m) {
  anim_quat_t q = anim_quat_conjugate(m.rotation);
  anim_motion_t r = {
      .translation = anim_vec3_scale(anim_quat_rotate(q, m.translation), -1.f),
      .rotation = q,
  };
  return r;
}

/* ---- the clip's ends -----------------------------------------------------
 */

/* The track of (joint, path), or NULL: tracks are sorted by (joint, path). */
static const anim_track_t *find_track(const anim_clip_t *clip, uint32_t joint,
                                      anim_path path) {
  uint32_t key = joint * 4u + (uint32_t)path, lo = 0, hi = clip->track_count;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    const anim_track_t *tr = &clip->tracks[mid];
    uint32_t k = tr->joint * 4u + tr->path;
    if (k == key) return tr;
    if (k < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}

/* The joint's local translation and rotation at the clip's first (last
 * false) or last frame, as the sampler gives them there. */
static void clip_end(const anim_skeleton_t *sk, const anim_clip_t *clip,
                     uint32_t joint, bool last, anim_vec3_t *t,
                     anim_quat_t *r) {
  *t = sk->rest[joint].translation;
  anim_quat_t q = sk->rest[joint].rotation;
  const anim_track_t *tt =
      clip ? find_track(clip, joint, ANIM_PATH_TRANSLATION) : NULL;
  const anim_track_t *rt =
      clip ? find_track(clip, joint, ANIM_PATH_ROTATION) : NULL;
  if (tt != NULL) {
    const float *v = ci_key_value(tt, last ? tt->key_count - 1 : 0);
    *t = anim_vec3(v[0], v[1], v[2]);
  }
  if (rt != NULL) {
    const float *v = ci_key_value(rt, last ? rt->key_count - 1 : 0);
    q = anim_quat(v[0], v[1], v[2], v[3]);
  }
  *r = sk->has_orient ? anim_quat_mul(sk->orient[joint], q) : q;
}

/* ---- the extraction job ---------------------------------------------------
 */

anim_result
anim_motion_extract_job_validate(const anim_motion_extract_job_t *job) {
  if (job == NULL || job->skeleton == NULL || job->output == NULL)
    return ANIM_ERR_INVALID_ARGUMENT;
  const anim_motion_settings_t *s = &job->settings;
  if ((unsigned)s->rotation >= ANIM_MOTION_ROTATION_COUNT_ ||
      (unsigned)s->reference >= ANIM_MOTION_REFERENCE_COUNT_ ||
      (unsigned)s->up > ANIM_AXIS_Z ||
      (unsigned)job->wrap >= ANIM_WRAP_COUNT_ || (s->translation & ~7u) != 0)
    return ANIM_ERR_INVALID_ARGUMENT;
  const anim_pose_t *p = &job->pose;
  if (p->translation == NULL || p->rotation == NULL || p->scale == NULL)
    return ANIM_ERR_INVALID_ARGUMENT;
  if (s->joint >= job->skeleton->joint_count) return ANIM_ERR_JOINT_RANGE;
  if (job->clip != NULL && job->clip->joint_count != job->skeleton->joint_count)
    return ANIM_ERR_MISMATCH;
  if (p->joint_count < job->skeleton->joint_count)
    return ANIM_ERR_BUFFER_TOO_SMALL;
  return ANIM_OK;
}

anim_result anim_motion_extract_job_run(const anim_motion_extract_job_t *job) {
  anim_result r = anim_motion_extract_job_validate(job);
  if (r != ANIM_OK) return r;
  const anim_skeleton_t *sk = job->skeleton;
  const anim_motion_settings_t *s = &job->settings;
  uint32_t j = s->joint;
  anim_vec3_t tr = anim_vec3(0, 0, 0);
  anim_quat_t rr = anim_quat_identity();
  if (s->reference == ANIM_MOTION_REF_SKELETON) {
    tr = sk->rest[j].translation;
    rr = anim_quat_mul(sk->orient[j], sk->rest[j].rotation);
  } else if (s->reference == ANIM_MOTION_REF_FIRST) {
    clip_end(sk, job->clip, j, false, &tr, &rr);
  }
  anim_motion_t m = anim_motion_of(s, job->pose.translation[j],
                                   job->pose.rotation[j], tr, rr);
  if (job->current != NULL) *job->current = m;
  if (!job->keep_pose) {
    anim_pose_t pose = job->pose;
    anim_motion_remove(&pose, j, m);
  }

  double d = job->clip ? job->clip->duration : 0.0, k = 0;
  if (job->wrap == ANIM_WRAP_LOOP && d > 0 && isfinite(job->time))
    k = floor(job->time / d);
  if (k == 0) {
    *job->output = m;
    return ANIM_OK;
  }
  anim_vec3_t t0, t1;
  anim_quat_t r0, r1;
  clip_end(sk, job->clip, j, false, &t0, &r0);
  clip_end(sk, job->clip, j, true, &t1, &r1);
  dmotion_t m0 = d_from(anim_motion_of(s, t0, r0, tr, rr));
  dmotion_t m1 = d_from(anim_motion_of(s, t1, r1, tr, rr));
  dmotion_t inv0 = d_inverse(&m0);
  dmotion_t loop = d_mul(&m1, &inv0);
  dmotion_t acc = d_pow(loop, k);
  dmotion_t now = d_from(m);
  dmotion_t out = d_mul(&acc, &now);
  double n = sqrt(out.q[0] * out.q[0] + out.q[1] * out.q[1] +
                  out.q[2] * out.q[2] + out.q[3] * out.q[3]);
  if (!(n > 0)) n = 1, out.q[3] = 1;
  /* Loops enough to walk beyond a float's range: refused, never inf. */
  for (int i = 0; i < 3; i++)
    if (!(fabs(out.p[i]) <= 3.4e38)) return ANIM_ERR_NOT_FINITE;
  job->output->translation =
      anim_vec3((float)out.p[0], (float)out.p[1], (float)out.p[2]);
  job->output->rotation =
      anim_quat((float)(out.q[0] / n), (float)(out.q[1] / n),
                (float)(out.q[2] / n), (float)(out.q[3] / n));
  return ANIM_OK;
}

/* ---- blending --------------------------------------------------------------
 */

anim_result anim_motion_blend_job_run(const anim_motion_blend_job_t *job) {
  if (job == NULL || job->output == NULL ||
      (job->count > 0 && (job->motions == NULL || job->weights == NULL)))
    return ANIM_ERR_INVALID_ARGUMENT;
  float total = 0, length = 0;
  anim_vec3_t dir = anim_vec3(0, 0, 0);
  anim_quat_t rot = anim_quat(0, 0, 0, 0);
  for (size_t i = 0; i < job->count; i++) {
    float w = job->weights[i];
    if (!(w > 0.f)) continue;
    const anim_motion_t *m = &job->motions[i];
    total += w;
    /* A direction and a length, so lengths blend without shrinking. */
    float len = anim_vec3_length(m->translation);
    length += len * w;
    if (len > 0.f)
      dir = anim_vec3_add(dir, anim_vec3_scale(m->translation, w / len));
    float sw = anim_quat_dot(rot, m->rotation) < 0.f ? -w : w;
    rot = anim_quat(rot.x + m->rotation.x * sw, rot.y + m->rotation.y * sw,
                    rot.z + m->rotation.z * sw, rot.w + m->rotation.w * sw);
  }
  float denom = anim_vec3_length(dir) * total;
  float norm = denom > 0.f ? length / denom : 0.f;
  job->output->translation = anim_vec3_scale(dir, norm);
  job->output->rotation = anim_quat_length_sq(rot) > 0.f
                              ? anim_quat_normalize(rot)
                              : anim_quat_identity();
  return ANIM_OK;
}
