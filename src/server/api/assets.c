/* server: POST /v1/assets (upload, ?skeleton= ?name= ?clip= ?prefix=
 * ?replace=), GET
 * /v1/assets (list), GET|HEAD|DELETE /v1/{skeletons,clips,meshes}/{id}
 * (DELETE of a skeleton ?cascade=1) and GET /v1/skeletons/{id}/clips and
 * /meshes (what belongs to a skeleton).
 *
 * An upload is decoded and ingested on the pool: decoding can be large and
 * ingesting writes and fsyncs files, neither belongs on the loop thread.
 * So does a delete (unlink and fsync), and large answers (an asset in
 * full, the lists) are printed as tasks, on the pool when large.
 * The request body stays valid for the whole task because the connection
 * parses nothing else until the answer is queued. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "server/api/handlers.h"
#include "server/api/large_answer.h"
#include "server/api/mesh_bin.h"
#include "server/api/answer.h"
#include "server/api/etag.h"
#include "server/api/lookup.h"
#include "server/api/params.h"
#include "server/api/shared_store.h"
#include "server/http/task.h"
#include "store/cache.h"

/* ---- upload
 * ------------------------------------------------------------------- */

typedef struct upload_task_s {
  srv_task_t task;
  store_t *store;
  char content_type[128];
  store_asset_t *external; /* ?skeleton= */
  char *name, *clip;       /* ?name=, ?clip= (owned), or NULL. */
  char *prefix;            /* ?prefix= (owned), or NULL. */
  bool replace;            /* ?replace=1 */
  store_resolver_t resolver;
  store_ingest_result_t result;
  bool shared;      /* A shared backend stores it before the answer. */
  fmt_buf_t *texts; /* shared: the canonical text of each entry. */
  int rc;
  fmt_error_t err;
  fmt_buf_t out;
} upload_task_t;

/* A warning line (NUL-terminated, as the decoders' warnings) for each
 * skeleton name of this upload that other stored skeletons share: such a
 * name is ambiguous and only its id finds the skeleton. */
static void shared_name_warnings(store_t *st, const store_ingest_result_t *r,
                                 fmt_buf_t *out) {
  for (size_t i = 0; i < r->count; i++) {
    const store_asset_t *a = r->entries[i].asset;
    if (a->kind != STORE_SKELETON || a->name[0] == '\0') continue;
    bool seen = false;
    for (size_t k = 0; k < i && !seen; k++)
      seen = r->entries[k].asset->kind == STORE_SKELETON &&
             strcmp(r->entries[k].asset->name, a->name) == 0;
    size_t n = seen ? 0 : store_name_count(st, STORE_SKELETON, a->name, NULL);
    if (n < 2) continue;
    fmt_buf_printf(out,
                   "skeleton name '%.60s' is shared by %zu skeletons: name "
                   "them by id, or upload with ?name=",
                   a->name, n);
    fmt_buf_putc(out, '\0');
  }
}

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
  store_names_t names = {u->name, u->clip, u->prefix, u->replace};
  u->rc = store_ingest_named(u->store, &bundle, external, &names, &u->result,
                             &u->err);
  fmt_bundle_free(&bundle);
  if (u->rc == 0 && u->shared) {
    u->texts = calloc(u->result.count ? u->result.count : 1, sizeof *u->texts);
    for (size_t i = 0; u->texts && i < u->result.count; i++)
      store_asset_encode(u->result.entries[i].asset, &u->texts[i]);
    if (u->texts == NULL) u->out.failed = true;
  }
  if (u->rc == 0) {
    fmt_buf_t all = FMT_BUF_INIT;
    if (warnings != NULL) fmt_buf_append(&all, warnings, warnings_len);
    shared_name_warnings(u->store, &u->result, &all);
    fmt_asset_summary_t *items =
        calloc(u->result.count ? u->result.count : 1, sizeof *items);
    size_t nm = u->result.moved_count;
    fmt_moved_name_t *moved = calloc(nm ? nm : 1, sizeof *moved);
    if (items == NULL || moved == NULL || all.failed) {
      u->out.failed = true;
    } else {
      for (size_t i = 0; i < u->result.count; i++)
        store_asset_summary(u->result.entries[i].asset, &items[i]);
      for (size_t i = 0; i < nm; i++) {
        const store_moved_t *m = &u->result.moved[i];
        moved[i] = (fmt_moved_name_t){.kind = (fmt_asset_kind)m->old->kind,
                                      .name = m->old->name,
                                      .old_id = m->old->id,
                                      .new_id = m->new_asset->id};
      }
      /* A shared store says what moved once it has moved it. */
      fmt_answer_upload_replaced(&u->out, items, u->result.count,
                                 u->replace ? moved : NULL, u->shared ? 0 : nm,
                                 all.data, all.len);
      fmt_buf_putc(&u->out, '\n');
    }
    free(moved);
    free(items);
    fmt_buf_free(&all);
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
    srv__publish_then_answer(t->req, &u->result, u->texts, &u->out, u->replace,
                             u->clip != NULL);
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
  free(u->name);
  free(u->clip);
  free(u->prefix);
  fmt_buf_free(&u->out);
  free(u);
}

/* True when the Content-Type names a format whose clip has no name of its
 * own (BVH, md5anim), which ?clip= may then give. */
static bool names_no_clip(const char *ctype) {
  return strncasecmp(ctype, "application/x-bvh", 17) == 0 ||
         strncasecmp(ctype, "application/x-md5anim", 21) == 0;
}

static char *dup_param(const char *v) { return v != NULL ? strdup(v) : NULL; }

/* Checks ?prefix= and reads ?replace= (1, true, 0 or false). Returns 0, or
 * -1 after answering 400 bad_parameter. */
static int upload_flags(srv_request_t *req, const char *prefix, bool *replace) {
  const char *v = srv_request_param(req, "replace");
  *replace = v != NULL && (strcmp(v, "1") == 0 || strcmp(v, "true") == 0);
  if (v != NULL && !*replace && strcmp(v, "0") != 0 &&
      strcmp(v, "false") != 0) {
    srv__fail(req, SRV_ERR_BAD_PARAMETER, "replace",
              "'replace' must be 1, true, 0 or false");
    return -1;
  }
  fmt_error_t err = {0};
  if (prefix != NULL && store_check_prefix(prefix, "prefix", &err) != 0) {
    srv__respond_fmt_error(req, &err);
    return -1;
  }
  return 0;
}

void srv__handle_upload(srv_request_t *req) {
  if (srv__check_query(req, SRV_EP_UPLOAD) != 0) return;
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
  const char *name = srv_request_param(req, "name");
  const char *clip = srv_request_param(req, "clip");
  const char *prefix = srv_request_param(req, "prefix");
  bool replace;
  if (clip != NULL && !names_no_clip(ctype)) {
    srv__fail(req, SRV_ERR_BAD_PARAMETER, "clip",
              "?clip= names the clip of a BVH or md5anim upload; glTF and "
              "JSON files name their clips themselves: upload a new export "
              "with ?replace=1 to move the names to it, or with ?prefix= to "
              "keep both");
    return;
  }
  if (upload_flags(req, prefix, &replace) != 0) return;
  store_asset_t *external = NULL;
  if (srv__lookup(req, STORE_SKELETON, "skeleton",
                  srv_request_param(req, "skeleton"), NULL, &external) != 0)
    return;
  upload_task_t *u = calloc(1, sizeof *u);
  if (u == NULL || (u->name = dup_param(name), name && !u->name) ||
      (u->clip = dup_param(clip), clip && !u->clip) ||
      (u->prefix = dup_param(prefix), prefix && !u->prefix)) {
    if (u != NULL) {
      free(u->name);
      free(u->clip);
    }
    free(u);
    store_asset_release(external);
    srv__fail(req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    return;
  }
  u->store = st;
  u->replace = replace;
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

/* ---- describe / delete
 * ------------------------------------------------------------ */

static store_kind kind_of(char kind_c) {
  return kind_c == 's'   ? STORE_SKELETON
         : kind_c == 'c' ? STORE_CLIP
                         : STORE_MESH;
}

/* Appends ,"<key>":[ids] of the assets of kind in list. */
static void id_list(fmt_buf_t *b, const char *key, store_asset_t **list,
                    size_t count, store_kind kind) {
  fmt_buf_printf(b, ",\"%s\":[", key);
  bool first = true;
  for (size_t i = 0; i < count; i++) {
    if (list[i]->kind != kind) continue;
    if (!first) fmt_buf_putc(b, ',');
    first = false;
    fmt_buf_json_string(b, list[i]->id);
  }
  fmt_buf_putc(b, ']');
}

/* DELETE on a local store: the removal unlinks the asset's files and
 * syncs the directory, so it runs on the pool. */
typedef struct delete_task_s {
  srv_task_t task;
  store_t *store;
  store_kind kind;
  bool cascade;
  char id[FMT_ID_LEN + 1];
  int rc;
  fmt_error_t err;
  fmt_buf_t out;
} delete_task_t;

/* {"deleted":{"kind","id"}}; a cascade adds "clips" and "meshes" (the ids
 * removed with the skeleton). */
static void delete_work(srv_task_t *t) {
  delete_task_t *d = (delete_task_t *)t;
  store_asset_t **removed = NULL;
  size_t count = 0;
  d->rc = d->cascade
              ? store_delete_cascade(d->store, d->id, &removed, &count, &d->err)
              : store_delete(d->store, d->kind, d->id, &d->err);
  if (d->rc != 0) return;
  fmt_buf_t *b = &d->out;
  fmt_buf_printf(b, "{\"deleted\":{\"kind\":\"%s\",\"id\":\"%s\"",
                 store_kind_name(d->kind), d->id);
  if (d->cascade) {
    id_list(b, "clips", removed, count, STORE_CLIP);
    id_list(b, "meshes", removed, count, STORE_MESH);
  }
  fmt_buf_puts(b, "}}\n");
  store_list_free(removed, count);
}

static void delete_respond(srv_task_t *t) {
  delete_task_t *d = (delete_task_t *)t;
  if (d->rc != 0)
    srv__respond_fmt_error(t->req, &d->err);
  else
    srv__respond_buf(t->req, 200, &d->out, NULL, NULL);
}

static void delete_free(srv_task_t *t) {
  delete_task_t *d = (delete_task_t *)t;
  fmt_buf_free(&d->out);
  free(d);
}

static void delete_asset(srv_request_t *req, store_kind kind,
                         store_asset_t *a) {
  srv_query_t query = srv__query(req);
  srv_delete_query_t q;
  srv_error_t perr;
  if (srv_delete_query_parse(&query, kind == STORE_SKELETON, &q, &perr) != 0) {
    store_asset_release(a);
    srv__respond_err(req, &perr);
    return;
  }
  char aid[FMT_ID_LEN + 1];
  memcpy(aid, a->id, sizeof aid);
  store_asset_release(a);
  if (srv__backend(req) != NULL) {
    /* A shared store decides deletes in Redis. */
    if (q.cascade)
      srv__remove_cascade_then_answer(req, aid);
    else
      srv__remove_then_answer(req, kind, aid);
    return;
  }
  delete_task_t *d = calloc(1, sizeof *d);
  if (d == NULL) {
    srv__fail(req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    return;
  }
  d->store = srv__store(req);
  d->kind = kind;
  d->cascade = q.cascade;
  memcpy(d->id, aid, sizeof aid);
  fmt_buf_init(&d->out);
  d->task.work = delete_work;
  d->task.respond = delete_respond;
  d->task.free = delete_free;
  srv__task_run(&d->task, req, SRV_COST_POOL);
}

/* ---- describe: an asset in full, made on the pool when large ------------ */

typedef struct describe_task_s {
  srv_task_t task;
  store_asset_t *asset;
  char extra[FMT_ID_LEN + 16]; /* The ETag header. */
  fmt_buf_t out;
} describe_task_t;

static void describe_work(srv_task_t *t) {
  describe_task_t *d = (describe_task_t *)t;
  if (store_asset_describe(d->asset, &d->out) != 0) d->out.failed = true;
  fmt_buf_putc(&d->out, '\n');
}

static void describe_respond(srv_task_t *t) {
  describe_task_t *d = (describe_task_t *)t;
  srv__respond_large(t->req, 200, &d->out, NULL, d->extra);
}

static void describe_free(srv_task_t *t) {
  describe_task_t *d = (describe_task_t *)t;
  store_asset_release(d->asset);
  fmt_buf_free(&d->out);
  free(d);
}

/* Answers a's description (a retained, taken over). Printing it costs
 * about a unit per byte the asset holds (schedule.h). */
static void describe_asset(srv_request_t *req, store_asset_t *a,
                           const char *extra) {
  describe_task_t *d = calloc(1, sizeof *d);
  if (d == NULL) {
    store_asset_release(a);
    srv__fail(req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    return;
  }
  d->asset = a;
  snprintf(d->extra, sizeof d->extra, "%s", extra);
  fmt_buf_init(&d->out);
  d->task.work = describe_work;
  d->task.respond = describe_respond;
  d->task.free = describe_free;
  srv__task_run(&d->task, req, a->bytes + 1);
}

static void handle_asset(srv_request_t *req, char kind_c, const char *id) {
  store_kind kind = kind_of(kind_c);
  srv_endpoint ep =
      req->method != SRV_DELETE
          ? kind == STORE_MESH ? SRV_EP_MESH_GET : SRV_EP_ASSET_GET
      : kind == STORE_SKELETON ? SRV_EP_SKELETON_DELETE
                               : SRV_EP_ASSET_DELETE;
  store_asset_t *a;
  if (srv__check_query(req, ep) != 0 ||
      srv__lookup(req, kind, "id", id, NULL, &a) != 0)
    return;
  if (req->method == SRV_DELETE) {
    delete_asset(req, kind, a);
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
  describe_asset(req, a, extra);
}

/* ---- lists: every asset, or what belongs to a skeleton ---------------------
 * Listed and printed as a task: at 200,000 assets the answer is tens of
 * megabytes. */

typedef struct list_task_s {
  srv_task_t task;
  store_t *store;
  store_asset_t *skeleton; /* NULL: every asset. */
  store_kind kind;         /* With a skeleton: its clips or its meshes. */
  srv_list_page_t page;
  fmt_buf_t out;
} list_task_t;

static void list_work(srv_task_t *t) {
  list_task_t *l = (list_task_t *)t;
  store_asset_t **assets = NULL;
  size_t count = 0;
  int rc = l->skeleton != NULL
               ? store_children(l->store, l->skeleton, l->kind, &assets, &count)
               : store_list(l->store, &assets, &count);
  /* The page: after the cursor, at most its limit and one more (whether
   * another page follows). */
  size_t from = 0;
  while (from < count &&
         !srv_list_page_past(&l->page, assets[from]->kind, assets[from]->id))
    from++;
  size_t n =
      count - from < l->page.limit + 1 ? count - from : l->page.limit + 1;
  fmt_asset_summary_t *items =
      rc == 0 ? calloc(n ? n : 1, sizeof *items) : NULL;
  if (items != NULL) {
    for (size_t i = 0; i < n; i++)
      store_asset_summary(assets[from + i], &items[i]);
    srv_list_page_answer(&l->out, &l->page, items, n);
  } else {
    l->out.failed = true;
  }
  free(items);
  if (rc == 0) store_list_free(assets, count);
}

static void list_respond(srv_task_t *t) {
  list_task_t *l = (list_task_t *)t;
  srv__respond_large(t->req, 200, &l->out, NULL, NULL);
}

static void list_free(srv_task_t *t) {
  list_task_t *l = (list_task_t *)t;
  store_asset_release(l->skeleton);
  fmt_buf_free(&l->out);
  free(l);
}

/* Cost units per asset listed: a summary is about 200 bytes of JSON. */
#define LIST_COST_PER_ASSET 64

/* Answers the list of the assets (skeleton NULL) or of skeleton's clips or
 * meshes (skeleton retained, taken over). */
static void list_assets(srv_request_t *req, store_asset_t *skeleton,
                        store_kind kind, const srv_list_page_t *page) {
  list_task_t *l = calloc(1, sizeof *l);
  if (l == NULL) {
    store_asset_release(skeleton);
    srv__fail(req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    return;
  }
  l->store = srv__store(req);
  l->skeleton = skeleton;
  l->kind = kind;
  l->page = *page;
  fmt_buf_init(&l->out);
  l->task.work = list_work;
  l->task.respond = list_respond;
  l->task.free = list_free;
  /* A skeleton's clips or meshes are at most the store's. */
  store_stats_t st;
  store_stats(l->store, &st);
  size_t count = skeleton == NULL     ? st.skeletons + st.clips + st.meshes
                 : kind == STORE_CLIP ? st.clips
                                      : st.meshes;
  srv__task_run(&l->task, req, (count + 1) * LIST_COST_PER_ASSET);
}

void srv__handle_list(srv_request_t *req) {
  srv_list_page_t page;
  if (srv__check_query(req, SRV_EP_LIST) != 0 ||
      srv__list_page(req, &page) != 0 ||
      srv__list_shared(req, NULL, STORE_SKELETON, &page))
    return;
  list_assets(req, NULL, STORE_SKELETON, &page);
}

static void handle_children(srv_request_t *req, const char *id, char kind_c) {
  store_asset_t *sk;
  srv_list_page_t page;
  if (srv__check_query(req, SRV_EP_SKELETON_CHILDREN) != 0 ||
      srv__list_page(req, &page) != 0 ||
      srv__lookup(req, STORE_SKELETON, "id", id, NULL, &sk) != 0)
    return;
  if (srv__list_shared(req, sk, kind_of(kind_c), &page)) {
    store_asset_release(sk);
    return;
  }
  list_assets(req, sk, kind_of(kind_c), &page);
}

void srv__handle_skeleton(srv_request_t *req, const char *id) {
  handle_asset(req, 's', id);
}

void srv__handle_clip(srv_request_t *req, const char *id) {
  handle_asset(req, 'c', id);
}

void srv__handle_mesh(srv_request_t *req, const char *id) {
  handle_asset(req, 'm', id);
}

void srv__handle_skeleton_clips(srv_request_t *req, const char *id) {
  handle_children(req, id, 'c');
}

void srv__handle_skeleton_meshes(srv_request_t *req, const char *id) {
  handle_children(req, id, 'm');
}
