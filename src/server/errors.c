/* server: the error table (errors.h). */
#include "server/errors.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "formats/answer.h"

static const struct {
  const char *name;
  int status;
  const char *message;
} table[SRV_ERR_COUNT_] = {
    [SRV_ERR_BAD_REQUEST] = {"bad_request", 400, "bad request"},
    [SRV_ERR_BAD_HTTP] = {"bad_http", 400, "malformed HTTP request"},
    [SRV_ERR_TRUNCATED_REQUEST] = {"truncated_request", 400,
                                   "the request ended early"},
    [SRV_ERR_TOO_MANY_PARAMETERS] = {"too_many_parameters", 400,
                                     "too many query parameters"},
    [SRV_ERR_MISSING_PARAMETER] = {"missing_parameter", 400,
                                   "a query parameter is required"},
    [SRV_ERR_BAD_PARAMETER] = {"bad_parameter", 400,
                               "a query parameter is malformed"},
    [SRV_ERR_UNKNOWN_PARAMETER] = {"unknown_parameter", 400,
                                   "this endpoint takes no such parameter"},
    [SRV_ERR_TOO_MANY_FRAMES] = {"too_many_frames", 400,
                                 "the range has more than max_frames"},
    [SRV_ERR_EMPTY_BODY] = {"empty_body", 400, "the body is empty"},
    [SRV_ERR_BAD_JSON] = {"bad_json", 400, "the body is not JSON"},
    [SRV_ERR_WRONG_TYPE] = {"wrong_type", 400, "a field has the wrong type"},
    [SRV_ERR_MISSING_FIELD] = {"missing_field", 400, "a field is required"},
    [SRV_ERR_UNKNOWN_FIELD] = {"unknown_field", 400, "unknown field"},
    [SRV_ERR_BAD_VALUE] = {"bad_value", 400, "a value is out of range"},
    [SRV_ERR_VALUE_COUNT] = {"value_count", 400, "wrong number of values"},
    [SRV_ERR_NOT_FINITE] = {"not_finite", 400, "numbers must be finite"},
    [SRV_ERR_TOO_LARGE] = {"too_large", 400, "too many values"},
    [SRV_ERR_UNKNOWN_JOINT] = {"unknown_joint", 400,
                               "not a joint name of the skeleton"},
    [SRV_ERR_SKELETON_MISMATCH] = {"skeleton_mismatch", 400,
                                   "the clip was built for another "
                                   "skeleton"},
    [SRV_ERR_NO_NORMALS] = {"no_normals", 400, "the mesh has no normals"},
    [SRV_ERR_BAD_BLEND] = {"bad_blend", 400, "blending failed"},
    [SRV_ERR_BAD_INPUT] = {"bad_input", 400, "solving failed"},
    [SRV_ERR_BAD_UPGRADE] = {"bad_upgrade", 400, "bad WebSocket handshake"},
    [SRV_ERR_BAD_HANDSHAKE] = {"bad_handshake", 400, "bad WebSocket handshake"},
    [SRV_ERR_UPGRADE_REQUIRED] = {"upgrade_required", 400,
                                  "this endpoint speaks WebSocket"},
    [SRV_ERR_BAD_MESSAGE] = {"bad_message", 400, "a message is an object"},
    [SRV_ERR_BAD_TYPE] = {"bad_type", 400, "a field has the wrong type"},
    [SRV_ERR_UNKNOWN_OP] = {"unknown_op", 400, "unknown op"},
    [SRV_ERR_MISMATCH] = {"mismatch", 400,
                          "the clip was built for another skeleton"},
    [SRV_ERR_UNKNOWN_STREAM] = {"unknown_stream", 404,
                                "no stream with this id"},
    [SRV_ERR_STREAM_EXISTS] = {"stream_exists", 409,
                               "a stream with this id is playing"},
    [SRV_ERR_TOO_MANY_STREAMS] = {"too_many_streams", 429,
                                  "too many streams on this connection"},
    [SRV_ERR_UNAUTHORIZED] = {"unauthorized", 401,
                              "a bearer token is required"},
    [SRV_ERR_FORBIDDEN] = {"forbidden", 403, "the token does not allow this"},
    [SRV_ERR_RATE_LIMITED] = {"rate_limited", 429,
                              "too many requests from this address"},
    [SRV_ERR_NOT_FOUND] = {"not_found", 404, "not found"},
    [SRV_ERR_METHOD_NOT_ALLOWED] = {"method_not_allowed", 405,
                                    "method not allowed"},
    [SRV_ERR_TIMEOUT] = {"timeout", 408, "the request took too long"},
    [SRV_ERR_CONFLICT] = {"conflict", 409, "the asset is in use"},
    [SRV_ERR_NAME_CONFLICT] = {"name_conflict", 409,
                               "another asset has this name"},
    [SRV_ERR_AMBIGUOUS] = {"ambiguous", 409,
                           "several assets have this name: use an id"},
    [SRV_ERR_BODY_TOO_LARGE] = {"body_too_large", 413,
                                "the body is larger than max_body_size"},
    [SRV_ERR_UNSUPPORTED_MEDIA_TYPE] = {"unsupported_media_type", 415,
                                        "unsupported Content-Type"},
    [SRV_ERR_EXPECTATION_FAILED] = {"expectation_failed", 417,
                                    "only 100-continue is supported"},
    [SRV_ERR_UNSUPPORTED_VERSION] = {"unsupported_version", 426,
                                     "only WebSocket version 13"},
    [SRV_ERR_HEADER_TOO_LARGE] = {"header_too_large", 431,
                                  "the headers are too large"},
    [SRV_ERR_TOO_MANY_HEADERS] = {"too_many_headers", 431, "too many headers"},
    [SRV_ERR_ORIGIN_NOT_ALLOWED] = {"origin_not_allowed", 403,
                                    "pages from this origin may not use "
                                    "this server (see allowed_origins)"},
    [SRV_ERR_INTERNAL] = {"internal", 500, "internal error"},
    [SRV_ERR_OUT_OF_MEMORY] = {"out_of_memory", 500, "out of memory"},
    [SRV_ERR_IO_ERROR] = {"io_error", 500, "input/output error"},
    [SRV_ERR_NOT_IMPLEMENTED] = {"not_implemented", 501, "not implemented"},
    [SRV_ERR_OVERLOADED] = {"overloaded", 503, "the server is overloaded"},
    [SRV_ERR_SHUTTING_DOWN] = {"shutting_down", 503,
                               "the server is shutting down"},
    [SRV_ERR_TOO_MANY_CONNECTIONS] = {"too_many_connections", 503,
                                      "too many connections"},
    [SRV_ERR_INSUFFICIENT_STORAGE] = {"insufficient_storage", 507,
                                      "the store is full"},
    [SRV_ERR_STORE_UNAVAILABLE] = {"store_unavailable", 503,
                                   "the shared store cannot be reached; "
                                   "retry later"},
};

static srv_error_code known(srv_error_code code) {
  return (unsigned)code < SRV_ERR_COUNT_ ? code : SRV_ERR_INTERNAL;
}

const char *srv_error_name(srv_error_code code) {
  return table[known(code)].name;
}

int srv_error_status(srv_error_code code) { return table[known(code)].status; }

const char *srv_error_message(srv_error_code code) {
  return table[known(code)].message;
}

int srv_error_lookup(const char *name) {
  if (name == NULL) return -1;
  for (int i = 0; i < SRV_ERR_COUNT_; i++)
    if (strcmp(table[i].name, name) == 0) return i;
  return -1;
}

int srv_error_set(srv_error_t *err, srv_error_code code, const char *at,
                  const char *fmt, ...) {
  err->code = code;
  snprintf(err->at, sizeof err->at, "%s", at != NULL ? at : "");
  err->message[0] = '\0';
  if (fmt != NULL) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
  }
  return -1;
}

int srv_error_json(fmt_buf_t *b, srv_error_code code, const char *at,
                   const char *message) {
  return fmt_answer_error(
      b, srv_error_name(code),
      message != NULL && message[0] != '\0' ? message : srv_error_message(code),
      at);
}
