/* server: the API's error codes (errors.h), from the one table. */
#include "server/errors.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "formats/answer.h"

const char *srv_error_name(srv_error_code code) {
  return fmt_error_name((fmt_error_code)code);
}

int srv_error_status(srv_error_code code) {
  return fmt_error_status((fmt_error_code)code);
}

const char *srv_error_message(srv_error_code code) {
  return fmt_error_message((fmt_error_code)code);
}

int srv_error_lookup(const char *name) { return fmt_error_lookup(name); }

int srv_error_set(srv_error_t *err, srv_error_code code, const char *at,
                  const char *fmt, ...) {
  err->code = code;
  snprintf(err->at, sizeof err->at, "%s", at != NULL ? at : "");
  err->message[0] = '\0';
  err->hint[0] = '\0';
  if (fmt != NULL) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
  }
  return -1;
}

int srv_error_hint(srv_error_t *err, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->hint, sizeof err->hint, fmt, ap);
  va_end(ap);
  if (err->hint[0] == '\0') return -1;
  if (err->message[0] == '\0')
    snprintf(err->message, sizeof err->message, "%s",
             srv_error_message(err->code));
  size_t n = strlen(err->message);
  if (n + 1 < sizeof err->message)
    snprintf(err->message + n, sizeof err->message - n, "; %s", err->hint);
  return -1;
}

int srv_error_did_you_mean(srv_error_t *err, const char *name) {
  if (name == NULL || name[0] == '\0') return -1;
  return srv_error_hint(err, "did you mean '%.80s'?", name);
}

int srv_error_under(srv_error_t *err, const char *prefix) {
  if (prefix == NULL || prefix[0] == '\0') return -1;
  char at[2 * sizeof err->at];
  snprintf(at, sizeof at, "%.100s%s%s", prefix, err->at[0] != '\0' ? "." : "",
           err->at);
  at[sizeof err->at - 1] = '\0';
  memcpy(err->at, at, sizeof err->at);
  return -1;
}

int srv_error_json(fmt_buf_t *b, srv_error_code code, const char *at,
                   const char *message, const char *hint) {
  return fmt_answer_error_hint(
      b, srv_error_name(code),
      message != NULL && message[0] != '\0' ? message : srv_error_message(code),
      at, hint);
}
