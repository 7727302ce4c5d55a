/* animd core: building rotations (axis-angle, rotation matrix, yaw-pitch-
 * roll, between two directions, arcball) and reading one back as axis-angle.
 *
 * The conversions that can meet degenerate input (from a matrix at 180
 * degrees, between parallel or opposite directions) take the numerically
 * safe route: Shepperd's largest-diagonal branch for matrices, and an
 * atan2 half-angle in double precision for the vector pair. */
#include <math.h>

#include "animd/math.h"

anim_quat_t anim_quat_from_axis_angle(anim_vec3_t axis, float angle) {
  anim_vec3_t n = anim_vec3_normalize(axis);
  if (n.x == 0.0f && n.y == 0.0f && n.z == 0.0f) return anim_quat_identity();
  float h = 0.5f * angle, s = sinf(h);
  return anim_quat(n.x * s, n.y * s, n.z * s, cosf(h));
}

void anim_quat_to_axis_angle(anim_quat_t q, anim_vec3_t *axis, float *angle) {
  q = anim_quat_normalize(q);
  if (q.w < 0.0f) q = anim_quat(-q.x, -q.y, -q.z, -q.w);
  float s = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z);
  anim_vec3_t ax = anim_vec3(1.0f, 0.0f, 0.0f);
  float an = 0.0f;
  if (s > 0.0f) {
    ax = anim_vec3(q.x / s, q.y / s, q.z / s);
    an = 2.0f * atan2f(s, q.w);
  }
  if (axis != NULL) *axis = ax;
  if (angle != NULL) *angle = an;
}

/* Shepperd: of 4w^2 = 1 + tr, 4x^2 = 1 + 2R00 - tr, ... compute the largest
 * from the diagonal and the other three from the off-diagonal sums and
 * differences, so the divisor is never below 1/2. */
anim_quat_t anim_quat_from_mat4(const anim_mat4_t *mat) {
  const float *m = mat->m;
#define R(r, c) m[(c)*4 + (r)]
  float r00 = R(0, 0), r11 = R(1, 1), r22 = R(2, 2);
  float tr = r00 + r11 + r22;
  anim_quat_t q;
  if (tr >= r00 && tr >= r11 && tr >= r22) {
    float s = 2.0f * sqrtf(1.0f + tr); /* 4w */
    q = anim_quat((R(2, 1) - R(1, 2)) / s, (R(0, 2) - R(2, 0)) / s,
                  (R(1, 0) - R(0, 1)) / s, 0.25f * s);
  } else if (r00 >= r11 && r00 >= r22) {
    float s = 2.0f * sqrtf(1.0f + r00 - r11 - r22); /* 4x */
    q = anim_quat(0.25f * s, (R(0, 1) + R(1, 0)) / s, (R(0, 2) + R(2, 0)) / s,
                  (R(2, 1) - R(1, 2)) / s);
  } else if (r11 >= r22) {
    float s = 2.0f * sqrtf(1.0f + r11 - r00 - r22); /* 4y */
    q = anim_quat((R(0, 1) + R(1, 0)) / s, 0.25f * s, (R(1, 2) + R(2, 1)) / s,
                  (R(0, 2) - R(2, 0)) / s);
  } else {
    float s = 2.0f * sqrtf(1.0f + r22 - r00 - r11); /* 4z */
    q = anim_quat((R(0, 2) + R(2, 0)) / s, (R(1, 2) + R(2, 1)) / s, 0.25f * s,
                  (R(1, 0) - R(0, 1)) / s);
  }
#undef R
  return anim_quat_normalize(q);
}

/* yaw(Y) * pitch(X) * roll(Z) multiplied out. */
anim_quat_t anim_quat_from_yaw_pitch_roll(float yaw, float pitch, float roll) {
  float sy = sinf(0.5f * yaw), cy = cosf(0.5f * yaw);
  float sp = sinf(0.5f * pitch), cp = cosf(0.5f * pitch);
  float sr = sinf(0.5f * roll), cr = cosf(0.5f * roll);
  return anim_quat(cy * sp * cr + sy * cp * sr, sy * cp * cr - cy * sp * sr,
                   cy * cp * sr - sy * sp * cr, cy * cp * cr + sy * sp * sr);
}

static double dnorm3(double v[3]) {
  double l = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  if (l > 0.0 && isfinite(l)) {
    v[0] /= l;
    v[1] /= l;
    v[2] /= l;
  }
  return l;
}

anim_quat_t anim_quat_from_to(anim_vec3_t from, anim_vec3_t to) {
  double f[3] = {from.x, from.y, from.z}, t[3] = {to.x, to.y, to.z};
  double lf = dnorm3(f), lt = dnorm3(t);
  if (!(lf >= ANIM_EPS_LENGTH) || !(lt >= ANIM_EPS_LENGTH) || !isfinite(lf) ||
      !isfinite(lt))
    return anim_quat_identity();
  double c[3] = {f[1] * t[2] - f[2] * t[1], f[2] * t[0] - f[0] * t[2],
                 f[0] * t[1] - f[1] * t[0]};
  double d = f[0] * t[0] + f[1] * t[1] + f[2] * t[2];
  double s = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
  if (s < 1e-12) {
    if (d > 0.0) return anim_quat_identity();
    /* Opposite: half a turn about the axis perpendicular to from that is
     * built from the coordinate axis least aligned with it. */
    int k = 0;
    if (fabs(f[1]) < fabs(f[k])) k = 1;
    if (fabs(f[2]) < fabs(f[k])) k = 2;
    double e[3] = {0.0, 0.0, 0.0};
    e[k] = 1.0;
    double p[3] = {f[1] * e[2] - f[2] * e[1], f[2] * e[0] - f[0] * e[2],
                   f[0] * e[1] - f[1] * e[0]};
    dnorm3(p);
    return anim_quat((float)p[0], (float)p[1], (float)p[2], 0.0f);
  }
  double half = 0.5 * atan2(s, d);
  double k = sin(half) / s;
  return anim_quat((float)(c[0] * k), (float)(c[1] * k), (float)(c[2] * k),
                   (float)cos(half));
}

anim_quat_t anim_quat_from_ball_points(anim_vec3_t from, anim_vec3_t to) {
  anim_vec3_t a = anim_vec3_normalize(from), b = anim_vec3_normalize(to);
  anim_vec3_t c = anim_vec3_cross(a, b);
  return anim_quat_normalize(anim_quat(c.x, c.y, c.z, anim_vec3_dot(a, b)));
}
