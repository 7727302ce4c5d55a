/* server: GET /v1/skin: skinned vertices of a stored mesh at a clip time
 * (or a streamed range of them), LBS or DQS, with optional normals.
 *
 * The mesh's skeleton is the pose's skeleton; the clip is looked up by id
 * or by name within it. Skinning always runs on the pool unless the mesh
 * is tiny (cost = vertices x influences). */
#include <stdlib.h>
#include <string.h>

#include "server/evaluate.h"
#include "server/handlers.h"
#include "server/internal.h"
#include "server/range.h"
#include "server/requtil.h"
#include "server/task.h"

typedef struct skin_params_s {
  store_asset_t *mesh, *skel, *clip;
  anim_wrap wrap;
  anim_skin_method method;
  anim_skin_normals normals;
  bool bin;
} skin_params_t;

static void params_release(skin_params_t *p) {
  store_asset_release(p->mesh);
  store_asset_release(p->skel);
  store_asset_release(p->clip);
}

/* Evaluates one frame into pos (and nrm): 0 or an anim_result. */
static anim_result skin_eval(const skin_params_t *p, float t, float *pos,
                             float *nrm, float *sampled) {
  const anim_skeleton_t *sk = p->skel->skeleton;
  const anim_clip_t *clip = p->clip ? p->clip->clip : NULL;
  const anim_mesh_t *mesh = p->mesh->mesh;
  srv_scratch_t *s =
      srv_scratch_thread(sk->joint_count, clip ? clip->track_count : 0);
  if (s == NULL) return ANIM_ERR_OUT_OF_MEMORY;
  anim_result r = srv_sample(sk, clip, t, p->wrap, s, sampled);
  if (r == ANIM_OK) r = srv_skin_matrices(sk, s);
  if (r != ANIM_OK) return r;
  float *dq = NULL;
  if (p->method == ANIM_SKIN_DQS) {
    dq = malloc((size_t)sk->joint_count * 8 * sizeof(float));
    if (dq == NULL) return ANIM_ERR_OUT_OF_MEMORY;
  }
  anim_skinning_job_t job = {
      .mesh = mesh,
      .matrices = s->skin,
      .matrix_count = sk->joint_count,
      .method = p->method,
      .normals = p->normals,
      .out_positions = pos,
      .out_positions_count = (size_t)mesh->vertex_count * 3,
      .out_normals = nrm,
      .out_normals_count = nrm ? (size_t)mesh->vertex_count * 3 : 0,
      .scratch = dq,
      .scratch_count = dq ? (size_t)sk->joint_count * 8 : 0,
  };
  r = anim_skinning_job_run(&job);
  free(dq);
  return r;
}

static size_t skin_floats(const skin_params_t *p) {
  size_t v = p->mesh->mesh->vertex_count;
  return v * 3 * (p->normals != ANIM_NORMALS_NONE ? 2 : 1);
}

static int skin_encode(const skin_params_t *p, float *buf, float sampled,
                       int64_t frame, fmt_buf_t *out) {
  size_t v = p->mesh->mesh->vertex_count;
  if (p->bin) {
    if (frame >= 0)
      fmt_answer_frame_header(out, (uint32_t)frame,
                              (uint32_t)skin_floats(p), sampled);
    return fmt_answer_floats_bin(out, buf, skin_floats(p));
  }
  fmt_skin_answer_t a = {
      .mesh = p->mesh->id,
      .clip = p->clip ? p->clip->id : NULL,
      .t = sampled,
      .frame = frame,
      .vertex_count = (uint32_t)v,
      .positions = buf,
      .normals = p->normals != ANIM_NORMALS_NONE ? buf + 3 * v : NULL,
  };
  if (fmt_answer_skin_json(out, &a) != 0) return -1;
  fmt_buf_putc(out, '\n');
  return out->failed ? -1 : 0;
}

static void skin_headers(const skin_params_t *p, char *out, size_t cap,
                         const char *etag) {
  out[0] = '\0';
  int n = 0;
  if (p->bin)
    n = snprintf(out, cap,
                 "X-Animd-Vertices: %u\r\nX-Animd-Layout: %s\r\n",
                 p->mesh->mesh->vertex_count,
                 p->normals != ANIM_NORMALS_NONE ? "positions+normals"
                                                 : "positions");
  if (etag && n >= 0 && (size_t)n < cap)
    snprintf(out + n, cap - (size_t)n, "ETag: %s\r\n", etag);
}

/* ---- one frame ------------------------------------------------------------------ */

typedef struct skin_task_s {
  srv_task_t task;
  skin_params_t p;
  float t;
  char etag[40];
  anim_result result;
  fmt_buf_t out;
} skin_task_t;

static void skin_work(srv_task_t *t) {
  skin_task_t *k = (skin_task_t *)t;
  float *buf = malloc(skin_floats(&k->p) * sizeof(float) + 4);
  if (buf == NULL) {
    k->result = ANIM_ERR_OUT_OF_MEMORY;
    return;
  }
  float sampled = 0;
  size_t v = k->p.mesh->mesh->vertex_count;
  k->result = skin_eval(&k->p, k->t, buf,
                        k->p.normals != ANIM_NORMALS_NONE ? buf + 3 * v : NULL,
                        &sampled);
  if (k->result == ANIM_OK && skin_encode(&k->p, buf, sampled, -1, &k->out))
    k->result = ANIM_ERR_OUT_OF_MEMORY;
  free(buf);
}

static void skin_respond(srv_task_t *t) {
  skin_task_t *k = (skin_task_t *)t;
  if (k->result != ANIM_OK) {
    srv_respond_error(t->req, 500, "internal", NULL, "skinning failed: %s",
                      anim_result_str(k->result));
    return;
  }
  char extra[256];
  skin_headers(&k->p, extra, sizeof extra, k->etag);
  srv_respond(t->req, 200,
              k->p.bin ? "application/octet-stream" : "application/json",
              extra, k->out.data, k->out.len);
}

static void skin_free(srv_task_t *t) {
  skin_task_t *k = (skin_task_t *)t;
  params_release(&k->p);
  fmt_buf_free(&k->out);
  free(k);
}

/* ---- ranges -------------------------------------------------------------------------- */

typedef struct skin_range_s {
  srv_range_t range;
  skin_params_t p;
} skin_range_t;

static int skin_produce(srv_range_t *r, uint32_t first, uint32_t n,
                        fmt_buf_t *out) {
  skin_range_t *k = (skin_range_t *)r;
  float *buf = malloc(skin_floats(&k->p) * sizeof(float) + 4);
  if (buf == NULL) return -1;
  size_t v = k->p.mesh->mesh->vertex_count;
  int rc = 0;
  for (uint32_t i = first; i < first + n && rc == 0; i++) {
    float sampled = 0;
    if (skin_eval(&k->p, (float)srv_range_time(r, i), buf,
                  k->p.normals != ANIM_NORMALS_NONE ? buf + 3 * v : NULL,
                  &sampled) != ANIM_OK)
      rc = -1;
    else
      rc = skin_encode(&k->p, buf, sampled, i, out);
  }
  free(buf);
  return rc;
}

static void skin_range_dispose(srv_range_t *r) {
  params_release(&((skin_range_t *)r)->p);
}

/* ---- GET /v1/skin --------------------------------------------------------------------- */

void srv__handle_skin(srv_request_t *req) {
  static const char *const wraps[] = {"clamp", "loop", "pingpong", NULL};
  static const char *const methods[] = {"lbs", "dqs", NULL};
  static const char *const normals[] = {"0", "1", "invt", NULL};
  skin_params_t p = {0};
  int wrap, method, nrm;
  srv_range_params_t range;
  double t = 0;
  if (srv__param_enum(req, "wrap", wraps, 0, &wrap) != 0 ||
      srv__param_enum(req, "method", methods, 0, &method) != 0 ||
      srv__param_enum(req, "normals", normals, 0, &nrm) != 0 ||
      srv__param_format(req, &p.bin) != 0 ||
      srv__param_range(req, &range) != 0)
    return;
  p.wrap = (anim_wrap)wrap;
  p.method = method == 1 ? ANIM_SKIN_DQS : ANIM_SKIN_LBS;
  p.normals = nrm == 0   ? ANIM_NORMALS_NONE
              : nrm == 1 ? ANIM_NORMALS_LINEAR
                         : ANIM_NORMALS_INVERSE_TRANSPOSE;
  if (srv__param_asset(req, "mesh", STORE_MESH, NULL, true, &p.mesh) != 0)
    return;
  p.skel = p.mesh->skeleton_asset;
  store_asset_retain(p.skel);
  if (srv__param_asset(req, "clip", STORE_CLIP, p.skel, false, &p.clip) != 0)
    goto fail;
  if (p.clip != NULL && p.clip->skeleton_asset != p.skel) {
    srv_respond_error(req, 400, "skeleton_mismatch", "clip",
                      "the clip was built for another skeleton than the "
                      "mesh");
    goto fail;
  }
  if (!range.is_range &&
      srv__param_float(req, "t", p.clip != NULL, 0, &t) != 0)
    goto fail;
  if (p.normals != ANIM_NORMALS_NONE && p.mesh->mesh->normals == NULL) {
    srv_respond_error(req, 400, "no_normals", "normals",
                      "the mesh has no normals");
    goto fail;
  }
  const anim_mesh_t *mesh = p.mesh->mesh;
  unsigned long cost = srv__answer_cost(
      (unsigned long)mesh->vertex_count * mesh->influences +
          p.skel->skeleton->joint_count,
      p.bin);

  if (range.is_range) {
    skin_range_t *k = calloc(1, sizeof *k);
    if (k == NULL) {
      srv_respond_error(req, 500, "out_of_memory", NULL, "out of memory");
      goto fail;
    }
    k->p = p;
    k->range.from = range.from;
    k->range.fps = range.fps;
    k->range.frame_count = range.frames;
    size_t frame_bytes = skin_floats(&p) * (p.bin ? 4 : 12) + 64;
    k->range.batch = (uint32_t)(65536 / frame_bytes) + 1;
    k->range.frame_cost = cost;
    k->range.produce = skin_produce;
    k->range.dispose = skin_range_dispose;
    char extra[256];
    skin_headers(&p, extra, sizeof extra, NULL);
    srv__range_start(&k->range, req,
                     p.bin ? "application/octet-stream"
                           : "application/x-ndjson",
                     extra);
    return;
  }

  struct {
    char mesh[FMT_ID_LEN + 1], clip[FMT_ID_LEN + 1];
    float t;
    int wrap, method, normals, bin;
  } key;
  memset(&key, 0, sizeof key);
  memcpy(key.mesh, p.mesh->id, sizeof key.mesh);
  if (p.clip) memcpy(key.clip, p.clip->id, sizeof key.clip);
  key.t = (float)t;
  key.wrap = wrap;
  key.method = method;
  key.normals = nrm;
  key.bin = p.bin;
  char etag[40];
  srv__etag(etag, &key, sizeof key);
  if (srv__respond_if_not_modified(req, etag)) goto fail;
  skin_task_t *k = calloc(1, sizeof *k);
  if (k == NULL) {
    srv_respond_error(req, 500, "out_of_memory", NULL, "out of memory");
    goto fail;
  }
  k->p = p;
  k->t = (float)t;
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
