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

#include <malloc.h>

#include "server/http/gzip.h"
#include "server/http/session.h"
#include "server/cors.h"
#include "server/hosts.h"

#include "formats/answer.h"
#include "formats/buf.h"

#include <llhttp.h>

/* HTTP parsing state of a session. */
typedef enum http_state {
  HTTP_IDLE = 0,   /* Between requests (or reading one). */
  HTTP_DISPATCHED, /* A request is with its handler. */
  HTTP_STREAMING,  /* A chunked answer is being produced. */
  HTTP_DONE        /* Upgraded, or closing: no more HTTP. */
} http_state;

struct srv_http_s {
  srv_http_host_t *host;
  const srv_http_io_t *io;
  void *ctx;
  llhttp_t parser;
  http_state state;
  unsigned refs; /* Holds on the request in flight, and the io's. */
  bool gone;     /* The transport has closed. */
  bool timer_open;
  bool in_message;        /* A request's first byte has been seen. */
  uint64_t body_start_ms; /* When the headers were complete. */
  uint64_t body_expected; /* Content-Length (0: chunked or none). */
  bool headers_done;
  bool last_was_value; /* Header callback alternation. */
  /* The request line's version ("1.1"), and whether it ended there. */
  char version[4];
  uint8_t version_len;
  bool version_done;
  /* The bytes of the llhttp_execute call under way, and whether the
   * previous call's bytes ended in a line break and blanks (a value that
   * starts after them is folded). */
  const char *exec_data;
  bool exec_tail_break;
  bool driving;       /* drive is on the stack. */
  bool waiting_drain; /* Paused until queued writes drop. */
  bool peer_eof;
  bool head_only;   /* HEAD: send no body. */
  bool chunked;     /* Streaming with chunked framing. */
  bool close_after; /* Close once this answer is queued. */
  bool skip_body;   /* Answered before its body (Expect refused). */
  srv_gzip_t *gz;   /* The streamed answer's deflate, or NULL. */
  fmt_buf_t zbuf;   /* A chunk's compressed bytes. */
  /* Request line and headers, NUL-separated; offsets while parsing. */
  char *hbuf;
  size_t hlen, hcap;
  size_t url_off, url_len;
  unsigned nheaders;
  size_t name_off[SRV_MAX_HEADERS], name_len[SRV_MAX_HEADERS];
  size_t value_off[SRV_MAX_HEADERS], value_len[SRV_MAX_HEADERS];
  /* Decoded path and query parameters. */
  char *pbuf;
  size_t pcap;
  /* Body. */
  char *body;
  size_t blen, bcap;
  /* A parse error found in a callback. */
  bool err_set;
  srv_error_code err_code;
  const char *err_at;
  char err_msg[160];
  /* The request in flight will have no whole answer (a write of it
   * failed, or it was cut short), and why, once known (lost_known): the
   * connection's close is counted (host->closed_unanswered). */
  bool answer_lost;
  bool lost_known;
  srv_unanswered_reason lost_reason;
  /* srv_request_when_flushed. */
  void (*flushed_cb)(srv_request_t *req, void *arg);
  void *flushed_arg;
  srv_request_t req;
  /* The timeout of the part being read (arm_timer): its deadline (ms of
   * uv_hrtime, 0: none) and when the timer is set to fire (0: not set).
   * A timer set earlier than the deadline stays: it fires, finds the
   * deadline later and is set again; so requests that follow one another
   * only write the deadline. */
  uv_timer_t timer;
  uint64_t due_ms, timer_ms;
  /* srv_request_host_allowed's answer for the headers as they are: 0 not
   * known yet, 1 allowed, 2 not (cleared whenever the headers change). */
  uint8_t host_verdict;
};

static const srv_config_t *cfg_of(const srv_http_t *h) { return h->host->cfg; }

static void srv_http_ref(srv_http_t *h) { h->refs++; }
static void srv_http_unref(srv_http_t *h);

static size_t queued(const srv_http_t *h) {
  return h->gone ? 0 : h->io->queued(h->ctx);
}

static int writev_(srv_http_t *h, const uv_buf_t *bufs, unsigned n,
                   srv_write_cb cb, void *arg) {
  if (h->gone) return UV_EPIPE;
  return h->io->writev(h->ctx, bufs, n, cb, arg);
}

static int write_(srv_http_t *h, const void *data, size_t len, srv_write_cb cb,
                  void *arg) {
  uv_buf_t b = uv_buf_init((char *)data, (unsigned)len);
  return writev_(h, &b, 1, cb, arg);
}

/* Notes why a request may go unanswered (the first reason stays). */
static void note_lost_reason(srv_http_t *h, srv_unanswered_reason r) {
  if (h->lost_known) return;
  h->lost_known = true;
  h->lost_reason = r;
}

/* The answer in flight will not reach the client whole. */
static void lose_answer(srv_http_t *h, srv_unanswered_reason r) {
  if (h->gone) return;
  h->answer_lost = true;
  note_lost_reason(h, r);
}

static void close_now(srv_http_t *h) {
  if (!h->gone) h->io->close(h->ctx);
}

static void close_after_writes(srv_http_t *h) {
  if (!h->gone) h->io->close_after_writes(h->ctx);
}

/* ---- small utilities -------------------------------------------------------
 */

const char *srv_status_text(int status) {
  switch (status) {
  case 100: return "Continue";
  case 101: return "Switching Protocols";
  case 200: return "OK";
  case 201: return "Created";
  case 204: return "No Content";
  case 304: return "Not Modified";
  case 400: return "Bad Request";
  case 401: return "Unauthorized";
  case 403: return "Forbidden";
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
  case 421: return "Misdirected Request";
  case 422: return "Unprocessable Content";
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
  return req->_http->host->server;
}

const srv_config_t *srv_request_config(const srv_request_t *req) {
  return req->_http->host->cfg;
}

bool srv_request_host_allowed(const srv_request_t *req) {
  srv_http_t *h = req->_http;
  if (h->host_verdict == 0) {
    const srv_config_t *cfg = h->host->cfg;
    h->host_verdict =
        cfg == NULL || srv_host_allowed(cfg->allowed_hosts, cfg->listen,
                                        srv_request_header(req, "Host"))
            ? 1
            : 2;
  }
  return h->host_verdict == 1;
}

const char *srv_request_own_host(const srv_request_t *req) {
  return srv_request_host_allowed(req) ? srv_request_header(req, "Host") : NULL;
}

srv_schedule_t *srv_request_schedule(const srv_request_t *req) {
  return req->_http->host->schedule;
}

const char *srv_request_peer(const srv_request_t *req) {
  srv_http_t *h = req->_http;
  return h->gone ? "-" : h->io->peer(h->ctx);
}

void srv_request_hold(srv_request_t *req) { srv_http_ref(req->_http); }

void srv_request_release(srv_request_t *req) { srv_http_unref(req->_http); }

bool srv_request_gone(const srv_request_t *req) { return req->_http->gone; }

size_t srv_request_queued(const srv_request_t *req) {
  return queued(req->_http);
}

const char *srv_request_header(const srv_request_t *req, const char *name) {
  /* The first letters, case folded, before the whole names. */
  int first = (unsigned char)name[0] | 0x20;
  for (unsigned i = 0; i < req->header_count; i++)
    if (((unsigned char)req->headers[i].name[0] | 0x20) == first &&
        strcasecmp(req->headers[i].name, name) == 0)
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
  /* Most names and values hold neither '%' nor '+': a plain copy. */
  if (memchr(s, '%', n) == NULL && (!plus || memchr(s, '+', n) == NULL)) {
    memcpy(out, s, n);
    out[n] = '\0';
    return out + n + 1;
  }
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

char *srv_query_decode(const char *s, size_t n, char *out) {
  return pct_decode(s, n, out, true);
}

bool srv_query_name_has_control(const char *name, size_t n) {
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f) return true;
  return false;
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

/* ---- timers
 * ------------------------------------------------------------------- */

static void respond_error_and_close(srv_http_t *h, srv_error_code code,
                                    const char *at, const char *msg);

static void on_timer(uv_timer_t *t);

/* Sets the timer for due (ms) unless it is set to fire before it. */
static void timer_set(srv_http_t *h, uint64_t due, uint64_t now) {
  h->due_ms = due;
  if (h->timer_ms != 0 && h->timer_ms <= due) return;
  uv_timer_start(&h->timer, on_timer, due > now ? due - now : 0, 0);
  h->timer_ms = due;
}

static void on_timer(uv_timer_t *t) {
  srv_http_t *h = t->data;
  h->timer_ms = 0;
  if (h->gone || h->state != HTTP_IDLE || h->due_ms == 0) return;
  uint64_t now = uv_hrtime() / 1000000;
  if (now < h->due_ms) { /* Set for an earlier deadline: set again. */
    timer_set(h, h->due_ms, now);
    return;
  }
  h->due_ms = 0;
  if (h->in_message)
    respond_error_and_close(
        h, SRV_ERR_TIMEOUT, h->headers_done ? "body" : "headers",
        h->headers_done ? "the request body did not arrive in time"
                        : "the request headers did not arrive in "
                          "time");
  else
    close_now(h); /* Idle keep-alive connection. */
}

/* The deadline of the part being read: the headers (header_timeout from
 * the first byte), the body (body_timeout from the end of the headers,
 * plus its size at min_body_rate: a slow body cannot hold a connection
 * open by trickling), or the next request (idle_timeout). Bytes arriving
 * move none of them. None while a request is answered. */
static void arm_timer(srv_http_t *h) {
  if (h->gone) return;
  if (h->state != HTTP_IDLE) {
    h->due_ms = 0;
    return;
  }
  const srv_config_t *cfg = cfg_of(h);
  uint64_t now = uv_hrtime() / 1000000;
  uint64_t due;
  if (h->in_message && !h->headers_done) {
    due = h->req.start_ns / 1000000 + cfg->header_timeout_ms;
  } else if (h->in_message) {
    uint64_t size = h->body_expected > h->blen ? h->body_expected : h->blen;
    uint64_t rate = cfg->min_body_rate ? cfg->min_body_rate : 1;
    due = h->body_start_ms + cfg->body_timeout_ms + size * 1000 / rate;
  } else {
    due = now + cfg->idle_timeout_ms;
  }
  timer_set(h, due, now);
}

/* ---- llhttp callbacks ------------------------------------------------------
 */

static int fail_cb(srv_http_t *h, srv_error_code code, const char *at,
                   const char *msg) {
  if (!h->err_set) {
    h->err_set = true;
    h->err_code = code;
    h->err_at = at;
    snprintf(h->err_msg, sizeof h->err_msg, "%s", msg);
  }
  return -1;
}

static int hbuf_append(srv_http_t *h, const char *at, size_t len) {
  size_t limit = cfg_of(h)->max_header_size + 2 * SRV_MAX_HEADERS + 4;
  if (h->hlen + len + 1 > limit)
    return fail_cb(h, SRV_ERR_HEADER_TOO_LARGE, "headers",
                   "the request line and headers are larger than "
                   "max_header_size");
  if (h->hlen + len + 1 > h->hcap) {
    size_t cap = h->hcap ? h->hcap : 1024;
    while (cap < h->hlen + len + 1) cap *= 2;
    if (cap > limit) cap = limit;
    char *p = realloc(h->hbuf, cap);
    if (p == NULL)
      return fail_cb(h, SRV_ERR_OUT_OF_MEMORY, "headers", "out of memory");
    h->hbuf = p;
    h->hcap = cap;
  }
  memcpy(h->hbuf + h->hlen, at, len);
  h->hlen += len;
  return 0;
}

static int on_message_begin(llhttp_t *p) {
  srv_http_t *h = p->data;
  h->in_message = true;
  h->headers_done = false;
  h->last_was_value = true;
  h->version_len = 0;
  h->version_done = false;
  h->hlen = 0;
  h->url_off = 0;
  h->url_len = 0;
  h->nheaders = 0;
  h->blen = 0;
  h->head_only = false;
  h->chunked = false;
  h->err_set = false;
  h->host_verdict = 0;
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
  r->route = NULL;
  r->query_token = false;
  r->matched = NULL;
  r->resumes = 0;
  r->_status = 0;
  r->_bytes_out = 0;
  h->req._http = h;
  h->req.start_ns = uv_hrtime();
  h->req.method_name = "-";
  h->req.target = "-";
  h->req.path = "";
  h->req.query = "";
  h->req.body = "";
  arm_timer(h);
  return 0;
}

static int on_url(llhttp_t *p, const char *at, size_t len) {
  srv_http_t *h = p->data;
  h->url_len += len;
  return hbuf_append(h, at, len);
}

static int on_url_complete(llhttp_t *p) {
  srv_http_t *h = p->data;
  return hbuf_append(h, "", 1);
}

static int on_version(llhttp_t *p, const char *at, size_t len) {
  srv_http_t *h = p->data;
  for (size_t i = 0; i < len && h->version_len < sizeof h->version; i++)
    h->version[h->version_len++] = at[i];
  return 0;
}

static int on_version_complete(llhttp_t *p) {
  srv_http_t *h = p->data;
  h->version_done = true;
  return 0;
}

/* A version written as HTTP/<digit>.<digit>: one this server does not
 * speak is 505; anything else malformed on the request line is 400. */
static bool version_well_formed(const srv_http_t *h) {
  return h->version_len == 3 && isdigit((unsigned char)h->version[0]) &&
         h->version[1] == '.' && isdigit((unsigned char)h->version[2]);
}

static int on_header_field(llhttp_t *p, const char *at, size_t len) {
  srv_http_t *h = p->data;
  if (h->headers_done) return 0; /* Trailers are ignored. */
  if (h->last_was_value) {
    if (h->nheaders >= SRV_MAX_HEADERS)
      return fail_cb(h, SRV_ERR_TOO_MANY_HEADERS, "headers",
                     "more than 64 header fields");
    h->name_off[h->nheaders] = h->hlen;
    h->name_len[h->nheaders] = 0;
    h->value_len[h->nheaders] = 0;
    h->last_was_value = false;
  }
  h->name_len[h->nheaders] += len;
  return hbuf_append(h, at, len);
}

/* RFC 9110 5.6.2: a field name is a token. */
static bool is_token(const char *s, size_t n) {
  /* Bit c: c is a tchar (ALPHA, DIGIT or one of !#$%&'*+-.^_`|~). */
  static const uint64_t tchar[4] = {0x03ff6cfa00000000ull,
                                    0x57ffffffc7fffffeull, 0, 0};
  if (n == 0) return false;
  for (size_t i = 0; i < n; i++) {
    unsigned char ch = (unsigned char)s[i];
    if ((tchar[ch >> 6] >> (ch & 63) & 1) == 0) return false;
  }
  return true;
}

static int on_header_field_complete(llhttp_t *p) {
  srv_http_t *h = p->data;
  if (h->headers_done) return 0;
  /* Whitespace before the colon, a space inside the name or no name at
   * all are refused (RFC 9112 5.1), never guessed at. */
  if (!is_token(h->hbuf + h->name_off[h->nheaders], h->name_len[h->nheaders]))
    return fail_cb(h, SRV_ERR_BAD_HEADER, "headers",
                   "a header field name is not a token (no whitespace "
                   "before the colon)");
  int rc = hbuf_append(h, "", 1);
  h->value_off[h->nheaders] = h->hlen;
  h->value_len[h->nheaders] = 0;
  return rc;
}

/* Whether a value's bytes at..at+len follow a line break and blanks:
 * llhttp passes a folded line's continuation (obs-fold: a line break, then
 * blanks) as more of the value, which is never otherwise preceded by one.
 * An empty value is reported after its own line break, so the break
 * before that one counts. */
static bool after_line_break(const srv_http_t *h, const char *at, size_t len) {
  const char *q = at, *start = h->exec_data;
  if (len == 0) {
    if (q == start || q[-1] != '\n') return false;
    q--;
    if (q > start && q[-1] == '\r') q--;
  }
  while (q > start && (q[-1] == ' ' || q[-1] == '\t')) q--;
  if (q > start) return q[-1] == '\n';
  return len > 0 && h->exec_tail_break;
}

static int on_header_value(llhttp_t *p, const char *at, size_t len) {
  srv_http_t *h = p->data;
  if (h->headers_done) return 0;
  /* A folded line (obs-fold) is refused, not unfolded (RFC 9112 5.2). */
  if (after_line_break(h, at, len))
    return fail_cb(h, SRV_ERR_BAD_HEADER, "headers",
                   "a header field value is folded over lines");
  h->value_len[h->nheaders] += len;
  return hbuf_append(h, at, len);
}

static int on_header_value_complete(llhttp_t *p) {
  srv_http_t *h = p->data;
  if (h->headers_done) return 0;
  int rc = hbuf_append(h, "", 1);
  h->nheaders++;
  h->last_was_value = true;
  return rc;
}

/* Fills the request's pointers from the offsets, decodes path and query. */
static int build_request(srv_http_t *h) {
  srv_request_t *r = &h->req;
  llhttp_t *p = &h->parser;
  r->method = map_method(llhttp_get_method(p));
  r->method_name = llhttp_method_name(llhttp_get_method(p));
  r->http_minor = llhttp_get_http_minor(p);
  r->upgrade = llhttp_get_upgrade(p) != 0;
  r->target = h->hlen ? h->hbuf + h->url_off : "";
  r->header_count = h->nheaders;
  h->host_verdict = 0;
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
      return fail_cb(h, SRV_ERR_OUT_OF_MEMORY, "headers", "out of memory");
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
  /* Without '%' and '+' nothing decodes: the parameters are the query's
   * copy cut at each '&' and first '='. */
  bool plain = memchr(qs, '%', qlen) == NULL && memchr(qs, '+', qlen) == NULL;
  char *cut = out;
  if (plain) {
    memcpy(cut, qs, qlen + 1);
    out += qlen + 1;
  }
  const char *s = qs;
  while (*s) {
    const char *amp = strchr(s, '&');
    size_t n = amp ? (size_t)(amp - s) : strlen(s);
    if (n > 0) {
      if (r->param_count >= SRV_MAX_QUERY)
        return fail_cb(h, SRV_ERR_TOO_MANY_PARAMETERS, "query",
                       "more than 32 query parameters");
      const char *eq = memchr(s, '=', n);
      size_t kn = eq ? (size_t)(eq - s) : n;
      srv_kv_t *kv = &r->params[r->param_count++];
      if (plain) {
        char *name = cut + (s - qs);
        name[kn] = '\0';
        name[n] = '\0';
        kv->name = name;
        kv->value = name + (eq ? kn + 1 : n);
        if (srv_query_name_has_control(name, kn))
          return fail_cb(h, SRV_ERR_BAD_PARAMETER, "query",
                         "a query parameter name holds a control character");
        if (amp == NULL) break;
        s = amp + 1;
        continue;
      }
      kv->name = out;
      out = srv_query_decode(s, kn, out);
      /* A name is compared as a C string: "token%00" would be taken for
       * "token" where the log's redaction saw another name. */
      if (srv_query_name_has_control(kv->name, (size_t)(out - kv->name) - 1))
        return fail_cb(h, SRV_ERR_BAD_PARAMETER, "query",
                       "a query parameter name holds a control character");
      kv->value = out;
      out = eq ? srv_query_decode(eq + 1, n - kn - 1, out)
               : srv_query_decode("", 0, out);
    }
    if (amp == NULL) break;
    s = amp + 1;
  }
  return 0;
}

static int on_headers_complete(llhttp_t *p) {
  srv_http_t *h = p->data;
  /* llhttp takes a request line without a version for HTTP/0.9. */
  if (!h->version_done)
    return fail_cb(h, SRV_ERR_BAD_HTTP, "request",
                   "the request line has no HTTP version");
  if (llhttp_get_http_major(p) != 1 || llhttp_get_http_minor(p) > 1)
    return fail_cb(h, SRV_ERR_HTTP_VERSION, "request",
                   "only HTTP/1.0 and HTTP/1.1 are spoken here");
  if (build_request(h) != 0) return -1;
  h->headers_done = true;
  h->body_start_ms = uv_hrtime() / 1000000;
  h->body_expected = (p->flags & F_CONTENT_LENGTH) ? p->content_length : 0;
  srv_request_t *r = &h->req;
  size_t max_body = cfg_of(h)->max_body_size;
  bool has_length = (p->flags & F_CONTENT_LENGTH) != 0;
  if (has_length && p->content_length > max_body)
    return fail_cb(h, SRV_ERR_BODY_TOO_LARGE, "body",
                   "Content-Length is larger than max_body_size");
  bool has_body =
      (has_length && p->content_length > 0) || (p->flags & F_CHUNKED) != 0;
  const char *expect = srv_request_header(r, "Expect");
  if (expect != NULL) {
    if (strcasecmp(expect, "100-continue") != 0)
      return fail_cb(h, SRV_ERR_EXPECTATION_FAILED, "Expect",
                     "only 100-continue is supported");
    if (has_body && r->http_minor >= 1) {
      /* Only a request its route would take gets 100 Continue; any other
       * is answered now (404, 405), without its body, and the connection
       * closes after the answer. */
      if (h->host->accepts != NULL && !h->host->accepts(r)) {
        h->close_after = true;
        h->skip_body = true;
        return HPE_PAUSED;
      }
      static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n";
      write_(h, cont, sizeof cont - 1, NULL, NULL);
    }
  }
  if (has_length && p->content_length > 0 && h->bcap < p->content_length + 1) {
    char *b = realloc(h->body, p->content_length + 1);
    if (b == NULL)
      return fail_cb(h, SRV_ERR_OUT_OF_MEMORY, "body",
                     "no memory for the request body");
    h->body = b;
    h->bcap = p->content_length + 1;
  }
  arm_timer(h);
  return 0;
}

static int on_body(llhttp_t *p, const char *at, size_t len) {
  srv_http_t *h = p->data;
  if (h->blen + len > cfg_of(h)->max_body_size)
    return fail_cb(h, SRV_ERR_BODY_TOO_LARGE, "body",
                   "the request body is larger than max_body_size");
  if (h->blen + len + 1 > h->bcap) {
    /* Doubling, but never past the largest body allowed. */
    size_t limit = cfg_of(h)->max_body_size + 1;
    size_t cap = h->bcap ? h->bcap : 4096;
    while (cap < h->blen + len + 1) cap *= 2;
    if (cap > limit) cap = limit;
    char *b = realloc(h->body, cap);
    if (b == NULL)
      return fail_cb(h, SRV_ERR_OUT_OF_MEMORY, "body",
                     "no memory for the request body");
    h->body = b;
    h->bcap = cap;
  }
  memcpy(h->body + h->blen, at, len);
  h->blen += len;
  return 0;
}

static int on_message_complete(llhttp_t *p) {
  srv_http_t *h = p->data;
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
    .on_version = on_version,
    .on_version_complete = on_version_complete,
    .on_header_field = on_header_field,
    .on_header_field_complete = on_header_field_complete,
    .on_header_value = on_header_value,
    .on_header_value_complete = on_header_value_complete,
    .on_headers_complete = on_headers_complete,
    .on_body = on_body,
    .on_message_complete = on_message_complete,
};

/* ---- answers
 * ------------------------------------------------------------------ */

static void drive(srv_http_t *h);

static void request_done(srv_http_t *h) {
  if (h->host->request_done) h->host->request_done(&h->req, h->host->arg);
}

/* Buffers a keep-alive connection keeps between requests; larger ones
 * (a big upload's body) are given back after the answer. */
#define KEEP_BUFFER 65536
#define TRIM_AFTER (1u << 20)

static void gzip_drop(srv_http_t *h);

static void finish(srv_http_t *h) {
  srv_request_t *r = &h->req;
  request_done(h);
  gzip_drop(h);
  if (h->bcap > KEEP_BUFFER) {
    bool big = h->bcap > TRIM_AFTER;
    free(h->body);
    h->body = NULL;
    h->bcap = 0;
    h->blen = 0;
    r->body = "";
    r->body_len = 0;
    /* glibc keeps freed memory for reuse; after a large body, give it
     * back to the system so one upload does not raise the RSS for good
     * (on a worker: trimming takes long). */
    if (big) srv_schedule_release_memory(h->host->schedule);
  }
  h->flushed_cb = NULL;
  bool close = h->close_after || !r->keep_alive || h->host->draining ||
               r->upgrade || h->peer_eof;
  h->state = HTTP_IDLE;
  if (close) {
    h->state = HTTP_DONE;
    close_after_writes(h);
    return;
  }
  llhttp_resume(&h->parser);
  drive(h);
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
  srv_http_t *h = r->_http;
  bool close =
      h->close_after || !r->keep_alive || h->host->draining || r->upgrade;
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
  if (h->host->cfg != NULL && n < cap)
    n += srv_cors_answer_headers(h->host->cfg->allowed_origins,
                                 srv_request_header(r, "Origin"),
                                 srv_request_own_host(r), buf + n, cap - n);
  if (close)
    put_str(buf, cap, &n, "Connection: close\r\n");
  else if (r->http_minor == 0)
    put_str(buf, cap, &n, "Connection: keep-alive\r\n");
  put_str(buf, cap, &n, "\r\n");
  return n;
}

/* ---- gzip (gzip.h)
 * ------------------------------------------------------------ */

/* Whether the answer to r of type ctype is sent gzip-coded. */
static bool gzip_wanted(const srv_request_t *r, const char *ctype) {
  return srv_gzip_type(ctype) &&
         srv_gzip_accepted(srv_request_header(r, "Accept-Encoding"));
}

/* extra for a gzip-coded answer, into b: a strong ETag made weak (the
 * bytes differ from the identity answer's, the content does not), then
 * Content-Encoding and Vary. NULL when b failed. */
static const char *gzip_headers(const char *extra, fmt_buf_t *b) {
  static const char strong[] = "ETag: \"";
  const char *e = extra != NULL ? strstr(extra, strong) : NULL;
  if (e != NULL) {
    fmt_buf_append(b, extra, (size_t)(e - extra) + sizeof strong - 2);
    fmt_buf_puts(b, "W/");
    fmt_buf_puts(b, e + sizeof strong - 2);
  } else if (extra != NULL) {
    fmt_buf_puts(b, extra);
  }
  fmt_buf_puts(b, "Content-Encoding: gzip\r\nVary: Accept-Encoding\r\n");
  return fmt_buf_cstr(b);
}

static void gzip_drop(srv_http_t *h) {
  srv_gzip_free(h->gz);
  h->gz = NULL;
  if (h->zbuf.cap > KEEP_BUFFER) fmt_buf_free(&h->zbuf);
}

static void respond_raw(srv_request_t *r, int status, const char *ctype,
                        const char *extra, const void *body, size_t len);

void srv_respond(srv_request_t *r, int status, const char *ctype,
                 const char *extra, const void *body, size_t len) {
  bool no_body =
      status == 304 || status == 204 || (status >= 100 && status < 200);
  if (!no_body && len >= SRV_GZIP_MIN_BYTES && len <= SRV_GZIP_WHOLE_MAX &&
      gzip_wanted(r, ctype)) {
    /* The whole body compressed at once (HEAD too, for its length). */
    fmt_buf_t zb = FMT_BUF_INIT, hb = FMT_BUF_INIT;
    srv_gzip_t *z = srv_gzip_new();
    const char *zextra = gzip_headers(extra, &hb);
    bool ok = z != NULL && zextra != NULL &&
              srv_gzip_deflate(z, body, len, true, &zb) == 0;
    srv_gzip_free(z);
    if (ok) respond_raw(r, status, ctype, zextra, zb.data, zb.len);
    fmt_buf_free(&zb);
    fmt_buf_free(&hb);
    if (ok) return;
    /* Out of memory: the identity answer is as good. */
  }
  respond_raw(r, status, ctype, extra, body, len);
}

/* The answer as it is, never content-coded. */
static void respond_raw(srv_request_t *r, int status, const char *ctype,
                        const char *extra, const void *body, size_t len) {
  srv_http_t *h = r->_http;
  r->_status = status;
  bool no_body =
      status == 304 || status == 204 || (status >= 100 && status < 200);
  char stack[2048];
  char *head = stack;
  size_t cap = sizeof stack;
  size_t extra_len = extra ? strlen(extra) : 0;
  if (extra_len + 1024 > cap) {
    cap = extra_len + 1024;
    head = malloc(cap);
  }
  if (head != NULL && !h->gone) {
    size_t n = format_head(r, head, cap, status, no_body ? NULL : ctype, extra,
                           no_body ? -2 : (long long)len);
    uv_buf_t bufs[2] = {uv_buf_init(head, (unsigned)n),
                        uv_buf_init((char *)body, (unsigned)len)};
    bool send_body = !no_body && r->method != SRV_HEAD && len > 0;
    if (writev_(h, bufs, send_body ? 2 : 1, NULL, NULL) == 0)
      r->_bytes_out = n + (send_body ? len : 0);
    else
      lose_answer(h, SRV_UNANSWERED_WRITE_FAILED);
  } else {
    lose_answer(h, SRV_UNANSWERED_WRITE_FAILED);
  }
  if (head != stack) free(head);
  if (h->state == HTTP_DISPATCHED || h->state == HTTP_STREAMING) finish(h);
}

static void respond_error_v(srv_request_t *r, int status, const char *extra,
                            const char *code, const char *at, const char *fmt,
                            va_list ap) {
  char msg[512];
  vsnprintf(msg, sizeof msg, fmt, ap);
  /* The one printer of error bodies (formats/answer.h): text that is not
   * UTF-8 (a name from the request) never breaks the JSON. */
  fmt_buf_t b;
  fmt_buf_init(&b);
  fmt_answer_error(&b, code, msg, at);
  fmt_buf_putc(&b, '\n');
  if (b.failed) {
    /* Without memory for the body: a fixed one. */
    char fallback[96];
    int n = snprintf(fallback, sizeof fallback,
                     "{\"error\":{\"code\":\"%s\",\"message\":\"%s\","
                     "\"at\":null}}\n",
                     srv_error_name(SRV_ERR_OUT_OF_MEMORY),
                     srv_error_message(SRV_ERR_OUT_OF_MEMORY));
    srv_respond(r, status, "application/json", extra, fallback,
                n > 0 && (size_t)n < sizeof fallback ? (size_t)n : 0);
  } else {
    srv_respond(r, status, "application/json", extra, b.data, b.len);
  }
  fmt_buf_free(&b);
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

static void respond_fail_v(srv_request_t *r, srv_error_code code,
                           const char *extra, const char *at, const char *fmt,
                           va_list ap) {
  if (fmt == NULL)
    srv_respond_error_h(r, srv_error_status(code), extra, srv_error_name(code),
                        at, "%s", srv_error_message(code));
  else
    respond_error_v(r, srv_error_status(code), extra, srv_error_name(code), at,
                    fmt, ap);
}

void srv_respond_fail(srv_request_t *r, srv_error_code code, const char *at,
                      const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  respond_fail_v(r, code, NULL, at, fmt, ap);
  va_end(ap);
}

void srv_respond_fail_h(srv_request_t *r, srv_error_code code,
                        const char *extra, const char *at, const char *fmt,
                        ...) {
  va_list ap;
  va_start(ap, fmt);
  respond_fail_v(r, code, extra, at, fmt, ap);
  va_end(ap);
}

int srv_respond_start(srv_request_t *r, int status, const char *ctype,
                      const char *extra) {
  srv_http_t *h = r->_http;
  r->_status = status;
  h->state = HTTP_STREAMING;
  h->head_only = r->method == SRV_HEAD;
  /* HTTP/1.0 has no chunked framing: the body ends with the connection. */
  h->chunked = r->http_minor >= 1;
  if (!h->chunked) h->close_after = true;
  fmt_buf_t hb = FMT_BUF_INIT;
  if (gzip_wanted(r, ctype)) {
    /* Chunks are compressed as they come (srv_respond_chunk); without
     * memory for the deflate state the answer goes out as it is. */
    h->gz = h->head_only ? NULL : srv_gzip_new();
    const char *zextra =
        h->head_only || h->gz != NULL ? gzip_headers(extra, &hb) : NULL;
    if (zextra != NULL)
      extra = zextra;
    else
      gzip_drop(h);
  }
  char stack[2048];
  size_t extra_len = extra ? strlen(extra) : 0;
  char *head =
      extra_len + 1024 > sizeof stack ? malloc(extra_len + 1024) : stack;
  int rc = UV_ENOMEM;
  if (head != NULL) {
    size_t n =
        format_head(r, head, head == stack ? sizeof stack : extra_len + 1024,
                    status, ctype, extra, h->chunked ? -1 : -2);
    rc = write_(h, head, n, NULL, NULL);
    if (rc == 0) r->_bytes_out += n;
    if (head != stack) free(head);
  }
  if (rc != 0) lose_answer(h, SRV_UNANSWERED_WRITE_FAILED);
  fmt_buf_free(&hb);
  return rc;
}

/* Queues len bytes of body as one chunk (or as they are, HTTP/1.0). */
static int write_chunk(srv_http_t *h, const void *data, size_t len,
                       srv_write_cb cb, void *arg) {
  if (len == 0) return write_(h, "", 0, cb, arg);
  char pre[32];
  int pn = h->chunked ? snprintf(pre, sizeof pre, "%zx\r\n", len) : 0;
  uv_buf_t bufs[3] = {uv_buf_init(pre, (unsigned)pn),
                      uv_buf_init((char *)data, (unsigned)len),
                      uv_buf_init("\r\n", h->chunked ? 2 : 0)};
  int rc = writev_(h, bufs, 3, cb, arg);
  if (rc == 0)
    h->req._bytes_out += (size_t)pn + len + (h->chunked ? 2 : 0);
  else
    lose_answer(h, SRV_UNANSWERED_WRITE_FAILED);
  return rc;
}

int srv_respond_chunk(srv_request_t *r, const void *data, size_t len,
                      srv_write_cb cb, void *arg) {
  srv_http_t *h = r->_http;
  if (h->head_only || len == 0) return write_(h, "", 0, cb, arg);
  if (h->gz == NULL) return write_chunk(h, data, len, cb, arg);
  /* The transport copies what it is given, so one buffer serves every
   * chunk. */
  fmt_buf_reset(&h->zbuf);
  if (srv_gzip_deflate(h->gz, data, len, false, &h->zbuf) != 0)
    return UV_ENOMEM;
  return write_chunk(h, h->zbuf.data, h->zbuf.len, cb, arg);
}

void srv_respond_end(srv_request_t *r) {
  srv_http_t *h = r->_http;
  if (h->gz != NULL && !h->gone) {
    /* The gzip trailer (CRC and length) as the last chunk of data. */
    fmt_buf_reset(&h->zbuf);
    if (srv_gzip_deflate(h->gz, "", 0, true, &h->zbuf) != 0) {
      srv_respond_abort(r);
      return;
    }
    write_chunk(h, h->zbuf.data, h->zbuf.len, NULL, NULL);
  }
  if (h->chunked && !h->head_only && !h->gone)
    if (write_(h, "0\r\n\r\n", 5, NULL, NULL) == 0) r->_bytes_out += 5;
  finish(h);
}

bool srv_respond_gzips(const srv_request_t *r, const char *ctype) {
  return gzip_wanted(r, ctype);
}

srv_gzip_t *srv_respond_take_gzip(srv_request_t *r) {
  srv_http_t *h = r->_http;
  srv_gzip_t *z = h->gz;
  h->gz = NULL;
  return z;
}

void srv_respond_abort(srv_request_t *r) {
  srv_http_t *h = r->_http;
  gzip_drop(h);
  lose_answer(h, SRV_UNANSWERED_ABORTED);
  h->close_after = true;
  request_done(h);
  h->state = HTTP_DONE;
  close_now(h);
}

/* Answers an error outside any handler (parse errors, timeouts, refused
 * connections) and closes the connection afterwards. */
static void respond_error_and_close(srv_http_t *h, srv_error_code code,
                                    const char *at, const char *msg) {
  srv_request_t *r = &h->req;
  if (r->_http == NULL) {
    memset(r, 0, sizeof *r);
    r->_http = h;
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
  r->route = NULL; /* Unrouted (counted as none). */
  r->query_token = false;
  r->matched = NULL;
  h->close_after = true;
  h->state = HTTP_DISPATCHED;
  h->due_ms = 0;
  int status = srv_error_status(code);
  srv_respond_fail_h(
      r, code, status == 503 || status == 429 ? "Retry-After: 1\r\n" : NULL, at,
      "%s", msg);
}

void srv_http_reject(srv_http_t *h, srv_error_code code, const char *message) {
  respond_error_and_close(h, code, NULL, message);
}

/* ---- driving the parser
 * -------------------------------------------------------- */

static void dispatch(srv_http_t *h) {
  if (h->skip_body) {
    h->skip_body = false;
    h->req.body = "";
    h->req.body_len = 0;
    h->in_message = false;
  }
  h->state = HTTP_DISPATCHED;
  h->due_ms = 0; /* No timeout while it is answered (arm_timer). */
  srv_http_ref(h);
  h->host->route(&h->req);
  srv_http_unref(h);
}

static void parse_error(srv_http_t *h, llhttp_errno_t e) {
  if (h->err_set) {
    respond_error_and_close(h, h->err_code, h->err_at, h->err_msg);
    return;
  }
  char msg[200];
  snprintf(msg, sizeof msg, "malformed HTTP request: %s (%s)",
           llhttp_get_error_reason(&h->parser), llhttp_errno_name(e));
  /* llhttp says "invalid version" also for a version followed by more
   * words or not written as HTTP/<digit>.<digit>: only a well-formed one
   * it refuses (HTTP/1.2) is 505. */
  bool unsupported =
      e == HPE_INVALID_VERSION && !h->version_done && version_well_formed(h);
  respond_error_and_close(h,
                          unsupported ? SRV_ERR_HTTP_VERSION : SRV_ERR_BAD_HTTP,
                          h->headers_done ? "body" : "request", msg);
}

/* Remembers whether bytes parsed end in a line break and blanks, for
 * after_line_break on the next call's first bytes. */
static void note_tail(srv_http_t *h, const char *data, size_t n) {
  while (n > 0 && (data[n - 1] == ' ' || data[n - 1] == '\t')) n--;
  if (n > 0) h->exec_tail_break = data[n - 1] == '\n';
}

static void drive(srv_http_t *h) {
  if (h->driving) return;
  h->driving = true;
  srv_http_ref(h);
  for (;;) {
    if (h->gone || h->state != HTTP_IDLE) break;
    const char *data;
    size_t n;
    h->io->unread(h->ctx, &data, &n);
    if (n == 0) break;
    if (queued(h) > cfg_of(h)->stream_high_water) {
      h->waiting_drain = true;
      break;
    }
    h->exec_data = data;
    llhttp_errno_t e = llhttp_execute(&h->parser, data, n);
    if (e == HPE_OK) {
      note_tail(h, data, n);
      h->io->consume(h->ctx, n);
    } else if (e == HPE_PAUSED) {
      h->exec_tail_break = false;
      const char *pos = llhttp_get_error_pos(&h->parser);
      h->io->consume(h->ctx, (size_t)(pos - data));
      dispatch(h);
    } else {
      parse_error(h, e);
      break;
    }
  }
  if (!h->gone && h->state == HTTP_IDLE) {
    arm_timer(h);
    if (h->peer_eof && !h->waiting_drain) {
      if (h->in_message) {
        respond_error_and_close(h, SRV_ERR_TRUNCATED_REQUEST,
                                h->headers_done ? "body" : "headers",
                                "the connection ended in the middle of the "
                                "request");
      } else {
        h->state = HTTP_DONE;
        close_after_writes(h);
      }
    }
  }
  h->driving = false;
  srv_http_unref(h);
}

void srv_http_on_drain(srv_http_t *h) {
  if (h->flushed_cb != NULL && queued(h) == 0) {
    void (*cb)(srv_request_t *, void *) = h->flushed_cb;
    h->flushed_cb = NULL;
    cb(&h->req, h->flushed_arg);
    return;
  }
  if (!h->waiting_drain) return;
  if (queued(h) > cfg_of(h)->stream_high_water / 2) return;
  h->waiting_drain = false;
  drive(h);
}

void srv_http_drain(srv_http_t *h) {
  if (h->gone || h->state == HTTP_DONE) return;
  const char *data;
  size_t n;
  h->io->unread(h->ctx, &data, &n);
  if (h->state == HTTP_IDLE && !h->in_message && n == 0) close_now(h);
}

void srv_http_on_read(srv_http_t *h, ssize_t nread) {
  if (h->gone) return;
  if (nread < 0) {
    if (nread != UV_EOF) {
      note_lost_reason(h, SRV_UNANSWERED_PEER_RESET);
      close_now(h); /* Reset: nobody to answer. */
      return;
    }
    /* Half-closed: answer what is complete (in flight or buffered), then
     * close. */
    h->peer_eof = true;
    if (h->state == HTTP_IDLE) drive(h);
    return;
  }
  if (h->state == HTTP_DONE) {
    /* No more HTTP here (closing): what comes is discarded. */
    const char *data;
    size_t n;
    h->io->unread(h->ctx, &data, &n);
    h->io->consume(h->ctx, n);
    return;
  }
  drive(h);
}

void srv_request_when_flushed(srv_request_t *req,
                              void (*cb)(srv_request_t *req, void *arg),
                              void *arg) {
  srv_http_t *h = req->_http;
  if (queued(h) == 0) {
    cb(req, arg);
    return;
  }
  h->flushed_cb = cb;
  h->flushed_arg = arg;
}

int srv_request_hand_off(srv_request_t *req,
                         int (*consume)(uv_os_sock_t fd, const char *in,
                                        size_t in_len, void *arg),
                         void *arg) {
  srv_http_t *h = req->_http;
  if (h->gone) return UV_EPIPE;
  if (h->io->dup_socket == NULL) return UV_ENOTSUP;
  if (queued(h) > 0) return UV_EBUSY;
  uv_os_sock_t fd;
  int rc = h->io->dup_socket(h->ctx, &fd);
  if (rc != 0) return rc;
  const char *in;
  size_t in_len;
  h->io->unread(h->ctx, &in, &in_len);
  rc = consume(fd, in, in_len, arg);
  if (rc != 0) return rc;
  /* The other loop owns the socket now: this side only lets go of its
   * descriptor (no shutdown, nothing more written). */
  req->upgrade = true;
  req->_status = 101;
  request_done(h);
  h->state = HTTP_DONE;
  close_now(h);
  return 0;
}

/* ---- life cycle
 * ---------------------------------------------------------------- */

static void free_session(srv_http_t *h) {
  srv_gzip_free(h->gz);
  fmt_buf_free(&h->zbuf);
  free(h->hbuf);
  free(h->pbuf);
  free(h->body);
  free(h);
}

static void on_timer_closed(uv_handle_t *t) {
  srv_http_t *h = t->data;
  h->timer_open = false;
  if (h->refs == 0) free_session(h);
}

static void srv_http_unref(srv_http_t *h) {
  if (--h->refs > 0) return;
  /* The transport's own reference is the last to go (on_close). */
  uv_close((uv_handle_t *)&h->timer, on_timer_closed);
}

/* Counts the close when a request had no whole answer: one begun (its
 * first byte read), with its handler, or whose answer was cut short. */
static void count_unanswered(srv_http_t *h) {
  bool in_flight = h->state == HTTP_DISPATCHED || h->state == HTTP_STREAMING ||
                   (h->state == HTTP_IDLE && h->in_message);
  if (!(in_flight || h->answer_lost) || h->host->closed_unanswered == NULL)
    return;
  if (h->host->draining) note_lost_reason(h, SRV_UNANSWERED_SHUTDOWN);
  note_lost_reason(h, SRV_UNANSWERED_OTHER);
  h->host->closed_unanswered(h->lost_reason, h->host->arg);
}

void srv_http_on_close(srv_http_t *h) {
  if (h->gone) return;
  count_unanswered(h);
  h->gone = true;
  uv_timer_stop(&h->timer);
  h->timer_ms = 0;
  /* An upgrade waiting for the flush learns that it will not come. */
  if (h->flushed_cb != NULL) {
    void (*cb)(srv_request_t *, void *) = h->flushed_cb;
    h->flushed_cb = NULL;
    cb(&h->req, h->flushed_arg);
  }
  srv_http_unref(h);
}

int srv_http_new(srv_http_host_t *host, const srv_http_io_t *io, void *ctx,
                 srv_http_t **out) {
  srv_http_t *h = calloc(1, sizeof *h);
  if (h == NULL) return UV_ENOMEM;
  h->host = host;
  h->io = io;
  h->ctx = ctx;
  h->refs = 1; /* The transport's, dropped by srv_http_on_close. */
  llhttp_init(&h->parser, HTTP_REQUEST, &settings);
  h->parser.data = h;
  h->state = HTTP_IDLE;
  uv_timer_init(host->loop, &h->timer);
  h->timer.data = h;
  h->timer_open = true;
  arm_timer(h);
  *out = h;
  return 0;
}

/* ---- over a TCP connection (net/conn.h)
 * ------------------------------------------ */

static int c_writev(void *ctx, const uv_buf_t *bufs, unsigned n,
                    srv_write_cb cb, void *arg) {
  return srv_conn_writev(ctx, bufs, n, cb, arg);
}
static size_t c_queued(void *ctx) { return srv_conn_queued(ctx); }
static void c_unread(void *ctx, const char **data, size_t *len) {
  srv_conn_unread(ctx, data, len);
}
static void c_consume(void *ctx, size_t n) { srv_conn_consume(ctx, n); }
static void c_close(void *ctx) { srv_conn_close(ctx); }
static void c_close_after_writes(void *ctx) {
  srv_conn_close_after_writes(ctx);
}
static const char *c_peer(void *ctx) { return srv_conn_peer(ctx); }
static int c_dup_socket(void *ctx, uv_os_sock_t *fd) {
  return srv_conn_dup_socket(ctx, fd);
}

static const srv_http_io_t conn_io = {
    c_writev, c_queued,     c_unread, c_consume, c_close, c_close_after_writes,
    c_peer,   c_dup_socket,
};

static void p_read(srv_conn_t *c, ssize_t nread, void *user) {
  (void)c;
  srv_http_on_read(user, nread);
}
static void p_drain(srv_conn_t *c, void *user) {
  (void)c;
  srv_http_on_drain(user);
}
static void p_close(srv_conn_t *c, void *user) {
  srv_http_t *h = user;
  switch (srv_conn_close_cause(c)) {
  case SRV_CONN_CAUSE_WRITE_ERROR:
    note_lost_reason(h, SRV_UNANSWERED_WRITE_FAILED);
    break;
  case SRV_CONN_CAUSE_WRITE_TIMEOUT:
    note_lost_reason(h, SRV_UNANSWERED_WRITE_TIMEOUT);
    break;
  default: break;
  }
  srv_http_on_close(h);
  srv_conn_unref(c);
}

static const srv_conn_proto_t http_proto = {p_read, p_drain, p_close};

int srv_http_serve(srv_http_host_t *host, srv_conn_t *conn, srv_http_t **out) {
  srv_http_t *h;
  int rc = srv_http_new(host, &conn_io, conn, &h);
  if (rc != 0) {
    srv_conn_close(conn);
    return rc;
  }
  srv_conn_ref(conn); /* The session's, dropped when the conn closes. */
  srv_conn_start(conn, &http_proto, h);
  if (out) *out = h;
  return 0;
}

bool srv_http_is_conn_http(const srv_conn_t *conn) {
  return srv_conn_speaks(conn, &http_proto);
}
