/* server/verdict: a pose case's expectations (expect.h). */
#include "server/verdict/expect.h"

#include "server/verdict/members.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/suggest.h"
#include "server/request/target.h"

/* ---- parsing ---------------------------------------------------------------
 */

/* The array arr of n finite numbers into v. 0, or -1 with err. */
static int parse_numbers(const json_t *arr, const char *at, double *v, size_t n,
                         srv_error_t *err) {
  if (!json_is_array(arr))
    return srv_error_set(err, SRV_ERR_WRONG_TYPE, at,
                         "%s is an array of %zu numbers", at, n);
  if (json_array_size(arr) != n)
    return srv_error_set(err, SRV_ERR_VALUE_COUNT, at,
                         "%s has %zu numbers, not %zu", at,
                         json_array_size(arr), n);
  for (size_t i = 0; i < n; i++) {
    const json_t *x = json_array_get(arr, i);
    if (!json_is_number(x))
      return srv_error_set(err, SRV_ERR_WRONG_TYPE, at,
                           "%s is an array of %zu numbers", at, n);
    v[i] = json_number_value(x);
    if (!isfinite(v[i]))
      return srv_error_set(err, SRV_ERR_NOT_FINITE, at, NULL);
  }
  return 0;
}

/* A tolerance member (>= 0, finite), or def when absent. */
static int parse_tolerance(const json_t *obj, const char *name, const char *at,
                           double def, double *out, srv_error_t *err) {
  const json_t *v = json_object_get(obj, name);
  char where[160];
  verdict_at(at, name, where, sizeof where);
  *out = def;
  if (v == NULL) return 0;
  if (!json_is_number(v))
    return srv_error_set(err, SRV_ERR_WRONG_TYPE, where, "%s is a number",
                         name);
  *out = json_number_value(v);
  if (!isfinite(*out) || *out < 0)
    return srv_error_set(err, SRV_ERR_BAD_VALUE, where,
                         "%s is a finite number >= 0", name);
  return 0;
}

static int parse_one(const json_t *obj, const char *at, verdict_expect_t *e,
                     srv_error_t *err) {
  char where[160];
  if (!json_is_object(obj))
    return srv_error_set(err, SRV_ERR_WRONG_TYPE, at,
                         "an expectation is an object");
  const char *key;
  const json_t *v;
  json_object_foreach((json_t *)obj, key, v) {
    if (strcmp(key, "joint") && strcmp(key, "position") &&
        strcmp(key, "rotation") && strcmp(key, "tolerance") &&
        strcmp(key, "tolerance_deg")) {
      verdict_at(at, key, where, sizeof where);
      srv_error_set(err, SRV_ERR_UNKNOWN_FIELD, where, "unknown field '%s'",
                    key);
      return srv_error_did_you_mean(
          err, fmt_suggest_list(key, (const char *const[]){
                                         "joint", "position", "rotation",
                                         "tolerance", "tolerance_deg", NULL}));
    }
  }
  const json_t *joint = json_object_get(obj, "joint");
  verdict_at(at, "joint", where, sizeof where);
  if (joint == NULL)
    return srv_error_set(err, SRV_ERR_MISSING_FIELD, where,
                         "an expectation names its joint");
  if (!json_is_string(joint))
    return srv_error_set(err, SRV_ERR_WRONG_TYPE, where, "joint is a string");
  e->joint = json_string_value(joint);
  const json_t *pos = json_object_get(obj, "position");
  const json_t *rot = json_object_get(obj, "rotation");
  if ((pos == NULL) == (rot == NULL))
    return srv_error_set(err, SRV_ERR_BAD_VALUE, at,
                         "an expectation has exactly one of position and "
                         "rotation");
  e->rotation = rot != NULL;
  verdict_at(at, e->rotation ? "rotation" : "position", where, sizeof where);
  if (parse_numbers(e->rotation ? rot : pos, where, e->want,
                    e->rotation ? 4 : 3, err) != 0)
    return -1;
  const char *wrong = e->rotation ? "tolerance" : "tolerance_deg";
  if (json_object_get(obj, wrong) != NULL) {
    verdict_at(at, wrong, where, sizeof where);
    return srv_error_set(err, SRV_ERR_UNKNOWN_FIELD, where, "a %s takes %s",
                         e->rotation ? "rotation" : "position",
                         e->rotation ? "tolerance_deg" : "tolerance");
  }
  if (!e->rotation)
    return parse_tolerance(obj, "tolerance", at, VERDICT_EXPECT_TOLERANCE,
                           &e->tolerance, err);
  double len = sqrt(e->want[0] * e->want[0] + e->want[1] * e->want[1] +
                    e->want[2] * e->want[2] + e->want[3] * e->want[3]);
  if (!(len > 1e-9))
    return srv_error_set(err, SRV_ERR_BAD_VALUE, where,
                         "a rotation is a quaternion of non-zero length");
  for (int i = 0; i < 4; i++) e->want[i] /= len;
  return parse_tolerance(obj, "tolerance_deg", at, VERDICT_EXPECT_TOLERANCE_DEG,
                         &e->tolerance, err);
}

int verdict_expect_parse(const json_t *arr, const char *at,
                         verdict_expect_t **out, size_t *count,
                         srv_error_t *err) {
  *out = NULL;
  *count = 0;
  if (!json_is_array(arr))
    return srv_error_set(err, SRV_ERR_WRONG_TYPE, at,
                         "expect is an array of expectations");
  size_t n = json_array_size(arr);
  if (n == 0)
    return srv_error_set(err, SRV_ERR_BAD_VALUE, at,
                         "expect lists at least one expectation");
  verdict_expect_t *e = calloc(n, sizeof *e);
  if (e == NULL) return srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
  for (size_t k = 0; k < n; k++) {
    char where[160];
    snprintf(where, sizeof where, "%s[%zu]", at, k);
    if (parse_one(json_array_get(arr, k), where, &e[k], err) != 0) {
      free(e);
      return -1;
    }
  }
  *out = e;
  *count = n;
  return 0;
}

int verdict_expect_resolve(verdict_expect_t *e, size_t count,
                           const anim_skeleton_t *sk, const char *at,
                           srv_error_t *err) {
  for (size_t k = 0; k < count; k++) {
    int32_t s = anim_skeleton_find(sk, e[k].joint);
    if (s < 0) {
      char where[160];
      snprintf(where, sizeof where, "%s[%zu].joint", at, k);
      srv_error_set(err, SRV_ERR_UNKNOWN_JOINT, where,
                    "the skeleton has no joint '%s'", e[k].joint);
      return srv_error_did_you_mean(err, srv_joint_nearest(sk, e[k].joint));
    }
    e[k].index = sk->to_caller[s];
  }
  return 0;
}

/* ---- checking --------------------------------------------------------------
 */

double verdict_expect_position_error(const float *m, const double *want,
                                     double *got) {
  double d2 = 0;
  for (int i = 0; i < 3; i++) {
    got[i] = m[12 + i];
    d2 += (got[i] - want[i]) * (got[i] - want[i]);
  }
  return sqrt(d2);
}

double verdict_expect_rotation_error(const float *m, const double *want,
                                     double *got) {
  /* The rotation of a scaled joint: its columns made unit first. */
  anim_mat4_t r = {{0}};
  for (int c = 0; c < 3; c++) {
    double len =
        sqrt((double)m[c * 4] * m[c * 4] + (double)m[c * 4 + 1] * m[c * 4 + 1] +
             (double)m[c * 4 + 2] * m[c * 4 + 2]);
    for (int k = 0; k < 3; k++)
      r.m[c * 4 + k] = len > 0 ? (float)(m[c * 4 + k] / len) : 0.0f;
  }
  r.m[15] = 1.0f;
  anim_quat_t q = anim_quat_from_mat4(&r);
  double g[4] = {q.x, q.y, q.z, q.w};
  double dot = 0;
  for (int i = 0; i < 4; i++) dot += g[i] * want[i];
  double sign = dot < 0 ? -1.0 : 1.0;
  /* 4 atan2(|a - b|, |a + b|): exact at small angles, where acos of a dot
   * product near 1 is not. */
  double diff = 0, sum = 0;
  for (int i = 0; i < 4; i++) {
    got[i] = sign * g[i];
    diff += (got[i] - want[i]) * (got[i] - want[i]);
    sum += (got[i] + want[i]) * (got[i] + want[i]);
  }
  return 4.0 * atan2(sqrt(diff), sqrt(sum)) * (180.0 / M_PI);
}

void verdict_expect_check(const verdict_expect_t *e, const float *model,
                          verdict_expect_result_t *out) {
  const float *m = model + 16 * (size_t)e->index;
  memset(out, 0, sizeof *out);
  out->error = e->rotation
                   ? verdict_expect_rotation_error(m, e->want, out->got)
                   : verdict_expect_position_error(m, e->want, out->got);
  out->pass = out->error <= e->tolerance;
}

/* Doubles as floats print (the answers' numbers are float32). */
static void doubles(fmt_buf_t *b, const double *v, size_t n) {
  float f[4];
  for (size_t i = 0; i < n; i++) f[i] = (float)v[i];
  fmt_buf_float_array(b, f, n);
}

void verdict_expect_result_json(fmt_buf_t *b, const verdict_expect_t *e,
                                const verdict_expect_result_t *r) {
  size_t n = e->rotation ? 4 : 3;
  fmt_buf_puts(b, "{\"joint\":");
  fmt_buf_json_string(b, e->joint);
  fmt_buf_puts(b, e->rotation ? ",\"rotation\":" : ",\"position\":");
  doubles(b, r->got, n);
  fmt_buf_puts(b, ",\"expected\":");
  doubles(b, e->want, n);
  fmt_buf_puts(b, ",\"error\":");
  fmt_buf_float(b, (float)r->error);
  fmt_buf_puts(b, e->rotation ? ",\"tolerance_deg\":" : ",\"tolerance\":");
  fmt_buf_float(b, (float)e->tolerance);
  fmt_buf_puts(b, r->pass ? ",\"pass\":true}" : ",\"pass\":false}");
}
