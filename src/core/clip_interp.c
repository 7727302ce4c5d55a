/* animd core: CUBICSPLINE, BEZIER and SQUAD evaluation of a clip track.
 *
 * CUBICSPLINE is the glTF 2.0 Hermite spline with tangents scaled by the
 * key interval; BEZIER solves a per-key easing curve for its parameter
 * (Newton steps kept inside a shrinking bisection bracket, so it always
 * converges) and interpolates with the eased factor; SQUAD uses D3DX's
 * squad between precomputed squad-setup controls for rotations and uniform
 * Catmull-Rom for vectors. Rotations come out normalized. */
#include <math.h>

#include "clip_interp.h"
#include "pose_kernels.h"

static void write_quat(float *out, anim_quat_t q) {
  q = pk_quat_normalize(q);
  out[0] = q.x;
  out[1] = q.y;
  out[2] = q.z;
  out[3] = q.w;
}

static anim_quat_t load_quat(const float *v) {
  anim_quat_t q = {v[0], v[1], v[2], v[3]};
  return q;
}

/* ---- CUBICSPLINE --------------------------------------------------------- */

/* p(s) = (2s^3 - 3s^2 + 1) v_k + (s^3 - 2s^2 + s) dt b_k
 *      + (-2s^3 + 3s^2) v_k+1 + (s^3 - s^2) dt a_k+1,
 * b_k the out-tangent of key k and a_k+1 the in-tangent of key k + 1. */
static void cubic(const anim_track_t *tr, uint32_t k, float s, float *out) {
  uint32_t c = tr->components;
  const float *k0 = tr->values + (size_t)k * 3u * c;
  const float *k1 = k0 + 3u * c;
  float dt = tr->times[k + 1] - tr->times[k];
  float s2 = s * s, s3 = s2 * s;
  float h00 = 2.f * s3 - 3.f * s2 + 1.f;
  float h10 = (s3 - 2.f * s2 + s) * dt;
  float h01 = -2.f * s3 + 3.f * s2;
  float h11 = (s3 - s2) * dt;
  for (uint32_t i = 0; i < c; i++)
    out[i] =
        h00 * k0[c + i] + h10 * k0[2u * c + i] + h01 * k1[c + i] + h11 * k1[i];
  if (c == 4) write_quat(out, load_quat(out));
}

/* ---- BEZIER -------------------------------------------------------------- */

/* One coordinate of the cubic Bezier from 0 to 1 with controls p1, p2. */
static double bez(double p1, double p2, double s) {
  double r = 1.0 - s;
  return 3.0 * r * r * s * p1 + 3.0 * r * s * s * p2 + s * s * s;
}

static double bez_slope(double p1, double p2, double s) {
  double r = 1.0 - s;
  return 3.0 * r * r * p1 + 6.0 * r * s * (p2 - p1) + 3.0 * s * s * (1.0 - p2);
}

float anim__bezier_factor(const float *curve, float u) {
  double x1 = curve[0], y1 = curve[1], x2 = curve[2], y2 = curve[3];
  if (!(u > 0.f)) return 0.f;
  if (!(u < 1.f)) return 1.f;
  /* x(s) is non-decreasing on [0, 1] when x1, x2 are in [0, 1], so the
   * root is bracketed by [lo, hi]; a Newton step leaving the bracket (or a
   * flat slope) is replaced by bisection. */
  double lo = 0.0, hi = 1.0, s = u;
  for (int it = 0; it < 64; it++) {
    double f = bez(x1, x2, s) - u;
    if (fabs(f) < 1e-12) break;
    if (f < 0.0)
      lo = s;
    else
      hi = s;
    double d = bez_slope(x1, x2, s);
    double next = d > 1e-12 ? s - f / d : lo - 1.0;
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    if (hi - lo < 1e-15) break;
    s = next;
  }
  return (float)bez(y1, y2, s);
}

/* ---- SQUAD --------------------------------------------------------------- */

void anim__squad_controls(const float *keys, uint32_t n, anim_quat_t *out) {
  for (uint32_t k = 0; k + 1 < n; k++) {
    anim_quat_t q0 = load_quat(keys + 4u * (k > 0 ? k - 1 : 0));
    anim_quat_t q3 = load_quat(keys + 4u * (k + 2 < n ? k + 2 : n - 1));
    anim_quat_squad_setup(&out[3 * k], &out[3 * k + 1], &out[3 * k + 2], q0,
                          load_quat(keys + 4u * k),
                          load_quat(keys + 4u * (k + 1)), q3);
  }
}

/* Uniform Catmull-Rom through p1 (s = 0) and p2 (s = 1). */
static float catmull_rom(float p0, float p1, float p2, float p3, float s) {
  float s2 = s * s, s3 = s2 * s;
  return 0.5f * (2.f * p1 + (p2 - p0) * s +
                 (2.f * p0 - 5.f * p1 + 4.f * p2 - p3) * s2 +
                 (-p0 + 3.f * p1 - 3.f * p2 + p3) * s3);
}

static void squad(const anim_track_t *tr, uint32_t k, float s, float *out) {
  uint32_t n = tr->key_count, c = tr->components;
  if (c == 4) {
    const anim_quat_t *ctl = tr->squad_controls + 3u * k;
    write_quat(out, anim_quat_squad(load_quat(tr->values + 4u * k), ctl[0],
                                    ctl[1], ctl[2], s));
    return;
  }
  const float *p0 = tr->values + (size_t)(k > 0 ? k - 1 : 0) * c;
  const float *p1 = tr->values + (size_t)k * c;
  const float *p2 = tr->values + (size_t)(k + 1) * c;
  const float *p3 = tr->values + (size_t)(k + 2 < n ? k + 2 : n - 1) * c;
  for (uint32_t i = 0; i < c; i++)
    out[i] = catmull_rom(p0[i], p1[i], p2[i], p3[i], s);
}

/* ---- dispatch ------------------------------------------------------------ */

void anim__track_segment(const anim_track_t *tr, uint32_t k, float u,
                         float *out) {
  uint32_t c = tr->components;
  switch (tr->interpolation) {
  case ANIM_INTERP_CUBICSPLINE: cubic(tr, k, u, out); return;
  case ANIM_INTERP_SQUAD: squad(tr, k, u, out); return;
  case ANIM_INTERP_STEP: {
    const float *a = ci_key_value(tr, k);
    for (uint32_t i = 0; i < c; i++) out[i] = a[i];
    return;
  }
  case ANIM_INTERP_BEZIER:
    u = anim__bezier_factor(tr->bezier + 4u * k, u);
    break;
  default: break;
  }
  const float *a = ci_key_value(tr, k), *b = ci_key_value(tr, k + 1);
  if (c == 4) {
    write_quat(out, pk_quat_slerp(load_quat(a), load_quat(b), u));
    return;
  }
  for (uint32_t i = 0; i < c; i++) out[i] = a[i] + (b[i] - a[i]) * u;
}
