/* animd core: the D3DX quaternion functions with D3DX's own numbers
 * (include/animd/d3dx.h).
 *
 * Each function evaluates D3DX's documented definition in float, without
 * the normalizations and degenerate-input guards of the anim_quat_*
 * versions, so non-unit inputs give the values D3DX gives. Every function
 * copies its inputs before it writes, so outputs may alias inputs. Where a
 * math.h function computes the very same float expression (dot, length,
 * conjugate, the Hamilton product, yaw-pitch-roll, the rotation matrix) it
 * is called rather than written again. */
#include <math.h>
#include <string.h>

#include "animd/d3dx.h"
#include "core/math_inline.h"

/* 1 - |q1 . q2| above this takes the spherical weights in Slerp; at or
 * below it Slerp blends linearly (D3DX's threshold). */
#define D3DX_SLERP_LINEAR_GAP 0.001f

/* ---- the inline set (D3DX accepts NULL here) ---------------------------- */

anim_quat_t *anim_d3dx_quaternion_identity(anim_quat_t *out) {
  if (out == NULL) return NULL;
  *out = anim_quat_identity();
  return out;
}

bool anim_d3dx_quaternion_is_identity(const anim_quat_t *q) {
  return q != NULL && anim_quat_is_identity(*q);
}

anim_quat_t *anim_d3dx_quaternion_conjugate(anim_quat_t *out,
                                            const anim_quat_t *q) {
  if (out == NULL || q == NULL) return NULL;
  *out = anim_quat_conjugate(*q);
  return out;
}

float anim_d3dx_quaternion_dot(const anim_quat_t *q1, const anim_quat_t *q2) {
  return q1 != NULL && q2 != NULL ? anim_quat_dot(*q1, *q2) : 0.0f;
}

float anim_d3dx_quaternion_length(const anim_quat_t *q) {
  return q != NULL ? anim_quat_length(*q) : 0.0f;
}

float anim_d3dx_quaternion_length_sq(const anim_quat_t *q) {
  return q != NULL ? anim_quat_length_sq(*q) : 0.0f;
}

/* ---- algebra ------------------------------------------------------------ */

anim_quat_t *anim_d3dx_quaternion_multiply(anim_quat_t *out,
                                           const anim_quat_t *q1,
                                           const anim_quat_t *q2) {
  *out = anim_quat_mul_inl(*q2, *q1);
  return out;
}

anim_quat_t *anim_d3dx_quaternion_inverse(anim_quat_t *out,
                                          const anim_quat_t *q) {
  anim_quat_t v = *q;
  float n = anim_quat_length_sq(v);
  *out = anim_quat(-v.x / n, -v.y / n, -v.z / n, v.w / n);
  return out;
}

anim_quat_t *anim_d3dx_quaternion_normalize(anim_quat_t *out,
                                            const anim_quat_t *q) {
  anim_quat_t v = *q;
  float n = anim_quat_length(v);
  *out = anim_quat(v.x / n, v.y / n, v.z / n, v.w / n);
  return out;
}

anim_quat_t *anim_d3dx_quaternion_exp(anim_quat_t *out, const anim_quat_t *q) {
  anim_quat_t v = *q;
  float n = anim_vec3_length(anim_vec3(v.x, v.y, v.z));
  if (n == 0.0f) {
    *out = anim_quat_identity();
    return out;
  }
  float s = sinf(n) / n;
  *out = anim_quat(v.x * s, v.y * s, v.z * s, cosf(n));
  return out;
}

/* The angle comes from w alone: for a unit q, acos(w) / sqrt(1 - w^2) is
 * the half-angle over |(x, y, z)|; for any other q it is still what D3DX
 * scales (x, y, z) by. */
anim_quat_t *anim_d3dx_quaternion_ln(anim_quat_t *out, const anim_quat_t *q) {
  anim_quat_t v = *q;
  float t = 1.0f;
  if (v.w < 1.0f && v.w > -1.0f) t = acosf(v.w) / sqrtf(1.0f - v.w * v.w);
  *out = anim_quat(v.x * t, v.y * t, v.z * t, 0.0f);
  return out;
}

/* ---- interpolation ------------------------------------------------------ */

anim_quat_t *anim_d3dx_quaternion_slerp(anim_quat_t *out, const anim_quat_t *q1,
                                        const anim_quat_t *q2, float t) {
  anim_quat_t a = *q1, b = *q2;
  float d = anim_quat_dot(a, b);
  float sign = 1.0f;
  if (d < 0.0f) {
    sign = -1.0f;
    d = -d;
  }
  float wa = 1.0f - t, wb = t;
  if (1.0f - d > D3DX_SLERP_LINEAR_GAP) {
    float theta = acosf(d), s = sinf(theta);
    wa = sinf(theta * wa) / s;
    wb = sinf(theta * wb) / s;
  }
  wb *= sign;
  *out = anim_quat(wa * a.x + wb * b.x, wa * a.y + wb * b.y,
                   wa * a.z + wb * b.z, wa * a.w + wb * b.w);
  return out;
}

anim_quat_t *anim_d3dx_quaternion_squad(anim_quat_t *out, const anim_quat_t *q1,
                                        const anim_quat_t *a,
                                        const anim_quat_t *b,
                                        const anim_quat_t *c, float t) {
  anim_quat_t outer, inner;
  anim_d3dx_quaternion_slerp(&outer, q1, c, t);
  anim_d3dx_quaternion_slerp(&inner, a, b, t);
  return anim_d3dx_quaternion_slerp(out, &outer, &inner, 2.0f * t * (1.0f - t));
}

anim_quat_t *anim_d3dx_quaternion_barycentric(anim_quat_t *out,
                                              const anim_quat_t *q1,
                                              const anim_quat_t *q2,
                                              const anim_quat_t *q3, float f,
                                              float g) {
  anim_quat_t to2, to3;
  anim_d3dx_quaternion_slerp(&to2, q1, q2, f + g);
  anim_d3dx_quaternion_slerp(&to3, q1, q3, f + g);
  return anim_d3dx_quaternion_slerp(out, &to2, &to3, g / (f + g));
}

/* |a + b| < |a - b|: D3DX's test for "b lies on the far side of a". */
static bool d3dx_opposite(anim_quat_t a, anim_quat_t b) {
  anim_quat_t sum = anim_quat(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
  anim_quat_t diff = anim_quat(a.x - b.x, a.y - b.y, a.z - b.z, a.w - b.w);
  return anim_quat_length(sum) < anim_quat_length(diff);
}

/* k Exp(-(Ln(k^-1 n) + Ln(k^-1 p)) / 4) in D3DX products: the control point
 * at key k between its neighbours p and n. */
static anim_quat_t d3dx_squad_inner(anim_quat_t p, anim_quat_t k,
                                    anim_quat_t n) {
  anim_quat_t kinv, rel_n, rel_p, ln_n, ln_p, e, r;
  anim_d3dx_quaternion_inverse(&kinv, &k);
  anim_d3dx_quaternion_ln(&ln_n,
                          anim_d3dx_quaternion_multiply(&rel_n, &kinv, &n));
  anim_d3dx_quaternion_ln(&ln_p,
                          anim_d3dx_quaternion_multiply(&rel_p, &kinv, &p));
  e = anim_quat(-0.25f * (ln_n.x + ln_p.x), -0.25f * (ln_n.y + ln_p.y),
                -0.25f * (ln_n.z + ln_p.z), -0.25f * (ln_n.w + ln_p.w));
  anim_d3dx_quaternion_exp(&e, &e);
  return *anim_d3dx_quaternion_multiply(&r, &k, &e);
}

void anim_d3dx_quaternion_squad_setup(anim_quat_t *a_out, anim_quat_t *b_out,
                                      anim_quat_t *c_out, const anim_quat_t *q0,
                                      const anim_quat_t *q1,
                                      const anim_quat_t *q2,
                                      const anim_quat_t *q3) {
  anim_quat_t k0 = *q0, k1 = *q1, k2 = *q2, k3 = *q3;
  if (d3dx_opposite(k0, k1)) k0 = anim_quat(-k0.x, -k0.y, -k0.z, -k0.w);
  if (d3dx_opposite(k1, k2)) k2 = anim_quat(-k2.x, -k2.y, -k2.z, -k2.w);
  if (d3dx_opposite(k2, k3)) k3 = anim_quat(-k3.x, -k3.y, -k3.z, -k3.w);
  anim_quat_t a = d3dx_squad_inner(k0, k1, k2);
  anim_quat_t b = d3dx_squad_inner(k1, k2, k3);
  *a_out = a;
  *b_out = b;
  *c_out = k2;
}

/* ---- conversions -------------------------------------------------------- */

anim_quat_t *anim_d3dx_quaternion_rotation_axis(anim_quat_t *out,
                                                const anim_vec3_t *v,
                                                float angle) {
  anim_vec3_t n = *v;
  float l = anim_vec3_length(n);
  if (l != 0.0f)
    n = anim_vec3(n.x / l, n.y / l, n.z / l);
  else
    n = anim_vec3(0.0f, 0.0f, 0.0f);
  float s = sinf(angle / 2.0f);
  *out = anim_quat(s * n.x, s * n.y, s * n.z, cosf(angle / 2.0f));
  return out;
}

/* From the row-major rows of a row-vector matrix: 4w^2 = 1 + T on the
 * positive-trace branch, else 4x^2 = 1 + m00 - m11 - m22 (or y, z) for the
 * largest diagonal entry, and the other three from the off-diagonal sums
 * and differences divided by 4 times the first. */
anim_quat_t *anim_d3dx_quaternion_rotation_matrix(anim_quat_t *out,
                                                  const float *m) {
#define M(r, c) m[4 * (r) + (c)]
  float m00 = M(0, 0), m11 = M(1, 1), m22 = M(2, 2);
  float trace = m00 + m11 + m22;
  anim_quat_t q;
  if (trace > 0.0f) {
    float s = 2.0f * sqrtf(trace + 1.0f); /* 4w */
    q = anim_quat((M(1, 2) - M(2, 1)) / s, (M(2, 0) - M(0, 2)) / s,
                  (M(0, 1) - M(1, 0)) / s, s / 4.0f);
  } else if (m00 >= m11 && m00 >= m22) {
    float s = 2.0f * sqrtf(1.0f + m00 - m11 - m22); /* 4x */
    q = anim_quat(s / 4.0f, (M(0, 1) + M(1, 0)) / s, (M(0, 2) + M(2, 0)) / s,
                  (M(1, 2) - M(2, 1)) / s);
  } else if (m11 >= m22) {
    float s = 2.0f * sqrtf(1.0f + m11 - m00 - m22); /* 4y */
    q = anim_quat((M(0, 1) + M(1, 0)) / s, s / 4.0f, (M(1, 2) + M(2, 1)) / s,
                  (M(2, 0) - M(0, 2)) / s);
  } else {
    float s = 2.0f * sqrtf(1.0f + m22 - m00 - m11); /* 4z */
    q = anim_quat((M(0, 2) + M(2, 0)) / s, (M(1, 2) + M(2, 1)) / s, s / 4.0f,
                  (M(0, 1) - M(1, 0)) / s);
  }
#undef M
  *out = q;
  return out;
}

anim_quat_t *anim_d3dx_quaternion_rotation_yaw_pitch_roll(anim_quat_t *out,
                                                          float yaw,
                                                          float pitch,
                                                          float roll) {
  *out = anim_quat_from_yaw_pitch_roll(yaw, pitch, roll);
  return out;
}

void anim_d3dx_quaternion_to_axis_angle(const anim_quat_t *q, anim_vec3_t *axis,
                                        float *angle) {
  anim_quat_t v = *q;
  if (axis != NULL) *axis = anim_vec3(v.x, v.y, v.z);
  if (angle != NULL) *angle = 2.0f * acosf(v.w);
}

/* The D3DX row-major matrix of q is, float for float, the transpose of our
 * column-major rotation matrix, which is the same 16 floats in memory. */
float *anim_d3dx_matrix_rotation_quaternion(float *out, const anim_quat_t *q) {
  anim_mat4_t r = anim_mat4_from_quat(*q);
  memcpy(out, r.m, sizeof r.m);
  return out;
}
