/* server: POST /v1/assets (upload), GET /v1/assets (list) and
 * GET|HEAD|DELETE /v1/{skeletons,clips,meshes}/{id}.
 *
 * An upload is decoded and ingested on the pool: decoding can be large and
 * ingesting writes and fsyncs files, neither belongs on the loop thread.
 * The request body stays valid for the whole task because the connection
 * parses nothing else until the answer is queued. */
#include <stdlib.h>
#include <string.h>

#include "server/api/handlers.h"
#include "server/api/mesh_bin.h"
#include "server/api/params.h"
#include "server/api/shared_store.h"
#include "server/http/task.h"
#include "store/cache.h"

/* ---- upload ------------------------------------------------------------------- */

typedef struct upload_task_s {
  srv_task_t task;
  store_t *store;
  char content_type[128];
  store_asset_t *external; /* ?skeleton= */
  store_resolver_t resolver;
  store_ingest_result_t result;
  bool shared;      /* A shared backend stores it before the answer. */
  fmt_buf_t *texts; /* shared: the canonical text of each entry. */
  int rc;
  fmt_error_t err;
  fmt_buf_t out;
} upload_task_t;

static void upload_work(srv_task_t *t) {
  upload_task_t *u = (upload_task_t *)t;
  fmt_decode_options_t opts = {0};
  opts.skeleton = u->external ? u->external->skeleton : NULL;
  opts.resolve = store_resolve;
  opts.resolve_user_data = &u->resolver;
  opts.max_bytes = store_decode_room(u->store);
  fmt_bundle_t bundle = {0};
  u->rc = fmt_decode(u->content_type, t->req->body, t->req->body_len, &opts,
                     &bundle, &u->err);
  if (u->rc != 0) return;
  char *warnings = NULL;
  size_t warnings_len = bundle.warnings_len;
  if (bundle.warnings && warnings_len > 0) {
    warnings = malloc(warnings_len);
    if (warnings) memcpy(warnings, bundle.warnings, warnings_len);
  }
  store_asset_t *external =
      u->external ? u->external : store_resolver_external(&u->resolver);
  u->rc = store_ingest(u->store, &bundle, external, &u->result, &u->err);
  fmt_bundle_free(&bundle);
  if (u->rc == 0 && u->shared) {
    u->texts = calloc(u->result.count ? u->result.count : 1,
                      sizeof *u->texts);
    for (size_t i = 0; u->texts && i < u->result.count; i++)
      store_asset_encode(u->result.entries[i].asset, &u->texts[i]);
    if (u->texts == NULL) u->out.failed = true;
  }
  if (u->rc == 0) {
    fmt_asset_summary_t *items =
        calloc(u->result.count ? u->result.count : 1, sizeof *items);
    if (items == NULL) {
      u->out.failed = true;
    } else {
      for (size_t i = 0; i < u->result.count; i++)
        store_asset_summary(u->result.entries[i].asset, &items[i]);
      fmt_answer_upload(&u->out, items, u->result.count, warnings,
                        warnings ? warnings_len : 0);
      fmt_buf_putc(&u->out, '\n');
      free(items);
    }
  }
  free(warnings);
}

static void upload_respond(srv_task_t *t) {
  upload_task_t *u = (upload_task_t *)t;
  if (u->rc != 0) {
    srv__respond_fmt_error(t->req, &u->err);
    return;
  }
  if (u->shared && !u->out.failed) {
    srv__publish_then_answer(t->req, &u->result, u->texts, &u->out);
    u->texts = NULL;
    return;
  }
  srv__respond_buf(t->req, u->result.any_created ? 201 : 200, &u->out, NULL,
                   NULL);
}

static void upload_free(srv_task_t *t) {
  upload_task_t *u = (upload_task_t *)t;
  for (size_t i = 0; u->texts && i < u->result.count; i++)
    fmt_buf_free(&u->texts[i]);
  free(u->texts);
  if (u->rc == 0) store_ingest_result_free(&u->result);
  store_resolver_release(&u->resolver);
  store_asset_release(u->external);
  fmt_buf_free(&u->out);
  free(u);
}

void srv__handle_upload(srv_request_t *req) {
  store_t *st = srv__store(req);
  const char *ctype = srv_request_header(req, "Content-Type");
  if (ctype == NULL || *ctype == '\0') {
    srv__fail(req, SRV_ERR_UNSUPPORTED_MEDIA_TYPE, "Content-Type",
                      "send the asset with a Content-Type: application/json, "
                      "model/gltf-binary, model/gltf+json, application/x-bvh, "
                      "application/x-md5mesh or application/x-md5anim");
    return;
  }
  if (req->body_len == 0) {
    srv__fail(req, SRV_ERR_EMPTY_BODY, "body", "the body is empty");
    return;
  }
  store_asset_t *external = NULL;
  if (srv__lookup(req, STORE_SKELETON, "skeleton",
                  srv_request_param(req, "skeleton"), NULL, &external) != 0)
    return;
  upload_task_t *u = calloc(1, sizeof *u);
  if (u == NULL) {
    store_asset_release(external);
    srv__fail(req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    return;
  }
  u->store = st;
  u->shared = srv__backend(req) != NULL;
  u->external = external;
  snprintf(u->content_type, sizeof u->content_type, "%s", ctype);
  store_resolver_init(&u->resolver, st);
  fmt_buf_init(&u->out);
  u->task.work = upload_work;
  u->task.respond = upload_respond;
  u->task.free = upload_free;
  /* Decoding is never cheap enough to run on the loop. */
  srv__task_run(&u->task, req, SRV_COST_POOL);
}

/* ---- list ------------------------------------------------------------------------ */

void srv__handle_list(srv_request_t *req) {
  store_asset_t **assets = NULL;
  size_t count = 0;
  if (store_list(srv__store(req), &assets, &count) != 0) {
    srv__fail(req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    return;
  }
  fmt_asset_summary_t *items = calloc(count ? count : 1, sizeof *items);
  fmt_buf_t b = FMT_BUF_INIT;
  if (items != NULL) {
    for (size_t i = 0; i < count; i++) store_asset_summary(assets[i], &items[i]);
    fmt_answer_assets(&b, items, count);
    fmt_buf_putc(&b, '\n');
  } else {
    b.failed = true;
  }
  srv__respond_buf(req, 200, &b, NULL, NULL);
  fmt_buf_free(&b);
  free(items);
  store_list_free(assets, count);
}

/* ---- describe / delete ------------------------------------------------------------ */

void srv__handle_asset(srv_request_t *req, char kind_c, const char *id) {
  store_kind kind = kind_c == 's'   ? STORE_SKELETON
                    : kind_c == 'c' ? STORE_CLIP
                                    : STORE_MESH;
  store_t *st = srv__store(req);
  store_asset_t *a = NULL;
  if (srv__lookup(req, kind, "id", id, NULL, &a) != 0) return;
  if (req->method == SRV_DELETE) {
    fmt_error_t err = {0};
    char aid[FMT_ID_LEN + 1];
    memcpy(aid, a->id, sizeof aid);
    store_asset_release(a);
    if (srv__backend(req) != NULL) {
      srv__remove_then_answer(req, kind, aid);
      return;
    }
    if (store_delete(st, kind, aid, &err) != 0) {
      srv__respond_fmt_error(req, &err);
      return;
    }
    srv__respond_deleted(req, kind, aid);
    return;
  }
  if (kind == STORE_MESH && srv__respond_mesh_bin(req, a)) {
    store_asset_release(a);
    return;
  }
  char etag[FMT_ID_LEN + 4], extra[FMT_ID_LEN + 16];
  snprintf(etag, sizeof etag, "\"%s\"", a->id);
  snprintf(extra, sizeof extra, "ETag: %s\r\n", etag);
  if (srv__etag_matches(req, etag)) {
    store_asset_release(a);
    srv_respond(req, 304, NULL, extra, NULL, 0);
    return;
  }
  fmt_buf_t b = FMT_BUF_INIT;
  if (store_asset_describe(a, &b) != 0) b.failed = true;
  fmt_buf_putc(&b, '\n');
  store_asset_release(a);
  srv__respond_buf(req, 200, &b, NULL, extra);
  fmt_buf_free(&b);
}
