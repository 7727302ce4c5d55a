/* server/request: the "ik" request field (ik_field.h). */
#include "server/request/ik_field.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/suggest.h"
#include "server/request/evaluate.h"
#include "server/request/target.h"

typedef enum ik_type { IK_TWO_BONE, IK_AIM } ik_type;

/* One entry, defaults filled in. */
typedef struct ik_entry_s {
  ik_type type;
  char *names[3];    /* start, mid, end; aim: joint. Owned. */
  int32_t joints[3]; /* Storage indices once resolved. */
  anim_vec3_t target, pole, mid_axis, forward, up, offset;
  float twist, soften, weight;
} ik_entry_t;

typedef struct ik_value_s {
  size_t count;
  ik_entry_t entries[];
} ik_value_t;

static void ik_free(void *data) {
  ik_value_t *v = data;
  if (v == NULL) return;
  for (size_t i = 0; i < v->count; i++)
    for (int k = 0; k < 3; k++) free(v->entries[i].names[k]);
  free(v);
}

/* ---- parse ------------------------------------------------------------------
 */

/* The members each type takes. */
static const char *const two_bone_members[] = {
    "type",     "start", "mid",    "end",    "target", "pole",
    "mid_axis", "twist", "soften", "weight", NULL};
static const char *const aim_members[] = {
    "type",   "joint", "target", "forward", "up",
    "offset", "pole",  "twist",  "weight",  NULL};

static bool listed(const char *const *names, const char *key) {
  for (size_t i = 0; names[i] != NULL; i++)
    if (strcmp(names[i], key) == 0) return true;
  return false;
}

/* "<at>[i].<member>" into where. */
static const char *spot(char *where, size_t cap, const char *at, size_t i,
                        const char *member) {
  snprintf(where, cap, "%s[%zu].%s", at, i, member);
  return where;
}

static int need_name(const json_t *o, const char *member, const char *at,
                     size_t i, char **out, srv_error_t *err) {
  char where[96];
  json_t *j = json_object_get(o, member);
  if (j == NULL)
    return srv_error_set(err, SRV_ERR_MISSING_FIELD,
                         spot(where, sizeof where, at, i, member),
                         "'%s' names a joint", member);
  if (!json_is_string(j) || json_string_length(j) == 0)
    return srv_error_set(err, SRV_ERR_WRONG_TYPE,
                         spot(where, sizeof where, at, i, member),
                         "'%s' is a joint name", member);
  *out = strdup(json_string_value(j));
  if (*out == NULL)
    return srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
  return 0;
}

/* A vector member: [x, y, z] of finite numbers (def when absent); an axis
 * is normalized and refused when zero. */
static int vec_member(const json_t *o, const char *member, bool required,
                      bool axis, anim_vec3_t def, const char *at, size_t i,
                      anim_vec3_t *out, srv_error_t *err) {
  char where[96];
  json_t *j = json_object_get(o, member);
  *out = def;
  if (j == NULL) {
    if (!required) return 0;
    return srv_error_set(err, SRV_ERR_MISSING_FIELD,
                         spot(where, sizeof where, at, i, member),
                         "'%s' is required: [x, y, z]", member);
  }
  double v[3];
  if (!json_is_array(j) || json_array_size(j) != 3)
    return srv_error_set(err, SRV_ERR_WRONG_TYPE,
                         spot(where, sizeof where, at, i, member),
                         "'%s' is [x, y, z]", member);
  for (size_t k = 0; k < 3; k++) {
    json_t *n = json_array_get(j, k);
    if (!json_is_number(n))
      return srv_error_set(err, SRV_ERR_WRONG_TYPE,
                           spot(where, sizeof where, at, i, member),
                           "'%s' is [x, y, z] of numbers", member);
    v[k] = json_number_value(n);
    if (!isfinite(v[k]) || fabs(v[k]) > 1e30)
      return srv_error_set(err, SRV_ERR_BAD_VALUE,
                           spot(where, sizeof where, at, i, member),
                           "'%s' holds a number out of range", member);
  }
  if (axis) {
    double l = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (!(l > 1e-9))
      return srv_error_set(err, SRV_ERR_BAD_VALUE,
                           spot(where, sizeof where, at, i, member),
                           "'%s' is a direction: it cannot be zero", member);
    for (int k = 0; k < 3; k++) v[k] /= l;
  }
  *out = (anim_vec3_t){(float)v[0], (float)v[1], (float)v[2]};
  return 0;
}

static int num_member(const json_t *o, const char *member, double lo, double hi,
                      float def, const char *at, size_t i, float *out,
                      srv_error_t *err) {
  char where[96];
  json_t *j = json_object_get(o, member);
  *out = def;
  if (j == NULL) return 0;
  if (!json_is_number(j))
    return srv_error_set(err, SRV_ERR_WRONG_TYPE,
                         spot(where, sizeof where, at, i, member),
                         "'%s' is a number", member);
  double v = json_number_value(j);
  if (!isfinite(v) || v < lo || v > hi)
    return srv_error_set(err, SRV_ERR_BAD_VALUE,
                         spot(where, sizeof where, at, i, member),
                         "'%s' is a number from %g to %g", member, lo, hi);
  *out = (float)v;
  return 0;
}

static int parse_entry(const json_t *o, const char *at, size_t i, ik_entry_t *e,
                       srv_error_t *err) {
  char where[96];
  if (!json_is_object(o)) {
    snprintf(where, sizeof where, "%s[%zu]", at, i);
    return srv_error_set(err, SRV_ERR_WRONG_TYPE, where,
                         "an IK entry is an object");
  }
  json_t *jt = json_object_get(o, "type");
  const char *type = json_string_value(jt);
  if (jt == NULL)
    return srv_error_set(err, SRV_ERR_MISSING_FIELD,
                         spot(where, sizeof where, at, i, "type"),
                         "'type' is two_bone or aim");
  if (type == NULL ||
      (strcmp(type, "two_bone") != 0 && strcmp(type, "aim") != 0))
    return srv_error_set(
        err, json_is_string(jt) ? SRV_ERR_BAD_VALUE : SRV_ERR_WRONG_TYPE,
        spot(where, sizeof where, at, i, "type"), "'type' is two_bone or aim");
  e->type = strcmp(type, "aim") == 0 ? IK_AIM : IK_TWO_BONE;
  const char *const *members =
      e->type == IK_AIM ? aim_members : two_bone_members;
  const char *key;
  json_t *value;
  json_object_foreach((json_t *)o, key, value) {
    if (!listed(members, key)) {
      srv_error_set(err, SRV_ERR_UNKNOWN_FIELD,
                    spot(where, sizeof where, at, i, key),
                    "a %s entry has no '%s'", type, key);
      return srv_error_did_you_mean(err, fmt_suggest_list(key, members));
    }
  }
  const anim_vec3_t x = {1, 0, 0}, y = {0, 1, 0}, z = {0, 0, 1}, zero = {0};
  const double big = 1e6;
  if (e->type == IK_TWO_BONE) {
    if (need_name(o, "start", at, i, &e->names[0], err) != 0 ||
        need_name(o, "mid", at, i, &e->names[1], err) != 0 ||
        need_name(o, "end", at, i, &e->names[2], err) != 0 ||
        vec_member(o, "target", true, false, zero, at, i, &e->target, err) ||
        vec_member(o, "pole", false, true, y, at, i, &e->pole, err) ||
        vec_member(o, "mid_axis", false, true, z, at, i, &e->mid_axis, err) ||
        num_member(o, "twist", -big, big, 0, at, i, &e->twist, err) ||
        num_member(o, "soften", 0, 1, 1, at, i, &e->soften, err) ||
        num_member(o, "weight", 0, 1, 1, at, i, &e->weight, err))
      return -1;
    return 0;
  }
  if (need_name(o, "joint", at, i, &e->names[0], err) != 0 ||
      vec_member(o, "target", true, false, zero, at, i, &e->target, err) ||
      vec_member(o, "forward", false, true, x, at, i, &e->forward, err) ||
      vec_member(o, "up", false, true, y, at, i, &e->up, err) ||
      vec_member(o, "offset", false, false, zero, at, i, &e->offset, err) ||
      vec_member(o, "pole", false, true, y, at, i, &e->pole, err) ||
      num_member(o, "twist", -big, big, 0, at, i, &e->twist, err) ||
      num_member(o, "weight", 0, 1, 1, at, i, &e->weight, err))
    return -1;
  return 0;
}

static int ik_parse(const json_t *json, const char *at, void **data,
                    srv_error_t *err) {
  if (!json_is_array(json))
    return srv_error_set(err, SRV_ERR_WRONG_TYPE, at,
                         "'%s' is an array of IK entries", at);
  size_t n = json_array_size(json);
  if (n > SRV_IK_MAX)
    return srv_error_set(err, SRV_ERR_BAD_VALUE, at,
                         "'%s' holds at most %d entries", at, SRV_IK_MAX);
  ik_value_t *v = calloc(1, sizeof *v + n * sizeof v->entries[0]);
  if (v == NULL) return srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
  for (size_t i = 0; i < n; i++) {
    v->count = i + 1;
    if (parse_entry(json_array_get(json, i), at, i, &v->entries[i], err) != 0) {
      ik_free(v);
      return -1;
    }
  }
  *data = v;
  return 0;
}

/* ---- resolve ----------------------------------------------------------------
 */

static bool is_ancestor(const anim_skeleton_t *sk, int32_t a, int32_t j) {
  for (int32_t p = sk->parents[j]; p >= 0; p = sk->parents[p])
    if (p == a) return true;
  return false;
}

static int ik_resolve(void *data, const anim_skeleton_t *sk, const char *at,
                      srv_error_t *err) {
  ik_value_t *v = data;
  static const char *const two_bone[] = {"start", "mid", "end"};
  char where[128];
  for (size_t i = 0; i < v->count; i++) {
    ik_entry_t *e = &v->entries[i];
    int n = e->type == IK_AIM ? 1 : 3;
    for (int k = 0; k < n; k++) {
      const char *member = e->type == IK_AIM ? "joint" : two_bone[k];
      e->joints[k] = anim_skeleton_find(sk, e->names[k]);
      if (e->joints[k] < 0) {
        srv_error_set(err, SRV_ERR_UNKNOWN_JOINT,
                      spot(where, sizeof where, at, i, member),
                      "the skeleton has no joint '%s'", e->names[k]);
        return srv_error_did_you_mean(err, srv_joint_nearest(sk, e->names[k]));
      }
    }
    if (e->type == IK_TWO_BONE) {
      if (!is_ancestor(sk, e->joints[0], e->joints[1]))
        return srv_error_set(
            err, SRV_ERR_BAD_VALUE, spot(where, sizeof where, at, i, "mid"),
            "'%s' is not a descendant of start '%s'", e->names[1], e->names[0]);
      if (!is_ancestor(sk, e->joints[1], e->joints[2]))
        return srv_error_set(
            err, SRV_ERR_BAD_VALUE, spot(where, sizeof where, at, i, "mid"),
            "'%s' is not an ancestor of end '%s'", e->names[1], e->names[2]);
    }
  }
  return 0;
}

/* ---- the model stage --------------------------------------------------------
 */

static anim_vec3_t origin(const anim_mat4_t *m) {
  return (anim_vec3_t){m->m[12], m->m[13], m->m[14]};
}

/* rotation * correction, kept bit for bit when correction is identity. */
static void correct(anim_quat_t *rotation, anim_quat_t c) {
  if (c.x == 0 && c.y == 0 && c.z == 0 && c.w == 1) return;
  *rotation = anim_quat_mul(*rotation, c);
}

static anim_result two_bone(const ik_entry_t *e, srv_field_stage_t *st,
                            float *answer) {
  anim_quat_t cs, cm;
  bool reached = false;
  anim_ik_two_bone_job_t job = {.start = &st->model[e->joints[0]],
                                .mid = &st->model[e->joints[1]],
                                .end = &st->model[e->joints[2]],
                                .target = e->target,
                                .pole = e->pole,
                                .mid_axis = e->mid_axis,
                                .twist = e->twist,
                                .soften = e->soften,
                                .weight = e->weight,
                                .start_correction = &cs,
                                .mid_correction = &cm,
                                .reached = &reached};
  anim_result r = anim_ik_two_bone_job_run(&job);
  if (r != ANIM_OK) return r;
  if (e->weight > 0) {
    correct(&st->pose.rotation[e->joints[0]], cs);
    correct(&st->pose.rotation[e->joints[1]], cm);
    r = srv_field_stage_refresh(st, (uint32_t)e->joints[0]);
    if (r != ANIM_OK) return r;
  }
  anim_vec3_t d = anim_vec3_sub(origin(&st->model[e->joints[2]]), e->target);
  answer[0] = reached ? 1.0f : 0.0f;
  answer[1] = anim_vec3_length(d);
  return ANIM_OK;
}

static anim_result aim(const ik_entry_t *e, srv_field_stage_t *st,
                       float *answer) {
  anim_quat_t c;
  bool reached = false;
  anim_ik_aim_job_t job = {.joint = &st->model[e->joints[0]],
                           .target = e->target,
                           .forward = e->forward,
                           .up = e->up,
                           .offset = e->offset,
                           .pole = e->pole,
                           .twist = e->twist,
                           .weight = e->weight,
                           .correction = &c,
                           .reached = &reached};
  anim_result r = anim_ik_aim_job_run(&job);
  if (r != ANIM_OK) return r;
  if (e->weight > 0) {
    correct(&st->pose.rotation[e->joints[0]], c);
    r = srv_field_stage_refresh(st, (uint32_t)e->joints[0]);
    if (r != ANIM_OK) return r;
  }
  /* The angle between the forward axis, cast from offset, and the target
   * seen from there: atan2 of |cross| and dot never gives NaN. */
  const anim_mat4_t *m = &st->model[e->joints[0]];
  anim_vec3_t f = anim_mat4_transform_vector(m, e->forward);
  anim_vec3_t to =
      anim_vec3_sub(e->target, anim_mat4_transform_point(m, e->offset));
  answer[0] = reached ? 1.0f : 0.0f;
  answer[1] =
      atan2f(anim_vec3_length(anim_vec3_cross(f, to)), anim_vec3_dot(f, to));
  return ANIM_OK;
}

static anim_result ik_model(const void *data, srv_field_stage_t *st) {
  const ik_value_t *v = data;
  float scratch[2];
  for (size_t i = 0; i < v->count; i++) {
    float *answer = st->answer != NULL ? st->answer + 2 * i : scratch;
    const ik_entry_t *e = &v->entries[i];
    anim_result r =
        e->type == IK_AIM ? aim(e, st, answer) : two_bone(e, st, answer);
    if (r != ANIM_OK) return r;
  }
  return ANIM_OK;
}

/* ---- the answer -------------------------------------------------------------
 */

static size_t ik_answer_floats(const void *data) {
  return 2 * ((const ik_value_t *)data)->count;
}

static void ik_answer_json(fmt_buf_t *b, const void *data,
                           const float *answer) {
  const ik_value_t *v = data;
  fmt_buf_putc(b, '[');
  for (size_t i = 0; i < v->count; i++) {
    fmt_buf_puts(b, i ? ",{\"reached\":" : "{\"reached\":");
    fmt_buf_puts(b, answer[2 * i] != 0 ? "true" : "false");
    fmt_buf_puts(b, ",\"error\":");
    fmt_buf_float(b, answer[2 * i + 1]);
    fmt_buf_putc(b, '}');
  }
  fmt_buf_putc(b, ']');
}

const srv_field_t srv_ik_field = {
    .name = "ik",
    .type = SRV_FIELD_VALUE,
    .takes = SRV_TAKES_POSE_BODY | SRV_TAKES_WS_STREAM | SRV_TAKES_WS_POSE,
    .parse = ik_parse,
    .resolve = ik_resolve,
    .free_data = ik_free,
    .model = ik_model,
    .answer_floats = ik_answer_floats,
    .answer_json = ik_answer_json,
};
