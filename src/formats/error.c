/* formats: the error table (error_codes.h) and filling the error every
 * decoder and the store report. */
#include "formats/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const struct {
  const char *name;
  int status;
  fmt_error_ws ws;
  const char *message;
} table[FMT_ERR_COUNT_] = {
#define FMT_ERROR_ROW_(id, name, status, ws, message)                          \
  [FMT_ERR_##id] = {name, status, FMT_##ws, message},
    FMT_ERROR_CODES(FMT_ERROR_ROW_)
#undef FMT_ERROR_ROW_
};

static fmt_error_code known(fmt_error_code code) {
  return (unsigned)code < FMT_ERR_COUNT_ ? code : FMT_ERR_INTERNAL;
}

const char *fmt_error_name(fmt_error_code code) {
  return table[known(code)].name;
}

int fmt_error_status(fmt_error_code code) { return table[known(code)].status; }

fmt_error_ws fmt_error_ws_kind(fmt_error_code code) {
  return table[known(code)].ws;
}

const char *fmt_error_message(fmt_error_code code) {
  return table[known(code)].message;
}

int fmt_error_lookup(const char *name) {
  if (name == NULL) return -1;
  for (int i = 0; i < FMT_ERR_COUNT_; i++)
    if (strcmp(table[i].name, name) == 0) return i;
  return -1;
}

fmt_error_code fmt_error_of_result(anim_result r) {
  switch (r) {
  case ANIM_OK: break;
  case ANIM_ERR_INVALID_ARGUMENT: return FMT_ERR_INVALID_ARGUMENT;
  case ANIM_ERR_BUFFER_TOO_SMALL: return FMT_ERR_BUFFER_TOO_SMALL;
  case ANIM_ERR_OUT_OF_MEMORY: return FMT_ERR_OUT_OF_MEMORY;
  case ANIM_ERR_NOT_FINITE: return FMT_ERR_NOT_FINITE;
  case ANIM_ERR_ZERO_QUATERNION: return FMT_ERR_ZERO_QUATERNION;
  case ANIM_ERR_PARENT_RANGE: return FMT_ERR_PARENT_RANGE;
  case ANIM_ERR_CYCLE: return FMT_ERR_CYCLE;
  case ANIM_ERR_NAME_EMPTY: return FMT_ERR_NAME_EMPTY;
  case ANIM_ERR_NAME_DUPLICATE: return FMT_ERR_NAME_DUPLICATE;
  case ANIM_ERR_TOO_MANY_JOINTS: return FMT_ERR_TOO_MANY_JOINTS;
  case ANIM_ERR_JOINT_RANGE: return FMT_ERR_JOINT_RANGE;
  case ANIM_ERR_NO_KEYS: return FMT_ERR_NO_KEYS;
  case ANIM_ERR_TIMES_ORDER: return FMT_ERR_TIMES_ORDER;
  case ANIM_ERR_TIME_NEGATIVE: return FMT_ERR_TIME_NEGATIVE;
  case ANIM_ERR_VALUE_COUNT: return FMT_ERR_VALUE_COUNT;
  case ANIM_ERR_BEZIER_RANGE: return FMT_ERR_BEZIER_RANGE;
  case ANIM_ERR_DUPLICATE_TRACK: return FMT_ERR_DUPLICATE_TRACK;
  case ANIM_ERR_WEIGHT: return FMT_ERR_WEIGHT;
  case ANIM_ERR_INFLUENCES: return FMT_ERR_INFLUENCES;
  case ANIM_ERR_SINGULAR: return FMT_ERR_SINGULAR;
  case ANIM_ERR_MISMATCH: return FMT_ERR_MISMATCH;
  case ANIM_RESULT_COUNT_: break;
  }
  return FMT_ERR_INTERNAL;
}

int fmt_fail(fmt_error_t *err, fmt_error_code code, const char *at,
             const char *fmt, ...) {
  if (err == NULL) return -1;
  err->code = known(code);
  err->hint[0] = '\0';
  snprintf(err->at, sizeof err->at, "%s", at ? at : "");
  if (fmt == NULL) {
    snprintf(err->message, sizeof err->message, "%s", fmt_error_message(code));
    return -1;
  }
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->message, sizeof err->message, fmt, ap);
  va_end(ap);
  return -1;
}

int fmt_error_hint(fmt_error_t *err, const char *fmt, ...) {
  if (err == NULL) return -1;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->hint, sizeof err->hint, fmt, ap);
  va_end(ap);
  size_t n = strlen(err->message);
  if (err->hint[0] != '\0' && n < sizeof err->message)
    snprintf(err->message + n, sizeof err->message - n, "%s%s",
             n > 0 ? "; " : "", err->hint);
  return -1;
}
