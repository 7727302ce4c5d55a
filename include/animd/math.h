/* animd core: vectors, quaternions, 4x4 matrices and TRS transforms.
 *
 * Conventions (DESIGN.md "Concepts"): quaternions are [x, y, z, w] with the
 * Hamilton product, right-handed, column vectors; a point rotates as q p q*.
 * anim_quat_mul(a, b) = a * b applies b first, then a. Matrices are 4x4
 * column-major: element (row r, column c) is m[c * 4 + r], so the
 * translation of an affine matrix sits in m[12], m[13], m[14].
 *
 * D3DX mapping: D3DX uses row vectors, so D3DXQuaternionMultiply(a, b) is
 * anim_quat_mul(b, a), and a D3DXMATRIX is the transpose of ours (its
 * memory layout, row-major of the transpose, equals our column-major
 * layout). The same four components mean the same rotation in both.
 *   D3DXQuaternionIdentity/IsIdentity/Conjugate/Inverse/Dot/Length/
 *   LengthSq/Normalize   -> the anim_quat_ function of the same name
 *   D3DXQuaternionMultiply(a, b)       -> anim_quat_mul(b, a)
 *   D3DXQuaternionExp/Ln               -> anim_quat_exp/ln
 *   D3DXQuaternionSlerp                -> anim_quat_slerp (both take the
 *                                         shortest path)
 *   D3DXQuaternionSquad/SquadSetup/BaryCentric -> anim_quat_squad/
 *                                         squad_setup/barycentric, same
 *                                         arguments, same numbers
 *   D3DXQuaternionRotationAxis         -> anim_quat_from_axis_angle
 *   D3DXQuaternionRotationMatrix(m)    -> anim_quat_from_mat4(m), same
 *                                         memory (ours: all four branches)
 *   D3DXQuaternionRotationYawPitchRoll -> anim_quat_from_yaw_pitch_roll
 *   D3DXQuaternionToAxisAngle          -> anim_quat_to_axis_angle, but
 *                                         D3DX returns the unnormalized
 *                                         (x, y, z) and 2 acos(w); ours a
 *                                         unit axis and an angle in [0, pi]
 * Results agree with D3DX to float rounding, except where D3DX is
 * degenerate: its slerp switches to unnormalized lerp when 1 - |dot| is
 * below 0.001 (ours: normalized lerp below 5e-5, so always unit length),
 * and its barycentric divides by f + g = 0 (ours returns q1).
 * animd/d3dx.h has the same set with D3DX's signatures and exact numbers. */
#ifndef ANIMD_MATH_H
#define ANIMD_MATH_H

#include "animd/base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct anim_vec3_s {
  float x, y, z;
} anim_vec3_t;
typedef struct anim_vec4_s {
  float x, y, z, w;
} anim_vec4_t;
typedef struct anim_quat_s {
  float x, y, z, w;
} anim_quat_t;
typedef struct anim_mat4_s {
  float m[16];
} anim_mat4_t; /* Column-major. */

/* A local transform: M = T * R * S. */
typedef struct anim_transform_s {
  anim_vec3_t translation;
  anim_quat_t rotation; /* Unit length. */
  anim_vec3_t scale;
} anim_transform_t;

/* Named tolerances used by the core and its tests. */
#define ANIM_EPS_UNIT 1e-5f   /* |q| - 1 for a normalized quaternion. */
#define ANIM_EPS_ANGLE 1e-4f  /* Radians, comparing rotations. */
#define ANIM_EPS_LENGTH 1e-6f /* Vectors shorter than this are zero. */

/* ---- vec3 ---------------------------------------------------------------- */
anim_vec3_t anim_vec3(float x, float y, float z);
anim_vec3_t anim_vec3_add(anim_vec3_t a, anim_vec3_t b);
anim_vec3_t anim_vec3_sub(anim_vec3_t a, anim_vec3_t b);
anim_vec3_t anim_vec3_scale(anim_vec3_t a, float s);
anim_vec3_t anim_vec3_mul(anim_vec3_t a, anim_vec3_t b); /* Per component. */
float anim_vec3_dot(anim_vec3_t a, anim_vec3_t b);
anim_vec3_t anim_vec3_cross(anim_vec3_t a, anim_vec3_t b);
float anim_vec3_length(anim_vec3_t a);
/* Unit vector along a; the zero vector (and non-finite input) gives zero. */
anim_vec3_t anim_vec3_normalize(anim_vec3_t a);
anim_vec3_t anim_vec3_lerp(anim_vec3_t a, anim_vec3_t b, float t);

/* ---- quaternion (D3DX set, Hamilton convention) -------------------------- */
anim_quat_t anim_quat(float x, float y, float z, float w);
anim_quat_t anim_quat_identity(void);
bool anim_quat_is_identity(anim_quat_t q); /* Exactly (0,0,0,1), as D3DX. */
anim_quat_t anim_quat_conjugate(anim_quat_t q);
/* conjugate / |q|^2 (D3DXQuaternionInverse); zero stays zero. */
anim_quat_t anim_quat_inverse(anim_quat_t q);
float anim_quat_dot(anim_quat_t a, anim_quat_t b);
float anim_quat_length(anim_quat_t q);
float anim_quat_length_sq(anim_quat_t q);
/* Unit quaternion; a zero (or non-finite) quaternion becomes the
 * identity. */
anim_quat_t anim_quat_normalize(anim_quat_t q);
/* Hamilton product a * b: rotating by the result applies b, then a. */
anim_quat_t anim_quat_mul(anim_quat_t a, anim_quat_t b);
/* exp of a pure quaternion (w ignored, as D3DXQuaternionExp):
 * (sin|v| v/|v|, cos|v|). */
anim_quat_t anim_quat_exp(anim_quat_t q);
/* ln of a unit quaternion: (axis * half-angle, 0) with the half-angle
 * atan2(|v|, w) in [0, pi] (D3DXQuaternionLn; no sign flip, so w < 0 gives
 * a half-angle above pi/2). */
anim_quat_t anim_quat_ln(anim_quat_t q);
/* Spherical interpolation along the shortest path (negates b when the dot
 * is negative), as D3DXQuaternionSlerp. Returns a at t = 0 and b (or -b)
 * at t = 1 exactly, falls back to normalized lerp for nearly equal inputs
 * and keeps unit inputs at unit length. */
anim_quat_t anim_quat_slerp(anim_quat_t a, anim_quat_t b, float t);
/* Spherical interpolation along the arc from a to b as given, without the
 * shortest-path flip (a and -b give the long way round). D3DX has no such
 * function: its slerp, and so its squad, does flip. Opposite inputs turn
 * through a fixed perpendicular quaternion. */
anim_quat_t anim_quat_slerp_no_invert(anim_quat_t a, anim_quat_t b, float t);
/* Normalized linear interpolation along the shortest path. */
anim_quat_t anim_quat_nlerp(anim_quat_t a, anim_quat_t b, float t);
/* D3DXQuaternionSquad: slerp(slerp(q1,c,t), slerp(a,b,t), 2t(1-t)) with
 * the shortest-path slerp, as D3DX. q1 at t = 0, c (up to sign) at 1. */
anim_quat_t anim_quat_squad(anim_quat_t q1, anim_quat_t a, anim_quat_t b,
                            anim_quat_t c, float t);
/* D3DXQuaternionSquadSetup: control points a, b, c for the segment q1..q2
 * with neighbours q0 and q3. D3DX's sign alignment: q0 is negated when
 * q0 . q1 < 0, q2 when q1 . q2 < 0, then q3 when q3 . (aligned q2) < 0.
 * With k^-1 the inverse, in our product order:
 *   a = exp(-(ln(q0 q1^-1) + ln(q2 q1^-1)) / 4) q1
 *   b = exp(-(ln(q1 q2^-1) + ln(q3 q2^-1)) / 4) q2,   c = q2 (aligned)
 * (D3DX's docs write these with its reversed product and a misprinted
 * Exp(q1) for q1^-1.) Any output pointer may be NULL. */
void anim_quat_squad_setup(anim_quat_t *a_out, anim_quat_t *b_out,
                           anim_quat_t *c_out, anim_quat_t q0, anim_quat_t q1,
                           anim_quat_t q2, anim_quat_t q3);
/* D3DXQuaternionBaryCentric: slerp(slerp(q1,q2,f+g), slerp(q1,q3,f+g),
 * g/(f+g)); q1 when f+g is 0. */
anim_quat_t anim_quat_barycentric(anim_quat_t q1, anim_quat_t q2,
                                  anim_quat_t q3, float f, float g);
/* Rotation of angle radians about axis (normalized inside; a zero axis
 * gives the identity). */
anim_quat_t anim_quat_from_axis_angle(anim_vec3_t axis, float angle);
/* Unit axis and angle in [0, pi]; the identity gives axis (1,0,0), 0. */
void anim_quat_to_axis_angle(anim_quat_t q, anim_vec3_t *axis, float *angle);
/* Rotation part of a matrix whose upper 3x3 is a rotation (Shepperd's
 * method with all four branches: exact at 180 degrees); the result is
 * normalized. */
anim_quat_t anim_quat_from_mat4(const anim_mat4_t *m);
/* D3DXQuaternionRotationYawPitchRoll: yaw about Y, pitch about X, roll
 * about Z; roll applies first: q = yaw * pitch * roll. Radians. */
anim_quat_t anim_quat_from_yaw_pitch_roll(float yaw, float pitch, float roll);
/* The shortest rotation taking direction from to direction to. Inputs need
 * not be unit length; parallel gives the identity, anti-parallel a 180 degree
 * turn about an axis perpendicular to from (from x e_k, e_k the coordinate
 * axis least aligned with from), and an input shorter than ANIM_EPS_LENGTH
 * (or not finite) gives the identity. Never NaN. */
anim_quat_t anim_quat_from_to(anim_vec3_t from, anim_vec3_t to);
/* Arcball rotation between two points on the unit ball (seed 003's
 * QuatFromBallPoints): axis from x to, angle twice the arc, as the classic
 * arcball; inputs are normalized first. */
anim_quat_t anim_quat_from_ball_points(anim_vec3_t from, anim_vec3_t to);
/* Rotate v by q (q v q*); q must be unit length. */
anim_vec3_t anim_quat_rotate(anim_quat_t q, anim_vec3_t v);
/* Angle in radians between two rotations, treating q and -q as equal. */
float anim_quat_angle_between(anim_quat_t a, anim_quat_t b);

/* ---- handedness (seed 004) ---------------------------------------------- */
/* Seed 004's conversion of a rotation between the right-handed convention
 * (counter-clockwise angles, ours) and a left-handed one (clockwise angles,
 * D3D's): negate x, y and z. Its own inverse. */
anim_quat_t anim_quat_flip_handedness(anim_quat_t q);
/* Mirroring data into the other handedness through the plane normal to one
 * axis: a position negates that coordinate; a rotation keeps its component
 * along the axis and w and negates the other two (R' = S R S); a matrix
 * becomes S M S with S = diag of the mirror. Each is its own inverse. */
typedef enum anim_axis {
  ANIM_AXIS_X = 0,
  ANIM_AXIS_Y = 1,
  ANIM_AXIS_Z = 2
} anim_axis;
anim_vec3_t anim_vec3_mirror(anim_vec3_t v, anim_axis axis);
anim_quat_t anim_quat_mirror(anim_quat_t q, anim_axis axis);
anim_mat4_t anim_mat4_mirror(const anim_mat4_t *m, anim_axis axis);

/* ---- mat4 --------------------------------------------------------------- */
anim_mat4_t anim_mat4_identity(void);
anim_mat4_t anim_mat4_mul(const anim_mat4_t *a, const anim_mat4_t *b);
anim_mat4_t anim_mat4_transpose(const anim_mat4_t *m);
anim_mat4_t anim_mat4_from_quat(anim_quat_t q);
anim_mat4_t anim_mat4_from_transform(const anim_transform_t *t); /* T*R*S */
/* Decompose an affine matrix into T, R, S (positive scale unless the
 * determinant is negative, in which case x scale is negated). Shear cannot
 * be represented: R is then the rotation of the normalized columns. Returns
 * ANIM_ERR_SINGULAR for a scale axis shorter than ANIM_EPS_LENGTH; t is
 * still filled (translation, scale, identity rotation). */
anim_result anim_mat4_decompose(const anim_mat4_t *m, anim_transform_t *t);
/* Inverse of an affine matrix (last row 0 0 0 1, not read). Both inverses
 * compute in double, return ANIM_ERR_SINGULAR (out untouched) when the
 * determinant is below 1e-12 times the largest entry to the n-th power,
 * and ANIM_ERR_INVALID_ARGUMENT for NULL. */
anim_result anim_mat4_affine_inverse(const anim_mat4_t *m, anim_mat4_t *out);
/* General inverse (cofactor expansion). */
anim_result anim_mat4_inverse(const anim_mat4_t *m, anim_mat4_t *out);
anim_vec3_t anim_mat4_transform_point(const anim_mat4_t *m, anim_vec3_t p);
anim_vec3_t anim_mat4_transform_vector(const anim_mat4_t *m, anim_vec3_t v);

anim_transform_t anim_transform_identity(void);

#ifdef __cplusplus
}
#endif
#endif
