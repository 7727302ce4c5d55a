/* server: the error codes of the API, one table: each code's wire string,
 * its HTTP status and a default message. HTTP answers, WebSocket error
 * messages and `animd eval` name their errors from here, and every error
 * body, {"error":{"code","message","at"}}, is printed by one function,
 * fmt_answer_error (formats/answer.h), through srv_error_json.
 *
 * Out of memory has one answer: 500 out_of_memory "out of memory" (a
 * request the server could not allocate for; the client may retry). 507
 * insufficient_storage is something else: the store's configured
 * memory_limit or a full disk, where retrying will not help.
 *
 * WebSocket errors carry no status; the table's is the one an HTTP answer
 * with that code would have. */
#ifndef ANIMD_SERVER_ERRORS_H
#define ANIMD_SERVER_ERRORS_H

#include "formats/buf.h"

typedef enum srv_error_code {
  /* 400: the request, its query or its body. */
  SRV_ERR_BAD_REQUEST = 0,
  SRV_ERR_BAD_HTTP,
  SRV_ERR_TRUNCATED_REQUEST,
  SRV_ERR_TOO_MANY_PARAMETERS,
  SRV_ERR_MISSING_PARAMETER,
  SRV_ERR_BAD_PARAMETER,
  SRV_ERR_UNKNOWN_PARAMETER,
  SRV_ERR_TOO_MANY_FRAMES,
  SRV_ERR_EMPTY_BODY,
  SRV_ERR_BAD_JSON,
  SRV_ERR_WRONG_TYPE,
  SRV_ERR_MISSING_FIELD,
  SRV_ERR_UNKNOWN_FIELD,
  SRV_ERR_BAD_VALUE,
  SRV_ERR_VALUE_COUNT,
  SRV_ERR_NOT_FINITE,
  SRV_ERR_TOO_LARGE,
  SRV_ERR_UNKNOWN_JOINT,
  SRV_ERR_SKELETON_MISMATCH,
  SRV_ERR_NO_NORMALS,
  SRV_ERR_BAD_BLEND,
  SRV_ERR_BAD_INPUT,
  SRV_ERR_BAD_UPGRADE,
  SRV_ERR_BAD_HANDSHAKE,
  SRV_ERR_UPGRADE_REQUIRED,
  /* WebSocket control messages. */
  SRV_ERR_BAD_MESSAGE,
  SRV_ERR_BAD_TYPE,
  SRV_ERR_UNKNOWN_OP,
  SRV_ERR_MISMATCH,
  SRV_ERR_UNKNOWN_STREAM,
  SRV_ERR_STREAM_EXISTS,
  SRV_ERR_TOO_MANY_STREAMS,
  /* Other 4xx. */
  SRV_ERR_UNAUTHORIZED,
  SRV_ERR_FORBIDDEN,
  SRV_ERR_RATE_LIMITED,
  SRV_ERR_NOT_FOUND,
  SRV_ERR_METHOD_NOT_ALLOWED,
  SRV_ERR_TIMEOUT,
  SRV_ERR_CONFLICT,
  SRV_ERR_NAME_CONFLICT,
  SRV_ERR_AMBIGUOUS,
  SRV_ERR_BODY_TOO_LARGE,
  SRV_ERR_UNSUPPORTED_MEDIA_TYPE,
  SRV_ERR_EXPECTATION_FAILED,
  SRV_ERR_UNSUPPORTED_VERSION,
  SRV_ERR_HEADER_TOO_LARGE,
  SRV_ERR_TOO_MANY_HEADERS,
  SRV_ERR_ORIGIN_NOT_ALLOWED,
  /* 5xx. */
  SRV_ERR_INTERNAL,
  SRV_ERR_OUT_OF_MEMORY,
  SRV_ERR_IO_ERROR,
  SRV_ERR_NOT_IMPLEMENTED,
  SRV_ERR_OVERLOADED,
  SRV_ERR_SHUTTING_DOWN,
  SRV_ERR_TOO_MANY_CONNECTIONS,
  SRV_ERR_INSUFFICIENT_STORAGE,
  SRV_ERR_STORE_UNAVAILABLE,
  SRV_ERR_COUNT_
} srv_error_code;

/* The wire string ("bad_parameter"), the HTTP status and the default
 * message of a code; an unknown code reads as SRV_ERR_INTERNAL. */
const char *srv_error_name(srv_error_code code);
int srv_error_status(srv_error_code code);
const char *srv_error_message(srv_error_code code);
/* The code whose wire string is name, or -1. */
int srv_error_lookup(const char *name);

/* A typed error, as the request and message parsers return them: the
 * code, the spot at fault ("t", "layers[2].mask[0]"; "" for none) and a
 * message (the code's default when left empty). */
typedef struct srv_error_s {
  srv_error_code code;
  char at[128];
  char message[512];
} srv_error_t;

/* Fills err printf-style (fmt NULL: the default message); at NULL means
 * none. Returns -1, so parsers can `return srv_error_set(...)`. */
int srv_error_set(srv_error_t *err, srv_error_code code, const char *at,
                  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Appends the error body of code to b (no trailing newline): message NULL
 * or "" gives the default message, at NULL or "" gives null. 0, or -1
 * when b has failed. */
int srv_error_json(fmt_buf_t *b, srv_error_code code, const char *at,
                   const char *message);

#endif
