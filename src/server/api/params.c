/* server: request helpers shared by the handlers (requtil.h). */
#include "server/api/params.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/server.h"

store_t *srv__store(srv_request_t *req) {
  return srv_server_store(srv_request_server(req));
}

int srv__param_float(srv_request_t *req, const char *name, bool required,
                     double def, double *out) {
  const char *v = srv_request_param(req, name);
  if (v == NULL) {
    if (!required) {
      *out = def;
      return 0;
    }
    srv__fail(req, SRV_ERR_MISSING_PARAMETER, name,
                      "the query parameter '%s' is required", name);
    return -1;
  }
  char *end;
  errno = 0;
  double d = strtod(v, &end);
  if (*v == '\0' || *end != '\0' || errno == ERANGE || !isfinite(d) ||
      fabs(d) > 3.0e38) {
    srv__fail(req, SRV_ERR_BAD_PARAMETER, name,
                      "'%s' must be a finite number", name);
    return -1;
  }
  *out = d;
  return 0;
}

int srv__param_enum(srv_request_t *req, const char *name, fmt_vocab vocab,
                    int def, int *out) {
  const char *v = srv_request_param(req, name);
  if (v == NULL) {
    *out = def;
    return 0;
  }
  int i = fmt_vocab_parse(vocab, v);
  if (i >= 0) {
    *out = i;
    return 0;
  }
  char list[160];
  fmt_vocab_list(vocab, list, sizeof list);
  srv__fail(req, SRV_ERR_BAD_PARAMETER, name, "'%s' must be %s", name,
                    list);
  return -1;
}

int srv__param_format(srv_request_t *req, bool *binary) {
  const char *accept = srv_request_header(req, "Accept");
  int def = accept && strstr(accept, "application/octet-stream")
                ? FMT_FORMAT_BIN
                : FMT_FORMAT_JSON;
  int f;
  if (srv__param_enum(req, "format", FMT_VOCAB_FORMAT, def, &f) != 0)
    return -1;
  *binary = f == FMT_FORMAT_BIN;
  return 0;
}

int srv__param_asset(srv_request_t *req, const char *name, store_kind kind,
                     const store_asset_t *skeleton, bool required,
                     store_asset_t **out) {
  *out = NULL;
  const char *v = srv_request_param(req, name);
  if (v == NULL || *v == '\0') {
    if (!required) return 0;
    srv__fail(req, SRV_ERR_MISSING_PARAMETER, name,
                      "the query parameter '%s' is required", name);
    return -1;
  }
  store_t *st = srv__store(req);
  store_asset_t *a = st ? store_lookup(st, kind, v, skeleton) : NULL;
  if (a == NULL) {
    srv__fail(req, SRV_ERR_NOT_FOUND, name, "no %s '%s'%s",
                      store_kind_name(kind), v,
                      skeleton ? " on that skeleton" : "");
    return -1;
  }
  *out = a;
  return 0;
}

/* Two FNV-1a 64-bit hashes with different offsets: 128 bits is plenty to
 * tell apart the answers of one server, and ETags need no secrecy. */
void srv__etag(char *out, const void *parts, size_t len) {
  const unsigned char *p = parts;
  uint64_t h1 = 0xcbf29ce484222325ull, h2 = 0x84222325cbf29ce4ull;
  for (size_t i = 0; i < len; i++) {
    h1 = (h1 ^ p[i]) * 0x100000001b3ull;
    h2 = (h2 ^ p[i]) * 0x100000001b3ull;
    h2 ^= h2 >> 29;
  }
  snprintf(out, 40, "\"%016llx%016llx\"", (unsigned long long)h1,
           (unsigned long long)h2);
}

bool srv__etag_matches(const srv_request_t *req, const char *etag) {
  const char *inm = srv_request_header(req, "If-None-Match");
  if (inm == NULL) return false;
  size_t elen = strlen(etag);
  const char *s = inm;
  while (*s) {
    while (*s == ' ' || *s == ',' || *s == '\t') s++;
    if (*s == '*') return true;
    if (strncmp(s, "W/", 2) == 0) s += 2;
    const char *e = s;
    while (*e && *e != ',') e++;
    size_t n = (size_t)(e - s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
    if (n == elen && memcmp(s, etag, n) == 0) return true;
    s = e;
  }
  return false;
}

bool srv__respond_if_not_modified(srv_request_t *req, const char *etag) {
  if (!srv__etag_matches(req, etag)) return false;
  char extra[80];
  snprintf(extra, sizeof extra, "ETag: %s\r\n", etag);
  srv_respond(req, 304, NULL, extra, NULL, 0);
  return true;
}

int srv__request_json_body(srv_request_t *req, json_t **root) {
  json_error_t jerr;
  *root = json_loadb(req->body, req->body_len, JSON_REJECT_DUPLICATES, &jerr);
  if (*root != NULL) return 0;
  char at[64];
  snprintf(at, sizeof at, "line %d, column %d", jerr.line, jerr.column);
  srv__fail(req, SRV_ERR_BAD_JSON, at, "%s", jerr.text);
  return -1;
}

bool srv__json_number(const json_t *v, double lo, double hi, double *out) {
  if (!json_is_number(v)) return false;
  double d = json_number_value(v);
  if (!isfinite(d) || d < lo || d > hi) return false;
  *out = d;
  return true;
}

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

void srv__respond_err(srv_request_t *req, const srv_error_t *err) {
  srv_respond_error(req, srv_error_status(err->code),
                    srv_error_name(err->code),
                    err->at[0] != '\0' ? err->at : NULL, "%s",
                    err->message[0] != '\0' ? err->message
                                             : srv_error_message(err->code));
}

void srv__fail_result(srv_request_t *req, anim_result r, const char *what) {
  if (r == ANIM_ERR_OUT_OF_MEMORY)
    srv__fail(req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
  else
    srv__fail(req, SRV_ERR_INTERNAL, NULL, "%s: %s", what,
              anim_result_str(r));
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

void srv__respond_fmt_error(srv_request_t *req, const fmt_error_t *err) {
  int status = err->status >= 400 && err->status < 600 ? err->status : 400;
  srv_respond_error(req, status, err->code[0] ? err->code : "bad_request",
                    err->at[0] ? err->at : NULL, "%s", err->message);
}

int srv__param_range(srv_request_t *req, srv_range_params_t *out) {
  memset(out, 0, sizeof *out);
  const char *names[3] = {"from", "to", "fps"};
  int given = 0;
  for (int i = 0; i < 3; i++)
    if (srv_request_param(req, names[i]) != NULL) given++;
  if (given == 0) return 0;
  for (int i = 0; i < 3; i++)
    if (srv_request_param(req, names[i]) == NULL) {
      srv__fail(req, SRV_ERR_MISSING_PARAMETER, names[i],
                        "a range needs from, to and fps");
      return -1;
    }
  if (srv__param_float(req, "from", true, 0, &out->from) != 0 ||
      srv__param_float(req, "to", true, 0, &out->to) != 0 ||
      srv__param_float(req, "fps", true, 0, &out->fps) != 0)
    return -1;
  if (!(out->fps > 0)) {
    srv__fail(req, SRV_ERR_BAD_PARAMETER, "fps",
                      "fps must be greater than 0");
    return -1;
  }
  if (out->to < out->from) {
    srv__fail(req, SRV_ERR_BAD_PARAMETER, "to",
                      "to must not be less than from");
    return -1;
  }
  unsigned max = srv_server_config(srv_request_server(req))->max_frames;
  double frames = floor((out->to - out->from) * out->fps + 1e-9) + 1;
  if (frames > (double)max) {
    srv__fail(req, SRV_ERR_TOO_MANY_FRAMES, "fps",
                      "the range has %.0f frames; max_frames is %u", frames,
                      max);
    return -1;
  }
  out->frames = (uint32_t)frames;
  out->is_range = true;
  return 0;
}
