/* server: the access log: one line per answered HTTP request and one per
 * WebSocket session, written from the HTTP loop and from the stream loops
 * (each line whole, under a lock), reopened on SIGHUP for log rotation.
 * A line starts with its UTC time; client text in it is masked so a
 * request cannot forge lines. */
#ifndef ANIMD_SERVER_ACCESS_LOG_H
#define ANIMD_SERVER_ACCESS_LOG_H

#include <stdbool.h>
#include <stddef.h>

typedef struct srv_access_log_s srv_access_log_t;

/* Opens the log at path: a file (appended to), "-" for stderr, "" for
 * none (lines are then dropped). Returns 0 and *out, or a negative
 * errno. */
int srv_access_log_open(const char *path, srv_access_log_t **out);

/* Reopens the same path (after rotation). Returns 0 or a negative errno
 * (the old file stays in use). */
int srv_access_log_reopen(srv_access_log_t *log);

void srv_access_log_close(srv_access_log_t *log);

bool srv_access_log_enabled(const srv_access_log_t *log);

/* Writes "<time> <text>\n". Any thread. */
void srv_access_log_write(srv_access_log_t *log, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Copies client text into out (cap bytes), control bytes and quotes
 * masked as '?'. */
void srv_access_log_mask(const char *text, char *out, size_t cap);

#endif
