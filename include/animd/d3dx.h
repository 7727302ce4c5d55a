/* animd core: the D3DX quaternion functions with D3DX's own numbers.
 *
 * One function per D3DXQuaternion* function (plus
 * D3DXMatrixRotationQuaternion), taking D3DX's parameters in D3DX's order
 * and returning what D3DX returns, so D3DX code ports line by line:
 * D3DXQUATERNION * -> anim_quat_t *, D3DXVECTOR3 * -> anim_vec3_t *,
 * D3DXMATRIX * -> float * (16 floats, row-major, as a D3DXMATRIX lies in
 * memory: m[row][col] is p[4 * row + col]), FLOAT -> float, BOOL -> bool.
 *
 * These give D3DX's results for any input, unit or not, quirks included:
 * - Multiply(q1, q2) is the Hamilton product q2 q1 (rotation q1, then q2);
 * - Slerp falls back to plain, unnormalized lerp when 1 - |dot| <= 0.001,
 *   and so do Squad and BaryCentric, which are built on it;
 * - Ln reads only w to find the angle (no normalization first);
 * - SquadSetup aligns the signs of q0, q2 and q3 and then applies the
 *   documented formulas with the quaternion inverse (not the conjugate);
 * - Inverse and Normalize divide by |q|^2 and |q|, even when that is 0;
 * - ToAxisAngle returns (x, y, z) as it is and 2 acos(w).
 * Computation is in float, in the order the definitions give, and every
 * output may be the same object as any input (inputs are read first).
 * Pointers must be valid unless a function says otherwise: as D3DX's
 * inline functions, Conjugate, Dot, Identity, IsIdentity, Length and
 * LengthSq accept NULL.
 *
 * The functions of math.h (anim_quat_*) are the animation-friendly
 * versions of the same set: they normalize, take the safe branch at
 * degenerate inputs and keep unit inputs at unit length. */
#ifndef ANIMD_D3DX_H
#define ANIMD_D3DX_H

#include "animd/math.h"

#ifdef __cplusplus
extern "C" {
#endif

/* D3DXQuaternionBaryCentric: Slerp(Slerp(q1, q2, f + g),
 * Slerp(q1, q3, f + g), g / (f + g)). f + g = 0 divides by zero (the
 * result is then NaN). Returns out. */
anim_quat_t *anim_d3dx_quaternion_barycentric(anim_quat_t *out,
                                              const anim_quat_t *q1,
                                              const anim_quat_t *q2,
                                              const anim_quat_t *q3, float f,
                                              float g);

/* D3DXQuaternionConjugate: (-x, -y, -z, w). Returns out, or NULL (nothing
 * written) when out or q is NULL. */
anim_quat_t *anim_d3dx_quaternion_conjugate(anim_quat_t *out,
                                            const anim_quat_t *q);

/* D3DXQuaternionDot: x1 x2 + y1 y2 + z1 z2 + w1 w2; 0 when either pointer
 * is NULL. */
float anim_d3dx_quaternion_dot(const anim_quat_t *q1, const anim_quat_t *q2);

/* D3DXQuaternionExp: w is ignored; with n = |(x, y, z)| the result is
 * (sin(n) / n (x, y, z), cos(n)), and (0, 0, 0, 1) when n = 0. Returns
 * out. */
anim_quat_t *anim_d3dx_quaternion_exp(anim_quat_t *out, const anim_quat_t *q);

/* D3DXQuaternionIdentity: (0, 0, 0, 1). Returns out (NULL for NULL). */
anim_quat_t *anim_d3dx_quaternion_identity(anim_quat_t *out);

/* D3DXQuaternionInverse: conjugate / |q|^2 (a zero q gives NaN). Returns
 * out. */
anim_quat_t *anim_d3dx_quaternion_inverse(anim_quat_t *out,
                                          const anim_quat_t *q);

/* D3DXQuaternionIsIdentity: exactly (0, 0, 0, 1); false for NULL. */
bool anim_d3dx_quaternion_is_identity(const anim_quat_t *q);

/* D3DXQuaternionLength: |q|; 0 for NULL. */
float anim_d3dx_quaternion_length(const anim_quat_t *q);

/* D3DXQuaternionLengthSq: |q|^2; 0 for NULL. */
float anim_d3dx_quaternion_length_sq(const anim_quat_t *q);

/* D3DXQuaternionLn: (t (x, y, z), 0) with t = acos(w) / sqrt(1 - w^2),
 * read from w alone whatever |q| is; t = 1 when |w| >= 1 (so q = (v, 1)
 * and q = (v, -1) give (v, 0)). Returns out. */
anim_quat_t *anim_d3dx_quaternion_ln(anim_quat_t *out, const anim_quat_t *q);

/* D3DXQuaternionMultiply: the rotation q1 followed by q2, that is the
 * Hamilton product q2 q1 (anim_quat_mul(*q2, *q1)). Returns out. */
anim_quat_t *anim_d3dx_quaternion_multiply(anim_quat_t *out,
                                           const anim_quat_t *q1,
                                           const anim_quat_t *q2);

/* D3DXQuaternionNormalize: q / |q| (a zero q gives NaN). Returns out. */
anim_quat_t *anim_d3dx_quaternion_normalize(anim_quat_t *out,
                                            const anim_quat_t *q);

/* D3DXQuaternionRotationAxis: (sin(angle / 2) n, cos(angle / 2)) with n the
 * normalized axis v; a zero axis gives (0, 0, 0, cos(angle / 2)). Radians.
 * Returns out. */
anim_quat_t *anim_d3dx_quaternion_rotation_axis(anim_quat_t *out,
                                                const anim_vec3_t *v,
                                                float angle);

/* D3DXQuaternionRotationMatrix: the quaternion of the upper 3x3 of m (16
 * floats, row-major, row vectors), not normalized, so a matrix that is not
 * a rotation gives D3DX's (non-unit) answer. With T = m00 + m11 + m22:
 * T > 0 takes w from sqrt(T + 1), otherwise the largest diagonal entry
 * (the first of equal ones) picks x, y or z. Returns out. */
anim_quat_t *anim_d3dx_quaternion_rotation_matrix(anim_quat_t *out,
                                                  const float *m);

/* D3DXQuaternionRotationYawPitchRoll: roll about Z first, then pitch about
 * X, then yaw about Y. Radians. Returns out. */
anim_quat_t *anim_d3dx_quaternion_rotation_yaw_pitch_roll(anim_quat_t *out,
                                                          float yaw,
                                                          float pitch,
                                                          float roll);

/* D3DXQuaternionSlerp: wa q1 + wb q2, with q2 negated first when
 * q1 . q2 < 0. With d = |q1 . q2| and a = acos(d), the weights are the
 * spherical sin((1 - t) a) / sin(a) and sin(t a) / sin(a) when
 * 1 - d > 0.001, and plain 1 - t and t otherwise. Nothing is normalized.
 * Returns out. */
anim_quat_t *anim_d3dx_quaternion_slerp(anim_quat_t *out, const anim_quat_t *q1,
                                        const anim_quat_t *q2, float t);

/* D3DXQuaternionSquad: Slerp(Slerp(q1, c, t), Slerp(a, b, t), 2t(1 - t)),
 * with a, b and c from anim_d3dx_quaternion_squad_setup. Returns out. */
anim_quat_t *anim_d3dx_quaternion_squad(anim_quat_t *out, const anim_quat_t *q1,
                                        const anim_quat_t *a,
                                        const anim_quat_t *b,
                                        const anim_quat_t *c, float t);

/* D3DXQuaternionSquadSetup: control points for Squad between q1 and q2,
 * with neighbours q0 and q3. Signs first: q0 is negated when
 * |q0 + q1| < |q0 - q1|, q2 when |q1 + q2| < |q1 - q2|, then q3 when
 * |q2 + q3| < |q2 - q3| (against the possibly negated q2). Then, in D3DX
 * products (Multiply) and with k^-1 the inverse:
 *   a = q1 Exp(-(Ln(q1^-1 q2) + Ln(q1^-1 q0)) / 4)
 *   b = q2 Exp(-(Ln(q2^-1 q3) + Ln(q2^-1 q1)) / 4),   c = q2.
 * All seven pointers must be valid; the outputs may be inputs too. */
void anim_d3dx_quaternion_squad_setup(anim_quat_t *a_out, anim_quat_t *b_out,
                                      anim_quat_t *c_out, const anim_quat_t *q0,
                                      const anim_quat_t *q1,
                                      const anim_quat_t *q2,
                                      const anim_quat_t *q3);

/* D3DXQuaternionToAxisAngle: *axis = (x, y, z) as it is (not normalized)
 * and *angle = 2 acos(w) (NaN when |w| > 1). Either output may be NULL. */
void anim_d3dx_quaternion_to_axis_angle(const anim_quat_t *q, anim_vec3_t *axis,
                                        float *angle);

/* D3DXMatrixRotationQuaternion: the rotation matrix of q for row vectors,
 * 16 floats row-major (m[row][col] at out[4 * row + col]), computed from
 * the components as they are (a non-unit q scales and shears):
 *   1 - 2(y^2 + z^2)  2(xy + zw)        2(xz - yw)        0
 *   2(xy - zw)        1 - 2(x^2 + z^2)  2(yz + xw)        0
 *   2(xz + yw)        2(yz - xw)        1 - 2(x^2 + y^2)  0
 *   0                 0                 0                 1
 * In memory this is our column-major anim_mat4_from_quat. Returns out. */
float *anim_d3dx_matrix_rotation_quaternion(float *out, const anim_quat_t *q);

#ifdef __cplusplus
}
#endif
#endif
