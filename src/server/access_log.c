/* server: the access log (access_log.h). */
#include "server/access_log.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct srv_access_log_s {
  pthread_mutex_t lock;
  FILE *f; /* NULL: off. */
  char path[1024];
};

static int open_path(const char *path, FILE **out) {
  *out = NULL;
  if (strcmp(path, "-") == 0) {
    *out = stderr;
  } else if (path[0] != '\0') {
    FILE *f = fopen(path, "a");
    if (f == NULL) return -errno;
    setvbuf(f, NULL, _IOLBF, 0);
    *out = f;
  }
  return 0;
}

int srv_access_log_open(const char *path, srv_access_log_t **out) {
  srv_access_log_t *log = calloc(1, sizeof *log);
  if (log == NULL) return -ENOMEM;
  snprintf(log->path, sizeof log->path, "%s", path);
  int rc = open_path(path, &log->f);
  if (rc != 0) {
    free(log);
    return rc;
  }
  pthread_mutex_init(&log->lock, NULL);
  *out = log;
  return 0;
}

static void close_file(FILE *f) {
  if (f != NULL && f != stderr) fclose(f);
}

int srv_access_log_reopen(srv_access_log_t *log) {
  FILE *f;
  int rc = open_path(log->path, &f);
  if (rc != 0) return rc;
  pthread_mutex_lock(&log->lock);
  FILE *old = log->f;
  log->f = f;
  pthread_mutex_unlock(&log->lock);
  close_file(old);
  return 0;
}

void srv_access_log_close(srv_access_log_t *log) {
  if (log == NULL) return;
  close_file(log->f);
  pthread_mutex_destroy(&log->lock);
  free(log);
}

bool srv_access_log_enabled(const srv_access_log_t *log) {
  return log != NULL && log->f != NULL;
}

void srv_access_log_write(srv_access_log_t *log, const char *fmt, ...) {
  if (!srv_access_log_enabled(log)) return;
  char when[32];
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
  char line[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  pthread_mutex_lock(&log->lock);
  if (log->f != NULL) fprintf(log->f, "%s %s\n", when, line);
  pthread_mutex_unlock(&log->lock);
}

void srv_access_log_mask(const char *text, char *out, size_t cap) {
  size_t n = 0;
  for (const char *p = text; *p && n + 1 < cap; p++)
    out[n++] = (unsigned char)*p < 0x20 || *p == 0x7f || *p == '"' ? '?' : *p;
  out[n] = '\0';
}
