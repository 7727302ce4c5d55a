/* server: GET /v1/skin: skinned vertices of a stored mesh at a clip time
 * (or a streamed range of them), LBS or DQS, with optional normals, as
 * JSON, float32 or q16 (encoding=q16 with format=bin, formats/q16.h).
 *
 * The mesh's skeleton is the pose's skeleton; the clip is looked up by id
 * or by name within it. Skinning always runs on the pool unless the mesh
 * is tiny (cost = vertices x influences).
 *
 * With skeleton=S the answer holds several meshes (every mesh of S, or
 * those mesh=a,b,c lists), one after another, each exactly as its own
 * single-mesh answer would be (docs/api.md, "Several meshes"): binary,
 * each mesh's payload after a 16-byte block header shaped like a range
 * frame's (its first word the mesh's position in the answer); JSON,
 * {"skeleton":S,"meshes":[answer, ...]}; ranges, each frame's single-mesh
 * frames one after another. */
#include <stdlib.h>
#include <string.h>

#include "formats/vocab.h"
#include "server/config.h"
#include "server/request/answer_bound.h"
#include "server/request/frame_answer.h"
#include "server/api/handlers.h"
#include "server/http/range.h"
#include "server/api/answer.h"
#include "server/api/etag.h"
#include "server/api/large_answer.h"
#include "server/api/lookup.h"
#include "server/api/params.h"
#include "server/http/task.h"

typedef struct skin_params_s {
  store_asset_t **meshes; /* mesh_count, retained; malloc'd. */
  size_t mesh_count;
  bool multi; /* The multi-mesh answer (skeleton=S). */
  store_asset_t *skel, *clip;
  anim_wrap wrap;
  anim_skin_method method;
  anim_skin_normals normals;
  bool bin;
  fmt_encoding encoding; /* q16 only when bin. */
  srv_fields_t fields;
} skin_params_t;

static void params_release(skin_params_t *p) {
  if (p->meshes) store_list_free(p->meshes, p->mesh_count);
  p->meshes = NULL;
  store_asset_release(p->skel);
  store_asset_release(p->clip);
  srv_fields_free(&p->fields);
}

/* The pipeline's job for mesh k's frame at t. */
static srv_eval_job_t skin_job(const skin_params_t *p, size_t k, double t) {
  srv_eval_job_t job = {
      .skeleton = p->skel->skeleton,
      .clip = p->clip ? p->clip->clip : NULL,
      .t = t,
      .wrap = p->wrap,
      .mesh = p->meshes[k]->mesh,
      .method = p->method,
      .normals = p->normals,
      .fields = &p->fields,
  };
  return job;
}

/* 32-bit numbers of a frame (floats, or words of q16), all meshes. */
static size_t skin_floats(const skin_params_t *p) {
  size_t n = 0;
  for (size_t k = 0; k < p->mesh_count; k++) {
    srv_eval_job_t job = skin_job(p, k, 0);
    n += p->encoding == FMT_ENCODING_Q16 ? srv_frame_q16_words(&job)
                                         : srv_eval_float_count(&job);
  }
  return n;
}

/* Appends mesh k's frame (-1: a whole answer) at t to out: the
 * single-mesh answer's bytes. */
static anim_result mesh_frame(const skin_params_t *p, size_t k, double t,
                              int64_t frame, const fmt_frame_events_t *events,
                              srv_eval_scratch_t *s, fmt_buf_t *out) {
  srv_eval_job_t job = skin_job(p, k, t);
  if (p->encoding == FMT_ENCODING_Q16)
    return srv_frame_answer_q16(out, &job, frame, s);
  srv_frame_names_t names = srv_frame_names(p->meshes[k], p->clip);
  return srv_frame_answer_events(out, &job, &names, p->bin, frame, events, s);
}

/* Appends frame (-1: a whole answer) at t to out: one mesh's, or every
 * mesh's one after another; a range frame's events (NULL: none) go on its
 * first line. */
static anim_result skin_frame(const skin_params_t *p, double t, int64_t frame,
                              const fmt_frame_events_t *events,
                              srv_eval_scratch_t *s, fmt_buf_t *out) {
  if (!p->multi) return mesh_frame(p, 0, t, frame, events, s, out);
  bool json_whole = !p->bin && frame < 0;
  if (json_whole) {
    fmt_buf_puts(out, "{\"skeleton\":");
    fmt_buf_json_string(out, p->skel->id);
    fmt_buf_puts(out, ",\"meshes\":[");
  }
  for (size_t k = 0; k < p->mesh_count; k++) {
    if (json_whole && k > 0) fmt_buf_putc(out, ',');
    /* A whole binary answer: each block framed as a range frame whose
     * index is the mesh's position. */
    int64_t f = frame >= 0   ? frame
                : p->bin     ? (int64_t)k
                : json_whole ? SRV_FRAME_MEMBER
                             : SRV_FRAME_WHOLE;
    anim_result r = mesh_frame(p, k, t, f, k == 0 ? events : NULL, s, out);
    if (r != ANIM_OK) return r;
  }
  if (json_whole) fmt_buf_puts(out, "]}\n");
  return out->failed ? ANIM_ERR_OUT_OF_MEMORY : ANIM_OK;
}

static void skin_headers(const skin_params_t *p, char *out, size_t cap,
                         const char *etag) {
  out[0] = '\0';
  int n = 0;
  const char *layout = fmt_vocab_name(
      FMT_VOCAB_LAYOUT,
      fmt_layout_of_skin_encoded(p->normals != ANIM_NORMALS_NONE, p->encoding));
  if (p->multi)
    n = snprintf(out, cap, "X-Animd-Meshes: %zu\r\n%s%s%s", p->mesh_count,
                 p->bin ? "X-Animd-Layout: " : "", p->bin ? layout : "",
                 p->bin ? "\r\n" : "");
  else if (p->bin)
    n = snprintf(out, cap, "X-Animd-Vertices: %u\r\nX-Animd-Layout: %s\r\n",
                 p->meshes[0]->mesh->vertex_count, layout);
  if (etag && n >= 0 && (size_t)n < cap)
    snprintf(out + n, cap - (size_t)n, "ETag: %s\r\n", etag);
}

/* ---- one frame
 * ------------------------------------------------------------------ */

typedef struct skin_task_s {
  srv_task_t task;
  skin_params_t p;
  double t;
  char etag[40];
  anim_result result;
  fmt_buf_t out;
} skin_task_t;

static void skin_work(srv_task_t *t) {
  skin_task_t *k = (skin_task_t *)t;
  srv_eval_scratch_t *s = srv_eval_scratch_thread();
  k->result = s != NULL ? skin_frame(&k->p, k->t, -1, NULL, s, &k->out)
                        : ANIM_ERR_OUT_OF_MEMORY;
}

static void skin_respond(srv_task_t *t) {
  skin_task_t *k = (skin_task_t *)t;
  if (k->result != ANIM_OK) {
    srv__fail_result(t->req, k->result, "skinning failed");
    return;
  }
  char extra[256];
  skin_headers(&k->p, extra, sizeof extra, k->etag);
  srv__respond_evaluated(
      t->req, 200, &k->out,
      k->p.bin ? "application/octet-stream" : "application/json", extra);
}

static void skin_free(srv_task_t *t) {
  skin_task_t *k = (skin_task_t *)t;
  params_release(&k->p);
  fmt_buf_free(&k->out);
  srv__task_delete(k);
}

/* ---- ranges
 * -------------------------------------------------------------------------- */

typedef struct skin_range_s {
  srv_range_t range;
  skin_params_t p;
  srv_range_query_t times;
} skin_range_t;

static int skin_produce(srv_range_t *r, uint32_t first, uint32_t n,
                        fmt_buf_t *out) {
  skin_range_t *k = (skin_range_t *)r;
  srv_eval_scratch_t *s = srv_eval_scratch_thread();
  if (s == NULL) return -1;
  uint32_t index[ANIM_EVENT_MAX];
  for (uint32_t i = first; i < first + n; i++) {
    fmt_frame_events_t events = srv_range_events(
        &k->times, i, k->p.clip ? k->p.clip->clip : NULL, k->p.wrap, index);
    if (skin_frame(&k->p, srv_range_query_time(&k->times, i), i, &events, s,
                   out) != ANIM_OK)
      return -1;
  }
  return 0;
}

static void skin_range_dispose(srv_range_t *r) {
  params_release(&((skin_range_t *)r)->p);
}

/* ---- GET /v1/skin
 * --------------------------------------------------------------------- */

/* The mesh(es), their skeleton and the clip a query names: with skeleton,
 * mesh's comma-separated ids or names within it (every mesh of it without
 * mesh); without, mesh names one mesh as it is. 0, or -1 after answering
 * (p released). */
static int skin_assets(srv_request_t *req, const srv_skin_query_t *q,
                       skin_params_t *p) {
  p->multi = q->skeleton != NULL;
  srv_target_query_t names = {.skeleton = q->skeleton,
                              .clip = q->clip,
                              .mesh = p->multi ? NULL : q->mesh,
                              .meshes = {.csv = p->multi ? q->mesh : NULL},
                              .mesh_all = p->multi && q->mesh == NULL,
                              .need_normals = p->normals != ANIM_NORMALS_NONE};
  srv_target_t t;
  if (srv__resolve(req, &names, &t) != 0) {
    srv_fields_free(&p->fields);
    return -1;
  }
  p->meshes = t.meshes;
  p->mesh_count = t.mesh_count;
  p->skel = t.skeleton;
  p->clip = t.clip;
  free(t.joints);
  srv_error_t err;
  if (srv_fields_resolve(&p->fields, p->skel->skeleton, NULL, &err) != 0) {
    srv__respond_err(req, &err);
    params_release(p);
    return -1;
  }
  return 0;
}

static void skin_range_start(srv_request_t *req, const srv_skin_query_t *q,
                             const skin_params_t *p, unsigned long cost) {
  skin_range_t *k = calloc(1, sizeof *k);
  if (k == NULL) {
    skin_params_t copy = *p;
    params_release(&copy);
    srv__fail(req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    return;
  }
  k->p = *p;
  k->times = q->range;
  k->range.produce = skin_produce;
  k->range.dispose = skin_range_dispose;
  char extra[256];
  skin_headers(p, extra, sizeof extra, NULL);
  srv__range_run(&k->range, req, &q->range, skin_floats(p), p->bin, cost,
                 extra);
}

void srv__handle_skin(srv_request_t *req) {
  srv_query_t query = srv__query(req);
  srv_skin_query_t q;
  srv_error_t err;
  if (srv_skin_query_parse(&query, &q, &err) != 0) {
    srv__respond_err(req, &err);
    return;
  }
  skin_params_t p = {.wrap = q.wrap,
                     .method = q.method,
                     .normals = q.normals,
                     .bin = q.binary,
                     .encoding = q.encoding,
                     .fields = q.fields};
  if (skin_assets(req, &q, &p) != 0) return;
  /* The answer's size, refused before any work (a range: per frame). */
  srv_eval_job_t shape_job = skin_job(&p, 0, 0);
  srv_answer_shape_t shape = {.job = &shape_job,
                              .meshes = p.meshes,
                              .mesh_count = p.mesh_count,
                              .binary = p.bin,
                              .q16 = p.encoding == FMT_ENCODING_Q16,
                              .frames = 1,
                              .range = q.range.is_range};
  if (srv_answer_check(&shape, srv_request_config(req)->max_answer_bytes,
                       "mesh", &err) != 0) {
    srv__respond_err(req, &err);
    params_release(&p);
    return;
  }
  unsigned long work = p.skel->skeleton->joint_count;
  for (size_t k = 0; k < p.mesh_count; k++)
    work += (unsigned long)p.meshes[k]->mesh->vertex_count *
            p.meshes[k]->mesh->influences;
  unsigned long cost = srv_cost_answer(work, p.bin);
  if (q.range.is_range) {
    skin_range_start(req, &q, &p, cost);
    return;
  }

  struct {
    char mesh[FMT_ID_LEN + 1], clip[FMT_ID_LEN + 1];
    double t;
    int wrap, method, normals, bin, encoding;
  } key;
  memset(&key, 0, sizeof key);
  memcpy(key.mesh, p.meshes[0]->id, sizeof key.mesh);
  if (p.multi) {
    /* The mesh field names the list: the tag of its ids. */
    fmt_buf_t ids = FMT_BUF_INIT;
    fmt_buf_puts(&ids, "meshes");
    for (size_t k = 0; k < p.mesh_count; k++)
      fmt_buf_puts(&ids, p.meshes[k]->id);
    if (ids.failed) {
      fmt_buf_free(&ids);
      srv__fail(req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
      goto fail;
    }
    srv__etag(key.mesh, ids.data, ids.len);
    fmt_buf_free(&ids);
  }
  if (p.clip) memcpy(key.clip, p.clip->id, sizeof key.clip);
  key.t = q.t;
  key.wrap = q.wrap;
  key.method = q.method;
  key.normals = q.normals;
  key.bin = q.binary;
  key.encoding = q.encoding;
  char etag[40];
  srv__etag(etag, &key, sizeof key);
  srv__etag_fields(etag, &q.fields);
  if (srv__respond_if_not_modified(req, etag)) goto fail;
  skin_task_t *k = srv__task_new(req, sizeof *k);
  if (k == NULL) {
    srv__fail(req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    goto fail;
  }
  k->p = p;
  k->t = q.t;
  memcpy(k->etag, etag, sizeof etag);
  fmt_buf_init(&k->out);
  k->task.work = skin_work;
  k->task.respond = skin_respond;
  k->task.free = skin_free;
  srv__task_run(&k->task, req, cost);
  return;

fail:
  params_release(&p);
}
