/* animd core: converting rotations and data between right- and left-handed
 * conventions.
 *
 * Two different operations live here. anim_quat_flip_handedness is seed
 * 004's reinterpretation: the same quaternion components read with
 * clockwise angles, so x, y and z change sign. The mirror functions move
 * data into the other handedness through a reflection S = diag(+-1) about
 * one axis: positions p -> S p, rotations R -> S R S (the quaternion keeps
 * its component along the axis and w), matrices M -> S M S. All are
 * involutions. */
#include "animd/math.h"

anim_quat_t anim_quat_flip_handedness(anim_quat_t q) {
  return anim_quat(-q.x, -q.y, -q.z, q.w);
}

anim_vec3_t anim_vec3_mirror(anim_vec3_t v, anim_axis axis) {
  switch (axis) {
  case ANIM_AXIS_X: v.x = -v.x; break;
  case ANIM_AXIS_Y: v.y = -v.y; break;
  case ANIM_AXIS_Z: v.z = -v.z; break;
  }
  return v;
}

/* S R S for a reflection S is the rotation about S-mirrored axis by the
 * opposite angle: axis' = -S axis, so the axis component normal to the
 * mirror plane keeps its sign and the other two flip. */
anim_quat_t anim_quat_mirror(anim_quat_t q, anim_axis axis) {
  switch (axis) {
  case ANIM_AXIS_X: return anim_quat(q.x, -q.y, -q.z, q.w);
  case ANIM_AXIS_Y: return anim_quat(-q.x, q.y, -q.z, q.w);
  case ANIM_AXIS_Z: return anim_quat(-q.x, -q.y, q.z, q.w);
  }
  return q;
}

anim_mat4_t anim_mat4_mirror(const anim_mat4_t *m, anim_axis axis) {
  anim_mat4_t r = *m;
  int k = (int)axis;
  if (k < 0 || k > 2) return r;
  /* (S M S)(row, col) = s_row s_col M(row, col): row k and column k change
   * sign, their crossing twice. */
  for (int i = 0; i < 4; i++) {
    r.m[k * 4 + i] = -r.m[k * 4 + i]; /* Column k. */
    r.m[i * 4 + k] = -r.m[i * 4 + k]; /* Row k. */
  }
  return r;
}
