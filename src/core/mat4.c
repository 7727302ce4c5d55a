/* animd core: 4x4 column-major matrices: identity, product, transpose,
 * rotation and TRS matrices, transforming points and vectors.
 *
 * Element (row r, column c) is m[c * 4 + r]; products and TRS composition
 * share their code with the inline versions in math_inline.h. */
#include <string.h>

#include "animd/math.h"
#include "core/math_inline.h"

anim_mat4_t anim_mat4_identity(void) {
  anim_mat4_t m;
  memset(&m, 0, sizeof m);
  m.m[0] = m.m[5] = m.m[10] = m.m[15] = 1.0f;
  return m;
}

anim_mat4_t anim_mat4_mul(const anim_mat4_t *a, const anim_mat4_t *b) {
  anim_mat4_t r; /* A local: never aliases a or b. */
  anim_mat4_mul_inl(&r, a, b);
  return r;
}

anim_mat4_t anim_mat4_transpose(const anim_mat4_t *m) {
  anim_mat4_t r;
  for (int c = 0; c < 4; c++)
    for (int row = 0; row < 4; row++) r.m[c * 4 + row] = m->m[row * 4 + c];
  return r;
}

anim_mat4_t anim_mat4_from_quat(anim_quat_t q) {
  anim_mat4_t m;
  anim_mat4_from_trs_inl(&m, anim_vec3(0, 0, 0), q, anim_vec3(1, 1, 1));
  return m;
}

anim_mat4_t anim_mat4_from_transform(const anim_transform_t *t) {
  anim_mat4_t m;
  anim_mat4_from_trs_inl(&m, t->translation, t->rotation, t->scale);
  return m;
}

anim_vec3_t anim_mat4_transform_point(const anim_mat4_t *m, anim_vec3_t p) {
  const float *a = m->m;
  return anim_vec3(a[0] * p.x + a[4] * p.y + a[8] * p.z + a[12],
                   a[1] * p.x + a[5] * p.y + a[9] * p.z + a[13],
                   a[2] * p.x + a[6] * p.y + a[10] * p.z + a[14]);
}

anim_vec3_t anim_mat4_transform_vector(const anim_mat4_t *m, anim_vec3_t v) {
  const float *a = m->m;
  return anim_vec3(a[0] * v.x + a[4] * v.y + a[8] * v.z,
                   a[1] * v.x + a[5] * v.y + a[9] * v.z,
                   a[2] * v.x + a[6] * v.y + a[10] * v.z);
}

anim_transform_t anim_transform_identity(void) {
  anim_transform_t t;
  t.translation = anim_vec3(0.0f, 0.0f, 0.0f);
  t.rotation = anim_quat_identity();
  t.scale = anim_vec3(1.0f, 1.0f, 1.0f);
  return t;
}
