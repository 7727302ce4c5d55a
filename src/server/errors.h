/* server: the error codes of the API. The table itself, each code's wire
 * string, HTTP status, WebSocket kind and default message, is
 * formats/error_codes.h, shared with the decoders and the store below the
 * server; this header names its codes SRV_ERR_<ID> (the same values as
 * FMT_ERR_<ID>). HTTP answers, WebSocket error messages and `animd eval`
 * name their errors from there, and every error body,
 * {"error":{"code","message","at"}}, is printed by one function,
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
#include "formats/error.h"

typedef enum srv_error_code {
#define SRV_ERROR_ALIAS_(id, name, status, ws, message)                        \
  SRV_ERR_##id = FMT_ERR_##id,
  FMT_ERROR_CODES(SRV_ERROR_ALIAS_)
#undef SRV_ERROR_ALIAS_
      SRV_ERR_COUNT_ = FMT_ERR_COUNT_
} srv_error_code;

/* The server's name of a code of the formats or store layers. */
static inline srv_error_code srv_error_of(fmt_error_code code) {
  return (srv_error_code)code;
}

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
  /* What the client may have meant or should do ("did you mean
   * 'wave'?"), also at the end of message; "" for none. The error body
   * carries it as "hint". */
  char hint[160];
} srv_error_t;

/* Fills err printf-style (fmt NULL: the default message); at NULL means
 * none. Returns -1, so parsers can `return srv_error_set(...)`. */
int srv_error_set(srv_error_t *err, srv_error_code code, const char *at,
                  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Gives err a hint (printf-style), appended to its message as "; HINT"
 * (the code's default message first when the message is empty). Returns
 * -1. */
int srv_error_hint(srv_error_t *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* When name is not NULL: the hint "did you mean 'NAME'?". Returns -1. */
int srv_error_did_you_mean(srv_error_t *err, const char *name);

/* Puts err's spot under prefix, for a request held within another:
 * "a" and "layers[0].clip" read "a.layers[0].clip", "a" and no spot read
 * "a" (prefix NULL or "": unchanged). Returns -1. */
int srv_error_under(srv_error_t *err, const char *prefix);

/* Appends the error body of code to b (no trailing newline): message NULL
 * or "" gives the default message, at NULL or "" gives null, hint NULL or
 * "" no "hint" member. 0, or -1 when b has failed. */
int srv_error_json(fmt_buf_t *b, srv_error_code code, const char *at,
                   const char *message, const char *hint);

#endif
