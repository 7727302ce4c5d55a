/* animd core: quaternion algebra (identity, conjugate, inverse, dot, length,
 * normalize, product, rotation of a vector, angle between rotations).
 *
 * [x, y, z, w] with the Hamilton product; the product and the rotation share
 * their code with the inline versions in math_inline.h. Degenerate inputs
 * never divide by zero: a zero quaternion normalizes to the identity and
 * inverts to zero. */
#include <math.h>

#include "animd/math.h"
#include "core/math_inline.h"

anim_quat_t anim_quat(float x, float y, float z, float w) {
  anim_quat_t q = {x, y, z, w};
  return q;
}

anim_quat_t anim_quat_identity(void) { return anim_quat(0, 0, 0, 1); }

bool anim_quat_is_identity(anim_quat_t q) {
  return q.x == 0.0f && q.y == 0.0f && q.z == 0.0f && q.w == 1.0f;
}

anim_quat_t anim_quat_conjugate(anim_quat_t q) {
  return anim_quat(-q.x, -q.y, -q.z, q.w);
}

anim_quat_t anim_quat_inverse(anim_quat_t q) {
  float n = anim_quat_length_sq(q);
  if (!(n > 0.0f)) return anim_quat(0, 0, 0, 0);
  float inv = 1.0f / n;
  return anim_quat(-q.x * inv, -q.y * inv, -q.z * inv, q.w * inv);
}

float anim_quat_dot(anim_quat_t a, anim_quat_t b) {
  return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}

float anim_quat_length_sq(anim_quat_t q) { return anim_quat_dot(q, q); }

float anim_quat_length(anim_quat_t q) { return sqrtf(anim_quat_dot(q, q)); }

anim_quat_t anim_quat_normalize(anim_quat_t q) {
  float l = anim_quat_length(q);
  if (!(l > 0.0f) || !isfinite(l)) return anim_quat_identity();
  float inv = 1.0f / l;
  return anim_quat(q.x * inv, q.y * inv, q.z * inv, q.w * inv);
}

anim_quat_t anim_quat_mul(anim_quat_t a, anim_quat_t b) {
  return anim_quat_mul_inl(a, b);
}

anim_vec3_t anim_quat_rotate(anim_quat_t q, anim_vec3_t v) {
  return anim_quat_rotate_inl(q, v);
}

/* The rotation angle of a^-1 b is 2 * acos(|a . b|); for unit inputs the
 * same angle is 4 * atan2(|a - b|, |a + b|) with b on a's hemisphere, which
 * keeps full precision near 0 and near pi. */
float anim_quat_angle_between(anim_quat_t a, anim_quat_t b) {
  a = anim_quat_normalize(a);
  b = anim_quat_normalize(b);
  if (anim_quat_dot(a, b) < 0.0f) b = anim_quat(-b.x, -b.y, -b.z, -b.w);
  anim_quat_t d = anim_quat(a.x - b.x, a.y - b.y, a.z - b.z, a.w - b.w);
  anim_quat_t s = anim_quat(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
  return 4.0f * atan2f(anim_quat_length(d), anim_quat_length(s));
}
