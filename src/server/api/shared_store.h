/* server: the API's side of a shared store backend (backend.h): a lookup
 * that misses the node's cache waits for the asset to load and the
 * handler of the request's route runs again on it; uploads and deletes are
 * decided by the backend before they are answered. Without a backend (store =
 * file) none of this runs. Loop thread only. */
#ifndef ANIMD_SERVER_API_SHARED_STORE_H
#define ANIMD_SERVER_API_SHARED_STORE_H

#include <stdbool.h>

#include "server/api/list_page.h"
#include "server/backend.h"
#include "server/http/http.h"
#include "server/request/target.h"
#include "store/store.h"

/* The backend of req's server, or NULL. */
const srv_backend_t *srv__backend(srv_request_t *req);

/* After a lookup's miss (request/target.h: the kind and name asked,
 * within a skeleton or not; err, its not_found): starts loading it and
 * returns true; once the asset is cached the handler of req's route runs
 * again on req (router.h srv_api_resume: not routed, admitted or charged
 * to a rate limit again; req->resumes counts the runs), else req is
 * answered (err when Redis has no such asset either, 503
 * store_unavailable, also after MAX_RESUMES loads).
 * The handler must answer nothing more and return. False when there is
 * no backend or req came to no route (the caller answers 404). */
bool srv__load_then_resume(srv_request_t *req, const srv_error_t *err,
                           const srv_lookup_miss_t *miss);

/* Stores an upload already in the node's cache (result, the canonical
 * texts of its entries) in the backend, then answers answer (201 when
 * something was new to the backend, else 200) or the backend's refusal,
 * dropping from the cache what this upload put there and the assets whose
 * names it moved there. Takes result, texts and answer (leaves them
 * empty). replace (?replace=1): the backend moves the names, and what it
 * moved fills the answer's "replaced" list, which answer holds empty.
 * clip_given (?clip=): a name conflict of the clip is at "clip". */
void srv__publish_then_answer(srv_request_t *req, store_ingest_result_t *result,
                              fmt_buf_t *texts, fmt_buf_t *answer, bool replace,
                              bool clip_given);

/* Deletes kind id in the backend, drops it from the cache, and answers as
 * a delete does. */
void srv__remove_then_answer(srv_request_t *req, store_kind kind,
                             const char *id);

/* DELETE /v1/skeletons/{id}?cascade=1: deletes the skeleton with its
 * clips and meshes in the backend at once, drops them from the cache and
 * answers as a cascade delete does. */
void srv__remove_cascade_then_answer(srv_request_t *req, const char *id);

/* GET /v1/assets (skeleton NULL) and GET /v1/skeletons/{id}/clips or
 * meshes (kind): with a backend, answers page (list_page.h) of what the
 * backend holds, not only what this node has cached, and returns true;
 * false without one (the caller lists its store). */
bool srv__list_shared(srv_request_t *req, const store_asset_t *skeleton,
                      store_kind kind, const srv_list_page_t *page);

#endif
