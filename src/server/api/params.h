/* server: helpers the handlers share: query parameter parsing that
 * answers 400 with "at" naming the parameter, asset lookups that answer
 * 404, JSON request bodies that answer 400 bad_json, ETags and conditional
 * requests, and JSON answers from a fmt_buf_t. */
#ifndef ANIMD_SERVER_REQUTIL_H
#define ANIMD_SERVER_REQUTIL_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "animd/animd.h"
#include "formats/buf.h"
#include "formats/vocab.h"
#include "server/errors.h"
#include "server/http/http.h"
#include "store/store.h"

store_t *srv__store(srv_request_t *req);

/* A finite float parameter. Absent: *out = def and 0 when !required, else
 * 400 missing_parameter. Malformed or not finite: 400 bad_parameter.
 * Returns 0, or -1 after answering. */
int srv__param_float(srv_request_t *req, const char *name, bool required,
                     double def, double *out);

/* A word of the vocabulary table (its value into *out); absent: def. */
int srv__param_enum(srv_request_t *req, const char *name, fmt_vocab vocab,
                    int def, int *out);

/* format=json|bin, or Accept: application/octet-stream. Returns 0 with
 * *binary set, or -1 after answering. */
int srv__param_format(srv_request_t *req, bool *binary);

/* Looks up an asset named by the parameter (id, or a name; a clip or mesh
 * name within skeleton when given). Absent: *out = NULL and 0 unless
 * required (400). Unknown: 404 not_found at the parameter. Returns 0 or
 * -1 after answering; *out is retained. */
int srv__param_asset(srv_request_t *req, const char *name, store_kind kind,
                     const store_asset_t *skeleton, bool required,
                     store_asset_t **out);

/* A strong ETag for this answer from its parts (content ids, parameters):
 * "\"<32 hex>\"" into out (at least 40 bytes). */
void srv__etag(char *out, const void *parts, size_t len);
/* True when If-None-Match lists etag (or "*"). */
bool srv__etag_matches(const srv_request_t *req, const char *etag);
/* When If-None-Match lists etag: answers 304 with the ETag and returns
 * true; otherwise returns false and answers nothing. */
bool srv__respond_if_not_modified(srv_request_t *req, const char *etag);

/* Parses the request body as JSON (duplicate keys rejected). Returns 0 with
 * *root owned by the caller, or -1 after answering 400 bad_json. */
int srv__request_json_body(srv_request_t *req, json_t **root);
/* True with *out set when v is a finite JSON number in [lo, hi]. */
bool srv__json_number(const json_t *v, double lo, double hi, double *out);

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

/* An fmt_error_t as an error answer (status, code, message, at). */
void srv__respond_fmt_error(srv_request_t *req, const fmt_error_t *err);

/* Range parameters from/to/fps: *is_range false when none is given. All
 * three are needed together; the frame count is checked against
 * max_frames before any work (400 at "fps"/"to"). */
typedef struct srv_range_params_s {
  bool is_range;
  double from, to, fps;
  uint32_t frames;
} srv_range_params_t;
int srv__param_range(srv_request_t *req, srv_range_params_t *out);

#endif
