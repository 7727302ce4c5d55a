/* server/api: names to assets for a handler, through the API's one lookup
 * (request/target.h): the error answered when there is one, and a miss
 * in a fleet loaded from the shared store before the handler runs again
 * (shared_store.h). */
#ifndef ANIMD_SERVER_API_LOOKUP_H
#define ANIMD_SERVER_API_LOOKUP_H

#include "server/http/http.h"
#include "server/request/target.h"
#include "store/store.h"

/* Looks up the asset named name (an id, or a name; a clip or mesh name
 * within skeleton when given), retained into *out. NULL or "": *out =
 * NULL and 0. Unknown: answers 404 not_found at `at` and returns -1; a
 * name several assets share: 409 ambiguous listing their ids, -1. With a
 * shared store backend, a miss returns -1 too while the asset loads: the
 * handler runs again on the request once it is cached (shared_store.h). */
int srv__lookup(srv_request_t *req, store_kind kind, const char *at,
                const char *name, const store_asset_t *skeleton,
                store_asset_t **out);

/* What q names (request/target.h), retained into *out (release with
 * srv_target_release). 0, or -1 after answering the error (or while a
 * missing asset loads from the shared store, as srv__lookup). */
int srv__resolve(srv_request_t *req, const srv_target_query_t *q,
                 srv_target_t *out);

/* A lookup's error err (request/target.h, miss from the same lookup):
 * with a shared store, a miss loads the asset and runs req again
 * (srv__load_then_resume answers or resumes); otherwise err is the
 * answer. Returns -1. For a handler that resolves through request/ (a
 * blend body, a compare) rather than srv__lookup. */
int srv__lookup_failed(srv_request_t *req, const srv_error_t *err,
                       const srv_lookup_miss_t *miss);

#endif
