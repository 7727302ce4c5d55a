/* server/verdict: a clip's motion checked (check.h): the table of the
 * check parameters, the samples taken through the evaluation pipeline,
 * the six checks as runs of findings, and the answer. */
#include "server/verdict/check.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/request/evaluate.h"
#include "server/request/target.h"
#include "server/verdict/shell.h"

/* ---- the parameters --------------------------------------------------------
 */

typedef enum param_type {
  P_POSITIVE, /* A finite number > 0. */
  P_NONNEG,   /* A finite number >= 0. */
  P_ANY,      /* A finite number. */
  P_AXIS,     /* x, y or z. */
  P_BOOL,     /* 0, 1, true, false. */
  P_NAMES     /* Joint names. */
} param_type;

typedef struct param_s {
  const char *name;
  param_type type;
  size_t offset; /* Of its double (or int, bool) in the params. */
} param_t;

#define PARAM(n, t)                                                            \
  { #n, t, offsetof(verdict_check_params_t, n) }
static const param_t params[] = {
    PARAM(fps, P_POSITIVE),
    PARAM(feet, P_NAMES),
    PARAM(up, P_AXIS),
    PARAM(floor, P_ANY),
    PARAM(contact_height, P_ANY),
    PARAM(skate_speed, P_NONNEG),
    PARAM(max_skate_ratio, P_NONNEG),
    PARAM(penetration, P_NONNEG),
    PARAM(pop, P_NONNEG),
    PARAM(stretch, P_NONNEG),
    PARAM(loop, P_BOOL),
    PARAM(seam, P_NONNEG),
    PARAM(shell, P_NONNEG),
};
#undef PARAM
#define PARAM_COUNT (sizeof params / sizeof params[0])

const char *verdict_check_param_name(unsigned i) {
  return i < PARAM_COUNT ? params[i].name : NULL;
}

void verdict_check_params_defaults(verdict_check_params_t *p) {
  *p = (verdict_check_params_t){.fps = 60,
                                .up = 1,
                                .floor = 0,
                                .contact_height = 0.05,
                                .skate_speed = 0.5,
                                .max_skate_ratio = 0.02,
                                .penetration = 0.01,
                                .pop = 30,
                                .stretch = 0.01,
                                .loop = false,
                                .seam = 0.001,
                                .shell = 0.03,
                                .feet = NULL};
}

void verdict_check_params_free(verdict_check_params_t *p) {
  json_decref(p->feet);
  p->feet = NULL;
}

static const param_t *param_find(const char *name) {
  for (size_t i = 0; i < PARAM_COUNT; i++)
    if (strcmp(params[i].name, name) == 0) return &params[i];
  return NULL;
}

/* What a number of type t must be, or NULL when v is one. */
static const char *number_fault(param_type t, double v) {
  if (!isfinite(v) || fabs(v) > 3.0e38) return "a finite number";
  if (t == P_POSITIVE && !(v > 0)) return "a number greater than 0";
  if (t == P_NONNEG && !(v >= 0)) return "a number not less than 0";
  return NULL;
}

static int axis_parse(const char *s) {
  if (s[0] != '\0' && s[1] == '\0' && s[0] >= 'x' && s[0] <= 'z')
    return s[0] - 'x';
  return -1;
}

/* Sets feet from a comma-separated list (a new array of its items). */
static int feet_from_csv(verdict_check_params_t *p, const char *csv) {
  json_t *a = json_array();
  if (a == NULL) return -1;
  const char *s = csv;
  for (;;) {
    const char *comma = strchr(s, ',');
    size_t len = comma ? (size_t)(comma - s) : strlen(s);
    if (json_array_append_new(a, json_stringn(s, len)) != 0) {
      json_decref(a);
      return -1;
    }
    if (comma == NULL) break;
    s = comma + 1;
  }
  json_decref(p->feet);
  p->feet = a;
  return 0;
}

/* Stores the checked value v of parameter pm. */
static void param_store(verdict_check_params_t *p, const param_t *pm,
                        double v) {
  char *at = (char *)p + pm->offset;
  if (pm->type == P_AXIS)
    *(int *)at = (int)v;
  else if (pm->type == P_BOOL)
    *(bool *)at = v != 0;
  else
    *(double *)at = v;
}

int verdict_check_param_set(verdict_check_params_t *p, const char *name,
                            const char *value, srv_error_t *err) {
  const param_t *pm = param_find(name);
  if (pm == NULL)
    return srv_error_set(err, SRV_ERR_UNKNOWN_PARAMETER, name,
                         "'%.60s' is not a check parameter", name);
  switch (pm->type) {
  case P_NAMES:
    if (value[0] == '\0') {
      json_decref(p->feet);
      p->feet = NULL;
      return 0;
    }
    if (feet_from_csv(p, value) != 0)
      return srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    if (json_array_size(p->feet) > VERDICT_CHECK_MAX_FEET)
      return srv_error_set(err, SRV_ERR_BAD_PARAMETER, name, "at most %d feet",
                           VERDICT_CHECK_MAX_FEET);
    return 0;
  case P_AXIS: {
    int axis = axis_parse(value);
    if (axis < 0)
      return srv_error_set(err, SRV_ERR_BAD_PARAMETER, name,
                           "'%s' must be x, y or z", name);
    param_store(p, pm, axis);
    return 0;
  }
  case P_BOOL: {
    bool on = strcmp(value, "1") == 0 || strcmp(value, "true") == 0;
    if (!on && strcmp(value, "0") != 0 && strcmp(value, "false") != 0)
      return srv_error_set(err, SRV_ERR_BAD_PARAMETER, name,
                           "'%s' must be 0, 1, true or false", name);
    param_store(p, pm, on);
    return 0;
  }
  default: {
    char *end;
    errno = 0;
    double d = strtod(value, &end);
    const char *fault = number_fault(pm->type, d);
    if (value[0] == '\0' || *end != '\0' || errno == ERANGE) fault = "a number";
    if (fault != NULL)
      return srv_error_set(err, SRV_ERR_BAD_PARAMETER, name, "'%s' must be %s",
                           name, fault);
    param_store(p, pm, d);
    return 0;
  }
  }
}

/* at_prefix.name (name alone for an empty prefix) into at. */
static void member_at(char *at, size_t cap, const char *prefix,
                      const char *name) {
  if (prefix == NULL || prefix[0] == '\0')
    snprintf(at, cap, "%s", name);
  else
    snprintf(at, cap, "%s.%s", prefix, name);
}

/* One member of a JSON check object. */
static int param_json(verdict_check_params_t *p, const param_t *pm,
                      const json_t *v, const char *at, srv_error_t *err) {
  switch (pm->type) {
  case P_NAMES:
    if (json_is_string(v)) {
      const char *s = json_string_value(v);
      if (s[0] == '\0') {
        json_decref(p->feet);
        p->feet = NULL;
      } else if (feet_from_csv(p, s) != 0) {
        return srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
      }
    } else if (json_is_array(v)) {
      for (size_t i = 0; i < json_array_size(v); i++)
        if (!json_is_string(json_array_get(v, i))) {
          char item[200];
          snprintf(item, sizeof item, "%s[%zu]", at, i);
          return srv_error_set(err, SRV_ERR_WRONG_TYPE, item,
                               "a foot is a joint name (a string)");
        }
      json_decref(p->feet);
      p->feet = json_array_size(v) > 0 ? json_deep_copy(v) : NULL;
      if (json_array_size(v) > 0 && p->feet == NULL)
        return srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    } else {
      return srv_error_set(err, SRV_ERR_WRONG_TYPE, at,
                           "'%s' must be an array of joint names or a "
                           "comma-separated string",
                           pm->name);
    }
    if (json_array_size(p->feet) > VERDICT_CHECK_MAX_FEET)
      return srv_error_set(err, SRV_ERR_BAD_VALUE, at, "at most %d feet",
                           VERDICT_CHECK_MAX_FEET);
    return 0;
  case P_AXIS: {
    int axis = json_is_string(v) ? axis_parse(json_string_value(v)) : -2;
    if (axis == -2)
      return srv_error_set(err, SRV_ERR_WRONG_TYPE, at, "'%s' must be a string",
                           pm->name);
    if (axis < 0)
      return srv_error_set(err, SRV_ERR_BAD_VALUE, at,
                           "'%s' must be \"x\", \"y\" or \"z\"", pm->name);
    param_store(p, pm, axis);
    return 0;
  }
  case P_BOOL:
    if (json_is_boolean(v)) {
      param_store(p, pm, json_is_true(v));
      return 0;
    }
    if (!json_is_number(v))
      return srv_error_set(err, SRV_ERR_WRONG_TYPE, at,
                           "'%s' must be a boolean or 0 or 1", pm->name);
    if (json_number_value(v) != 0 && json_number_value(v) != 1)
      return srv_error_set(err, SRV_ERR_BAD_VALUE, at, "'%s' must be 0 or 1",
                           pm->name);
    param_store(p, pm, json_number_value(v));
    return 0;
  default: {
    if (!json_is_number(v))
      return srv_error_set(err, SRV_ERR_WRONG_TYPE, at, "'%s' must be a number",
                           pm->name);
    double d = json_number_value(v);
    const char *fault = number_fault(pm->type, d);
    if (fault != NULL)
      return srv_error_set(err, SRV_ERR_BAD_VALUE, at, "'%s' must be %s",
                           pm->name, fault);
    param_store(p, pm, d);
    return 0;
  }
  }
}

int verdict_check_params_json(const json_t *obj, const char *at_prefix,
                              verdict_check_params_t *p, srv_error_t *err) {
  if (!json_is_object(obj))
    return srv_error_set(err, SRV_ERR_WRONG_TYPE,
                         at_prefix != NULL ? at_prefix : "",
                         "a check is a JSON object");
  const char *name;
  json_t *v;
  json_object_foreach((json_t *)obj, name, v) {
    if (strcmp(name, "clip") == 0 || strcmp(name, "skeleton") == 0) continue;
    char at[160];
    member_at(at, sizeof at, at_prefix, name);
    const param_t *pm = param_find(name);
    if (pm == NULL)
      return srv_error_set(err, SRV_ERR_UNKNOWN_FIELD, at,
                           "'%.60s' is not a check parameter", name);
    if (param_json(p, pm, v, at, err) != 0) return -1;
  }
  return 0;
}

/* ---- findings
 * ----------------------------------------------------------------
 */

static const char *const kind_names[VERDICT_CHECK_KIND_COUNT_] = {
    "finite", "pop", "stretch", "seam", "foot_skate", "penetration"};

const char *verdict_check_name(verdict_check_kind kind) {
  return (unsigned)kind < VERDICT_CHECK_KIND_COUNT_ ? kind_names[kind] : "";
}

/* A run of samples that meet a condition, open while `open`. */
typedef struct run_s {
  bool open;
  double from, to, value;
} run_t;

/* Adds a finding to r (or counts it as truncated). 0, or -1 when out of
 * memory. */
static int finding_add(verdict_check_result_t *r, const char *joint,
                       double from, double to, double value) {
  if (r->finding_count >= VERDICT_CHECK_MAX_FINDINGS) {
    r->truncated++;
    return 0;
  }
  verdict_check_finding_t *f = &r->findings[r->finding_count];
  f->joint = strdup(joint);
  if (f->joint == NULL) return -1;
  f->from = from;
  f->to = to;
  f->value = value;
  r->finding_count++;
  return 0;
}

/* Feeds one step of a run: hit (with the step's from, to and value)
 * extends or opens it, a miss closes it into a finding. */
static int run_step(run_t *run, verdict_check_result_t *r, const char *joint,
                    bool hit, double from, double to, double value) {
  if (hit) {
    if (!run->open) {
      *run = (run_t){.open = true, .from = from, .to = to, .value = value};
    } else {
      run->to = to;
      if (value > run->value) run->value = value;
    }
    return 0;
  }
  if (!run->open) return 0;
  run->open = false;
  return finding_add(r, joint, run->from, run->to, run->value);
}

/* ---- the samples
 * -------------------------------------------------------------
 */

double verdict_check_sample_count(double duration, double fps) {
  return ceil(duration * fps - 1e-9) + 1;
}

/* What the checks read of the samples, caller order. */
typedef struct samples_s {
  uint32_t n, joints;
  double *t;           /* n sample times. */
  float *rotation;     /* n * joints * 4: local rotations. */
  float *position;     /* n * joints * 3: model-space positions. */
  uint32_t *nonfinite; /* n * joints: non-finite local numbers. */
  float *rest;         /* joints * 3: rest-pose model positions. */
  float *seam[2];      /* joints * 16: model matrices at 0 and duration. */
} samples_t;

static void samples_free(samples_t *s) {
  free(s->t);
  free(s->rotation);
  free(s->position);
  free(s->nonfinite);
  free(s->rest);
  free(s->seam[0]);
  free(s->seam[1]);
}

/* One pose of clip (NULL: the rest pose) at t in space into out. */
static anim_result pose_at(const anim_skeleton_t *sk, const anim_clip_t *clip,
                           double t, fmt_space space, float *out,
                           srv_eval_scratch_t *scratch) {
  srv_eval_job_t job = {.skeleton = sk,
                        .clip = clip,
                        .t = t,
                        .wrap = ANIM_WRAP_CLAMP,
                        .space = space,
                        .out = out};
  return srv_eval_run(&job, scratch);
}

static int samples_take(const anim_skeleton_t *sk, const anim_clip_t *clip,
                        const verdict_check_params_t *p, samples_t *s,
                        bool seam, srv_error_t *err) {
  uint32_t n = s->n, J = sk->joint_count;
  s->joints = J;
  size_t nj = (size_t)n * J;
  s->t = malloc(n * sizeof *s->t);
  s->rotation = malloc(nj * 4 * sizeof(float));
  s->position = malloc(nj * 3 * sizeof(float));
  s->nonfinite = malloc(nj * sizeof(uint32_t));
  s->rest = malloc((size_t)J * 3 * sizeof(float));
  float *local = malloc((size_t)J * 10 * sizeof(float));
  float *model = malloc((size_t)J * 16 * sizeof(float));
  if (seam) {
    s->seam[0] = malloc((size_t)J * 16 * sizeof(float));
    s->seam[1] = malloc((size_t)J * 16 * sizeof(float));
  }
  srv_eval_scratch_t *scratch = srv_eval_scratch_thread();
  anim_result r = ANIM_ERR_OUT_OF_MEMORY;
  if (!s->t || !s->rotation || !s->position || !s->nonfinite || !s->rest ||
      !local || !model || (seam && (!s->seam[0] || !s->seam[1])) ||
      scratch == NULL)
    goto done;
  double duration = clip->duration;
  for (uint32_t i = 0; i < n; i++) {
    double t = (double)i / p->fps;
    s->t[i] = t < duration ? t : duration;
    r = pose_at(sk, clip, s->t[i], FMT_SPACE_LOCAL, local, scratch);
    if (r != ANIM_OK) goto done;
    r = pose_at(sk, clip, s->t[i], FMT_SPACE_MODEL, model, scratch);
    if (r != ANIM_OK) goto done;
    size_t at = (size_t)i * J;
    for (uint32_t j = 0; j < J; j++) {
      uint32_t bad = 0;
      for (int k = 0; k < 10; k++) bad += !isfinite(local[j * 10 + k]);
      s->nonfinite[at + j] = bad;
      memcpy(s->rotation + (at + j) * 4, local + j * 10 + 3, 4 * sizeof(float));
      memcpy(s->position + (at + j) * 3, model + j * 16 + 12,
             3 * sizeof(float));
    }
  }
  r = pose_at(sk, NULL, 0, FMT_SPACE_MODEL, model, scratch);
  if (r != ANIM_OK) goto done;
  for (uint32_t j = 0; j < J; j++)
    memcpy(s->rest + j * 3, model + j * 16 + 12, 3 * sizeof(float));
  if (seam) {
    r = pose_at(sk, clip, 0, FMT_SPACE_MODEL, s->seam[0], scratch);
    if (r == ANIM_OK)
      r = pose_at(sk, clip, duration, FMT_SPACE_MODEL, s->seam[1], scratch);
  }
done:
  free(local);
  free(model);
  if (r == ANIM_OK) return 0;
  if (r == ANIM_ERR_OUT_OF_MEMORY)
    return srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
  return srv_error_set(err, SRV_ERR_INTERNAL, NULL, "evaluation failed: %s",
                       anim_result_str(r));
}

/* ---- the checks
 * ----------------------------------------------------------------
 */

static const char *joint_name(const anim_skeleton_t *sk, uint32_t caller) {
  return sk->names[sk->from_caller[caller]];
}

static int check_finite(const anim_skeleton_t *sk, const samples_t *s,
                        verdict_check_result_t *r) {
  r->threshold = 0;
  double total = 0;
  for (uint32_t j = 0; j < s->joints; j++) {
    run_t run = {0};
    double count = 0;
    for (uint32_t i = 0; i <= s->n; i++) {
      uint32_t bad = i < s->n ? s->nonfinite[(size_t)i * s->joints + j] : 0;
      if (bad && (!run.open)) count = 0;
      count += bad;
      total += bad;
      if (run_step(&run, r, joint_name(sk, j), bad != 0, i < s->n ? s->t[i] : 0,
                   i < s->n ? s->t[i] : 0, count) != 0)
        return -1;
    }
  }
  r->value = total;
  r->pass = total == 0;
  return 0;
}

/* The angle in degrees between two unit rotations (x, y, z, w). */
double verdict_rotation_angle(const float *a, const float *b) {
  double dot = fabs((double)a[0] * b[0] + (double)a[1] * b[1] +
                    (double)a[2] * b[2] + (double)a[3] * b[3]);
  if (dot > 1) dot = 1;
  return 2 * acos(dot) * (180 / M_PI);
}

static int check_pop(const anim_skeleton_t *sk, const samples_t *s,
                     const verdict_check_params_t *p,
                     verdict_check_result_t *r) {
  r->threshold = p->pop;
  r->value = 0;
  for (uint32_t j = 0; j < s->joints; j++) {
    run_t run = {0};
    for (uint32_t i = 1; i <= s->n; i++) {
      double theta = 0;
      if (i < s->n)
        theta = verdict_rotation_angle(
            s->rotation + ((size_t)(i - 1) * s->joints + j) * 4,
            s->rotation + ((size_t)i * s->joints + j) * 4);
      if (theta > r->value) r->value = theta;
      if (run_step(&run, r, joint_name(sk, j), i < s->n && theta > p->pop,
                   i < s->n ? s->t[i - 1] : 0, i < s->n ? s->t[i] : 0,
                   theta) != 0)
        return -1;
    }
  }
  r->pass = r->finding_count == 0 && r->truncated == 0;
  return 0;
}

static double distance(const float *a, const float *b) {
  double dx = (double)a[0] - b[0], dy = (double)a[1] - b[1],
         dz = (double)a[2] - b[2];
  return sqrt(dx * dx + dy * dy + dz * dz);
}

static int check_stretch(const anim_skeleton_t *sk, const samples_t *s,
                         const verdict_check_params_t *p,
                         verdict_check_result_t *r) {
  r->threshold = p->stretch;
  r->value = 0;
  for (uint32_t j = 0; j < s->joints; j++) {
    int16_t parent = sk->parents[sk->from_caller[j]];
    if (parent < 0) continue;
    uint32_t pj = sk->to_caller[parent];
    double d0 = distance(s->rest + j * 3, s->rest + pj * 3);
    if (!(d0 > 1e-6)) continue;
    run_t run = {0};
    for (uint32_t i = 0; i <= s->n; i++) {
      double rel = 0;
      if (i < s->n) {
        const float *pos = s->position + (size_t)i * s->joints * 3;
        rel = fabs(distance(pos + j * 3, pos + pj * 3) - d0) / d0;
      }
      if (rel > r->value) r->value = rel;
      double t = i < s->n ? s->t[i] : 0;
      if (run_step(&run, r, joint_name(sk, j), i < s->n && rel > p->stretch, t,
                   t, rel) != 0)
        return -1;
    }
  }
  r->pass = r->finding_count == 0 && r->truncated == 0;
  return 0;
}

static int check_seam(const anim_skeleton_t *sk, const samples_t *s,
                      const verdict_check_params_t *p, double duration,
                      verdict_check_result_t *r) {
  r->threshold = p->seam;
  r->value = 0;
  for (uint32_t j = 0; j < s->joints; j++) {
    double e =
        verdict_shell_error(s->seam[0] + j * 16, s->seam[1] + j * 16, p->shell);
    if (e > r->value) r->value = e;
    if (e > p->seam && finding_add(r, joint_name(sk, j), 0, duration, e) != 0)
      return -1;
  }
  r->pass = r->finding_count == 0 && r->truncated == 0;
  return 0;
}

/* The height of foot j at sample i above the floor. */
static double foot_height(const samples_t *s, const verdict_check_params_t *p,
                          uint32_t i, uint32_t j) {
  return (double)s->position[((size_t)i * s->joints + j) * 3 + p->up] -
         p->floor;
}

/* The horizontal speed of foot j from sample i to i + 1. */
static double foot_speed(const samples_t *s, const verdict_check_params_t *p,
                         uint32_t i, uint32_t j) {
  const float *a = s->position + ((size_t)i * s->joints + j) * 3;
  const float *b = a + (size_t)s->joints * 3;
  double sum = 0;
  for (int k = 0; k < 3; k++) {
    if (k == p->up) continue;
    double d = (double)b[k] - a[k];
    sum += d * d;
  }
  return sqrt(sum) * p->fps;
}

static int check_foot_skate(const anim_skeleton_t *sk, const samples_t *s,
                            const verdict_check_params_t *p,
                            const uint32_t *feet, uint32_t foot_count,
                            verdict_check_result_t *r) {
  r->threshold = p->max_skate_ratio;
  uint32_t frames = s->n > 0 ? s->n - 1 : 0;
  bool *skating = calloc(frames ? frames : 1, sizeof *skating);
  if (skating == NULL) return -1;
  for (uint32_t f = 0; f < foot_count; f++) {
    uint32_t j = feet[f];
    run_t run = {0};
    for (uint32_t i = 0; i <= frames; i++) {
      bool hit = false;
      double v = 0;
      if (i < frames) {
        v = foot_speed(s, p, i, j);
        hit = foot_height(s, p, i, j) < p->contact_height &&
              foot_height(s, p, i + 1, j) < p->contact_height &&
              v > p->skate_speed;
        if (hit) skating[i] = true;
      }
      if (run_step(&run, r, joint_name(sk, j), hit, i < frames ? s->t[i] : 0,
                   i < frames ? s->t[i + 1] : 0, v) != 0) {
        free(skating);
        return -1;
      }
    }
  }
  uint32_t count = 0;
  for (uint32_t i = 0; i < frames; i++) count += skating[i];
  free(skating);
  r->value = frames > 0 ? (double)count / frames : 0;
  r->pass = r->value <= p->max_skate_ratio;
  return 0;
}

static int check_penetration(const anim_skeleton_t *sk, const samples_t *s,
                             const verdict_check_params_t *p,
                             const uint32_t *feet, uint32_t foot_count,
                             verdict_check_result_t *r) {
  r->threshold = p->penetration;
  r->value = -INFINITY;
  for (uint32_t f = 0; f < foot_count; f++) {
    uint32_t j = feet[f];
    run_t run = {0};
    for (uint32_t i = 0; i <= s->n; i++) {
      double depth = i < s->n ? -foot_height(s, p, i, j) : 0;
      if (i < s->n && depth > r->value) r->value = depth;
      double t = i < s->n ? s->t[i] : 0;
      if (run_step(&run, r, joint_name(sk, j),
                   i < s->n && depth > p->penetration, t, t, depth) != 0)
        return -1;
    }
  }
  if (!isfinite(r->value)) r->value = 0;
  r->pass = r->finding_count == 0 && r->truncated == 0;
  return 0;
}

/* ---- the run
 * ------------------------------------------------------------------
 */

/* The feet of p as caller-order joints of sk: 0, or -1 with unknown_joint
 * at "feet[i]". */
static int feet_resolve(const anim_skeleton_t *sk,
                        const verdict_check_params_t *p, uint32_t **feet,
                        uint32_t *count, srv_error_t *err) {
  *feet = NULL;
  *count = 0;
  if (p->feet == NULL || json_array_size(p->feet) == 0) return 0;
  srv_names_t names = {.array = p->feet};
  if (srv_joints_resolve(&names, sk, feet, count, err) == 0) return 0;
  if (err->code == SRV_ERR_UNKNOWN_JOINT &&
      strncmp(err->at, "joints", 6) == 0) {
    char at[sizeof err->at];
    snprintf(at, sizeof at, "feet%s", err->at + 6);
    memcpy(err->at, at, sizeof at);
  }
  return -1;
}

int verdict_check_run(const anim_skeleton_t *sk, const anim_clip_t *clip,
                      const verdict_check_params_t *p, unsigned max_frames,
                      verdict_check_report_t *out, srv_error_t *err) {
  memset(out, 0, sizeof *out);
  double n = verdict_check_sample_count(clip->duration, p->fps);
  if (n > (double)max_frames)
    return srv_error_set(err, SRV_ERR_TOO_MANY_FRAMES, "fps",
                         "the check takes %.0f samples; max_frames is %u", n,
                         max_frames);
  uint32_t *feet, foot_count;
  if (feet_resolve(sk, p, &feet, &foot_count, err) != 0) return -1;
  samples_t s = {.n = (uint32_t)n};
  out->checks = calloc(VERDICT_CHECK_KIND_COUNT_, sizeof *out->checks);
  if (out->checks == NULL || samples_take(sk, clip, p, &s, p->loop, err) != 0) {
    if (out->checks == NULL)
      srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    goto fail;
  }
  out->duration = clip->duration;
  out->fps = p->fps;
  out->samples = s.n;
  out->pass = true;
  for (int k = 0; k < VERDICT_CHECK_KIND_COUNT_; k++) {
    if ((k == VERDICT_CHECK_SEAM && !p->loop) ||
        ((k == VERDICT_CHECK_FOOT_SKATE || k == VERDICT_CHECK_PENETRATION) &&
         foot_count == 0))
      continue;
    verdict_check_result_t *r = &out->checks[out->check_count++];
    r->kind = (verdict_check_kind)k;
    int rc = k == VERDICT_CHECK_FINITE    ? check_finite(sk, &s, r)
             : k == VERDICT_CHECK_POP     ? check_pop(sk, &s, p, r)
             : k == VERDICT_CHECK_STRETCH ? check_stretch(sk, &s, p, r)
             : k == VERDICT_CHECK_SEAM
                 ? check_seam(sk, &s, p, clip->duration, r)
             : k == VERDICT_CHECK_FOOT_SKATE
                 ? check_foot_skate(sk, &s, p, feet, foot_count, r)
                 : check_penetration(sk, &s, p, feet, foot_count, r);
    if (rc != 0) {
      srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
      goto fail;
    }
    out->pass = out->pass && r->pass;
  }
  samples_free(&s);
  free(feet);
  return 0;

fail:
  samples_free(&s);
  free(feet);
  verdict_check_report_free(out);
  return -1;
}

void verdict_check_report_free(verdict_check_report_t *r) {
  if (r->checks != NULL)
    for (unsigned c = 0; c < r->check_count; c++)
      for (unsigned f = 0; f < r->checks[c].finding_count; f++)
        free(r->checks[c].findings[f].joint);
  free(r->checks);
  memset(r, 0, sizeof *r);
}

/* ---- the answer
 * ----------------------------------------------------------------
 */

/* A double as the shortest of %.15g, %.16g, %.17g that reads back equal
 * (non-finite numbers as null). */
static void put_double(fmt_buf_t *b, double v) {
  if (!isfinite(v)) {
    fmt_buf_puts(b, "null");
    return;
  }
  char s[40];
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(s, sizeof s, "%.*g", prec, v);
    if (strtod(s, NULL) == v) break;
  }
  fmt_buf_puts(b, s);
}

void verdict_check_report_json(fmt_buf_t *b, const char *clip_id,
                               const verdict_check_report_t *r) {
  fmt_buf_puts(b, "{\"clip\":");
  fmt_buf_json_string(b, clip_id);
  fmt_buf_puts(b, ",\"duration\":");
  put_double(b, r->duration);
  fmt_buf_puts(b, ",\"fps\":");
  put_double(b, r->fps);
  fmt_buf_printf(b, ",\"samples\":%u,\"pass\":%s,\"checks\":[", r->samples,
                 r->pass ? "true" : "false");
  for (unsigned c = 0; c < r->check_count; c++) {
    const verdict_check_result_t *k = &r->checks[c];
    if (c) fmt_buf_putc(b, ',');
    fmt_buf_printf(b, "{\"check\":\"%s\",\"pass\":%s,\"value\":",
                   verdict_check_name(k->kind), k->pass ? "true" : "false");
    put_double(b, k->value);
    fmt_buf_puts(b, ",\"threshold\":");
    put_double(b, k->threshold);
    fmt_buf_puts(b, ",\"findings\":[");
    for (unsigned f = 0; f < k->finding_count; f++) {
      const verdict_check_finding_t *x = &k->findings[f];
      if (f) fmt_buf_putc(b, ',');
      fmt_buf_puts(b, "{\"joint\":");
      fmt_buf_json_string(b, x->joint);
      fmt_buf_puts(b, ",\"from\":");
      put_double(b, x->from);
      fmt_buf_puts(b, ",\"to\":");
      put_double(b, x->to);
      fmt_buf_puts(b, ",\"value\":");
      put_double(b, x->value);
      fmt_buf_putc(b, '}');
    }
    fmt_buf_printf(b, "],\"truncated\":%lu}", k->truncated);
  }
  fmt_buf_puts(b, "]}");
}

void verdict_check_report_message(const verdict_check_report_t *r, char *buf,
                                  size_t cap) {
  if (cap == 0) return;
  buf[0] = '\0';
  size_t len = 0;
  for (unsigned c = 0; c < r->check_count && len + 1 < cap; c++) {
    const verdict_check_result_t *k = &r->checks[c];
    if (k->pass) continue;
    int w = snprintf(buf + len, cap - len, "%s%s %.6g > %.6g", len ? "; " : "",
                     verdict_check_name(k->kind), k->value, k->threshold);
    if (w < 0) break;
    len += (size_t)w;
    if (len < cap && k->finding_count > 0) {
      const verdict_check_finding_t *f = &k->findings[0];
      w = snprintf(buf + len, cap - len, " (%s %.6g-%.6g s)", f->joint, f->from,
                   f->to);
      if (w < 0) break;
      len += (size_t)w;
    }
  }
  if (len == 0) snprintf(buf, cap, "all checks pass");
}
