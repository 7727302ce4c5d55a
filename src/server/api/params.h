/* server: helpers the handlers share: the query of a request for the
 * parsers of requests.h, asset lookups that answer 404, error answers
 * from the error table, ETags and conditional requests, and JSON answers
 * from a fmt_buf_t. */
#ifndef ANIMD_SERVER_PARAMS_H
#define ANIMD_SERVER_PARAMS_H

#include <stdbool.h>
#include <stdint.h>

#include "animd/animd.h"
#include "formats/buf.h"
#include "server/request/requests.h"
#include "server/request/target.h"
#include "server/errors.h"
#include "server/http/http.h"
#include "server/http/range.h"
#include "store/store.h"

store_t *srv__store(srv_request_t *req);

/* The typed-request view of req's query (requests.h). */
srv_query_t srv__query(const srv_request_t *req);

/* Answers 400 unknown_parameter and returns -1 when req's query has a
 * parameter ep does not take (requests.h); 0 otherwise. */
int srv__check_query(srv_request_t *req, srv_endpoint ep);

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

/* Answers a delete: {"deleted":{"kind","id"}}. */
void srv__respond_deleted(srv_request_t *req, store_kind kind, const char *id);

/* A strong ETag for this answer from its parts (content ids, parameters):
 * "\"<32 hex>\"" into out (at least 40 bytes). */
void srv__etag(char *out, const void *parts, size_t len);
/* True when If-None-Match lists etag (or "*"). */
bool srv__etag_matches(const srv_request_t *req, const char *etag);
/* When If-None-Match lists etag: answers 304 with the ETag and returns
 * true; otherwise returns false and answers nothing. */
bool srv__respond_if_not_modified(srv_request_t *req, const char *etag);

/* Answers code with its status: at NULL or "" gives null, fmt NULL the
 * code's default message. */
void srv__fail(srv_request_t *req, srv_error_code code, const char *at,
               const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Answers a typed error. */
void srv__respond_err(srv_request_t *req, const srv_error_t *err);
/* Answers an evaluation that failed with r: 500 out_of_memory, or 500
 * internal "<what>: <result>". */
void srv__fail_result(srv_request_t *req, anim_result r, const char *what);

/* Answers with the buffer as application/json (500 out_of_memory if it
 * failed). */
void srv__respond_buf(srv_request_t *req, int status, fmt_buf_t *b,
                      const char *ctype, const char *extra);

/* The HTTP status of an error kind of the formats and store layers. */
int srv_error_kind_status(fmt_error_kind kind);
/* An fmt_error_t as an error answer (its kind's status, code, message,
 * at). */
void srv__respond_fmt_error(srv_request_t *req, const fmt_error_t *err);

/* Starts the streamed range r (its produce and dispose set) for q: frames
 * of frame_floats floats, batched about 64 KiB of answer at a time, each
 * costing frame_cost (task.h), binary or JSON lines, with the head's
 * extra headers. */
void srv__range_run(srv_range_t *r, srv_request_t *req,
                    const srv_range_query_t *q, size_t frame_floats, bool bin,
                    unsigned long frame_cost, const char *extra);

#endif
