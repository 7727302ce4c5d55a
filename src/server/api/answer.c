/* server/api: the handlers' answers (answer.h). */
#include "server/api/answer.h"

#include <stdarg.h>
#include <stdio.h>

void srv__fail(srv_request_t *req, srv_error_code code, const char *at,
               const char *fmt, ...) {
  srv_error_t err;
  srv_error_set(&err, code, at, NULL);
  if (fmt != NULL) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err.message, sizeof err.message, fmt, ap);
    va_end(ap);
  }
  srv__respond_err(req, &err);
}

/* An error body with a hint (the HTTP layer prints those without one). */
static void respond_hinted(srv_request_t *req, srv_error_code code,
                           const char *at, const char *message,
                           const char *hint) {
  fmt_buf_t b = FMT_BUF_INIT;
  srv_error_json(&b, code, at, message, hint);
  fmt_buf_putc(&b, '\n');
  if (!b.failed)
    srv_respond(req, srv_error_status(code), "application/json", NULL, b.data,
                b.len);
  else
    srv_respond_error(req, srv_error_status(code), srv_error_name(code),
                      at[0] != '\0' ? at : NULL, "%s",
                      message[0] != '\0' ? message : srv_error_message(code));
  fmt_buf_free(&b);
}

void srv__respond_err(srv_request_t *req, const srv_error_t *err) {
  if (err->hint[0] != '\0') {
    respond_hinted(req, err->code, err->at, err->message, err->hint);
    return;
  }
  srv_respond_error(req, srv_error_status(err->code), srv_error_name(err->code),
                    err->at[0] != '\0' ? err->at : NULL, "%s",
                    err->message[0] != '\0' ? err->message
                                            : srv_error_message(err->code));
}

void srv__fail_result(srv_request_t *req, anim_result r, const char *what) {
  if (r == ANIM_ERR_OUT_OF_MEMORY)
    srv__fail(req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
  else
    srv__fail(req, SRV_ERR_INTERNAL, NULL, "%s: %s", what, anim_result_str(r));
}

void srv__respond_buf(srv_request_t *req, int status, fmt_buf_t *b,
                      const char *ctype, const char *extra) {
  if (b->failed) {
    srv__fail(req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    return;
  }
  srv_respond(req, status, ctype ? ctype : "application/json", extra, b->data,
              b->len);
}

void srv__respond_deleted(srv_request_t *req, store_kind kind, const char *id) {
  fmt_buf_t b = FMT_BUF_INIT;
  fmt_buf_printf(&b, "{\"deleted\":{\"kind\":\"%s\",\"id\":\"%s\"}}\n",
                 store_kind_name(kind), id);
  srv__respond_buf(req, 200, &b, NULL, NULL);
  fmt_buf_free(&b);
}

void srv__respond_fmt_error(srv_request_t *req, const fmt_error_t *err) {
  if (err->hint[0] != '\0') {
    respond_hinted(req, srv_error_of(err->code), err->at, err->message,
                   err->hint);
    return;
  }
  srv_respond_error(req, fmt_error_status(err->code), fmt_error_name(err->code),
                    err->at[0] ? err->at : NULL, "%s",
                    err->message[0] ? err->message
                                    : fmt_error_message(err->code));
}
