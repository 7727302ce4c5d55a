/* formats: the error every decoder and the store report, as a kind.
 *
 * The formats and store layers know nothing of HTTP: a failure carries an
 * error kind (what went wrong, in the terms of this layer), a stable
 * snake_case code that clients read ("bad_json", "name_conflict", ...), a
 * sentence, and where it was found. The server alone turns a kind into a
 * status code. */
#ifndef ANIMD_FORMATS_ERROR_H
#define ANIMD_FORMATS_ERROR_H

typedef enum fmt_error_kind {
  FMT_ERR_NONE = 0,
  FMT_ERR_BAD_INPUT,        /* Malformed or invalid input. */
  FMT_ERR_UNSUPPORTED_TYPE, /* No decoder reads that Content-Type. */
  FMT_ERR_TOO_LARGE,        /* Beyond a size, count or memory bound of the
                               decoders. */
  FMT_ERR_NOT_FOUND,        /* No such asset. */
  FMT_ERR_CONFLICT,         /* The store's state refuses the change (a
                               skeleton still in use, or deleted while an
                               upload was decoded). */
  FMT_ERR_NAME_CONFLICT,    /* Another asset already has that name. */
  FMT_ERR_NO_ROOM,          /* The store's memory limit, or the disk, is
                               full. */
  FMT_ERR_OUT_OF_MEMORY,    /* An allocation failed. */
  FMT_ERR_IO,               /* The data directory could not be written or
                               read. */
  FMT_ERR_INTERNAL,         /* A broken invariant (a bug). */
  FMT_ERR_KIND_COUNT_
} fmt_error_kind;

/* Where the first problem was found. code is a stable snake_case id
 * ("bad_json", "value_count", ...), at a path into the body in the
 * JSON-pointer-like dotted form of DESIGN.md ("clips[0].tracks[3].times[7]",
 * "animations[0].samplers[2].output", "line 12", "joints[3].name") or the
 * query parameter's name. */
typedef struct fmt_error_s {
  fmt_error_kind kind;
  char code[48];
  char message[256];
  char at[256];
} fmt_error_t;

/* Fills err (if not NULL) printf-style; returns -1 so decoders can write
 * `return fmt_fail(err, FMT_ERR_BAD_INPUT, "code", "at", "fmt", ...)`. */
int fmt_fail(fmt_error_t *err, fmt_error_kind kind, const char *code,
             const char *at, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* A stable name of a kind ("bad_input", ...), for logs and tests. */
const char *fmt_error_kind_name(fmt_error_kind kind);

#endif
