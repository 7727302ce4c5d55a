/* server: the access log (access_log.h). */
#include "server/access_log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A line's text is cut to TEXT_MAX - 1 bytes (the request target is cut
 * to 1 KiB before it gets here); with its time and newline a line takes
 * at most LINE_MAX_BYTES. */
#define TEXT_MAX 2048
#define LINE_MAX_BYTES (sizeof(((srv_access_log_clock_t *)0)->when) + TEXT_MAX)

struct srv_access_log_s {
  int fd; /* -1: off. Its number never changes while the log is open. */
  bool owned;
  char path[1024];
};

static int open_path(const char *path) {
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  return fd < 0 ? -errno : fd;
}

int srv_access_log_open(const char *path, srv_access_log_t **out) {
  srv_access_log_t *log = calloc(1, sizeof *log);
  if (log == NULL) return -ENOMEM;
  snprintf(log->path, sizeof log->path, "%s", path);
  log->fd = -1;
  if (strcmp(path, "-") == 0) {
    log->fd = STDERR_FILENO;
  } else if (path[0] != '\0') {
    int fd = open_path(path);
    if (fd < 0) {
      free(log);
      return fd;
    }
    log->fd = fd;
    log->owned = true;
  }
  *out = log;
  return 0;
}

int srv_access_log_reopen(srv_access_log_t *log) {
  if (!log->owned) return 0;
  int fd = open_path(log->path);
  if (fd < 0) return fd;
  int rc = dup2(fd, log->fd) < 0 ? -errno : 0;
  close(fd);
  return rc;
}

void srv_access_log_close(srv_access_log_t *log) {
  if (log == NULL) return;
  if (log->owned) close(log->fd);
  free(log);
}

bool srv_access_log_enabled(const srv_access_log_t *log) {
  return log != NULL && log->fd >= 0;
}

/* Whole lines to the descriptor; what the kernel cannot take is dropped
 * (a log must not stall the loop that writes it). */
static void write_out(const srv_access_log_t *log, const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(log->fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    p += w;
    n -= (size_t)w;
  }
}

/* "YYYY-MM-DDTHH:MM:SSZ " for the current second into c->when, made
 * again only when the second changes. */
static size_t stamp(srv_access_log_clock_t *c) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  if (c->second != (int64_t)ts.tv_sec || c->when[0] == '\0') {
    time_t t = ts.tv_sec;
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(c->when, sizeof c->when, "%Y-%m-%dT%H:%M:%SZ ", &tm);
    c->second = (int64_t)ts.tv_sec;
  }
  return strlen(c->when);
}

/* Formats one line (time, text, newline) at out, which has room for
 * LINE_MAX_BYTES; returns its length. */
static size_t format_line(srv_access_log_clock_t *clock, char *out,
                          const char *fmt, va_list ap) {
  size_t w = stamp(clock);
  memcpy(out, clock->when, w);
  int n = vsnprintf(out + w, TEXT_MAX, fmt, ap);
  if (n < 0) n = 0;
  size_t len = w + ((size_t)n < TEXT_MAX ? (size_t)n : TEXT_MAX - 1);
  out[len++] = '\n';
  return len;
}

void srv_access_log_write(srv_access_log_t *log, const char *fmt, ...) {
  if (!srv_access_log_enabled(log)) return;
  srv_access_log_clock_t clock = {.second = -1};
  char line[LINE_MAX_BYTES];
  va_list ap;
  va_start(ap, fmt);
  size_t n = format_line(&clock, line, fmt, ap);
  va_end(ap);
  write_out(log, line, n);
}

void srv_access_log_append(srv_access_log_t *log, srv_access_log_buffer_t *buf,
                           const char *fmt, ...) {
  if (!srv_access_log_enabled(log)) return;
  if (SRV_ACCESS_LOG_BUFFER - buf->len < LINE_MAX_BYTES)
    srv_access_log_flush(log, buf);
  va_list ap;
  va_start(ap, fmt);
  buf->len += format_line(&buf->clock, buf->data + buf->len, fmt, ap);
  va_end(ap);
}

/* A byte of client text as logged: control bytes and quotes as '?'. */
static char masked(char c) {
  return (unsigned char)c < 0x20 || c == 0x7f || c == '"' ? '?' : c;
}

/* The line under construction: room for LINE_MAX_BYTES at p. */
typedef struct line_s {
  char *p;
  size_t n;
} line_t;

static void put_text(line_t *l, const char *s, size_t cap) {
  size_t n = strnlen(s, cap);
  memcpy(l->p + l->n, s, n);
  l->n += n;
}

/* Client text: control bytes and quotes as '?', at most cap bytes. */
static void put_masked(line_t *l, const char *s, size_t cap) {
  for (size_t i = 0; s[i] && i < cap; i++) l->p[l->n++] = masked(s[i]);
}

static void put_uint(line_t *l, uint64_t v, int min_digits) {
  char d[24];
  int k = 0;
  do {
    d[k++] = (char)('0' + v % 10);
    v /= 10;
  } while (v > 0 || k < min_digits);
  while (k > 0) l->p[l->n++] = d[--k];
}

void srv_access_log_http(srv_access_log_t *log, srv_access_log_buffer_t *buf,
                         const srv_access_http_line_t *f) {
  if (!srv_access_log_enabled(log)) return;
  if (SRV_ACCESS_LOG_BUFFER - buf->len < LINE_MAX_BYTES)
    srv_access_log_flush(log, buf);
  /* Each piece is capped so that the whole stays within LINE_MAX_BYTES:
   * 24 + 200 + 16 + 16 + 1024 + 16 + ~60 for the numbers + 64. */
  line_t l = {buf->data + buf->len, 0};
  size_t w = stamp(&buf->clock);
  memcpy(l.p, buf->clock.when, w);
  l.n = w;
  put_masked(&l, f->client, 200);
  l.p[l.n++] = ' ';
  put_text(&l, f->token, 16);
  put_text(&l, " \"", 2);
  put_masked(&l, f->method, 16);
  l.p[l.n++] = ' ';
  put_masked(&l, f->target, 1023);
  put_text(&l, " HTTP/1.", 8);
  put_uint(&l, (uint64_t)(f->http_minor & 1), 1);
  put_text(&l, "\" ", 2);
  put_uint(&l, (uint64_t)(f->status > 0 ? f->status : 0), 1);
  l.p[l.n++] = ' ';
  put_uint(&l, f->bytes, 1);
  l.p[l.n++] = ' ';
  uint64_t us = (f->ns + 500) / 1000;
  put_uint(&l, us / 1000, 1);
  l.p[l.n++] = '.';
  put_uint(&l, us % 1000, 3);
  put_text(&l, "ms ", 3);
  put_text(&l, f->route, 64);
  l.p[l.n++] = '\n';
  buf->len += l.n;
}

void srv_access_log_flush(srv_access_log_t *log, srv_access_log_buffer_t *buf) {
  if (buf->len > 0 && srv_access_log_enabled(log))
    write_out(log, buf->data, buf->len);
  buf->len = 0;
}

void srv_access_log_mask(const char *text, char *out, size_t cap) {
  size_t n = 0;
  for (const char *p = text; *p && n + 1 < cap; p++) out[n++] = masked(*p);
  out[n] = '\0';
}
