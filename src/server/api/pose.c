/* server: GET /v1/pose (one pose or a streamed range) and POST /v1/pose
 * (blended layers).
 *
 * Parameters are checked and assets looked up on the loop thread, so every
 * 4xx is answered before any work; the evaluation runs as a task (inline
 * when the skeleton is small, see task.h) or as a streamed range. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "server/api/frame_answer.h"
#include "server/api/handlers.h"
#include "server/http/range.h"
#include "server/api/params.h"
#include "server/http/task.h"

/* The headers of a pose answer. */
static void pose_headers(char *out, size_t cap, bool bin, fmt_space space,
                         uint32_t joints, const char *etag) {
  out[0] = '\0';
  size_t n = 0;
  if (bin) {
    char num[16];
    int k = 15;
    num[k] = '\0';
    uint32_t v = joints;
    do {
      num[--k] = (char)('0' + v % 10);
      v /= 10;
    } while (v > 0);
    const char *parts[] = {"X-Animd-Joints: ", num + k,
                           "\r\nX-Animd-Layout: ", fmt_vocab_name(FMT_VOCAB_LAYOUT, fmt_layout_of_pose(space)),
                           "\r\n"};
    for (size_t i = 0; i < 5; i++) {
      size_t l = strlen(parts[i]);
      if (n + l >= cap) return;
      memcpy(out + n, parts[i], l);
      n += l;
    }
  }
  if (etag) {
    size_t l = strlen(etag);
    if (n + l + 9 >= cap) return;
    memcpy(out + n, "ETag: ", 6);
    memcpy(out + n + 6, etag, l);
    memcpy(out + n + 6 + l, "\r\n", 3);
    n += l + 8;
  }
  out[n] = '\0';
}

/* ---- one pose ------------------------------------------------------------- */

typedef struct pose_task_s {
  srv_task_t task;
  store_asset_t *skel, *clip;
  float t;
  anim_wrap wrap;
  fmt_space space;
  bool bin;
  char etag[40];
  anim_result result;
  fmt_buf_t out;
} pose_task_t;

static void pose_work(srv_task_t *t) {
  pose_task_t *p = (pose_task_t *)t;
  p->result = srv_pose_answer(&p->out, p->skel, p->clip, p->t, p->wrap,
                              p->space, p->bin);
}

static void pose_respond(srv_task_t *t) {
  pose_task_t *p = (pose_task_t *)t;
  if (p->result != ANIM_OK) {
    srv__fail_result(t->req, p->result, "evaluation failed");
    return;
  }
  char extra[256];
  pose_headers(extra, sizeof extra, p->bin, p->space,
               p->skel->skeleton->joint_count, p->etag);
  srv_respond(t->req, 200,
              p->bin ? "application/octet-stream" : "application/json", extra,
              p->out.data, p->out.len);
}

static void pose_free(srv_task_t *t) {
  pose_task_t *p = (pose_task_t *)t;
  store_asset_release(p->skel);
  store_asset_release(p->clip);
  fmt_buf_free(&p->out);
  free(p);
}

/* ---- a range of poses ------------------------------------------------------ */

typedef struct pose_range_s {
  srv_range_t range;
  store_asset_t *skel, *clip;
  anim_wrap wrap;
  fmt_space space;
  bool bin;
} pose_range_t;

static int pose_produce(srv_range_t *r, uint32_t first, uint32_t n,
                        fmt_buf_t *out) {
  pose_range_t *p = (pose_range_t *)r;
  srv_eval_scratch_t *s = srv_eval_scratch_thread();
  if (s == NULL) return -1;
  srv_eval_job_t job = {
      .skeleton = p->skel->skeleton,
      .clip = p->clip ? p->clip->clip : NULL,
      .wrap = p->wrap,
      .space = p->space,
  };
  srv_frame_names_t names = {p->skel->id, p->clip ? p->clip->id : NULL};
  for (uint32_t i = first; i < first + n; i++) {
    job.t = (float)srv_range_time(r, i);
    if (srv_frame_answer(out, &job, &names, p->bin, i, s) != ANIM_OK)
      return -1;
  }
  return 0;
}

static void pose_range_dispose(srv_range_t *r) {
  pose_range_t *p = (pose_range_t *)r;
  store_asset_release(p->skel);
  store_asset_release(p->clip);
}

/* ---- GET /v1/pose ------------------------------------------------------------ */

void srv__handle_pose_get(srv_request_t *req) {
  store_asset_t *skel = NULL, *clip = NULL;
  int space, wrap;
  bool bin;
  srv_range_params_t range;
  double t = 0;
  if (srv__param_enum(req, "space", FMT_VOCAB_SPACE, FMT_SPACE_MODEL, &space) != 0 ||
      srv__param_enum(req, "wrap", FMT_VOCAB_WRAP, ANIM_WRAP_CLAMP, &wrap) != 0 ||
      srv__param_format(req, &bin) != 0 || srv__param_range(req, &range) != 0)
    return;
  if (!range.is_range && srv__param_float(req, "t", true, 0, &t) != 0) return;
  if (srv__param_asset(req, "skeleton", STORE_SKELETON, NULL, false, &skel) !=
      0)
    return;
  if (srv__param_asset(req, "clip", STORE_CLIP, skel, skel == NULL, &clip) !=
      0)
    goto fail;
  if (clip != NULL) {
    if (skel != NULL && clip->skeleton_asset != skel) {
      srv__fail(req, SRV_ERR_SKELETON_MISMATCH, "clip",
                        "the clip was built for another skeleton");
      goto fail;
    }
    if (skel == NULL) {
      skel = clip->skeleton_asset;
      store_asset_retain(skel);
    }
  }
  uint32_t joints = skel->skeleton->joint_count;

  if (range.is_range) {
    pose_range_t *p = calloc(1, sizeof *p);
    if (p == NULL) {
      srv__fail(req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
      goto fail;
    }
    p->skel = skel;
    p->clip = clip;
    p->wrap = (anim_wrap)wrap;
    p->space = (fmt_space)space;
    p->bin = bin;
    p->range.from = range.from;
    p->range.fps = range.fps;
    p->range.frame_count = range.frames;
    size_t frame_bytes =
        srv_pose_float_count(p->space, joints) * (bin ? 4 : 12) + 64;
    p->range.batch = (uint32_t)(65536 / frame_bytes) + 1;
    p->range.frame_cost = srv__answer_cost(joints, bin);
    p->range.produce = pose_produce;
    p->range.dispose = pose_range_dispose;
    char extra[256];
    pose_headers(extra, sizeof extra, bin, p->space, joints, NULL);
    srv__range_start(&p->range, req,
                     bin ? "application/octet-stream" : "application/x-ndjson",
                     extra);
    return;
  }

  /* The ETag: content ids and every parameter that changes the bytes. */
  struct {
    char skel[FMT_ID_LEN + 1], clip[FMT_ID_LEN + 1];
    float t;
    int space, wrap, bin;
  } key;
  memset(&key, 0, sizeof key);
  memcpy(key.skel, skel->id, sizeof key.skel);
  if (clip) memcpy(key.clip, clip->id, sizeof key.clip);
  key.t = (float)t;
  key.space = space;
  key.wrap = wrap;
  key.bin = bin;
  char etag[40];
  srv__etag(etag, &key, sizeof key);
  if (srv__respond_if_not_modified(req, etag)) goto fail;

  pose_task_t *p = calloc(1, sizeof *p);
  if (p == NULL) {
    srv__fail(req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    goto fail;
  }
  p->skel = skel;
  p->clip = clip;
  p->t = (float)t;
  p->wrap = (anim_wrap)wrap;
  p->space = (fmt_space)space;
  p->bin = bin;
  memcpy(p->etag, etag, sizeof etag);
  fmt_buf_init(&p->out);
  p->task.work = pose_work;
  p->task.respond = pose_respond;
  p->task.free = pose_free;
  srv__task_run(&p->task, req, srv__answer_cost(joints, bin));
  return;

fail:
  store_asset_release(skel);
  store_asset_release(clip);
}

/* ---- POST /v1/pose: blended layers ----------------------------------------- */

typedef struct blend_task_s {
  srv_task_t task;
  store_asset_t *skel;
  store_asset_t **clips;   /* One per layer, retained. */
  srv_eval_layer_t *layers;
  size_t layer_count;
  fmt_space space;
  bool bin;
  anim_result result;
  fmt_buf_t out;
} blend_task_t;

static void blend_work(srv_task_t *t) {
  blend_task_t *b = (blend_task_t *)t;
  srv_eval_scratch_t *s = srv_eval_scratch_thread();
  srv_eval_job_t job = {
      .skeleton = b->skel->skeleton,
      .layers = b->layers,
      .layer_count = b->layer_count,
      .space = b->space,
  };
  srv_frame_names_t names = {b->skel->id, NULL};
  b->result = s != NULL ? srv_frame_answer(&b->out, &job, &names, b->bin,
                                           -1, s)
                        : ANIM_ERR_OUT_OF_MEMORY;
}

static void blend_respond(srv_task_t *t) {
  blend_task_t *b = (blend_task_t *)t;
  if (b->result != ANIM_OK) {
    if (b->result == ANIM_ERR_OUT_OF_MEMORY)
      srv__fail(t->req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    else
      srv__fail(t->req, SRV_ERR_BAD_BLEND, "layers", "blending failed: %s",
                anim_result_str(b->result));
    return;
  }
  char extra[160];
  pose_headers(extra, sizeof extra, b->bin, b->space,
               b->skel->skeleton->joint_count, NULL);
  srv_respond(t->req, 200,
              b->bin ? "application/octet-stream" : "application/json", extra,
              b->out.data, b->out.len);
}

static void blend_free(srv_task_t *t) {
  blend_task_t *b = (blend_task_t *)t;
  for (size_t i = 0; i < b->layer_count; i++) {
    if (b->clips) store_asset_release(b->clips[i]);
    if (b->layers) free((float *)b->layers[i].mask);
  }
  free(b->clips);
  free(b->layers);
  store_asset_release(b->skel);
  fmt_buf_free(&b->out);
  free(b);
}

void srv__handle_pose_post(srv_request_t *req) {
  json_t *root;
  if (srv__request_json_body(req, &root) != 0) return;
  blend_task_t *b = calloc(1, sizeof *b);
  if (b == NULL) {
    json_decref(root);
    srv__fail(req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    return;
  }
  fmt_buf_init(&b->out);
  char at[96];
  if (!json_is_object(root)) {
    srv__fail(req, SRV_ERR_WRONG_TYPE, "", "the body must be an "
                      "object");
    goto fail;
  }
  json_t *jsk = json_object_get(root, "skeleton");
  if (!json_is_string(jsk)) {
    srv__fail(req, jsk ? SRV_ERR_WRONG_TYPE : SRV_ERR_MISSING_FIELD, "skeleton", "\"skeleton\" must be a skeleton id or "
                      "name");
    goto fail;
  }
  store_t *st = srv__store(req);
  b->skel = st ? store_lookup(st, STORE_SKELETON, json_string_value(jsk),
                              NULL)
               : NULL;
  if (b->skel == NULL) {
    srv__fail(req, SRV_ERR_NOT_FOUND, "skeleton", "no skeleton '%s'",
                      json_string_value(jsk));
    goto fail;
  }
  const anim_skeleton_t *sk = b->skel->skeleton;
  json_t *js = json_object_get(root, "space");
  int space = FMT_SPACE_MODEL;
  if (js != NULL) {
    space = json_is_string(js)
                ? fmt_vocab_parse(FMT_VOCAB_SPACE, json_string_value(js))
                : -1;
    if (space < 0) {
      srv__fail(req, SRV_ERR_BAD_VALUE, "space",
                        "\"space\" must be local, model or skin");
      goto fail;
    }
  }
  b->space = (fmt_space)space;
  json_t *jf = json_object_get(root, "format");
  const char *accept = srv_request_header(req, "Accept");
  b->bin = accept && strstr(accept, "application/octet-stream");
  if (jf != NULL) {
    int f = json_is_string(jf)
                ? fmt_vocab_parse(FMT_VOCAB_FORMAT, json_string_value(jf))
                : -1;
    if (f < 0) {
      srv__fail(req, SRV_ERR_BAD_VALUE, "format",
                        "\"format\" must be json or bin");
      goto fail;
    }
    b->bin = f == FMT_FORMAT_BIN;
  }
  json_t *jl = json_object_get(root, "layers");
  if (!json_is_array(jl) || json_array_size(jl) == 0 ||
      json_array_size(jl) > 64) {
    srv__fail(req, jl ? SRV_ERR_WRONG_TYPE : SRV_ERR_MISSING_FIELD, "layers",
                      "\"layers\" must be an array of 1 to 64 layers");
    goto fail;
  }
  b->layer_count = json_array_size(jl);
  b->layers = calloc(b->layer_count, sizeof *b->layers);
  b->clips = calloc(b->layer_count, sizeof *b->clips);
  if (b->layers == NULL || b->clips == NULL) {
    srv__fail(req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    goto fail;
  }
  for (size_t i = 0; i < b->layer_count; i++) {
    json_t *l = json_array_get(jl, i);
    srv_eval_layer_t *bl = &b->layers[i];
    if (!json_is_object(l)) {
      snprintf(at, sizeof at, "layers[%zu]", i);
      srv__fail(req, SRV_ERR_WRONG_TYPE, at, "a layer is an object");
      goto fail;
    }
    json_t *jc = json_object_get(l, "clip");
    snprintf(at, sizeof at, "layers[%zu].clip", i);
    if (!json_is_string(jc)) {
      srv__fail(req, jc ? SRV_ERR_WRONG_TYPE : SRV_ERR_MISSING_FIELD, at,
                        "\"clip\" must be a clip id or name");
      goto fail;
    }
    b->clips[i] =
        store_lookup(st, STORE_CLIP, json_string_value(jc), b->skel);
    if (b->clips[i] == NULL || b->clips[i]->skeleton_asset != b->skel) {
      srv__fail(req, SRV_ERR_NOT_FOUND, at,
                        "no clip '%s' on that skeleton",
                        json_string_value(jc));
      goto fail;
    }
    bl->clip = b->clips[i]->clip;
    double d;
    json_t *jt = json_object_get(l, "t");
    snprintf(at, sizeof at, "layers[%zu].t", i);
    if (jt == NULL) {
      srv__fail(req, SRV_ERR_MISSING_FIELD, at, "\"t\" is required");
      goto fail;
    }
    if (!srv__json_number(jt, -3e38, 3e38, &d)) {
      srv__fail(req, SRV_ERR_WRONG_TYPE, at,
                        "\"t\" must be a finite number");
      goto fail;
    }
    bl->t = (float)d;
    json_t *jw = json_object_get(l, "weight");
    bl->weight = 1.0f;
    if (jw != NULL) {
      snprintf(at, sizeof at, "layers[%zu].weight", i);
      if (!srv__json_number(jw, 0, 1e6, &d)) {
        srv__fail(req, SRV_ERR_BAD_VALUE, at,
                          "\"weight\" must be a number >= 0");
        goto fail;
      }
      bl->weight = (float)d;
    }
    json_t *jm = json_object_get(l, "mode");
    if (jm != NULL) {
      snprintf(at, sizeof at, "layers[%zu].mode", i);
      int m = json_is_string(jm)
                  ? fmt_vocab_parse(FMT_VOCAB_MODE, json_string_value(jm))
                  : -1;
      if (m < 0) {
        srv__fail(req, SRV_ERR_BAD_VALUE, at,
                          "\"mode\" must be normal or additive");
        goto fail;
      }
      bl->additive = m == FMT_BLEND_ADDITIVE;
    }
    json_t *jwr = json_object_get(l, "wrap");
    if (jwr != NULL) {
      snprintf(at, sizeof at, "layers[%zu].wrap", i);
      int w = json_is_string(jwr)
                  ? fmt_vocab_parse(FMT_VOCAB_WRAP, json_string_value(jwr))
                  : -1;
      if (w < 0) {
        srv__fail(req, SRV_ERR_BAD_VALUE, at,
                          "\"wrap\" must be clamp, loop or pingpong");
        goto fail;
      }
      bl->wrap = (anim_wrap)w;
    }
    json_t *jmask = json_object_get(l, "mask");
    if (jmask != NULL) {
      snprintf(at, sizeof at, "layers[%zu].mask", i);
      if (!json_is_array(jmask)) {
        srv__fail(req, SRV_ERR_WRONG_TYPE, at,
                          "\"mask\" must be an array of joint names");
        goto fail;
      }
      float *mask = calloc(sk->joint_count, sizeof(float));
      bl->mask = mask;
      if (mask == NULL) {
        srv__fail(req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
        goto fail;
      }
      for (size_t k = 0; k < json_array_size(jmask); k++) {
        json_t *jn = json_array_get(jmask, k);
        snprintf(at, sizeof at, "layers[%zu].mask[%zu]", i, k);
        int32_t j = json_is_string(jn)
                        ? anim_skeleton_find(sk, json_string_value(jn))
                        : -1;
        if (j < 0) {
          srv__fail(req, SRV_ERR_UNKNOWN_JOINT, at,
                            "not a joint name of the skeleton");
          goto fail;
        }
        mask[j] = 1.0f;
      }
    }
  }
  json_decref(root);
  b->task.work = blend_work;
  b->task.respond = blend_respond;
  b->task.free = blend_free;
  srv__task_run(&b->task, req,
                srv__answer_cost((unsigned long)sk->joint_count *
                                     (b->layer_count + 1),
                                 b->bin));
  return;

fail:
  json_decref(root);
  blend_free(&b->task);
}
