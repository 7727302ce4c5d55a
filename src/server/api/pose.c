/* server: GET /v1/pose (one pose or a streamed range) and POST /v1/pose
 * (blended layers).
 *
 * A request is parsed into its typed form (requests.h), then its assets
 * are looked up, all on the loop thread, so every 4xx is answered before
 * any work; the evaluation runs as a task (inline
 * when the skeleton is small, see task.h) or as a streamed range. A POST
 * body is parsed as a task too (body_task.h): on the pool when large. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/vocab.h"
#include "server/api/body_task.h"
#include "server/config.h"
#include "server/request/answer_bound.h"
#include "server/request/blend.h"
#include "server/request/frame_answer.h"
#include "server/request/morph.h"
#include "server/api/handlers.h"
#include "server/http/range.h"
#include "server/api/answer.h"
#include "server/api/etag.h"
#include "server/api/large_answer.h"
#include "server/api/lookup.h"
#include "server/api/params.h"
#include "server/http/task.h"
#include "server/verdict/pose_svg.h"

/* The Content-Type of a pose answer. */
static const char *pose_type(bool bin, bool svg) {
  return svg   ? VERDICT_SVG_TYPE
         : bin ? "application/octet-stream"
               : "application/json";
}

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
    const char *parts[] = {
        "X-Animd-Joints: ", num + k, "\r\nX-Animd-Layout: ",
        fmt_vocab_name(FMT_VOCAB_LAYOUT, fmt_layout_of_pose(space)), "\r\n"};
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

/* Appends X-Animd-Answer (the members the fields add to a binary answer,
 * with their float counts) to the headers in out. */
static void answer_header(char *out, size_t cap, bool bin,
                          const srv_fields_t *f) {
  if (!bin || srv_fields_answer_floats(f) == 0) return;
  fmt_buf_t b = FMT_BUF_INIT;
  srv_fields_answer_layout(&b, f);
  size_t n = strlen(out);
  if (!b.failed && n + b.len + 20 < cap)
    snprintf(out + n, cap - n, "X-Animd-Answer: %.*s\r\n", (int)b.len, b.data);
  fmt_buf_free(&b);
}

/* ---- one pose -------------------------------------------------------------
 */

typedef struct pose_task_s {
  srv_task_t task;
  store_asset_t *skel, *clip;
  uint32_t *joints; /* joints=: caller-order indices, or NULL (all). */
  uint32_t joint_count;
  double t;
  anim_wrap wrap;
  fmt_space space;
  bool bin;
  srv_picture_query_t picture; /* format=svg: joints are highlighted. */
  srv_range_query_t range;     /* format=svg: a range drawn at once. */
  srv_fields_t fields;
  char etag[40];
  anim_result result;
  fmt_buf_t out;
} pose_task_t;

/* The pipeline's job for the pose of skel and clip (NULL: the rest pose)
 * at t, of the listed joints (NULL: all). */
static srv_eval_job_t pose_job(const store_asset_t *skel,
                               const store_asset_t *clip, double t,
                               anim_wrap wrap, fmt_space space,
                               const uint32_t *joints, uint32_t joint_count) {
  srv_eval_job_t job = {
      .skeleton = skel->skeleton,
      .clip = clip ? clip->clip : NULL,
      .t = t,
      .wrap = wrap,
      .space = space,
      .joints = joints,
      .joint_count = joint_count,
  };
  return job;
}

static void pose_work(srv_task_t *t) {
  pose_task_t *p = (pose_task_t *)t;
  srv_eval_scratch_t *s = srv_eval_scratch_thread();
  srv_eval_job_t job = pose_job(p->skel, p->clip, p->t, p->wrap, p->space,
                                p->joints, p->joint_count);
  job.fields = &p->fields;
  srv_frame_names_t names = srv_frame_names(p->skel, p->clip);
  if (s == NULL) {
    p->result = ANIM_ERR_OUT_OF_MEMORY;
  } else if (p->picture.svg) {
    verdict_pose_picture_t pic = {.job = &job,
                                  .names = &names,
                                  .range = &p->range,
                                  .picture = p->picture,
                                  .highlight = p->joints,
                                  .highlight_count = p->joint_count};
    p->result = verdict_pose_svg(&p->out, &pic, s);
  } else {
    p->result = srv_frame_answer(&p->out, &job, &names, p->bin, -1, s);
  }
}

static void pose_respond(srv_task_t *t) {
  pose_task_t *p = (pose_task_t *)t;
  if (p->result != ANIM_OK) {
    srv__fail_result(t->req, p->result, "evaluation failed");
    return;
  }
  char extra[256];
  pose_headers(extra, sizeof extra, p->bin, p->space,
               p->joints ? p->joint_count : p->skel->skeleton->joint_count,
               p->etag[0] != '\0' ? p->etag : NULL);
  answer_header(extra, sizeof extra, p->bin, &p->fields);
  srv_morph_header(extra, sizeof extra, p->bin && !p->picture.svg,
                   p->clip ? p->clip->clip : NULL);
  srv__respond_evaluated(t->req, 200, &p->out,
                         pose_type(p->bin, p->picture.svg), extra);
}

static void pose_free(srv_task_t *t) {
  pose_task_t *p = (pose_task_t *)t;
  srv_fields_free(&p->fields);
  store_asset_release(p->skel);
  store_asset_release(p->clip);
  free(p->joints);
  fmt_buf_free(&p->out);
  srv__task_delete(p);
}

/* ---- a range of poses ------------------------------------------------------
 */

typedef struct pose_range_s {
  srv_range_t range;
  store_asset_t *skel, *clip;
  uint32_t *joints;
  uint32_t joint_count;
  anim_wrap wrap;
  fmt_space space;
  bool bin;
  srv_range_query_t times;
  srv_fields_t fields;
} pose_range_t;

static int pose_produce(srv_range_t *r, uint32_t first, uint32_t n,
                        fmt_buf_t *out) {
  pose_range_t *p = (pose_range_t *)r;
  srv_eval_scratch_t *s = srv_eval_scratch_thread();
  if (s == NULL) return -1;
  srv_eval_job_t job = pose_job(p->skel, p->clip, 0, p->wrap, p->space,
                                p->joints, p->joint_count);
  job.fields = &p->fields;
  srv_frame_names_t names = srv_frame_names(p->skel, p->clip);
  uint32_t index[ANIM_EVENT_MAX];
  for (uint32_t i = first; i < first + n; i++) {
    job.t = srv_range_query_time(&p->times, i);
    fmt_frame_events_t events = srv_range_events(
        &p->times, i, p->clip ? p->clip->clip : NULL, p->wrap, index);
    if (srv_frame_answer_events(out, &job, &names, p->bin, i, &events, s) !=
        ANIM_OK)
      return -1;
  }
  return 0;
}

static void pose_range_dispose(srv_range_t *r) {
  pose_range_t *p = (pose_range_t *)r;
  srv_fields_free(&p->fields);
  store_asset_release(p->skel);
  store_asset_release(p->clip);
  free(p->joints);
}

/* ---- GET /v1/pose
 * ------------------------------------------------------------ */

static void pose_range_start(srv_request_t *req, srv_pose_query_t *q,
                             store_asset_t *skel, store_asset_t *clip,
                             uint32_t *list, uint32_t list_count) {
  uint32_t joints = list ? list_count : skel->skeleton->joint_count;
  pose_range_t *p = calloc(1, sizeof *p);
  if (p == NULL) {
    store_asset_release(skel);
    store_asset_release(clip);
    free(list);
    srv_fields_free(&q->fields);
    srv__fail(req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    return;
  }
  p->skel = skel;
  p->clip = clip;
  p->joints = list;
  p->joint_count = list_count;
  p->wrap = q->wrap;
  p->space = q->space;
  p->bin = q->binary;
  p->times = q->range;
  p->fields = q->fields; /* Moved. */
  memset(&q->fields, 0, sizeof q->fields);
  p->range.produce = pose_produce;
  p->range.dispose = pose_range_dispose;
  char extra[256];
  pose_headers(extra, sizeof extra, p->bin, p->space, joints, NULL);
  const anim_clip_t *mc = p->clip ? p->clip->clip : NULL;
  srv_morph_header(extra, sizeof extra, p->bin, mc);
  srv__range_run(
      &p->range, req, &q->range,
      srv_pose_float_count(p->space, joints) +
          srv_fields_answer_floats(&p->fields) + srv_morph_clip_floats(mc),
      p->bin, srv_cost_answer(skel->skeleton->joint_count, p->bin), extra);
}

void srv__handle_pose_get(srv_request_t *req) {
  srv_query_t query = srv__query(req);
  srv_pose_query_t q;
  srv_error_t err;
  store_asset_t *skel, *clip;
  if (srv_pose_query_parse(&query, &q, &err) != 0) {
    srv__respond_err(req, &err);
    return;
  }
  srv_target_query_t names = {
      .skeleton = q.skeleton, .clip = q.clip, .joints = {.csv = q.joints}};
  srv_target_t target;
  if (srv__resolve(req, &names, &target) != 0) {
    srv_fields_free(&q.fields);
    return;
  }
  skel = target.skeleton;
  clip = target.clip;
  uint32_t *list = target.joints, list_count = target.joint_count;
  pose_task_t *p = NULL;
  if (srv_fields_resolve(&q.fields, skel->skeleton, NULL, &err) != 0) {
    srv__respond_err(req, &err);
    goto fail;
  }
  if (!q.picture.svg) {
    /* The answer's size, refused before any work (a range: per frame). */
    srv_eval_job_t shape_job =
        pose_job(skel, clip, 0, q.wrap, q.space, list, list_count);
    shape_job.fields = &q.fields;
    srv_answer_shape_t shape = {.job = &shape_job,
                                .binary = q.binary,
                                .frames = 1,
                                .range = q.range.is_range};
    if (srv_answer_check(&shape, srv_request_config(req)->max_answer_bytes,
                         "joints", &err) != 0) {
      srv__respond_err(req, &err);
      goto fail;
    }
  }
  if (q.range.is_range && !q.picture.svg) {
    pose_range_start(req, &q, skel, clip, list, list_count);
    return;
  }

  /* The ETag: content ids and every parameter that changes the bytes. */
  struct {
    char skel[FMT_ID_LEN + 1], clip[FMT_ID_LEN + 1];
    double t;
    int space, wrap, bin;
    char joints[40]; /* The ETag of the joint list ("" for all). */
    srv_picture_query_t picture;
  } key;
  memset(&key, 0, sizeof key);
  if (list != NULL) srv__etag(key.joints, list, list_count * sizeof *list);
  memcpy(key.skel, skel->id, sizeof key.skel);
  if (clip) memcpy(key.clip, clip->id, sizeof key.clip);
  key.t = q.t;
  key.space = q.space;
  key.wrap = q.wrap;
  key.bin = q.binary;
  key.picture = q.picture;
  char etag[40] = "";
  if (!q.range.is_range) { /* A format=svg range has no ETag. */
    srv__etag(etag, &key, sizeof key);
    srv__etag_fields(etag, &q.fields);
  }
  if (etag[0] != '\0' && srv__respond_if_not_modified(req, etag)) goto fail;
  p = srv__task_new(req, sizeof *p);
  if (p == NULL) {
    srv__fail(req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    goto fail;
  }
  p->skel = skel;
  p->clip = clip;
  p->joints = list;
  p->joint_count = list_count;
  list = NULL;
  p->t = q.t;
  p->wrap = q.wrap;
  p->space = q.space;
  p->bin = q.binary;
  p->picture = q.picture;
  p->range = q.range;
  p->fields = q.fields; /* Moved. */
  memset(&q.fields, 0, sizeof q.fields);
  memcpy(p->etag, etag, sizeof etag);
  fmt_buf_init(&p->out);
  p->task.work = pose_work;
  p->task.respond = pose_respond;
  p->task.free = pose_free;
  unsigned long frames = q.range.is_range ? q.range.frames : 1;
  srv__task_run(&p->task, req,
                srv_cost_answer(skel->skeleton->joint_count * frames, p->bin));
  return;

fail:
  srv_fields_free(&q.fields);
  store_asset_release(skel);
  store_asset_release(clip);
  free(list);
}

/* ---- POST /v1/pose: blended layers -----------------------------------------
 */

typedef struct blend_task_s {
  srv_task_t task;
  srv_blend_t blend;     /* The skeleton, the layers' clips and masks. */
  srv_blend_body_t body; /* Its masks become weights on the pool. */
  fmt_space space;
  bool bin;
  srv_picture_query_t picture;
  srv_fields_t fields;
  bool refused; /* A mask names what is not a joint: err. */
  srv_error_t err;
  anim_result result;
  fmt_buf_t out;
} blend_task_t;

static void blend_work(srv_task_t *t) {
  blend_task_t *b = (blend_task_t *)t;
  srv_error_t err;
  int masks = srv_blend_masks(&b->blend, &b->body, "", &err);
  srv_blend_body_free(&b->body);
  if (masks != 0) {
    /* A mask can name thousands of joints: read here, on the pool. */
    if (err.code == SRV_ERR_OUT_OF_MEMORY) {
      b->result = ANIM_ERR_OUT_OF_MEMORY;
    } else {
      b->refused = true;
      b->err = err;
    }
    return;
  }
  srv_eval_scratch_t *s = srv_eval_scratch_thread();
  srv_eval_job_t job = {
      .skeleton = b->blend.skeleton->skeleton,
      .layers = b->blend.layers,
      .layer_count = b->blend.layer_count,
      .space = b->space,
      .fields = &b->fields,
  };
  srv_frame_names_t names = srv_frame_names(b->blend.skeleton, NULL);
  verdict_pose_picture_t pic = {
      .job = &job, .names = &names, .picture = b->picture};
  b->result = s == NULL ? ANIM_ERR_OUT_OF_MEMORY
              : b->picture.svg
                  ? verdict_pose_svg(&b->out, &pic, s)
                  : srv_frame_answer(&b->out, &job, &names, b->bin, -1, s);
}

static void blend_respond(srv_task_t *t) {
  blend_task_t *b = (blend_task_t *)t;
  if (b->refused) {
    srv__respond_err(t->req, &b->err);
    return;
  }
  if (b->result == ANIM_ERR_OUT_OF_MEMORY) {
    srv__fail(t->req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    return;
  }
  if (b->result != ANIM_OK) {
    srv__fail(t->req, SRV_ERR_BAD_BLEND, "layers", "blending failed: %s",
              anim_result_str(b->result));
    return;
  }
  char extra[256];
  pose_headers(extra, sizeof extra, b->bin, b->space,
               b->blend.skeleton->skeleton->joint_count, NULL);
  answer_header(extra, sizeof extra, b->bin, &b->fields);
  srv_morph_header(extra, sizeof extra, b->bin && !b->picture.svg,
                   b->blend.layer_count > 0 ? b->blend.layers[0].clip : NULL);
  srv__respond_evaluated(t->req, 200, &b->out,
                         pose_type(b->bin, b->picture.svg), extra);
}

static void blend_free(srv_task_t *t) {
  blend_task_t *b = (blend_task_t *)t;
  srv_fields_free(&b->fields);
  srv_blend_release(&b->blend);
  srv_blend_body_free(&b->body);
  fmt_buf_free(&b->out);
  srv__task_delete(b);
}

/* The body parsed (on the pool when large): its assets are looked up
 * here, on the loop thread (request/blend.h); masks are read and layers
 * blended on the pool. */
static void blend_then(srv_request_t *req, void *parsed) {
  srv_blend_body_t *body = parsed;
  blend_task_t *b = srv__task_new(req, sizeof *b);
  if (b == NULL) {
    srv_blend_body_free(body);
    srv__fail(req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    return;
  }
  b->body = *body;
  fmt_buf_init(&b->out);
  b->space = body->space;
  b->bin = body->binary;
  b->picture = body->picture;
  /* Its own references: the body is freed before the evaluation. */
  srv_fields_copy(&b->fields, &body->fields);
  b->task.work = blend_work;
  b->task.respond = blend_respond;
  b->task.free = blend_free;
  srv_error_t err;
  srv_lookup_miss_t miss = {0};
  if (srv_blend_resolve(srv__store(req), &b->body, "", &b->blend, &err,
                        &miss) != 0) {
    srv__lookup_failed(req, &err, &miss);
    blend_free(&b->task);
    return;
  }
  /* Masks cost about a unit per byte of body. */
  srv__task_run(
      &b->task, req,
      req->body_len +
          srv_cost_answer(
              (unsigned long)b->blend.skeleton->skeleton->joint_count *
                  (b->blend.layer_count + 1),
              b->bin));
}

static int blend_parse(const char *body, size_t len, const srv_request_t *req,
                       void *parsed, srv_error_t *err) {
  return srv_blend_body_parse(body, len, srv_request_header(req, "Accept"),
                              parsed, err);
}

static void blend_parsed_free(void *parsed) { srv_blend_body_free(parsed); }

static const srv_body_parser_t blend_parser = {
    .size = sizeof(srv_blend_body_t),
    .parse = blend_parse,
    .then = blend_then,
    .free_parsed = blend_parsed_free,
};

void srv__handle_pose_post(srv_request_t *req) {
  if (srv__check_query(req, SRV_EP_POSE_POST) != 0) return;
  srv__parse_body(req, &blend_parser);
}
