/* animd core: quaternion exp/ln and the interpolators (slerp, nlerp, squad,
 * squad setup, barycentric).
 *
 * anim_quat_slerp is D3DXQuaternionSlerp's curve: it takes the shortest path
 * (b is negated when a . b < 0), so squad and barycentric, which are built
 * on it exactly as D3DX builds them, give D3DX's numbers. Our slerp also
 * returns the endpoints exactly, falls back to normalized lerp when the
 * inputs are nearly equal (where sin(theta) loses precision), and
 * renormalizes so that unit inputs give unit outputs to the last bit. */
#include <math.h>

#include "animd/math.h"
#include "core/math_inline.h"

/* Above this cosine (an angle of 0.01 between the inputs as 4-vectors, a
 * rotation of 0.02 rad) normalized lerp departs from slerp by at most
 * 1.6e-8 rad, below float precision, and sin(theta) no longer needs to be
 * divided by. */
#define SLERP_NLERP_DOT 0.99995f

static anim_quat_t quat_neg(anim_quat_t q) {
  return anim_quat(-q.x, -q.y, -q.z, -q.w);
}

static anim_quat_t quat_blend(anim_quat_t a, float wa, anim_quat_t b,
                              float wb) {
  return anim_quat(a.x * wa + b.x * wb, a.y * wa + b.y * wb,
                   a.z * wa + b.z * wb, a.w * wa + b.w * wb);
}

/* Slerp from a to b along the great arc through them (no sign choice). */
static anim_quat_t slerp_arc(anim_quat_t a, anim_quat_t b, float d, float t) {
  if (t == 0.0f) return a;
  if (t == 1.0f) return b;
  if (d > SLERP_NLERP_DOT)
    return anim_quat_normalize(quat_blend(a, 1.0f - t, b, t));
  if (d < -SLERP_NLERP_DOT) {
    /* Nearly opposite: every great circle through a reaches -a, so turn
     * through a fixed quaternion p perpendicular to a (a . p = 0). */
    anim_quat_t p = anim_quat(-a.y, a.x, -a.w, a.z);
    float ang = 3.14159265358979323846f * t;
    return anim_quat_normalize(quat_blend(a, cosf(ang), p, sinf(ang)));
  }
  float theta = acosf(d);
  float inv_sin = 1.0f / sinf(theta);
  float wa = sinf((1.0f - t) * theta) * inv_sin;
  float wb = sinf(t * theta) * inv_sin;
  return anim_quat_normalize(quat_blend(a, wa, b, wb));
}

anim_quat_t anim_quat_slerp(anim_quat_t a, anim_quat_t b, float t) {
  float d = anim_quat_dot(a, b);
  if (d < 0.0f) {
    b = quat_neg(b);
    d = -d;
  }
  return slerp_arc(a, b, d, t);
}

anim_quat_t anim_quat_slerp_no_invert(anim_quat_t a, anim_quat_t b, float t) {
  return slerp_arc(a, b, anim_quat_dot(a, b), t);
}

anim_quat_t anim_quat_nlerp(anim_quat_t a, anim_quat_t b, float t) {
  if (anim_quat_dot(a, b) < 0.0f) b = quat_neg(b);
  return anim_quat_normalize(quat_blend(a, 1.0f - t, b, t));
}

/* exp(v, 0) = (sin|v| v/|v|, cos|v|); sin(n)/n is taken from its series
 * below n = 1e-4, where the quotient would lose precision. */
anim_quat_t anim_quat_exp(anim_quat_t q) {
  float n = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z);
  float k = n > 1e-4f ? sinf(n) / n : 1.0f - n * n * (1.0f / 6.0f);
  return anim_quat(q.x * k, q.y * k, q.z * k, cosf(n));
}

/* ln(v, w) = (atan2(|v|, w) v/|v|, 0): for unit q this equals D3DX's
 * acos(w)/sqrt(1 - w^2) scaling, without its cancellation near w = +-1. */
anim_quat_t anim_quat_ln(anim_quat_t q) {
  float s = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z);
  float k = s > 0.0f ? atan2f(s, q.w) / s : 1.0f;
  return anim_quat(q.x * k, q.y * k, q.z * k, 0.0f);
}

anim_quat_t anim_quat_squad(anim_quat_t q1, anim_quat_t a, anim_quat_t b,
                            anim_quat_t c, float t) {
  anim_quat_t outer = anim_quat_slerp(q1, c, t);
  anim_quat_t inner = anim_quat_slerp(a, b, t);
  return anim_quat_slerp(outer, inner, 2.0f * t * (1.0f - t));
}

/* exp(-(ln(p * k^-1) + ln(n * k^-1)) / 4) * k: the inner control point of key
 * k between its neighbours p and n. D3DX writes its products in the opposite
 * order (D3DXQuaternionMultiply(x, y) is our y * x), so this is its
 * k * exp(-(ln(k^-1 n) + ln(k^-1 p)) / 4) in D3DX notation. */
static anim_quat_t squad_inner(anim_quat_t p, anim_quat_t k, anim_quat_t n) {
  anim_quat_t kinv = anim_quat_inverse(k);
  anim_quat_t lp = anim_quat_ln(anim_quat_mul_inl(p, kinv));
  anim_quat_t ln_ = anim_quat_ln(anim_quat_mul_inl(n, kinv));
  anim_quat_t e = anim_quat(-0.25f * (lp.x + ln_.x), -0.25f * (lp.y + ln_.y),
                            -0.25f * (lp.z + ln_.z), 0.0f);
  return anim_quat_mul_inl(anim_quat_exp(e), k);
}

void anim_quat_squad_setup(anim_quat_t *a_out, anim_quat_t *b_out,
                           anim_quat_t *c_out, anim_quat_t q0, anim_quat_t q1,
                           anim_quat_t q2, anim_quat_t q3) {
  /* D3DX's alignment: q0 and q2 to q1's hemisphere, then q3 to the aligned
   * q2's (|x + y| < |x - y| is the same test as x . y < 0). */
  if (anim_quat_dot(q0, q1) < 0.0f) q0 = quat_neg(q0);
  if (anim_quat_dot(q1, q2) < 0.0f) q2 = quat_neg(q2);
  if (anim_quat_dot(q2, q3) < 0.0f) q3 = quat_neg(q3);
  anim_quat_t a = squad_inner(q0, q1, q2);
  anim_quat_t b = squad_inner(q1, q2, q3);
  if (a_out != NULL) *a_out = a;
  if (b_out != NULL) *b_out = b;
  if (c_out != NULL) *c_out = q2;
}

anim_quat_t anim_quat_barycentric(anim_quat_t q1, anim_quat_t q2,
                                  anim_quat_t q3, float f, float g) {
  float fg = f + g;
  if (fg == 0.0f) return q1;
  anim_quat_t a = anim_quat_slerp(q1, q2, fg);
  anim_quat_t b = anim_quat_slerp(q1, q3, fg);
  return anim_quat_slerp(a, b, g / fg);
}
