/* Benchmark of the core math hot spots: nanoseconds per call of quaternion
 * product, rotation, slerp, TRS composition, matrix product, matrix to
 * quaternion and affine inverse, through the public functions and the
 * inline versions of src/core/math_inline.h. Fixed iteration counts; each
 * result feeds the next call so nothing is optimized away. */
#include <stdio.h>
#include <time.h>

#include "animd/math.h"
#include "core/math_inline.h"
#include "bench_clock.h"

#define N 4000000

static void report(const char *name, double t0, double t1, float sink) {
  printf("%-28s %7.2f ns/call  (checksum %g)\n", name, (t1 - t0) / N,
         (double)sink);
}

int main(void) {
  anim_quat_t q = anim_quat_normalize(anim_quat(0.1f, 0.2f, 0.3f, 0.9f));
  anim_quat_t r = anim_quat_normalize(anim_quat(-0.3f, 0.5f, 0.1f, 0.8f));
  anim_vec3_t v = anim_vec3(1, 2, 3);
  double t0, t1;

  anim_quat_t acc = q;
  t0 = now_ns();
  for (int i = 0; i < N; i++) acc = anim_quat_mul(acc, r);
  t1 = now_ns();
  report("anim_quat_mul", t0, t1, acc.w);

  acc = q;
  t0 = now_ns();
  for (int i = 0; i < N; i++) acc = anim_quat_mul_inl(acc, r);
  t1 = now_ns();
  report("anim_quat_mul_inl", t0, t1, acc.w);

  anim_vec3_t w = v;
  t0 = now_ns();
  for (int i = 0; i < N; i++) w = anim_quat_rotate(q, w);
  t1 = now_ns();
  report("anim_quat_rotate", t0, t1, w.x);

  w = v;
  t0 = now_ns();
  for (int i = 0; i < N; i++) w = anim_quat_rotate_inl(q, w);
  t1 = now_ns();
  report("anim_quat_rotate_inl", t0, t1, w.x);

  acc = q;
  t0 = now_ns();
  for (int i = 0; i < N; i++) acc = anim_quat_slerp(acc, r, 0.37f);
  t1 = now_ns();
  report("anim_quat_slerp (near)", t0, t1, acc.w);

  float sum = 0;
  t0 = now_ns();
  for (int i = 0; i < N; i++) {
    anim_quat_t s = anim_quat_slerp(q, r, (float)(i & 1023) * (1 / 1024.0f));
    sum += s.w;
  }
  t1 = now_ns();
  report("anim_quat_slerp (far)", t0, t1, sum);

  sum = 0;
  t0 = now_ns();
  for (int i = 0; i < N; i++) {
    anim_quat_t s = anim_quat_nlerp(q, r, (float)(i & 1023) * (1 / 1024.0f));
    sum += s.w;
  }
  t1 = now_ns();
  report("anim_quat_nlerp", t0, t1, sum);

  anim_transform_t tr = {anim_vec3(1, 2, 3), q, anim_vec3(1, 1, 1)};
  anim_mat4_t m = anim_mat4_identity();
  sum = 0;
  t0 = now_ns();
  for (int i = 0; i < N; i++) {
    tr.translation.x = (float)(i & 7);
    m = anim_mat4_from_transform(&tr);
    sum += m.m[12] + m.m[0];
  }
  t1 = now_ns();
  report("anim_mat4_from_transform", t0, t1, sum);

  sum = 0;
  t0 = now_ns();
  for (int i = 0; i < N; i++) {
    tr.translation.x = (float)(i & 7);
    anim_mat4_from_trs_inl(&m, tr.translation, tr.rotation, tr.scale);
    sum += m.m[12] + m.m[0];
  }
  t1 = now_ns();
  report("anim_mat4_from_trs_inl", t0, t1, sum);

  anim_mat4_t a = anim_mat4_from_transform(&tr), p = anim_mat4_identity();
  t0 = now_ns();
  for (int i = 0; i < N; i++) p = anim_mat4_mul(&a, &p);
  t1 = now_ns();
  report("anim_mat4_mul", t0, t1, p.m[0]);

  p = anim_mat4_identity();
  t0 = now_ns();
  for (int i = 0; i < N; i++) {
    anim_mat4_t o;
    anim_mat4_mul_inl(&o, &a, &p);
    p = o;
  }
  t1 = now_ns();
  report("anim_mat4_mul_inl", t0, t1, p.m[0]);

  sum = 0;
  t0 = now_ns();
  for (int i = 0; i < N; i++) {
    a.m[12] = (float)(i & 7);
    anim_quat_t f = anim_quat_from_mat4(&a);
    sum += f.w;
  }
  t1 = now_ns();
  report("anim_quat_from_mat4", t0, t1, sum);

  sum = 0;
  t0 = now_ns();
  for (int i = 0; i < N; i++) {
    anim_mat4_t inv;
    a.m[12] = (float)(i & 7);
    if (anim_mat4_affine_inverse(&a, &inv) == ANIM_OK) sum += inv.m[12];
  }
  t1 = now_ns();
  report("anim_mat4_affine_inverse", t0, t1, sum);
  return 0;
}
