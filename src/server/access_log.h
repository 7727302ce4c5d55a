/* server: the access log: one line per answered HTTP request and one per
 * WebSocket session, reopened on SIGHUP for log rotation. A line starts
 * with its UTC time; client text in it is masked so a request cannot
 * forge lines.
 *
 * Key choice: nothing shared is locked per line. The file is one
 * descriptor opened with O_APPEND; every write(2) to it is whole lines,
 * which the kernel appends without interleaving. An HTTP loop gathers its
 * lines in a buffer of its own (srv_access_log_buffer_t) and writes them
 * with one call before it polls again (or when the buffer is full), so a
 * busy loop makes one system call per loop iteration, not per request; a
 * WebSocket session's line, one per session, is written at once. A
 * reopen puts the new file on the same descriptor number (dup2), so a
 * writer on another thread never sees a closed descriptor. */
#ifndef ANIMD_SERVER_ACCESS_LOG_H
#define ANIMD_SERVER_ACCESS_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct srv_access_log_s srv_access_log_t;

/* Opens the log at path: a file (appended to), "-" for stderr, "" for
 * none (lines are then dropped). Returns 0 and *out, or a negative
 * errno. */
int srv_access_log_open(const char *path, srv_access_log_t **out);

/* Reopens the same path (after rotation). Returns 0 or a negative errno
 * (the old file stays in use). Any thread. */
int srv_access_log_reopen(srv_access_log_t *log);

void srv_access_log_close(srv_access_log_t *log);

bool srv_access_log_enabled(const srv_access_log_t *log);

/* Writes "<time> <text>\n" at once. Any thread. */
void srv_access_log_write(srv_access_log_t *log, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Lines gathered by one thread (an HTTP loop), written by
 * srv_access_log_flush. Zero-initialised is empty. */
#define SRV_ACCESS_LOG_BUFFER 32768
typedef struct srv_access_log_clock_s {
  int64_t second; /* The UTC second when[] holds; when[0] == 0: none yet. */
  char when[24];  /* "YYYY-MM-DDTHH:MM:SSZ ". */
} srv_access_log_clock_t;
typedef struct srv_access_log_buffer_s {
  size_t len;
  srv_access_log_clock_t clock;
  char data[SRV_ACCESS_LOG_BUFFER];
} srv_access_log_buffer_t;

/* Adds "<time> <text>\n" to buf, writing buf out first when the line
 * would not fit. */
void srv_access_log_append(srv_access_log_t *log, srv_access_log_buffer_t *buf,
                           const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* One HTTP answer's line: "<client> <token> \"<method> <target>
 * HTTP/1.<minor>\" <status> <bytes> <ms>ms <route>", the target masked
 * (srv_access_log_mask) and cut to 1 KiB, the time in milliseconds with
 * three decimals. Built without printf (it runs once per request). */
typedef struct srv_access_http_line_s {
  const char *client, *token, *method, *target, *route;
  int http_minor, status;
  uint64_t bytes, ns;
} srv_access_http_line_t;
void srv_access_log_http(srv_access_log_t *log, srv_access_log_buffer_t *buf,
                         const srv_access_http_line_t *line);

/* Writes what buf holds with one write(2) and empties it. */
void srv_access_log_flush(srv_access_log_t *log, srv_access_log_buffer_t *buf);

/* Copies client text into out (cap bytes), control bytes and quotes
 * masked as '?'. */
void srv_access_log_mask(const char *text, char *out, size_t cap);

#endif
