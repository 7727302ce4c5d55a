/* animd core: matrix inverses (affine and general) and decomposition of an
 * affine matrix into translation, rotation and scale.
 *
 * These run once per asset (inverse bind matrices, imported node
 * transforms), not per frame, so they work in double precision and treat a
 * matrix as singular when its determinant is negligible relative to the
 * size of its entries. */
#include <math.h>

#include "animd/math.h"

/* |det| below this times max|entry|^n counts as singular. */
#define SINGULAR_REL 1e-12

static anim_result store_inverse(const double inv[16], anim_mat4_t *out) {
  anim_mat4_t r;
  for (int i = 0; i < 16; i++) {
    r.m[i] = (float)inv[i];
    if (!isfinite(r.m[i])) return ANIM_ERR_SINGULAR;
  }
  *out = r;
  return ANIM_OK;
}

anim_result anim_mat4_affine_inverse(const anim_mat4_t *m, anim_mat4_t *out) {
  if (m == NULL || out == NULL) return ANIM_ERR_INVALID_ARGUMENT;
  const float *a = m->m;
#define A(r, c) ((double)a[(c)*4 + (r)])
  double c00 = A(1, 1) * A(2, 2) - A(1, 2) * A(2, 1);
  double c01 = A(1, 2) * A(2, 0) - A(1, 0) * A(2, 2);
  double c02 = A(1, 0) * A(2, 1) - A(1, 1) * A(2, 0);
  double det = A(0, 0) * c00 + A(0, 1) * c01 + A(0, 2) * c02;
  double big = 0.0;
  for (int c = 0; c < 3; c++)
    for (int r = 0; r < 3; r++) big = fmax(big, fabs(A(r, c)));
  if (!(fabs(det) > SINGULAR_REL * big * big * big) || !isfinite(det))
    return ANIM_ERR_SINGULAR;
  double k = 1.0 / det;
  double inv[16];
#define I(r, c) inv[(c)*4 + (r)]
  I(0, 0) = c00 * k;
  I(1, 0) = c01 * k;
  I(2, 0) = c02 * k;
  I(0, 1) = (A(0, 2) * A(2, 1) - A(0, 1) * A(2, 2)) * k;
  I(1, 1) = (A(0, 0) * A(2, 2) - A(0, 2) * A(2, 0)) * k;
  I(2, 1) = (A(0, 1) * A(2, 0) - A(0, 0) * A(2, 1)) * k;
  I(0, 2) = (A(0, 1) * A(1, 2) - A(0, 2) * A(1, 1)) * k;
  I(1, 2) = (A(0, 2) * A(1, 0) - A(0, 0) * A(1, 2)) * k;
  I(2, 2) = (A(0, 0) * A(1, 1) - A(0, 1) * A(1, 0)) * k;
  for (int r = 0; r < 3; r++)
    I(r, 3) = -(I(r, 0) * A(0, 3) + I(r, 1) * A(1, 3) + I(r, 2) * A(2, 3));
  I(3, 0) = I(3, 1) = I(3, 2) = 0.0;
  I(3, 3) = 1.0;
#undef I
#undef A
  return store_inverse(inv, out);
}

/* Inverse by the adjugate: the 2x2 minors of rows 0-1 and rows 2-3 give all
 * sixteen 3x3 cofactors (Laplace expansion along the two row pairs). */
anim_result anim_mat4_inverse(const anim_mat4_t *m, anim_mat4_t *out) {
  if (m == NULL || out == NULL) return ANIM_ERR_INVALID_ARGUMENT;
  double a[4][4]; /* a[r][c] */
  double big = 0.0;
  for (int c = 0; c < 4; c++)
    for (int r = 0; r < 4; r++) {
      a[r][c] = m->m[c * 4 + r];
      big = fmax(big, fabs(a[r][c]));
    }
  /* s: minors of rows 0,1; t: minors of rows 2,3 (columns ij). */
  double s0 = a[0][0] * a[1][1] - a[1][0] * a[0][1];
  double s1 = a[0][0] * a[1][2] - a[1][0] * a[0][2];
  double s2 = a[0][0] * a[1][3] - a[1][0] * a[0][3];
  double s3 = a[0][1] * a[1][2] - a[1][1] * a[0][2];
  double s4 = a[0][1] * a[1][3] - a[1][1] * a[0][3];
  double s5 = a[0][2] * a[1][3] - a[1][2] * a[0][3];
  double c5 = a[2][2] * a[3][3] - a[3][2] * a[2][3];
  double c4 = a[2][1] * a[3][3] - a[3][1] * a[2][3];
  double c3 = a[2][1] * a[3][2] - a[3][1] * a[2][2];
  double c2 = a[2][0] * a[3][3] - a[3][0] * a[2][3];
  double c1 = a[2][0] * a[3][2] - a[3][0] * a[2][2];
  double c0 = a[2][0] * a[3][1] - a[3][0] * a[2][1];
  double det = s0 * c5 - s1 * c4 + s2 * c3 + s3 * c2 - s4 * c1 + s5 * c0;
  double b4 = big * big * big * big;
  if (!(fabs(det) > SINGULAR_REL * b4) || !isfinite(det))
    return ANIM_ERR_SINGULAR;
  double k = 1.0 / det;
  double b[4][4];
  b[0][0] = (a[1][1] * c5 - a[1][2] * c4 + a[1][3] * c3) * k;
  b[0][1] = (-a[0][1] * c5 + a[0][2] * c4 - a[0][3] * c3) * k;
  b[0][2] = (a[3][1] * s5 - a[3][2] * s4 + a[3][3] * s3) * k;
  b[0][3] = (-a[2][1] * s5 + a[2][2] * s4 - a[2][3] * s3) * k;
  b[1][0] = (-a[1][0] * c5 + a[1][2] * c2 - a[1][3] * c1) * k;
  b[1][1] = (a[0][0] * c5 - a[0][2] * c2 + a[0][3] * c1) * k;
  b[1][2] = (-a[3][0] * s5 + a[3][2] * s2 - a[3][3] * s1) * k;
  b[1][3] = (a[2][0] * s5 - a[2][2] * s2 + a[2][3] * s1) * k;
  b[2][0] = (a[1][0] * c4 - a[1][1] * c2 + a[1][3] * c0) * k;
  b[2][1] = (-a[0][0] * c4 + a[0][1] * c2 - a[0][3] * c0) * k;
  b[2][2] = (a[3][0] * s4 - a[3][1] * s2 + a[3][3] * s0) * k;
  b[2][3] = (-a[2][0] * s4 + a[2][1] * s2 - a[2][3] * s0) * k;
  b[3][0] = (-a[1][0] * c3 + a[1][1] * c1 - a[1][2] * c0) * k;
  b[3][1] = (a[0][0] * c3 - a[0][1] * c1 + a[0][2] * c0) * k;
  b[3][2] = (-a[3][0] * s3 + a[3][1] * s1 - a[3][2] * s0) * k;
  b[3][3] = (a[2][0] * s3 - a[2][1] * s1 + a[2][2] * s0) * k;
  double inv[16];
  for (int c = 0; c < 4; c++)
    for (int r = 0; r < 4; r++) inv[c * 4 + r] = b[r][c];
  return store_inverse(inv, out);
}

anim_result anim_mat4_decompose(const anim_mat4_t *m, anim_transform_t *t) {
  if (m == NULL || t == NULL) return ANIM_ERR_INVALID_ARGUMENT;
  const float *a = m->m;
  double col[3][3];
  double len[3];
  for (int c = 0; c < 3; c++) {
    for (int r = 0; r < 3; r++) col[c][r] = a[c * 4 + r];
    len[c] = sqrt(col[c][0] * col[c][0] + col[c][1] * col[c][1] +
                  col[c][2] * col[c][2]);
  }
  double det = col[0][0] * (col[1][1] * col[2][2] - col[1][2] * col[2][1]) +
               col[0][1] * (col[1][2] * col[2][0] - col[1][0] * col[2][2]) +
               col[0][2] * (col[1][0] * col[2][1] - col[1][1] * col[2][0]);
  if (det < 0.0) len[0] = -len[0];
  t->translation = anim_vec3(a[12], a[13], a[14]);
  t->scale = anim_vec3((float)len[0], (float)len[1], (float)len[2]);
  t->rotation = anim_quat_identity();
  for (int c = 0; c < 3; c++)
    if (!(fabs(len[c]) >= ANIM_EPS_LENGTH) || !isfinite(len[c]))
      return ANIM_ERR_SINGULAR;
  anim_mat4_t r = anim_mat4_identity();
  for (int c = 0; c < 3; c++)
    for (int row = 0; row < 3; row++)
      r.m[c * 4 + row] = (float)(col[c][row] / len[c]);
  t->rotation = anim_quat_from_mat4(&r);
  return ANIM_OK;
}
