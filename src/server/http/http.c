/* server: the HTTP/1.1 protocol on a connection (llhttp glue).
 *
 * Key choice: the parser pauses (HPE_PAUSED from on_message_complete) as
 * soon as one request is complete, and resumes only when that request's
 * answer is fully queued. Pipelined requests therefore wait, unparsed, in
 * the connection's read buffer and are answered strictly in order, and a
 * flood of pipelined requests cannot make the server buffer unbounded
 * answers (parsing also waits while too many bytes are queued). */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "server/internal.h"
#include "server/server.h"

static const srv_config_t *cfg_of(const srv_conn_t *c) {
  return &c->server->cfg;
}

/* ---- small utilities ------------------------------------------------------- */

const char *srv_status_text(int status) {
  switch (status) {
  case 100: return "Continue";
  case 101: return "Switching Protocols";
  case 200: return "OK";
  case 201: return "Created";
  case 204: return "No Content";
  case 304: return "Not Modified";
  case 400: return "Bad Request";
  case 404: return "Not Found";
  case 405: return "Method Not Allowed";
  case 406: return "Not Acceptable";
  case 408: return "Request Timeout";
  case 409: return "Conflict";
  case 411: return "Length Required";
  case 413: return "Content Too Large";
  case 414: return "URI Too Long";
  case 415: return "Unsupported Media Type";
  case 417: return "Expectation Failed";
  case 426: return "Upgrade Required";
  case 429: return "Too Many Requests";
  case 431: return "Request Header Fields Too Large";
  case 500: return "Internal Server Error";
  case 501: return "Not Implemented";
  case 503: return "Service Unavailable";
  case 505: return "HTTP Version Not Supported";
  case 507: return "Insufficient Storage";
  default: return "Unknown";
  }
}

srv_server_t *srv_request_server(const srv_request_t *req) {
  return req->conn->server;
}

const char *srv_request_header(const srv_request_t *req, const char *name) {
  for (unsigned i = 0; i < req->header_count; i++)
    if (strcasecmp(req->headers[i].name, name) == 0)
      return req->headers[i].value;
  return NULL;
}

const char *srv_request_param(const srv_request_t *req, const char *name) {
  const char *v = NULL;
  for (unsigned i = 0; i < req->param_count; i++)
    if (strcmp(req->params[i].name, name) == 0) v = req->params[i].value;
  return v;
}

static int hexval(int ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  ch = tolower(ch);
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  return -1;
}

/* Percent-decodes n bytes of s into out (NUL-terminated); '+' becomes a
 * space when plus is set. Returns the end of out. */
static char *pct_decode(const char *s, size_t n, char *out, bool plus) {
  for (size_t i = 0; i < n; i++) {
    int h1, h2;
    if (s[i] == '%' && i + 2 < n &&
        (h1 = hexval((unsigned char)s[i + 1])) >= 0 &&
        (h2 = hexval((unsigned char)s[i + 2])) >= 0) {
      *out++ = (char)(h1 * 16 + h2);
      i += 2;
    } else if (plus && s[i] == '+') {
      *out++ = ' ';
    } else {
      *out++ = s[i];
    }
  }
  *out++ = '\0';
  return out;
}

static srv_method map_method(uint8_t m) {
  switch (m) {
  case HTTP_GET: return SRV_GET;
  case HTTP_HEAD: return SRV_HEAD;
  case HTTP_POST: return SRV_POST;
  case HTTP_PUT: return SRV_PUT;
  case HTTP_DELETE: return SRV_DELETE;
  case HTTP_OPTIONS: return SRV_OPTIONS;
  case HTTP_PATCH: return SRV_PATCH;
  default: return SRV_OTHER;
  }
}

/* ---- timers ------------------------------------------------------------------- */

static void respond_error_and_close(srv_conn_t *c, int status,
                                    const char *code, const char *at,
                                    const char *msg);

static void on_timer(uv_timer_t *t) {
  srv_conn_t *c = t->data;
  srv_http_t *h = &c->http;
  if (c->closing || h->state != HTTP_IDLE) return;
  if (h->in_message)
    respond_error_and_close(c, 408, "timeout",
                            h->headers_done ? "body" : "headers",
                            h->headers_done
                                ? "the request body did not arrive in time"
                                : "the request headers did not arrive in "
                                  "time");
  else
    srv_conn_close(c, NULL, NULL); /* Idle keep-alive connection. */
}

static void arm_timer(srv_conn_t *c) {
  srv_http_t *h = &c->http;
  if (c->closing || c->lingering) return;
  if (h->state != HTTP_IDLE) {
    uv_timer_stop(&h->timer);
    return;
  }
  if (h->in_message && !h->headers_done) {
    /* The header deadline counts from the first byte, reads or not. */
    uint64_t start_ms = h->req.start_ns / 1000000;
    uint64_t hrnow = uv_hrtime() / 1000000;
    uint64_t elapsed = hrnow > start_ms ? hrnow - start_ms : 0;
    uint64_t to = cfg_of(c)->header_timeout_ms;
    uv_timer_start(&h->timer, on_timer, elapsed < to ? to - elapsed : 0, 0);
    return;
  }
  uv_timer_start(&h->timer, on_timer, cfg_of(c)->idle_timeout_ms, 0);
}

/* ---- llhttp callbacks ------------------------------------------------------ */

static int fail_cb(srv_http_t *h, int status, const char *code,
                   const char *at, const char *msg) {
  if (h->err_status == 0) {
    h->err_status = status;
    h->err_code = code;
    h->err_at = at;
    snprintf(h->err_msg, sizeof h->err_msg, "%s", msg);
  }
  return -1;
}

static int hbuf_append(srv_conn_t *c, const char *at, size_t len) {
  srv_http_t *h = &c->http;
  size_t limit = cfg_of(c)->max_header_size + 2 * SRV_MAX_HEADERS + 4;
  if (h->hlen + len + 1 > limit)
    return fail_cb(h, 431, "header_too_large", "headers",
                   "the request line and headers are larger than "
                   "max_header_size");
  if (h->hlen + len + 1 > h->hcap) {
    size_t cap = h->hcap ? h->hcap : 1024;
    while (cap < h->hlen + len + 1) cap *= 2;
    if (cap > limit) cap = limit;
    char *p = realloc(h->hbuf, cap);
    if (p == NULL)
      return fail_cb(h, 500, "out_of_memory", "headers", "out of memory");
    h->hbuf = p;
    h->hcap = cap;
  }
  memcpy(h->hbuf + h->hlen, at, len);
  h->hlen += len;
  return 0;
}

static int on_message_begin(llhttp_t *p) {
  srv_conn_t *c = p->data;
  srv_http_t *h = &c->http;
  h->in_message = true;
  h->headers_done = false;
  h->last_was_value = true;
  h->hlen = 0;
  h->url_off = 0;
  h->url_len = 0;
  h->nheaders = 0;
  h->blen = 0;
  h->head_only = false;
  h->chunked = false;
  h->err_status = 0;
  /* Only the scalar fields: the header and parameter tables are filled
   * up to their counts. */
  srv_request_t *r = &h->req;
  r->header_count = 0;
  r->param_count = 0;
  r->body_len = 0;
  r->http_minor = 1;
  r->keep_alive = false;
  r->upgrade = false;
  r->method = SRV_OTHER;
  r->route = 0;
  r->_status = 0;
  r->_bytes_out = 0;
  h->req.conn = c;
  h->req.start_ns = uv_hrtime();
  h->req.method_name = "-";
  h->req.target = "-";
  h->req.path = "";
  h->req.query = "";
  h->req.body = "";
  arm_timer(c);
  return 0;
}

static int on_url(llhttp_t *p, const char *at, size_t len) {
  srv_conn_t *c = p->data;
  c->http.url_len += len;
  return hbuf_append(c, at, len);
}

static int on_url_complete(llhttp_t *p) {
  srv_conn_t *c = p->data;
  return hbuf_append(c, "", 1);
}

static int on_header_field(llhttp_t *p, const char *at, size_t len) {
  srv_conn_t *c = p->data;
  srv_http_t *h = &c->http;
  if (h->headers_done) return 0; /* Trailers are ignored. */
  if (h->last_was_value) {
    if (h->nheaders >= SRV_MAX_HEADERS)
      return fail_cb(h, 431, "too_many_headers", "headers",
                     "more than 64 header fields");
    h->name_off[h->nheaders] = h->hlen;
    h->name_len[h->nheaders] = 0;
    h->value_len[h->nheaders] = 0;
    h->last_was_value = false;
  }
  h->name_len[h->nheaders] += len;
  return hbuf_append(c, at, len);
}

static int on_header_field_complete(llhttp_t *p) {
  srv_conn_t *c = p->data;
  srv_http_t *h = &c->http;
  if (h->headers_done) return 0;
  int rc = hbuf_append(c, "", 1);
  h->value_off[h->nheaders] = h->hlen;
  h->value_len[h->nheaders] = 0;
  return rc;
}

static int on_header_value(llhttp_t *p, const char *at, size_t len) {
  srv_conn_t *c = p->data;
  srv_http_t *h = &c->http;
  if (h->headers_done) return 0;
  h->value_len[h->nheaders] += len;
  return hbuf_append(c, at, len);
}

static int on_header_value_complete(llhttp_t *p) {
  srv_conn_t *c = p->data;
  srv_http_t *h = &c->http;
  if (h->headers_done) return 0;
  int rc = hbuf_append(c, "", 1);
  h->nheaders++;
  h->last_was_value = true;
  return rc;
}

/* Fills the request's pointers from the offsets, decodes path and query. */
static int build_request(srv_conn_t *c) {
  srv_http_t *h = &c->http;
  srv_request_t *r = &h->req;
  llhttp_t *p = &h->parser;
  r->method = map_method(llhttp_get_method(p));
  r->method_name = llhttp_method_name(llhttp_get_method(p));
  r->http_minor = llhttp_get_http_minor(p);
  r->upgrade = llhttp_get_upgrade(p) != 0;
  r->target = h->hlen ? h->hbuf + h->url_off : "";
  r->header_count = h->nheaders;
  for (unsigned i = 0; i < h->nheaders; i++) {
    r->headers[i].name = h->hbuf + h->name_off[i];
    r->headers[i].value = h->hbuf + h->value_off[i];
    /* Trailing whitespace of a value is not part of it. */
    char *v = h->hbuf + h->value_off[i];
    size_t n = h->value_len[i];
    while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t')) v[--n] = '\0';
  }
  size_t ulen = strlen(r->target);
  /* Decoded path, raw query, then each parameter's name and value with
   * their NULs: a valueless parameter ("&b&") writes 2 bytes more than
   * its text, so up to 2 * SRV_MAX_QUERY beyond twice the target. */
  size_t need = 2 * ulen + 2 * SRV_MAX_QUERY + 16;
  if (need > h->pcap) {
    char *np = realloc(h->pbuf, need);
    if (np == NULL)
      return fail_cb(h, 500, "out_of_memory", "headers", "out of memory");
    h->pbuf = np;
    h->pcap = need;
  }
  const char *q = strchr(r->target, '?');
  size_t plen = q ? (size_t)(q - r->target) : ulen;
  char *out = h->pbuf;
  r->path = out;
  out = pct_decode(r->target, plen, out, false);
  /* The raw query, then its decoded parameters. */
  const char *qs = q ? q + 1 : "";
  size_t qlen = strlen(qs);
  r->query = out;
  memcpy(out, qs, qlen + 1);
  out += qlen + 1;
  const char *s = qs;
  while (*s) {
    const char *amp = strchr(s, '&');
    size_t n = amp ? (size_t)(amp - s) : strlen(s);
    if (n > 0) {
      if (r->param_count >= SRV_MAX_QUERY)
        return fail_cb(h, 400, "too_many_parameters", "query",
                       "more than 32 query parameters");
      const char *eq = memchr(s, '=', n);
      size_t kn = eq ? (size_t)(eq - s) : n;
      srv_kv_t *kv = &r->params[r->param_count++];
      kv->name = out;
      out = pct_decode(s, kn, out, true);
      kv->value = out;
      out = eq ? pct_decode(eq + 1, n - kn - 1, out, true)
               : pct_decode("", 0, out, true);
    }
    if (amp == NULL) break;
    s = amp + 1;
  }
  return 0;
}

static int on_headers_complete(llhttp_t *p) {
  srv_conn_t *c = p->data;
  srv_http_t *h = &c->http;
  if (build_request(c) != 0) return -1;
  h->headers_done = true;
  srv_request_t *r = &h->req;
  size_t max_body = cfg_of(c)->max_body_size;
  bool has_length = (p->flags & F_CONTENT_LENGTH) != 0;
  if (has_length && p->content_length > max_body)
    return fail_cb(h, 413, "body_too_large", "body",
                   "Content-Length is larger than max_body_size");
  bool has_body = (has_length && p->content_length > 0) ||
                  (p->flags & F_CHUNKED) != 0;
  const char *expect = srv_request_header(r, "Expect");
  if (expect != NULL) {
    if (strcasecmp(expect, "100-continue") != 0)
      return fail_cb(h, 417, "expectation_failed", "Expect",
                     "only 100-continue is supported");
    if (has_body && r->http_minor >= 1) {
      static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n";
      srv_conn_write(c, cont, sizeof cont - 1, NULL, NULL);
    }
  }
  if (has_length && p->content_length > 0 && h->bcap < p->content_length + 1) {
    char *b = realloc(h->body, p->content_length + 1);
    if (b == NULL)
      return fail_cb(h, 507, "out_of_memory", "body",
                     "no memory for the request body");
    h->body = b;
    h->bcap = p->content_length + 1;
  }
  arm_timer(c);
  return 0;
}

static int on_body(llhttp_t *p, const char *at, size_t len) {
  srv_conn_t *c = p->data;
  srv_http_t *h = &c->http;
  if (h->blen + len > cfg_of(c)->max_body_size)
    return fail_cb(h, 413, "body_too_large", "body",
                   "the request body is larger than max_body_size");
  if (h->blen + len + 1 > h->bcap) {
    size_t cap = h->bcap ? h->bcap : 4096;
    while (cap < h->blen + len + 1) cap *= 2;
    char *b = realloc(h->body, cap);
    if (b == NULL)
      return fail_cb(h, 507, "out_of_memory", "body",
                     "no memory for the request body");
    h->body = b;
    h->bcap = cap;
  }
  memcpy(h->body + h->blen, at, len);
  h->blen += len;
  return 0;
}

static int on_message_complete(llhttp_t *p) {
  srv_conn_t *c = p->data;
  srv_http_t *h = &c->http;
  srv_request_t *r = &h->req;
  if (h->body == NULL) {
    h->body = malloc(64);
    if (h->body == NULL) return -1;
    h->bcap = 64;
  }
  h->body[h->blen] = '\0';
  r->body = h->body;
  r->body_len = h->blen;
  r->keep_alive = llhttp_should_keep_alive(p) != 0;
  h->in_message = false;
  return HPE_PAUSED;
}

static const llhttp_settings_t settings = {
    .on_message_begin = on_message_begin,
    .on_url = on_url,
    .on_url_complete = on_url_complete,
    .on_header_field = on_header_field,
    .on_header_field_complete = on_header_field_complete,
    .on_header_value = on_header_value,
    .on_header_value_complete = on_header_value_complete,
    .on_headers_complete = on_headers_complete,
    .on_body = on_body,
    .on_message_complete = on_message_complete,
};

/* ---- answers ------------------------------------------------------------------ */

static void finish(srv_conn_t *c) {
  srv_http_t *h = &c->http;
  srv_request_t *r = &h->req;
  srv__server_request_done(c->server, r);
  bool close = h->close_after || !r->keep_alive || c->server->draining ||
               r->upgrade || h->peer_eof;
  h->state = HTTP_IDLE;
  if (close) {
    h->state = HTTP_DONE;
    srv_conn_close_after_writes(c);
    return;
  }
  llhttp_resume(&h->parser);
  srv__conn_start_reading(c);
  srv__http_drive(c);
}

/* Appends s to buf at *n when it fits (the caller sizes buf for the
 * longest head: 512 bytes plus the extra headers). */
static void put_str(char *buf, size_t cap, size_t *n, const char *s) {
  size_t l = strlen(s);
  if (*n + l < cap) {
    memcpy(buf + *n, s, l);
    *n += l;
  }
}

static void put_uint(char *buf, size_t cap, size_t *n, unsigned long long v) {
  char tmp[24];
  int i = (int)sizeof tmp;
  do {
    tmp[--i] = (char)('0' + v % 10);
    v /= 10;
  } while (v > 0);
  size_t l = sizeof tmp - (size_t)i;
  if (*n + l < cap) {
    memcpy(buf + *n, tmp + i, l);
    *n += l;
  }
}

/* The status line and headers, built by hand: this runs once per answer
 * and printf is measurably slower here. */
static size_t format_head(srv_request_t *r, char *buf, size_t cap, int status,
                          const char *ctype, const char *extra,
                          long long length) {
  srv_http_t *h = &r->conn->http;
  bool close = h->close_after || !r->keep_alive ||
               r->conn->server->draining || r->upgrade;
  size_t n = 0;
  put_str(buf, cap, &n, "HTTP/1.1 ");
  put_uint(buf, cap, &n, (unsigned)status);
  put_str(buf, cap, &n, " ");
  put_str(buf, cap, &n, srv_status_text(status));
  put_str(buf, cap, &n, "\r\nServer: animd\r\n");
  if (ctype) {
    put_str(buf, cap, &n, "Content-Type: ");
    put_str(buf, cap, &n, ctype);
    put_str(buf, cap, &n, "\r\n");
  }
  if (length >= 0) {
    put_str(buf, cap, &n, "Content-Length: ");
    put_uint(buf, cap, &n, (unsigned long long)length);
    put_str(buf, cap, &n, "\r\n");
  } else if (length == -1) {
    put_str(buf, cap, &n, "Transfer-Encoding: chunked\r\n");
  }
  if (extra) put_str(buf, cap, &n, extra);
  if (close) put_str(buf, cap, &n, "Connection: close\r\n");
  else if (r->http_minor == 0) put_str(buf, cap, &n, "Connection: keep-alive\r\n");
  put_str(buf, cap, &n, "\r\n");
  return n;
}

void srv_respond(srv_request_t *r, int status, const char *ctype,
                 const char *extra, const void *body, size_t len) {
  srv_conn_t *c = r->conn;
  srv_http_t *h = &c->http;
  r->_status = status;
  bool no_body = status == 304 || status == 204 || (status >= 100 && status < 200);
  char stack[1024];
  char *head = stack;
  size_t cap = sizeof stack;
  size_t extra_len = extra ? strlen(extra) : 0;
  if (extra_len + 512 > cap) {
    cap = extra_len + 512;
    head = malloc(cap);
  }
  if (head != NULL && !c->closing) {
    size_t n = format_head(r, head, cap, status, no_body ? NULL : ctype, extra,
                           no_body ? -2 : (long long)len);
    uv_buf_t bufs[2] = {uv_buf_init(head, (unsigned)n),
                        uv_buf_init((char *)body, (unsigned)len)};
    bool send_body = !no_body && r->method != SRV_HEAD && len > 0;
    if (srv_conn_writev(c, bufs, send_body ? 2 : 1, NULL, NULL) == 0)
      r->_bytes_out = n + (send_body ? len : 0);
  }
  if (head != stack) free(head);
  if (h->state == HTTP_DISPATCHED || h->state == HTTP_STREAMING) finish(c);
}

/* A JSON string of s; when s is not valid UTF-8 (a name from the request,
 * or a message cut in the middle of a character), its non-ASCII bytes
 * become '?' rather than losing the whole answer. */
static json_t *json_text(const char *s) {
  json_t *j = json_string(s);
  if (j != NULL) return j;
  char copy[512];
  snprintf(copy, sizeof copy, "%s", s);
  for (char *p = copy; *p; p++)
    if ((unsigned char)*p >= 0x80) *p = '?';
  return json_string(copy);
}

static void respond_error_v(srv_request_t *r, int status, const char *extra,
                            const char *code, const char *at,
                            const char *fmt, va_list ap) {
  char msg[512];
  vsnprintf(msg, sizeof msg, fmt, ap);
  /* json_object_set_new consumes its value even when it fails. */
  json_t *e = json_object(), *o = json_object();
  int bad = json_object_set_new(e, "code", json_string(code));
  bad |= json_object_set_new(e, "message", json_text(msg));
  bad |= json_object_set_new(e, "at", at ? json_text(at) : json_null());
  if (o != NULL) bad |= json_object_set_new(o, "error", e);
  else json_decref(e);
  char *text = o != NULL && bad == 0 ? json_dumps(o, JSON_COMPACT) : NULL;
  json_decref(o);
  if (text == NULL) {
    static const char fallback[] =
        "{\"error\":{\"code\":\"out_of_memory\",\"message\":\"out of "
        "memory\",\"at\":null}}";
    srv_respond(r, status, "application/json", extra, fallback,
                sizeof fallback - 1);
    return;
  }
  size_t n = strlen(text);
  text[n] = '\n'; /* The NUL moves out of the sent range. */
  srv_respond(r, status, "application/json", extra, text, n + 1);
  free(text);
}

void srv_respond_error(srv_request_t *r, int status, const char *code,
                       const char *at, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  respond_error_v(r, status, NULL, code, at, fmt, ap);
  va_end(ap);
}

void srv_respond_error_h(srv_request_t *r, int status, const char *extra,
                         const char *code, const char *at, const char *fmt,
                         ...) {
  va_list ap;
  va_start(ap, fmt);
  respond_error_v(r, status, extra, code, at, fmt, ap);
  va_end(ap);
}

int srv_respond_start(srv_request_t *r, int status, const char *ctype,
                      const char *extra) {
  srv_conn_t *c = r->conn;
  srv_http_t *h = &c->http;
  r->_status = status;
  h->state = HTTP_STREAMING;
  h->head_only = r->method == SRV_HEAD;
  /* HTTP/1.0 has no chunked framing: the body ends with the connection. */
  h->chunked = r->http_minor >= 1;
  if (!h->chunked) h->close_after = true;
  char head[1024];
  size_t n = format_head(r, head, sizeof head, status, ctype, extra,
                         h->chunked ? -1 : -2);
  int rc = srv_conn_write(c, head, n, NULL, NULL);
  if (rc == 0) r->_bytes_out += n;
  return rc;
}

int srv_respond_chunk(srv_request_t *r, const void *data, size_t len,
                      srv_conn_write_cb cb, void *arg) {
  srv_conn_t *c = r->conn;
  srv_http_t *h = &c->http;
  if (h->head_only || len == 0)
    return srv_conn_write(c, "", 0, cb, arg);
  char pre[32];
  int pn = h->chunked ? snprintf(pre, sizeof pre, "%zx\r\n", len) : 0;
  uv_buf_t bufs[3] = {uv_buf_init(pre, (unsigned)pn),
                      uv_buf_init((char *)data, (unsigned)len),
                      uv_buf_init("\r\n", h->chunked ? 2 : 0)};
  int rc = srv_conn_writev(c, bufs, 3, cb, arg);
  if (rc == 0) r->_bytes_out += (size_t)pn + len + (h->chunked ? 2 : 0);
  return rc;
}

void srv_respond_end(srv_request_t *r) {
  srv_conn_t *c = r->conn;
  srv_http_t *h = &c->http;
  if (h->chunked && !h->head_only && !c->closing)
    if (srv_conn_write(c, "0\r\n\r\n", 5, NULL, NULL) == 0) r->_bytes_out += 5;
  finish(c);
}

void srv_respond_abort(srv_request_t *r) {
  srv_conn_t *c = r->conn;
  c->http.close_after = true;
  srv__server_request_done(c->server, r);
  c->http.state = HTTP_DONE;
  srv_conn_close(c, NULL, NULL);
}

/* Answers an error outside any handler (parse errors, timeouts, refused
 * connections) and closes the connection afterwards. */
static void respond_error_and_close(srv_conn_t *c, int status,
                                    const char *code, const char *at,
                                    const char *msg) {
  srv_http_t *h = &c->http;
  srv_request_t *r = &h->req;
  if (r->conn == NULL) {
    memset(r, 0, sizeof *r);
    r->conn = c;
    r->start_ns = uv_hrtime();
    r->method_name = "-";
    r->target = "-";
    r->path = "";
    r->query = "";
    r->body = "";
  }
  if (!h->headers_done) {
    r->method = SRV_GET; /* Unknown: an error body is always sent. */
    if (h->url_len > 0 && h->hlen >= h->url_len + 1 &&
        h->hbuf[h->url_off + h->url_len] == '\0')
      r->target = h->hbuf + h->url_off;
  }
  r->route = SRV_ROUTE_NONE;
  h->close_after = true;
  h->state = HTTP_DISPATCHED;
  uv_timer_stop(&h->timer);
  srv_respond_error_h(r, status,
                      status == 503 || status == 429 ? "Retry-After: 1\r\n"
                                                     : NULL,
                      code, at, "%s", msg);
}

void srv__http_reject(srv_conn_t *c, int status, const char *code,
                      const char *message) {
  respond_error_and_close(c, status, code, NULL, message);
}

/* ---- driving the parser -------------------------------------------------------- */

static void dispatch(srv_conn_t *c) {
  srv_http_t *h = &c->http;
  h->state = HTTP_DISPATCHED;
  uv_timer_stop(&h->timer);
  c->server->route(&h->req);
  if (h->state == HTTP_DONE && !c->closing && c->proto != &srv__http_proto) {
    /* Upgraded: what the client sent after the request is the new
     * protocol's. */
    if (c->rlen > c->roff) {
      size_t n = c->rlen - c->roff;
      const char *data = c->rbuf + c->roff;
      c->roff = c->rlen = 0;
      c->proto->on_read(c, (ssize_t)n, data, c->proto_user);
    }
  }
}

static void parse_error(srv_conn_t *c, llhttp_errno_t e) {
  srv_http_t *h = &c->http;
  if (h->err_status != 0) {
    respond_error_and_close(c, h->err_status, h->err_code, h->err_at,
                            h->err_msg);
    return;
  }
  char msg[200];
  snprintf(msg, sizeof msg, "malformed HTTP request: %s (%s)",
           llhttp_get_error_reason(&h->parser), llhttp_errno_name(e));
  int status = e == HPE_INVALID_VERSION ? 505 : 400;
  respond_error_and_close(c, status, "bad_http",
                          h->headers_done ? "body" : "request", msg);
}

void srv__http_drive(srv_conn_t *c) {
  srv_http_t *h = &c->http;
  if (h->driving) return;
  h->driving = true;
  while (!c->closing && h->state == HTTP_IDLE && c->rlen > c->roff) {
    if (c->queued > cfg_of(c)->stream_high_water) {
      h->waiting_drain = true;
      break;
    }
    const char *data = c->rbuf + c->roff;
    size_t n = c->rlen - c->roff;
    llhttp_errno_t e = llhttp_execute(&h->parser, data, n);
    if (e == HPE_OK) {
      srv__conn_consume(c, n);
    } else if (e == HPE_PAUSED) {
      const char *pos = llhttp_get_error_pos(&h->parser);
      srv__conn_consume(c, (size_t)(pos - data));
      dispatch(c);
    } else {
      parse_error(c, e);
      break;
    }
  }
  if (!c->closing && h->state == HTTP_IDLE) {
    arm_timer(c);
    if (h->peer_eof && !h->waiting_drain) {
      if (h->in_message) {
        respond_error_and_close(c, 400, "truncated_request",
                                h->headers_done ? "body" : "headers",
                                "the connection ended in the middle of the "
                                "request");
      } else {
        h->state = HTTP_DONE;
        srv_conn_close_after_writes(c);
      }
    }
  }
  h->driving = false;
}

void srv__http_on_drain(srv_conn_t *c) {
  srv_http_t *h = &c->http;
  if (!h->waiting_drain) return;
  if (c->queued > cfg_of(c)->stream_high_water / 2) return;
  h->waiting_drain = false;
  srv__http_drive(c);
}

void srv__http_drain(srv_conn_t *c) {
  srv_http_t *h = &c->http;
  if (c->proto != &srv__http_proto) return;
  if (h->state == HTTP_IDLE && !h->in_message && c->rlen == c->roff)
    srv_conn_close(c, NULL, NULL);
}

static void http_on_read(srv_conn_t *c, ssize_t nread, const char *data,
                         void *user) {
  (void)data;
  (void)user;
  srv_http_t *h = &c->http;
  if (nread < 0) {
    if (nread != UV_EOF) {
      srv_conn_close(c, NULL, NULL); /* Reset: nobody to answer. */
      return;
    }
    /* Half-closed: answer what is complete (in flight or buffered), then
     * close. */
    h->peer_eof = true;
    if (h->state == HTTP_IDLE) srv__http_drive(c);
    return;
  }
  srv__http_drive(c);
}

const srv_conn_proto_t srv__http_proto = {
    .on_read = http_on_read,
    .on_close = NULL,
};

int srv__http_init(srv_conn_t *c) {
  srv_http_t *h = &c->http;
  llhttp_init(&h->parser, HTTP_REQUEST, &settings);
  h->parser.data = c;
  h->state = HTTP_IDLE;
  srv__conn_start_reading(c);
  arm_timer(c);
  return 0;
}
