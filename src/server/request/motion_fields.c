/* server/request: the request fields root_motion and blend_space
 * (motion_fields.h): their parsers, their resolution against a skeleton,
 * their stage hooks and their answer members.
 *
 * blend_space is a source: its clips come to the pipeline as the job's
 * layers (the body parser lists them, in order, and blend.c resolves them
 * as any layers), and the hook re-weighs and re-times them from the
 * parameter, then blends them as layers are blended, so the pose equals
 * the `layers` blend of those clips, times and weights bit for bit.
 * root_motion acts on local transforms after sampling or blending: with
 * one clip the motion leaves the pose (anim_motion_extract_job); with
 * layers each weighted layer's motion is measured on its own sampled pose,
 * the motions blend with the layers' weights (ozz's MotionBlendingJob),
 * and the blended motion leaves the blended pose. */
#include "server/request/motion_fields.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/suggest.h"
#include "server/request/evaluate.h"
#include "server/request/fields.h"
#include "server/request/requests.h"
#include "server/request/target.h"

/* ---- root_motion ----------------------------------------------------------
 */

typedef struct root_motion_s {
  char joint[128];
  anim_motion_settings_t settings; /* .joint once resolved. */
} root_motion_t;

static int word_of(const json_t *o, const char *key, const char *at,
                   const char *const *words, int *out, srv_error_t *err) {
  json_t *v = json_object_get(o, key);
  if (v == NULL) return 0;
  char where[160];
  snprintf(where, sizeof where, "%s.%s", at, key);
  if (!json_is_string(v))
    return srv_error_set(err, SRV_ERR_WRONG_TYPE, where, "'%s' is a string",
                         key);
  for (int i = 0; words[i] != NULL; i++)
    if (strcmp(json_string_value(v), words[i]) == 0) {
      *out = i;
      return 0;
    }
  char list[160] = "";
  for (int i = 0; words[i] != NULL; i++)
    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
             i ? ", " : "", words[i]);
  return srv_error_set(err, SRV_ERR_BAD_VALUE, where, "'%s' is one of %s", key,
                       list);
}

static int root_motion_parse(const json_t *json, const char *at, void **data,
                             srv_error_t *err) {
  root_motion_t *rm = calloc(1, sizeof *rm);
  if (rm == NULL) return srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
  rm->settings = (anim_motion_settings_t){
      .translation = ANIM_MOTION_X | ANIM_MOTION_Z,
      .rotation = ANIM_MOTION_YAW,
      .up = ANIM_AXIS_Y,
      .reference = ANIM_MOTION_REF_SKELETON,
  };
  const json_t *joint = json;
  char where[160];
  if (json_is_object(json)) {
    static const char *const known[] = {"joint",     "translation", "rotation",
                                        "reference", "up",          NULL};
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)json, key, v) {
      int k = 0;
      while (known[k] != NULL && strcmp(known[k], key) != 0) k++;
      if (known[k] == NULL) {
        snprintf(where, sizeof where, "%s.%s", at, key);
        free(rm);
        srv_error_set(err, SRV_ERR_UNKNOWN_FIELD, where,
                      "root_motion takes joint, translation, rotation, "
                      "reference and up");
        return srv_error_did_you_mean(err, fmt_suggest_list(key, known));
      }
    }
    joint = json_object_get(json, "joint");
    snprintf(where, sizeof where, "%s.joint", at);
    static const char *const rotations[] = {"yaw", "full", "none", NULL};
    static const char *const references[] = {"skeleton", "first", "absolute",
                                             NULL};
    static const char *const axes[] = {"x", "y", "z", NULL};
    int rot = 0, ref = 0, up = 1;
    if (word_of(json, "rotation", at, rotations, &rot, err) != 0 ||
        word_of(json, "reference", at, references, &ref, err) != 0 ||
        word_of(json, "up", at, axes, &up, err) != 0) {
      free(rm);
      return -1;
    }
    rm->settings.rotation = (anim_motion_rotation)rot;
    rm->settings.reference = (anim_motion_reference)ref;
    rm->settings.up = (anim_axis)up;
    json_t *tr = json_object_get(json, "translation");
    if (tr != NULL) {
      char tat[160];
      snprintf(tat, sizeof tat, "%s.translation", at);
      const char *s = json_is_string(tr) ? json_string_value(tr) : NULL;
      unsigned mask = 0;
      for (; s != NULL && *s; s++) {
        unsigned bit = *s == 'x'   ? ANIM_MOTION_X
                       : *s == 'y' ? ANIM_MOTION_Y
                       : *s == 'z' ? ANIM_MOTION_Z
                                   : 0;
        if (bit == 0 || (mask & bit)) break;
        mask |= bit;
      }
      if (s == NULL || *s != '\0') {
        free(rm);
        return srv_error_set(
            err, s == NULL ? SRV_ERR_WRONG_TYPE : SRV_ERR_BAD_VALUE, tat,
            "'translation' is a string of x, y and z, each "
            "at most once (\"\": none)");
      }
      rm->settings.translation = mask;
    }
  } else {
    snprintf(where, sizeof where, "%s", at);
  }
  if (!json_is_string(joint) || json_string_length(joint) == 0 ||
      json_string_length(joint) >= sizeof rm->joint) {
    free(rm);
    return srv_error_set(
        err, joint == NULL ? SRV_ERR_MISSING_FIELD : SRV_ERR_WRONG_TYPE, where,
        "root_motion names its root joint");
  }
  memcpy(rm->joint, json_string_value(joint), json_string_length(joint) + 1);
  *data = rm;
  return 0;
}

static int root_motion_resolve(void *data, const anim_skeleton_t *sk,
                               const char *at, srv_error_t *err) {
  root_motion_t *rm = data;
  int32_t j = anim_skeleton_find(sk, rm->joint);
  if (j < 0) {
    char where[160];
    snprintf(where, sizeof where, "%s.joint", at);
    srv_error_set(err, SRV_ERR_UNKNOWN_JOINT, where,
                  "'%s' is not a joint of the skeleton", rm->joint);
    return srv_error_did_you_mean(err, srv_joint_nearest(sk, rm->joint));
  }
  rm->settings.joint = (uint32_t)j;
  return 0;
}

static void write_motion(float *answer, anim_motion_t m) {
  if (answer == NULL) return;
  const float v[7] = {m.translation.x, m.translation.y, m.translation.z,
                      m.rotation.x,    m.rotation.y,    m.rotation.z,
                      m.rotation.w};
  memcpy(answer, v, sizeof v);
}

static anim_result root_motion_local(const void *data, srv_field_stage_t *st) {
  const root_motion_t *rm = data;
  const srv_eval_job_t *job = st->job;
  const srv_eval_layer_t *layers;
  size_t count = srv_field_stage_layers(st, &layers);
  anim_motion_t m;
  if (count == 0) {
    anim_motion_extract_job_t mj = {.skeleton = st->skeleton,
                                    .clip = job->clip,
                                    .time = job->t,
                                    .wrap = job->wrap,
                                    .settings = rm->settings,
                                    .pose = st->pose,
                                    .output = &m};
    anim_result r = anim_motion_extract_job_run(&mj);
    if (r != ANIM_OK) return r;
    write_motion(st->answer, m);
    return ANIM_OK;
  }
  anim_motion_t acc[SRV_BLEND_MAX_LAYERS], now[SRV_BLEND_MAX_LAYERS];
  float w[SRV_BLEND_MAX_LAYERS];
  size_t n = 0;
  for (size_t i = 0; i < count && n < SRV_BLEND_MAX_LAYERS; i++) {
    const srv_eval_layer_t *l = &layers[i];
    if (l->additive || !(l->weight > 0.f)) continue;
    anim_motion_extract_job_t mj = {.skeleton = st->skeleton,
                                    .clip = l->clip,
                                    .time = l->t,
                                    .wrap = l->wrap,
                                    .settings = rm->settings,
                                    .pose = srv_field_stage_layer_pose(st, i),
                                    .output = &acc[n],
                                    .current = &now[n],
                                    .keep_pose = true};
    anim_result r = anim_motion_extract_job_run(&mj);
    if (r != ANIM_OK) return r;
    w[n++] = l->weight;
  }
  anim_motion_t cur;
  anim_motion_blend_job_t bj = {
      .motions = now, .weights = w, .count = n, .output = &cur};
  anim_result r = anim_motion_blend_job_run(&bj);
  if (r != ANIM_OK) return r;
  anim_motion_remove(&st->pose, rm->settings.joint, cur);
  bj.motions = acc;
  bj.output = &m;
  r = anim_motion_blend_job_run(&bj);
  write_motion(st->answer, m);
  return r;
}

static size_t root_motion_floats(const void *data) {
  (void)data;
  return 7;
}

static void root_motion_json(fmt_buf_t *b, const void *data,
                             const float *answer) {
  (void)data;
  fmt_buf_puts(b, "{\"translation\":");
  fmt_buf_float_array(b, answer, 3);
  fmt_buf_puts(b, ",\"rotation\":");
  fmt_buf_float_array(b, answer + 3, 4);
  fmt_buf_putc(b, '}');
}

/* ---- blend_space ----------------------------------------------------------
 */

typedef struct blend_space_s {
  uint32_t dimensions, count;
  float param[2];
  float points[2 * ANIM_BLEND_SPACE_MAX];
  bool sync;
  char *clips[ANIM_BLEND_SPACE_MAX]; /* As the request names them. */
  /* 2D: the points' triangulation, made once. */
  uint8_t triangles[3 * (2 * ANIM_BLEND_SPACE_MAX + 1)];
  uint32_t triangle_count;
} blend_space_t;

static void blend_space_free(void *data) {
  blend_space_t *bs = data;
  if (bs == NULL) return;
  for (uint32_t i = 0; i < bs->count; i++) free(bs->clips[i]);
  free(bs);
}

/* 1 or 2 finite numbers from v into out; their count, or -1 with err. */
static int coords(const json_t *v, const char *at, uint32_t want, float *out,
                  srv_error_t *err) {
  size_t n = json_array_size(v);
  if (!json_is_array(v) || n < 1 || n > 2 || (want != 0 && n != want))
    return srv_error_set(
        err, json_is_array(v) ? SRV_ERR_VALUE_COUNT : SRV_ERR_WRONG_TYPE, at,
        "an array of %s numbers",
        want == 1   ? "1"
        : want == 2 ? "2"
                    : "1 or 2");
  for (size_t i = 0; i < n; i++) {
    json_t *x = json_array_get(v, i);
    if (!json_is_number(x))
      return srv_error_set(err, SRV_ERR_WRONG_TYPE, at, "numbers");
    double d = json_number_value(x);
    if (!isfinite(d) || fabs(d) > 3.4e38)
      return srv_error_set(err, SRV_ERR_NOT_FINITE, at, "finite numbers");
    out[i] = (float)d;
  }
  return (int)n;
}

static int blend_space_parse(const json_t *json, const char *at, void **data,
                             srv_error_t *err) {
  char where[192];
  if (!json_is_object(json))
    return srv_error_set(err, SRV_ERR_WRONG_TYPE, at,
                         "blend_space is an object: param, clips, sync");
  const char *key;
  json_t *v;
  json_object_foreach((json_t *)json, key, v) {
    if (strcmp(key, "param") && strcmp(key, "clips") && strcmp(key, "sync")) {
      snprintf(where, sizeof where, "%s.%s", at, key);
      srv_error_set(err, SRV_ERR_UNKNOWN_FIELD, where,
                    "blend_space takes param, clips and sync");
      return srv_error_did_you_mean(
          err, fmt_suggest_list(
                   key, (const char *const[]){"param", "clips", "sync", NULL}));
    }
  }
  blend_space_t *bs = calloc(1, sizeof *bs);
  if (bs == NULL) return srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
  bs->sync = true;
  json_t *sync = json_object_get(json, "sync");
  snprintf(where, sizeof where, "%s.sync", at);
  if (sync != NULL && !json_is_boolean(sync)) {
    blend_space_free(bs);
    return srv_error_set(err, SRV_ERR_WRONG_TYPE, where, "true or false");
  }
  if (sync != NULL) bs->sync = json_is_true(sync);
  snprintf(where, sizeof where, "%s.param", at);
  json_t *param = json_object_get(json, "param");
  int dims = param == NULL ? srv_error_set(err, SRV_ERR_MISSING_FIELD, where,
                                           "param: [p] or [x, y]")
                           : coords(param, where, 0, bs->param, err);
  if (dims < 0) {
    blend_space_free(bs);
    return -1;
  }
  bs->dimensions = (uint32_t)dims;
  json_t *clips = json_object_get(json, "clips");
  snprintf(where, sizeof where, "%s.clips", at);
  size_t n = json_array_size(clips);
  if (!json_is_array(clips) || n < (dims == 2 ? 3u : 1u) ||
      n > ANIM_BLEND_SPACE_MAX) {
    blend_space_free(bs);
    return srv_error_set(
        err, clips == NULL ? SRV_ERR_MISSING_FIELD : SRV_ERR_WRONG_TYPE, where,
        "clips: an array of %d to %d {\"clip\", \"at\"}", dims == 2 ? 3 : 1,
        ANIM_BLEND_SPACE_MAX);
  }
  for (size_t i = 0; i < n; i++) {
    json_t *c = json_array_get(clips, i), *name = json_object_get(c, "clip");
    snprintf(where, sizeof where, "%s.clips[%zu].clip", at, i);
    if (!json_is_string(name)) {
      blend_space_free(bs);
      return srv_error_set(
          err, name == NULL ? SRV_ERR_MISSING_FIELD : SRV_ERR_WRONG_TYPE, where,
          "a clip id or name");
    }
    bs->clips[bs->count++] = strdup(json_string_value(name));
    snprintf(where, sizeof where, "%s.clips[%zu].at", at, i);
    json_t *pt = json_object_get(c, "at");
    if ((pt == NULL ? srv_error_set(err, SRV_ERR_MISSING_FIELD, where,
                                    "the clip's place in the blend space")
                    : coords(pt, where, bs->dimensions,
                             bs->points + bs->dimensions * i, err)) < 0) {
      blend_space_free(bs);
      return -1;
    }
  }
  float w[ANIM_BLEND_SPACE_MAX];
  int32_t bad = -1;
  anim_blend_space_job_t job = {.dimensions = bs->dimensions,
                                .points = bs->points,
                                .point_count = bs->count,
                                .param = bs->param,
                                .weights = w,
                                .bad_point = &bad};
  if (anim_blend_space_job_validate(&job) != ANIM_OK) {
    blend_space_free(bs);
    if (bad >= 0) {
      snprintf(where, sizeof where, "%s.clips[%d].at", at, bad);
      return srv_error_set(err, SRV_ERR_BAD_VALUE, where,
                           "two clips at the same point");
    }
    snprintf(where, sizeof where, "%s.clips", at);
    return srv_error_set(err, SRV_ERR_BAD_VALUE, where,
                         "the points are collinear: a 2D blend space needs "
                         "three that are not on one line");
  }
  if (bs->dimensions == 2)
    bs->triangle_count = anim_blend_space_triangulate(
        bs->points, bs->count, bs->triangles, 2 * ANIM_BLEND_SPACE_MAX + 1);
  *data = bs;
  return 0;
}

/* The clips' weights at the blend space's param into w. */
static anim_result weights_of(const blend_space_t *bs, float *w) {
  anim_blend_space_job_t bj = {.dimensions = bs->dimensions,
                               .points = bs->points,
                               .point_count = bs->count,
                               .param = bs->param,
                               .weights = w,
                               .triangles =
                                   bs->triangle_count ? bs->triangles : NULL,
                               .triangle_count = bs->triangle_count};
  return anim_blend_space_job_run(&bj);
}

static anim_result blend_space_source(const void *data, srv_field_stage_t *st) {
  const blend_space_t *bs = data;
  const srv_eval_job_t *job = st->job;
  if (job->layer_count != bs->count) return ANIM_ERR_INVALID_ARGUMENT;
  float w[ANIM_BLEND_SPACE_MAX], d[ANIM_BLEND_SPACE_MAX];
  double times[ANIM_BLEND_SPACE_MAX];
  anim_result r = weights_of(bs, w);
  if (r != ANIM_OK) return r;
  for (uint32_t i = 0; i < bs->count; i++)
    d[i] = job->layers[i].clip != NULL ? job->layers[i].clip->duration : 0.f;
  /* The blend space's time is the first layer's (every layer has it). */
  anim_blend_space_times(d, w, bs->count, job->layers[0].t, bs->sync, times);
  srv_eval_layer_t layers[ANIM_BLEND_SPACE_MAX];
  size_t n = 0;
  for (uint32_t i = 0; i < bs->count; i++) {
    if (st->answer != NULL) st->answer[i] = w[i];
    if (!(w[i] > 0.f)) continue;
    layers[n] = job->layers[i];
    layers[n].t = times[i];
    layers[n].weight = w[i];
    n++;
  }
  return srv_field_stage_blend(st, layers, n);
}

static size_t blend_space_floats(const void *data) {
  return ((const blend_space_t *)data)->count;
}

static void blend_space_json(fmt_buf_t *b, const void *data,
                             const float *answer) {
  const blend_space_t *bs = data;
  fmt_buf_putc(b, '[');
  for (uint32_t i = 0; i < bs->count; i++) {
    fmt_buf_puts(b, i ? ",{\"clip\":" : "{\"clip\":");
    fmt_buf_json_string(b, bs->clips[i]);
    fmt_buf_puts(b, ",\"weight\":");
    fmt_buf_float(b, answer[i]);
    fmt_buf_putc(b, '}');
  }
  fmt_buf_putc(b, ']');
}

/* ---- the rows
 * -----------------------------------------------------------------
 */

const srv_field_t srv_root_motion_row = {
    .name = "root_motion",
    .type = SRV_FIELD_VALUE,
    .takes = SRV_TAKES_POSE_QUERY | SRV_TAKES_SKIN_QUERY | SRV_TAKES_POSE_BODY |
             SRV_TAKES_WS_STREAM | SRV_TAKES_WS_POSE,
    .parse = root_motion_parse,
    .resolve = root_motion_resolve,
    .free_data = free,
    .local = root_motion_local,
    .answer_floats = root_motion_floats,
    .answer_name = "root",
    .clocked = true,
    .answer_json = root_motion_json,
};

const srv_field_t srv_blend_space_row = {
    .name = "blend_space",
    .type = SRV_FIELD_VALUE,
    .takes = SRV_TAKES_POSE_BODY | SRV_TAKES_WS_STREAM | SRV_TAKES_WS_POSE,
    .parse = blend_space_parse,
    .free_data = blend_space_free,
    .source = blend_space_source,
    .answer_floats = blend_space_floats,
    .answer_name = "weights",
    .answer_json = blend_space_json,
};

int srv_blend_space_clips(const json_t *blend_space, const char **names,
                          size_t max) {
  json_t *clips = json_object_get(blend_space, "clips");
  size_t n = json_array_size(clips);
  if (n == 0 || n > max) return -1;
  for (size_t i = 0; i < n; i++) {
    json_t *name = json_object_get(json_array_get(clips, i), "clip");
    if (!json_is_string(name)) return -1;
    names[i] = json_string_value(name);
  }
  return (int)n;
}

const char *const *srv_blend_space_names(const srv_fields_t *f,
                                         uint32_t *count) {
  const blend_space_t *bs = srv_fields_data(f, &srv_blend_space_row);
  *count = bs != NULL ? bs->count : 0;
  return bs != NULL ? (const char *const *)bs->clips : NULL;
}

double srv_blend_space_period(const srv_fields_t *f, const float *durations) {
  const blend_space_t *bs = srv_fields_data(f, &srv_blend_space_row);
  if (bs == NULL) return 0;
  double longest = 0;
  for (uint32_t i = 0; i < bs->count; i++)
    if (durations[i] > longest) longest = durations[i];
  if (!bs->sync) return longest;
  float w[ANIM_BLEND_SPACE_MAX];
  if (weights_of(bs, w) != ANIM_OK) return longest;
  /* The weighted duration as anim_blend_space_times sums it. */
  double total = 0;
  for (uint32_t i = 0; i < bs->count; i++)
    if (w[i] > 0) total += (double)w[i] * durations[i];
  return total;
}
