/* formats: filling the error every decoder and the store report. */
#include "formats/error.h"

#include <stdarg.h>
#include <stdio.h>

int fmt_fail(fmt_error_t *err, fmt_error_kind kind, const char *code,
             const char *at, const char *fmt, ...) {
  if (err == NULL) return -1;
  err->kind = kind;
  snprintf(err->code, sizeof err->code, "%s", code ? code : "bad_request");
  snprintf(err->at, sizeof err->at, "%s", at ? at : "");
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->message, sizeof err->message, fmt, ap);
  va_end(ap);
  return -1;
}

const char *fmt_error_kind_name(fmt_error_kind kind) {
  static const char *const names[FMT_ERR_KIND_COUNT_] = {
      [FMT_ERR_NONE] = "none",
      [FMT_ERR_BAD_INPUT] = "bad_input",
      [FMT_ERR_UNSUPPORTED_TYPE] = "unsupported_type",
      [FMT_ERR_TOO_LARGE] = "too_large",
      [FMT_ERR_NOT_FOUND] = "not_found",
      [FMT_ERR_CONFLICT] = "conflict",
      [FMT_ERR_NAME_CONFLICT] = "name_conflict",
      [FMT_ERR_NO_ROOM] = "no_room",
      [FMT_ERR_OUT_OF_MEMORY] = "out_of_memory",
      [FMT_ERR_IO] = "io",
      [FMT_ERR_INTERNAL] = "internal",
  };
  if ((unsigned)kind >= FMT_ERR_KIND_COUNT_) return "unknown";
  return names[kind];
}
