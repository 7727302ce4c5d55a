/* server/api: the handlers' answers: errors by code from the one table
 * (server/errors.h; a typed error, a core result, a formats or store
 * error), JSON from a fmt_buf_t, and the answer to a delete. */
#ifndef ANIMD_SERVER_API_ANSWER_H
#define ANIMD_SERVER_API_ANSWER_H

#include "animd/animd.h"
#include "formats/buf.h"
#include "formats/error.h"
#include "server/errors.h"
#include "server/http/http.h"
#include "store/store.h"

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

/* Answers a delete: {"deleted":{"kind","id"}}. */
void srv__respond_deleted(srv_request_t *req, store_kind kind, const char *id);

/* An fmt_error_t as an error answer (its kind's status, code, message,
 * at). */
void srv__respond_fmt_error(srv_request_t *req, const fmt_error_t *err);

#endif
