/* formats: the error every decoder, the store and the server report.
 *
 * Every error of animd is one code of the table in formats/error_codes.h
 * (FMT_ERROR_CODES): its stable snake_case wire string ("bad_json",
 * "name_conflict", ...), its HTTP status, how it reaches a WebSocket
 * client and a default message. The formats and store layers know nothing
 * of HTTP, but they name their failures from the same table the server
 * answers with, so a code has one status wherever it comes from. */
#ifndef ANIMD_FORMATS_ERROR_H
#define ANIMD_FORMATS_ERROR_H

#include "animd/base.h"
#include "formats/error_codes.h"

/* A code of the table: FMT_ERR_BAD_JSON, FMT_ERR_NAME_CONFLICT, ... */
typedef enum fmt_error_code {
#define FMT_ERROR_ENUM_(id, name, status, ws, message) FMT_ERR_##id,
  FMT_ERROR_CODES(FMT_ERROR_ENUM_)
#undef FMT_ERROR_ENUM_
      FMT_ERR_COUNT_
} fmt_error_code;

/* How a code reaches a WebSocket client (the table's rows say WS_NONE,
 * WS_MESSAGE, WS_HANDSHAKE). */
typedef enum fmt_error_ws {
  FMT_WS_NONE = 0,  /* HTTP only: never on a WebSocket. */
  FMT_WS_MESSAGE,   /* An error message on the open socket, which stays
                       open. */
  FMT_WS_HANDSHAKE, /* The upgrade is refused with the code's HTTP answer. */
} fmt_error_ws;

/* The wire string ("bad_json"), the HTTP status, the WebSocket kind and the
 * default message of a code; a code outside the table reads as
 * FMT_ERR_INTERNAL. */
const char *fmt_error_name(fmt_error_code code);
int fmt_error_status(fmt_error_code code);
fmt_error_ws fmt_error_ws_kind(fmt_error_code code);
const char *fmt_error_message(fmt_error_code code);
/* The code whose wire string is name, or -1. */
int fmt_error_lookup(const char *name);
/* The code of a core result (ANIM_ERR_CYCLE: FMT_ERR_CYCLE, ...); ANIM_OK
 * and unknown results give FMT_ERR_INTERNAL. */
fmt_error_code fmt_error_of_result(anim_result r);

/* Where the first problem was found. at is a path into the body in the
 * JSON-pointer-like dotted form of DESIGN.md ("clips[0].tracks[3].times[7]",
 * "animations[0].samplers[2].output", "line 12", "joints[3].name") or the
 * query parameter's name. */
typedef struct fmt_error_s {
  fmt_error_code code;
  char message[256];
  char at[256];
  /* What the sender may do instead ("send it with Content-Type:
   * model/gltf-binary"), also at the end of message; "" for none. */
  char hint[160];
} fmt_error_t;

/* Fills err (if not NULL) printf-style (fmt NULL: the code's default
 * message); returns -1 so decoders can write
 * `return fmt_fail(err, FMT_ERR_BAD_JSON, "at", "fmt", ...)`. */
int fmt_fail(fmt_error_t *err, fmt_error_code code, const char *at,
             const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Gives err a hint (printf-style), appended to its message as "; HINT".
 * Returns -1. */
int fmt_error_hint(fmt_error_t *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
