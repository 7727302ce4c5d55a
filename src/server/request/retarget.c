/* server/request: a retarget request, parsed, planned, baked, stored and
 * answered (retarget.h). The HTTP route and `animd eval --retarget` call
 * these in the same order, so their errors and answers are the same. */
#include "server/request/retarget.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/answer.h"
#include "formats/asset_bytes.h"
#include "formats/bundle.h"
#include "server/request/requests.h"
#include "server/request/target.h"

/* ---- body
 * --------------------------------------------------------------------- */

static int dup_string(const json_t *o, const char *key, bool required,
                      const char *at, char **out, srv_error_t *err) {
  json_t *v = json_object_get(o, key);
  *out = NULL;
  if (v == NULL && !required) return 0;
  if (v == NULL)
    return srv_error_set(err, SRV_ERR_MISSING_FIELD, at, "\"%s\" is required",
                         key);
  if (!json_is_string(v) || json_string_length(v) == 0)
    return srv_error_set(err, SRV_ERR_WRONG_TYPE, at,
                         "\"%s\" is a non-empty string", key);
  *out = strdup(json_string_value(v));
  if (*out == NULL)
    return srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
  return 0;
}

int srv_retarget_body_parse(const json_t *root, srv_retarget_body_t *out,
                            srv_error_t *err) {
  static const char *const fields[] = {"clip", "to",   "map", "name",
                                       "fps",  "root", NULL};
  memset(out, 0, sizeof *out);
  out->fps = SRV_RETARGET_FPS;
  if (!json_is_object(root))
    return srv_error_set(err, SRV_ERR_WRONG_TYPE, NULL,
                         "the body is a JSON object");
  if (srv_json_known_fields(root, fields, 0, NULL, err) != 0) return -1;
  if (dup_string(root, "clip", true, "clip", &out->clip, err) != 0 ||
      dup_string(root, "to", true, "to", &out->to, err) != 0 ||
      dup_string(root, "name", false, "name", &out->name, err) != 0)
    goto fail;
  json_t *fps = json_object_get(root, "fps");
  if (fps != NULL) {
    double f = json_is_number(fps) ? json_number_value(fps) : -1.0;
    if (!(f > 0.0) || f > 1000.0) {
      srv_error_set(err, SRV_ERR_BAD_VALUE, "fps",
                    "\"fps\" is a number in (0, 1000]");
      goto fail;
    }
    out->fps = (float)f;
  }
  json_t *map = json_object_get(root, "map");
  if (map == NULL) {
    srv_error_set(err, SRV_ERR_MISSING_FIELD, "map",
                  "\"map\" is required: an object {\"source joint\": "
                  "\"target joint\"} or \"auto\"");
    goto fail;
  }
  if (json_is_string(map) && strcmp(json_string_value(map), "auto") == 0) {
    out->map = NULL;
  } else if (json_is_object(map) && json_object_size(map) > 0) {
    const char *key;
    json_t *v;
    json_object_foreach(map, key, v) {
      if (!json_is_string(v) || json_string_length(v) == 0) {
        char at[128];
        snprintf(at, sizeof at, "map.%.100s", key);
        srv_error_set(err, SRV_ERR_WRONG_TYPE, at,
                      "a target joint name is a non-empty string");
        goto fail;
      }
    }
    out->map = json_incref(map);
  } else {
    srv_error_set(err, SRV_ERR_WRONG_TYPE, "map",
                  "\"map\" is a non-empty object {\"source joint\": \"target "
                  "joint\"} or \"auto\"");
    goto fail;
  }
  json_t *r = json_object_get(root, "root");
  if (r != NULL) {
    static const char *const root_fields[] = {"source", "target", NULL};
    if (!json_is_object(r)) {
      srv_error_set(err, SRV_ERR_WRONG_TYPE, "root",
                    "\"root\" is an object {\"source\", \"target\"}");
      goto fail;
    }
    if (srv_json_known_fields(r, root_fields, 0, "root", err) != 0 ||
        dup_string(r, "source", true, "root.source", &out->root_source, err) !=
            0 ||
        dup_string(r, "target", true, "root.target", &out->root_target, err) !=
            0)
      goto fail;
  }
  return 0;
fail:
  srv_retarget_body_free(out);
  return -1;
}

void srv_retarget_body_free(srv_retarget_body_t *body) {
  free(body->clip);
  free(body->to);
  free(body->name);
  free(body->root_source);
  free(body->root_target);
  if (body->map != NULL) json_decref(body->map);
  memset(body, 0, sizeof *body);
}

/* ---- plan
 * --------------------------------------------------------------------- */

static int add_pair(srv_retarget_plan_t *p, uint32_t s, uint32_t d,
                    const char *at, srv_error_t *err) {
  for (size_t i = 0; i < p->pair_count; i++) {
    if (p->pairs[i].target == d)
      return srv_error_set(err, SRV_ERR_BAD_VALUE, at,
                           "target joint '%.60s' is mapped twice",
                           p->target->names[d]);
    if (p->pairs[i].source == s)
      return srv_error_set(err, SRV_ERR_BAD_VALUE, at,
                           "source joint '%.60s' is mapped twice",
                           p->source->names[s]);
  }
  p->pairs[p->pair_count++] = (anim_retarget_pair_t){s, d};
  return 0;
}

static int by_target(const void *a, const void *b) {
  const anim_retarget_pair_t *x = a, *y = b;
  return x->target < y->target ? -1 : x->target > y->target;
}

/* The joint of s named name, or -1 with unknown_joint at `at`. */
static int32_t joint_of(const anim_skeleton_t *s, const char *name,
                        const char *which, const char *at, srv_error_t *err) {
  int32_t j = anim_skeleton_find(s, name);
  if (j < 0) {
    srv_error_set(err, SRV_ERR_UNKNOWN_JOINT, at,
                  "the %s skeleton has no joint '%.60s'", which, name);
    srv_error_did_you_mean(err, srv_joint_nearest(s, name));
  }
  return j;
}

static int plan_map(const srv_retarget_body_t *body, srv_retarget_plan_t *p,
                    srv_error_t *err) {
  if (body->map == NULL) {
    size_t n = (size_t)p->source->joint_count + p->target->joint_count;
    char *scratch = malloc(ANIM_RETARGET_MAP_SCRATCH_PER_JOINT * n);
    if (scratch == NULL)
      return srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    p->pair_count = anim_retarget_auto_map(
        p->source, p->target, p->pairs, p->target->joint_count, scratch,
        ANIM_RETARGET_MAP_SCRATCH_PER_JOINT * n);
    free(scratch);
    return 0;
  }
  const char *key;
  json_t *v;
  json_object_foreach(body->map, key, v) {
    char at[128];
    snprintf(at, sizeof at, "map.%.100s", key);
    int32_t s = joint_of(p->source, key, "source", at, err);
    if (s < 0) return -1;
    int32_t d = joint_of(p->target, json_string_value(v), "target", at, err);
    if (d < 0) return -1;
    if (p->pair_count == p->target->joint_count ||
        add_pair(p, (uint32_t)s, (uint32_t)d, at, err) != 0)
      return p->pair_count == p->target->joint_count
                 ? srv_error_set(err, SRV_ERR_BAD_VALUE, at,
                                 "more pairs than target joints")
                 : -1;
  }
  qsort(p->pairs, p->pair_count, sizeof *p->pairs, by_target);
  return 0;
}

/* The root pair: named by the body (added when not mapped yet), else the
 * pair nearest the top of the target. */
static int plan_root(const srv_retarget_body_t *body, srv_retarget_plan_t *p,
                     srv_error_t *err) {
  if (body->root_source != NULL) {
    int32_t s =
        joint_of(p->source, body->root_source, "source", "root.source", err);
    if (s < 0) return -1;
    int32_t d =
        joint_of(p->target, body->root_target, "target", "root.target", err);
    if (d < 0) return -1;
    for (size_t i = 0; i < p->pair_count; i++) {
      if (p->pairs[i].source == (uint32_t)s &&
          p->pairs[i].target == (uint32_t)d) {
        p->root_pair = (uint32_t)i;
        return 0;
      }
      if (p->pairs[i].source == (uint32_t)s ||
          p->pairs[i].target == (uint32_t)d)
        return srv_error_set(err, SRV_ERR_BAD_VALUE, "root",
                             "the root pair's joints are mapped otherwise "
                             "in \"map\"");
    }
    if (p->pair_count == p->target->joint_count)
      return srv_error_set(err, SRV_ERR_BAD_VALUE, "root",
                           "more pairs than target joints");
    p->pairs[p->pair_count++] =
        (anim_retarget_pair_t){(uint32_t)s, (uint32_t)d};
    qsort(p->pairs, p->pair_count, sizeof *p->pairs, by_target);
    for (size_t i = 0; i < p->pair_count; i++)
      if (p->pairs[i].target == (uint32_t)d) p->root_pair = (uint32_t)i;
    return 0;
  }
  if (p->pair_count == 0)
    return srv_error_set(err, SRV_ERR_BAD_VALUE, "map",
                         "no joint of the target could be mapped");
  p->root_pair =
      (uint32_t)anim_retarget_root_pair(p->target, p->pairs, p->pair_count);
  return 0;
}

int srv_retarget_plan(const srv_retarget_body_t *body,
                      const store_asset_t *clip, const store_asset_t *target,
                      unsigned max_frames, srv_retarget_plan_t *out,
                      srv_error_t *err) {
  memset(out, 0, sizeof *out);
  if (clip->kind != STORE_CLIP || target->kind != STORE_SKELETON)
    return srv_error_set(err, SRV_ERR_INTERNAL, NULL, NULL);
  out->source = clip->skeleton_asset->skeleton;
  out->target = target->skeleton;
  out->clip = clip->clip;
  out->fps = body->fps;
  out->frames = anim_retarget_frame_count(out->clip->duration, body->fps);
  if (out->frames == 0 || (max_frames > 0 && out->frames > max_frames))
    return srv_error_set(err, SRV_ERR_TOO_MANY_FRAMES, "fps",
                         "%.0f s at %g fps is more than max_frames (%u) keys",
                         (double)out->clip->duration, (double)body->fps,
                         max_frames);
  out->pairs = calloc(out->target->joint_count, sizeof *out->pairs);
  if (body->name != NULL) {
    out->name = strdup(body->name);
  } else {
    size_t n = strlen(clip->name) + strlen(target->name) + 2;
    out->name = malloc(n);
    if (out->name != NULL)
      snprintf(out->name, n, "%s@%s", clip->name, target->name);
  }
  if (out->pairs == NULL || out->name == NULL) {
    srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    goto fail;
  }
  if (plan_map(body, out, err) != 0 || plan_root(body, out, err) != 0)
    goto fail;
  if ((size_t)out->frames * (out->pair_count + 1) > SRV_RETARGET_MAX_KEYS) {
    srv_error_set(err, SRV_ERR_TOO_MANY_KEYS, "fps",
                  "%u keys for %zu tracks is more than %zu keys: lower "
                  "\"fps\" or map fewer joints",
                  out->frames, out->pair_count + 1, SRV_RETARGET_MAX_KEYS);
    goto fail;
  }
  return 0;
fail:
  srv_retarget_plan_free(out);
  return -1;
}

void srv_retarget_plan_free(srv_retarget_plan_t *plan) {
  free(plan->pairs);
  free(plan->name);
  memset(plan, 0, sizeof *plan);
}

/* ---- bake
 * --------------------------------------------------------------------- */

int srv_retarget_bake(const srv_retarget_plan_t *plan, anim_clip_t **out,
                      float *scale, srv_error_t *err) {
  *out = NULL;
  size_t nf = plan->frames, np = plan->pair_count;
  size_t scratch_bytes =
      anim_retarget_scratch_bytes(plan->source, plan->clip, plan->target);
  float *times = malloc(nf * sizeof *times);
  float *rot = malloc(np * nf * 4 * sizeof *rot);
  float *tr = malloc(nf * 3 * sizeof *tr);
  void *scratch = malloc(scratch_bytes);
  anim_raw_track_t *tracks = calloc(np + 1, sizeof *tracks);
  int rc = -1;
  if (times == NULL || rot == NULL || tr == NULL || scratch == NULL ||
      tracks == NULL) {
    srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    goto done;
  }
  anim_retarget_job_t job = {.source = plan->source,
                             .clip = plan->clip,
                             .target = plan->target,
                             .pairs = plan->pairs,
                             .pair_count = np,
                             .root_pair = plan->root_pair,
                             .fps = plan->fps,
                             .frame_count = plan->frames,
                             .scratch = scratch,
                             .scratch_bytes = scratch_bytes,
                             .times = times,
                             .rotations = rot,
                             .translations = tr,
                             .scale = scale};
  anim_result r = anim_retarget_job_run(&job);
  if (r != ANIM_OK) {
    srv_error_set(err,
                  r == ANIM_ERR_SINGULAR ? SRV_ERR_SINGULAR : SRV_ERR_INTERNAL,
                  NULL, "retargeting failed: %s", anim_result_str(r));
    goto done;
  }
  const uint32_t *to_caller = plan->target->to_caller;
  for (size_t i = 0; i < np; i++)
    tracks[i] = (anim_raw_track_t){.joint = to_caller[plan->pairs[i].target],
                                   .path = ANIM_PATH_ROTATION,
                                   .interpolation = ANIM_INTERP_LINEAR,
                                   .times = times,
                                   .key_count = nf,
                                   .values = rot + i * nf * 4,
                                   .value_count = nf * 4};
  tracks[np] = (anim_raw_track_t){
      .joint = to_caller[plan->pairs[plan->root_pair].target],
      .path = ANIM_PATH_TRANSLATION,
      .interpolation = ANIM_INTERP_LINEAR,
      .times = times,
      .key_count = nf,
      .values = tr,
      .value_count = nf * 3};
  anim_raw_clip_t raw = {.name = plan->name,
                         .tracks = tracks,
                         .track_count = np + 1,
                         .duration = plan->clip->duration};
  anim_build_error_t be;
  r = anim_clip_build(&raw, plan->target, NULL, out, &be);
  if (r != ANIM_OK) {
    srv_error_set(err,
                  r == ANIM_ERR_OUT_OF_MEMORY ? SRV_ERR_OUT_OF_MEMORY
                                              : SRV_ERR_INTERNAL,
                  NULL, "the baked clip was refused: %s", be.message);
    goto done;
  }
  rc = 0;
done:
  free(times);
  free(rot);
  free(tr);
  free(scratch);
  free(tracks);
  return rc;
}

/* ---- store and answer
 * --------------------------------------------------------- */

/* "retarget":{"mapped":[[s,d]...],"unmapped_source":[...],
 * "unmapped_target":[...],"scale":k}, names in the caller's joint order
 * of each skeleton. */
static void summary(fmt_buf_t *b, const srv_retarget_plan_t *p, float k) {
  const anim_skeleton_t *s = p->source, *d = p->target;
  fmt_buf_puts(b, "{\"mapped\":[");
  bool first = true;
  for (uint32_t c = 0; c < d->joint_count; c++) {
    uint32_t j = d->from_caller[c];
    for (size_t i = 0; i < p->pair_count; i++) {
      if (p->pairs[i].target != j) continue;
      fmt_buf_puts(b, first ? "[" : ",[");
      first = false;
      fmt_buf_json_string(b, s->names[p->pairs[i].source]);
      fmt_buf_putc(b, ',');
      fmt_buf_json_string(b, d->names[j]);
      fmt_buf_putc(b, ']');
    }
  }
  for (int side = 0; side < 2; side++) {
    const anim_skeleton_t *k_s = side == 0 ? s : d;
    fmt_buf_puts(b, side == 0 ? "],\"unmapped_source\":["
                              : "],\"unmapped_target\":[");
    first = true;
    for (uint32_t c = 0; c < k_s->joint_count; c++) {
      uint32_t j = k_s->from_caller[c];
      bool mapped = false;
      for (size_t i = 0; i < p->pair_count && !mapped; i++)
        mapped = (side == 0 ? p->pairs[i].source : p->pairs[i].target) == j;
      if (mapped) continue;
      if (!first) fmt_buf_putc(b, ',');
      first = false;
      fmt_buf_json_string(b, k_s->names[j]);
    }
  }
  fmt_buf_puts(b, "],\"scale\":");
  fmt_buf_float(b, k);
  fmt_buf_putc(b, '}');
}

int srv_retarget_store(store_t *st, const srv_retarget_plan_t *plan,
                       store_asset_t *target, store_ingest_result_t *result,
                       fmt_buf_t *answer, srv_error_t *err) {
  anim_clip_t *clip;
  float k = 1.0f;
  if (srv_retarget_bake(plan, &clip, &k, err) != 0) return -1;
  fmt_bundle_t bundle = {.clips = malloc(sizeof(fmt_clip_t)),
                         .clip_count = 1,
                         .bytes = fmt_clip_bytes(clip)};
  if (bundle.clips == NULL) {
    anim_clip_free(clip);
    return srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
  }
  bundle.clips[0] =
      (fmt_clip_t){.clip = clip, .skeleton = FMT_EXTERNAL_SKELETON};
  fmt_error_t fe = {0};
  /* The store takes the bundle whole, stored or not. */
  int rc = store_ingest_named(st, &bundle, target, NULL, result, &fe);
  if (rc != 0 && fe.code == FMT_ERR_NAME_CONFLICT)
    return srv_error_set(err, SRV_ERR_NAME_CONFLICT, "name",
                         "the target skeleton has another clip named "
                         "\"%.100s\": give the bake another \"name\"",
                         plan->name);
  if (rc != 0)
    return srv_error_set(err, srv_error_of(fe.code), fe.at[0] ? fe.at : NULL,
                         "%s", fe.message);
  fmt_asset_summary_t *items =
      calloc(result->count ? result->count : 1, sizeof *items);
  fmt_buf_t extra = FMT_BUF_INIT;
  if (items != NULL) {
    for (size_t i = 0; i < result->count; i++)
      store_asset_summary(result->entries[i].asset, &items[i]);
    summary(&extra, plan, k);
    fmt_answer_upload_member(answer, items, result->count, "retarget",
                             extra.data, extra.len, NULL, 0);
    fmt_buf_putc(answer, '\n');
  }
  free(items);
  bool failed = items == NULL || extra.failed || answer->failed;
  fmt_buf_free(&extra);
  if (failed) {
    store_ingest_result_free(result);
    return srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
  }
  return 0;
}
