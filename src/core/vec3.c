/* animd core: 3-component vector arithmetic.
 *
 * Plain float operations by value; normalize leaves the zero vector (and
 * non-finite input) at zero instead of dividing by zero, and rescales
 * vectors whose squared length would underflow or overflow. */
#include <float.h>
#include <math.h>

#include "animd/math.h"

anim_vec3_t anim_vec3(float x, float y, float z) {
  anim_vec3_t v = {x, y, z};
  return v;
}

anim_vec3_t anim_vec3_add(anim_vec3_t a, anim_vec3_t b) {
  return anim_vec3(a.x + b.x, a.y + b.y, a.z + b.z);
}

anim_vec3_t anim_vec3_sub(anim_vec3_t a, anim_vec3_t b) {
  return anim_vec3(a.x - b.x, a.y - b.y, a.z - b.z);
}

anim_vec3_t anim_vec3_scale(anim_vec3_t a, float s) {
  return anim_vec3(a.x * s, a.y * s, a.z * s);
}

anim_vec3_t anim_vec3_mul(anim_vec3_t a, anim_vec3_t b) {
  return anim_vec3(a.x * b.x, a.y * b.y, a.z * b.z);
}

float anim_vec3_dot(anim_vec3_t a, anim_vec3_t b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}

anim_vec3_t anim_vec3_cross(anim_vec3_t a, anim_vec3_t b) {
  return anim_vec3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z,
                   a.x * b.y - a.y * b.x);
}

float anim_vec3_length(anim_vec3_t a) { return sqrtf(anim_vec3_dot(a, a)); }

anim_vec3_t anim_vec3_normalize(anim_vec3_t a) {
  float l2 = anim_vec3_dot(a, a);
  if (!(l2 >= FLT_MIN && l2 <= FLT_MAX)) {
    /* The squared length underflowed or overflowed: divide by the largest
     * component first (rare; keeps 1e-20 and 1e20 vectors exact). */
    float m = fmaxf(fabsf(a.x), fmaxf(fabsf(a.y), fabsf(a.z)));
    if (!(m > 0.0f) || !isfinite(m)) return anim_vec3(0.0f, 0.0f, 0.0f);
    a = anim_vec3(a.x / m, a.y / m, a.z / m);
    l2 = anim_vec3_dot(a, a);
    if (!(l2 >= 1.0f && l2 <= 3.0f)) /* A NaN component. */
      return anim_vec3(0.0f, 0.0f, 0.0f);
  }
  float inv = 1.0f / sqrtf(l2);
  return anim_vec3(a.x * inv, a.y * inv, a.z * inv);
}

anim_vec3_t anim_vec3_lerp(anim_vec3_t a, anim_vec3_t b, float t) {
  return anim_vec3(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t,
                   a.z + (b.z - a.z) * t);
}
