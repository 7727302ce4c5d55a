/* animd core: dual-quaternion skinning (DQS).
 *
 * Each run first turns every skinning matrix M = [A | t] into a unit dual
 * quaternion (q, d) in the caller's scratch: q is the rotation of the polar
 * decomposition of A (Newton iteration X <- (X + X^-T) / 2 in double, on A
 * with its first column negated when det A < 0; identity when A is
 * singular), d = 0.5 * (t, 0) * q. Per vertex, the non-rigid parts
 * S_i = R_i^T A_i are blended linearly and applied first, then the blended,
 * sign-aligned and normalized dual quaternion. Key design choice: rigid
 * joints (S_i = I within RIGID_TOLERANCE) are marked in the scratch and
 * cost nothing in the S blend; when every matrix is rigid, the common case
 * for real rigs, the S blend is skipped entirely and the AVX2 kernel
 * (skinning_dqs_avx2.c) takes over when the CPU has it. The non-rigid path
 * is exact but slower and stays scalar. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "skinning_internal.h"

/* A 3x3 part whose columns are orthonormal within this (|a_i . a_j -
 * delta_ij|) and whose determinant is positive counts as rigid: S = I. That
 * is about 10x the rounding of a 13-deep chain of float matrices, and the
 * S dropped is then at most this far from I. */
#define RIGID_TOLERANCE 1e-5

/* ---- per-joint conversion ------------------------------------------------ */

typedef struct dmat3_s {
  double c[3][3];
} dmat3_t; /* c[column][row] */

static double det3(const dmat3_t *m) {
  const double *a = m->c[0], *b = m->c[1], *c = m->c[2];
  return a[0] * (b[1] * c[2] - b[2] * c[1]) -
         b[0] * (a[1] * c[2] - a[2] * c[1]) +
         c[0] * (a[1] * b[2] - a[2] * b[1]);
}

/* inverse(m)^T = cofactor(m) / det: columns b x c, c x a, a x b. */
static void inverse_transpose(const dmat3_t *m, double det, dmat3_t *out) {
  for (int k = 0; k < 3; k++) {
    const double *a = m->c[(k + 1) % 3], *b = m->c[(k + 2) % 3];
    out->c[k][0] = (a[1] * b[2] - a[2] * b[1]) / det;
    out->c[k][1] = (a[2] * b[0] - a[0] * b[2]) / det;
    out->c[k][2] = (a[0] * b[1] - a[1] * b[0]) / det;
  }
}

/* Rotation of the polar decomposition of a (det a > 0), or the identity
 * when a is (nearly) singular. */
static void polar_rotation(const dmat3_t *a, dmat3_t *r) {
  double det = det3(a);
  double norm2 = 0.0;
  for (int c = 0; c < 3; c++)
    for (int i = 0; i < 3; i++) norm2 += a->c[c][i] * a->c[c][i];
  memset(r, 0, sizeof *r);
  if (!(det > 1e-12 * norm2 * sqrt(norm2))) {
    r->c[0][0] = r->c[1][1] = r->c[2][2] = 1.0;
    return;
  }
  /* Scaling to det 1 keeps the iteration well conditioned. */
  double s = 1.0 / cbrt(det);
  dmat3_t x;
  for (int c = 0; c < 3; c++)
    for (int i = 0; i < 3; i++) x.c[c][i] = a->c[c][i] * s;
  for (int it = 0; it < 64; it++) {
    dmat3_t y;
    double dx = det3(&x);
    if (!(dx > 0.0)) break;
    inverse_transpose(&x, dx, &y);
    /* Higham's scaling: gamma = (|X^-1| / |X|)^(1/2) in Frobenius norms. */
    double nx = 0.0, ny = 0.0, change = 0.0;
    for (int c = 0; c < 3; c++)
      for (int i = 0; i < 3; i++) {
        nx += x.c[c][i] * x.c[c][i];
        ny += y.c[c][i] * y.c[c][i];
      }
    double g = sqrt(sqrt(ny / nx));
    for (int c = 0; c < 3; c++)
      for (int i = 0; i < 3; i++) {
        double v = 0.5 * (g * x.c[c][i] + y.c[c][i] / g);
        change += fabs(v - x.c[c][i]);
        x.c[c][i] = v;
      }
    if (change < 1e-14) break;
  }
  *r = x;
}

/* A unit quaternion from a rotation matrix (Shepperd: the largest of
 * w, x, y, z is found first, so all four branches are exact). */
static anim_quat_t quat_from_rotation(const dmat3_t *r) {
  /* m(row, col) = r->c[col][row] */
#define M(i, j) (r->c[j][i])
  double tr = M(0, 0) + M(1, 1) + M(2, 2);
  double x, y, z, w;
  if (tr >= M(0, 0) && tr >= M(1, 1) && tr >= M(2, 2)) {
    double s = 2.0 * sqrt(1.0 + tr);
    w = 0.25 * s;
    x = (M(2, 1) - M(1, 2)) / s;
    y = (M(0, 2) - M(2, 0)) / s;
    z = (M(1, 0) - M(0, 1)) / s;
  } else if (M(0, 0) >= M(1, 1) && M(0, 0) >= M(2, 2)) {
    double s = 2.0 * sqrt(1.0 + M(0, 0) - M(1, 1) - M(2, 2));
    x = 0.25 * s;
    w = (M(2, 1) - M(1, 2)) / s;
    y = (M(0, 1) + M(1, 0)) / s;
    z = (M(0, 2) + M(2, 0)) / s;
  } else if (M(1, 1) >= M(2, 2)) {
    double s = 2.0 * sqrt(1.0 + M(1, 1) - M(0, 0) - M(2, 2));
    y = 0.25 * s;
    w = (M(0, 2) - M(2, 0)) / s;
    x = (M(0, 1) + M(1, 0)) / s;
    z = (M(1, 2) + M(2, 1)) / s;
  } else {
    double s = 2.0 * sqrt(1.0 + M(2, 2) - M(0, 0) - M(1, 1));
    z = 0.25 * s;
    w = (M(1, 0) - M(0, 1)) / s;
    x = (M(0, 2) + M(2, 0)) / s;
    y = (M(1, 2) + M(2, 1)) / s;
  }
#undef M
  double len = sqrt(x * x + y * y + z * z + w * w);
  anim_quat_t q = {(float)(x / len), (float)(y / len), (float)(z / len),
                   (float)(w / len)};
  return q;
}

/* Fills scratch with (q, d) per joint; returns whether every matrix is
 * rigid (orthonormal 3x3 with det > 0, within RIGID_TOLERANCE). Since
 * (q, d) and (-q, -d) are the same transform, the sign bit of q's w marks
 * each joint: clear for a rigid one, set for a non-rigid one, so the
 * per-vertex blend only pays for the non-rigid part of joints that have
 * one. */
static bool convert_joints(const anim_skinning_job_t *job) {
  bool all_rigid = true;
  const uint32_t n = job->mesh->joint_count;
  for (uint32_t j = 0; j < n; j++) {
    const float *m = job->matrices[j].m;
    dmat3_t a;
    for (int c = 0; c < 3; c++)
      for (int i = 0; i < 3; i++) a.c[c][i] = m[4 * c + i];
    double det = det3(&a);
    bool rigid = det > 0.0;
    for (int c = 0; c < 3 && rigid; c++)
      for (int e = c; e < 3; e++) {
        double dot = a.c[c][0] * a.c[e][0] + a.c[c][1] * a.c[e][1] +
                     a.c[c][2] * a.c[e][2];
        if (fabs(dot - (c == e ? 1.0 : 0.0)) > RIGID_TOLERANCE) rigid = false;
      }
    all_rigid = all_rigid && rigid;
    if (det < 0.0)
      for (int i = 0; i < 3; i++) a.c[0][i] = -a.c[0][i];
    dmat3_t r;
    polar_rotation(&a, &r);
    anim_quat_t q = quat_from_rotation(&r);
    if ((signbit(q.w) != 0) == rigid) q = (anim_quat_t){-q.x, -q.y, -q.z, -q.w};
    float tx = m[12], ty = m[13], tz = m[14];
    float *s = job->scratch + (size_t)ANIM_DQS_SCRATCH_PER_MATRIX * j;
    s[0] = q.x;
    s[1] = q.y;
    s[2] = q.z;
    s[3] = q.w;
    /* d = 0.5 * (t, 0) * q */
    s[4] = 0.5f * (q.w * tx + (ty * q.z - tz * q.y));
    s[5] = 0.5f * (q.w * ty + (tz * q.x - tx * q.z));
    s[6] = 0.5f * (q.w * tz + (tx * q.y - ty * q.x));
    s[7] = -0.5f * (tx * q.x + ty * q.y + tz * q.z);
  }
  return all_rigid;
}

/* ---- per vertex ---------------------------------------------------------- */

/* v' = q v q* for a unit q. */
static void rotate(const float q[4], const float v[3], float out[3]) {
  float t0 = 2.0f * (q[1] * v[2] - q[2] * v[1]);
  float t1 = 2.0f * (q[2] * v[0] - q[0] * v[2]);
  float t2 = 2.0f * (q[0] * v[1] - q[1] * v[0]);
  out[0] = v[0] + q[3] * t0 + (q[1] * t2 - q[2] * t1);
  out[1] = v[1] + q[3] * t1 + (q[2] * t0 - q[0] * t2);
  out[2] = v[2] + q[3] * t2 + (q[0] * t1 - q[1] * t0);
}

static void put_normal(float *out, const float t[3]) {
  float d = t[0] * t[0] + t[1] * t[1] + t[2] * t[2];
  float len = sqrtf(d > FLT_MIN ? d : FLT_MIN);
  out[0] = t[0] / len;
  out[1] = t[1] / len;
  out[2] = t[2] / len;
}

/* s += w * R^T A for the joint's matrix and rotation q (s[col][row]). */
static void add_nonrigid(float s[3][3], float w, const float *m,
                         const float q[4]) {
  const float qc[4] = {-q[0], -q[1], -q[2], q[3]};
  for (int c = 0; c < 3; c++) {
    float col[3];
    rotate(qc, m + 4 * c, col);
    for (int i = 0; i < 3; i++) s[c][i] += w * col[i];
  }
}

static void apply3(const float s[3][3], const float v[3], float out[3]) {
  for (int i = 0; i < 3; i++)
    out[i] = s[0][i] * v[0] + s[1][i] * v[1] + s[2][i] * v[2];
}

static void apply_inverse_transpose(const float s[3][3], const float v[3],
                                    float out[3]) {
  float k[3][3];
  for (int c = 0; c < 3; c++) {
    const float *a = s[(c + 1) % 3], *b = s[(c + 2) % 3];
    k[c][0] = a[1] * b[2] - a[2] * b[1];
    k[c][1] = a[2] * b[0] - a[0] * b[2];
    k[c][2] = a[0] * b[1] - a[1] * b[0];
  }
  float det = s[0][0] * k[0][0] + s[0][1] * k[0][1] + s[0][2] * k[0][2];
  apply3((const float(*)[3])k, v, out);
  if (det < 0.0f)
    for (int i = 0; i < 3; i++) out[i] = -out[i];
}

void anim__skin_dqs(const anim_skinning_job_t *job, uint32_t first,
                    uint32_t count, anim__isa isa) {
  const bool rigid = convert_joints(job);
  if (rigid && isa >= ANIM__ISA_AVX2) {
    anim__skin_dqs_rigid_avx2(job, first, count);
    return;
  }
  const anim_mesh_t *m = job->mesh;
  const uint32_t k = m->influences;
  const float *dq = job->scratch;
  const anim_skin_normals mode = job->normals;
  for (uint32_t o = 0; o < count; o++) {
    const size_t v = (size_t)first + o;
    const uint16_t *jv = m->joints + v * k;
    const float *wv = m->weights + v * k;
    /* Sign-align to the influence with the largest weight (the build puts
     * it last), so the blended real part has length >= that weight. */
    uint32_t piv = 0;
    for (uint32_t i = 1; i < k; i++)
      if (wv[i] > wv[piv]) piv = i;
    const float *qp = dq + ANIM_DQS_SCRATCH_PER_MATRIX * (size_t)jv[piv];
    float b[8] = {0};
    float s[3][3] = {{0}};
    for (uint32_t i = 0; i < k; i++) {
      const float *qi = dq + ANIM_DQS_SCRATCH_PER_MATRIX * (size_t)jv[i];
      float w = wv[i];
      if (w == 0.0f) continue;
      if (qi[0] * qp[0] + qi[1] * qp[1] + qi[2] * qp[2] + qi[3] * qp[3] < 0)
        w = -w;
      for (int e = 0; e < 8; e++) b[e] += w * qi[e];
      if (rigid) continue;
      if (signbit(qi[3])) {
        add_nonrigid(s, wv[i], job->matrices[jv[i]].m, qi);
      } else {
        s[0][0] += wv[i];
        s[1][1] += wv[i];
        s[2][2] += wv[i];
      }
    }
    float len = sqrtf(b[0] * b[0] + b[1] * b[1] + b[2] * b[2] + b[3] * b[3]);
    for (int e = 0; e < 8; e++) b[e] /= len;
    const float *q = b, *d = b + 4;
    /* t = 2 * vec(d * conj(q)) */
    float t[3] = {
        2.0f * (q[3] * d[0] - d[3] * q[0] + (q[1] * d[2] - q[2] * d[1])),
        2.0f * (q[3] * d[1] - d[3] * q[1] + (q[2] * d[0] - q[0] * d[2])),
        2.0f * (q[3] * d[2] - d[3] * q[2] + (q[0] * d[1] - q[1] * d[0]))};
    const float *p = m->positions + 3 * v;
    float ps[3], r[3];
    if (rigid)
      memcpy(ps, p, sizeof ps);
    else
      apply3((const float(*)[3])s, p, ps);
    rotate(q, ps, r);
    float *op = job->out_positions + 3 * (size_t)o;
    for (int c = 0; c < 3; c++) op[c] = r[c] + t[c];
    if (mode == ANIM_NORMALS_NONE) continue;
    const float *n = m->normals + 3 * v;
    float ns[3];
    if (rigid)
      memcpy(ns, n, sizeof ns);
    else if (mode == ANIM_NORMALS_LINEAR)
      apply3((const float(*)[3])s, n, ns);
    else
      apply_inverse_transpose((const float(*)[3])s, n, ns);
    rotate(q, ns, r);
    put_normal(job->out_normals + 3 * (size_t)o, r);
  }
}
