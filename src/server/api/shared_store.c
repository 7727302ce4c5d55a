/* server: the API's side of a shared store backend (shared_store.h). */
#include "server/api/shared_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/api/answer.h"
#include "server/api/params.h"
#include "server/api/router.h"
#include "server/services.h"
#include "store/cache.h"

/* A request's handler runs again at most this many times (each one after
 * a load): more means the cache keeps dropping what was just loaded. */
#define MAX_RESUMES 6

const srv_backend_t *srv__backend(srv_request_t *req) {
  return srv_server_backend(srv_request_server(req));
}

/* 503 store_unavailable with Retry-After. */
static void fail_retry(srv_request_t *req, const char *message) {
  srv_respond_error_h(
      req, srv_error_status(SRV_ERR_STORE_UNAVAILABLE), "Retry-After: 1\r\n",
      srv_error_name(SRV_ERR_STORE_UNAVAILABLE), NULL, "%s", message);
}

static void answer_reply(srv_request_t *req, const srv_backend_reply_t *r,
                         const char *at) {
  switch (r->status) {
  case SRV_BACKEND_UNAVAILABLE: fail_retry(req, r->message); return;
  case SRV_BACKEND_NAME_CONFLICT:
    srv__fail(req, SRV_ERR_NAME_CONFLICT, at ? at : r->at, "%s", r->message);
    return;
  case SRV_BACKEND_CONFLICT:
    srv__fail(req, SRV_ERR_CONFLICT, at, "%s", r->message);
    return;
  case SRV_BACKEND_GONE:
    srv__fail(req, SRV_ERR_SKELETON_DELETED, NULL, "%s", r->message);
    return;
  case SRV_BACKEND_NO_ROOM:
    srv__fail(req, SRV_ERR_INSUFFICIENT_STORAGE, NULL, "%s", r->message);
    return;
  default: srv__fail(req, SRV_ERR_INTERNAL, NULL, "%s", r->message); return;
  }
}

/* ---- loads ------------------------------------------------------------------
 */

typedef struct wait_s {
  srv_request_t *req;
  srv_error_t err; /* The lookup's not_found, answered if Redis has none. */
  srv_lookup_miss_t miss;
} wait_t;

static void on_loaded(void *arg, const srv_backend_reply_t *r) {
  wait_t *w = arg;
  srv_request_t *req = w->req;
  if (srv_request_gone(req)) {
    /* Nothing to answer. */
  } else if (r->status == SRV_BACKEND_OK) {
    /* The same route's handler, on the same request: it was routed and
     * admitted (and a write charged to its rate limit) once already. */
    req->resumes++;
    srv_api_resume(req);
  } else if (r->status == SRV_BACKEND_NOT_FOUND) {
    srv__respond_err(req, &w->err);
  } else if (r->status == SRV_BACKEND_AMBIGUOUS) {
    /* As the node's own lookup answers a name its store holds twice. */
    srv__fail(req, SRV_ERR_AMBIGUOUS, w->err.at[0] ? w->err.at : NULL, "%s",
              r->message);
  } else {
    answer_reply(req, r, NULL);
  }
  srv_request_release(req);
  free(w);
}

bool srv__load_then_resume(srv_request_t *req, const srv_error_t *err,
                           const srv_lookup_miss_t *miss) {
  const srv_backend_t *b = srv__backend(req);
  if (b == NULL || req->matched == NULL) return false;
  if (req->resumes >= MAX_RESUMES) {
    fail_retry(req, "the node's cache cannot keep the assets of this "
                    "request; retry later");
    return true;
  }
  wait_t *w = malloc(sizeof *w);
  if (w == NULL) {
    srv__fail(req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    return true;
  }
  *w = (wait_t){.req = req, .err = *err, .miss = *miss};
  srv_request_hold(req);
  b->ops->load(b->self, miss->kind, w->miss.name,
               miss->skeleton[0] ? w->miss.skeleton : NULL, on_loaded, w);
  return true;
}

/* ---- uploads
 * ----------------------------------------------------------------- */

typedef struct publish_s {
  srv_request_t *req;
  store_ingest_result_t result;
  fmt_buf_t *texts;
  fmt_buf_t answer;
  bool replace, clip_given;
} publish_t;

static void publish_free(publish_t *p) {
  for (size_t i = 0; i < p->result.count; i++) fmt_buf_free(&p->texts[i]);
  free(p->texts);
  store_ingest_result_free(&p->result);
  fmt_buf_free(&p->answer);
  free(p);
}

/* The "replaced" list the backend moved, put into the answer printed
 * with it empty (its members go right after `],"replaced":[`: a quote
 * inside a JSON string is escaped, so the marker is found only where the
 * printer put it). */
static int splice_moved(fmt_buf_t *answer, const srv_backend_reply_t *r) {
  static const char marker[] = "],\"replaced\":[";
  const char *text = fmt_buf_cstr(answer);
  const char *at = text ? strstr(text, marker) : NULL;
  if (at == NULL) return -1;
  size_t cut = (size_t)(at - text) + strlen(marker);
  fmt_buf_t b = FMT_BUF_INIT;
  fmt_buf_append(&b, answer->data, cut);
  fmt_answer_moved(&b, r->moved, r->moved_count);
  fmt_buf_append(&b, answer->data + cut, answer->len - cut);
  if (b.failed) {
    fmt_buf_free(&b);
    return -1;
  }
  fmt_buf_free(answer);
  *answer = b;
  return 0;
}

static void on_published(void *arg, const srv_backend_reply_t *r) {
  publish_t *p = arg;
  srv_request_t *req = p->req;
  if (r->status != SRV_BACKEND_OK) {
    /* What this upload put in the cache was never stored: forget it,
     * clips and meshes before skeletons, and the assets whose names it
     * moved there (they load again as the backend has them). */
    store_t *st = srv__store(req);
    for (size_t i = p->result.count; i-- > 0;) {
      store_entry_t *e = &p->result.entries[i];
      if (e->created) store_drop(st, e->asset->kind, e->asset->id);
    }
    for (size_t i = 0; i < p->result.moved_count; i++)
      store_drop(st, p->result.moved[i].old->kind, p->result.moved[i].old->id);
  }
  if (!srv_request_gone(req)) {
    const char *at = NULL;
    if (r->status == SRV_BACKEND_NAME_CONFLICT && p->clip_given &&
        strncmp(r->at, "clips[", 6) == 0)
      at = "clip";
    if (r->status == SRV_BACKEND_OK && p->replace &&
        splice_moved(&p->answer, r) != 0)
      srv__fail(req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    else if (r->status == SRV_BACKEND_OK)
      srv__respond_buf(req, r->created ? 201 : 200, &p->answer, NULL, NULL);
    else
      answer_reply(req, r, at);
  }
  srv_request_release(req);
  publish_free(p);
}

void srv__publish_then_answer(srv_request_t *req, store_ingest_result_t *result,
                              fmt_buf_t *texts, fmt_buf_t *answer, bool replace,
                              bool clip_given) {
  const srv_backend_t *b = srv__backend(req);
  publish_t *p = calloc(1, sizeof *p);
  srv_backend_entry_t *entries =
      calloc(result->count ? result->count : 1, sizeof *entries);
  if (p == NULL || entries == NULL) {
    free(p);
    free(entries);
    srv__fail(req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    return;
  }
  p->req = req;
  p->replace = replace;
  p->clip_given = clip_given;
  p->result = *result;
  p->texts = texts;
  p->answer = *answer;
  memset(result, 0, sizeof *result);
  fmt_buf_init(answer);
  for (size_t i = 0; i < p->result.count; i++)
    entries[i] = (srv_backend_entry_t){.asset = p->result.entries[i].asset,
                                       .text = p->texts[i].data,
                                       .len = p->texts[i].len};
  srv_request_hold(req);
  b->ops->publish(b->self, entries, p->result.count, replace, on_published, p);
  free(entries);
}

/* ---- deletes
 * ------------------------------------------------------------------- */

typedef struct remove_s {
  srv_request_t *req;
  store_kind kind;
  char id[FMT_ID_LEN + 1];
} remove_t;

static void on_removed(void *arg, const srv_backend_reply_t *r) {
  remove_t *d = arg;
  srv_request_t *req = d->req;
  if (r->status == SRV_BACKEND_OK || r->status == SRV_BACKEND_NOT_FOUND)
    store_drop(srv__store(req), d->kind, d->id);
  if (srv_request_gone(req)) {
    /* Nothing to answer. */
  } else if (r->status == SRV_BACKEND_OK) {
    srv__respond_deleted(req, d->kind, d->id);
  } else if (r->status == SRV_BACKEND_NOT_FOUND) {
    srv__fail(req, SRV_ERR_NOT_FOUND, "id", "no %s with id %s",
              store_kind_name(d->kind), d->id);
  } else {
    answer_reply(req, r, "id");
  }
  srv_request_release(req);
  free(d);
}

/* A delete waiting for the backend (req held), or NULL after answering
 * 500 out_of_memory. */
static remove_t *remove_new(srv_request_t *req, store_kind kind,
                            const char *id) {
  remove_t *d = calloc(1, sizeof *d);
  if (d == NULL) {
    srv__fail(req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    return NULL;
  }
  d->req = req;
  d->kind = kind;
  snprintf(d->id, sizeof d->id, "%s", id);
  srv_request_hold(req);
  return d;
}

void srv__remove_then_answer(srv_request_t *req, store_kind kind,
                             const char *id) {
  const srv_backend_t *b = srv__backend(req);
  remove_t *d = remove_new(req, kind, id);
  if (d != NULL) b->ops->remove(b->self, kind, id, on_removed, d);
}

/* ---- cascade deletes
 * ----------------------------------------------------------- */

/* Appends ,"<key>":[ids] of the items of kind. */
static void summary_ids(fmt_buf_t *b, const char *key,
                        const fmt_asset_summary_t *items, size_t count,
                        fmt_asset_kind kind) {
  fmt_buf_printf(b, ",\"%s\":[", key);
  bool first = true;
  for (size_t i = 0; i < count; i++) {
    if (items[i].kind != kind) continue;
    if (!first) fmt_buf_putc(b, ',');
    first = false;
    fmt_buf_json_string(b, items[i].id);
  }
  fmt_buf_putc(b, ']');
}

static void on_cascaded(void *arg, const srv_backend_reply_t *r) {
  remove_t *d = arg;
  srv_request_t *req = d->req;
  if (r->status == SRV_BACKEND_OK || r->status == SRV_BACKEND_NOT_FOUND)
    store_drop(srv__store(req), STORE_SKELETON, d->id);
  if (srv_request_gone(req)) {
    /* Nothing to answer. */
  } else if (r->status == SRV_BACKEND_OK) {
    fmt_buf_t b = FMT_BUF_INIT;
    fmt_buf_printf(&b, "{\"deleted\":{\"kind\":\"skeleton\",\"id\":\"%s\"",
                   d->id);
    summary_ids(&b, "clips", r->items, r->count, FMT_ASSET_CLIP);
    summary_ids(&b, "meshes", r->items, r->count, FMT_ASSET_MESH);
    fmt_buf_puts(&b, "}}\n");
    srv__respond_buf(req, 200, &b, NULL, NULL);
    fmt_buf_free(&b);
  } else if (r->status == SRV_BACKEND_NOT_FOUND) {
    srv__fail(req, SRV_ERR_NOT_FOUND, "id", "no skeleton with id %s", d->id);
  } else {
    answer_reply(req, r, "id");
  }
  srv_request_release(req);
  free(d);
}

void srv__remove_cascade_then_answer(srv_request_t *req, const char *id) {
  const srv_backend_t *b = srv__backend(req);
  remove_t *d = remove_new(req, STORE_SKELETON, id);
  if (d != NULL) b->ops->remove_cascade(b->self, id, on_cascaded, d);
}

/* ---- listings
 * ------------------------------------------------------------------ */

typedef struct listing_s {
  srv_request_t *req;
  srv_list_page_t page;
} listing_t;

static void on_listed(void *arg, const srv_backend_reply_t *r) {
  listing_t *l = arg;
  srv_request_t *req = l->req;
  if (srv_request_gone(req)) {
    /* Nothing to answer. */
  } else if (r->status == SRV_BACKEND_OK) {
    fmt_buf_t b = FMT_BUF_INIT;
    srv_list_page_answer(&b, &l->page, r->items, r->count);
    srv__respond_buf(req, 200, &b, NULL, NULL);
    fmt_buf_free(&b);
  } else {
    answer_reply(req, r, NULL);
  }
  srv_request_release(req);
  free(l);
}

bool srv__list_shared(srv_request_t *req, const store_asset_t *skeleton,
                      store_kind kind, const srv_list_page_t *page) {
  const srv_backend_t *b = srv__backend(req);
  if (b == NULL) return false;
  listing_t *l = malloc(sizeof *l);
  if (l == NULL) {
    srv__fail(req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    return true;
  }
  *l = (listing_t){.req = req, .page = *page};
  srv_request_hold(req);
  /* One more than the page: whether another page follows. */
  const char *after = page->after ? page->after_id : "";
  if (skeleton == NULL) {
    kind = page->after ? page->after_kind : STORE_SKELETON;
  } else if (page->after && page->after_kind != kind) {
    /* A cursor of another kind: the clips or meshes all come after it, or
     * none does. */
    if (page->after_kind > kind) {
      srv_backend_reply_t none = {.status = SRV_BACKEND_OK};
      on_listed(l, &none);
      return true;
    }
    after = "";
  }
  b->ops->list(b->self, kind, skeleton ? skeleton->id : NULL, after,
               page->limit + 1, on_listed, l);
  return true;
}
