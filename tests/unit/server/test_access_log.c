/* Tests for the access log (server/access_log.h): off, stderr and file
 * logs, each line "<UTC time> <text>" written whole (also from several
 * threads at once), long lines cut, reopening after rotation, a failed
 * reopen keeping the old file, open errors, and masking of client
 * text. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server/access_log.h"

static char dir[64];

static void make_dir(void) {
  snprintf(dir, sizeof dir, "/tmp/animd-alog-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(dir));
}

/* The file's whole text (caller frees). */
static char *slurp(const char *path) {
  FILE *f = fopen(path, "r");
  ck_assert_ptr_nonnull(f);
  char *buf = NULL;
  size_t cap = 0;
  size_t len = 0;
  char chunk[4096];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
    buf = realloc(buf, cap = len + n + 1);
    memcpy(buf + len, chunk, n);
    len += n;
  }
  fclose(f);
  if (buf == NULL) buf = calloc(1, 1);
  buf[len] = '\0';
  (void)cap;
  return buf;
}

/* Whether line (up to its '\n') is "YYYY-MM-DDTHH:MM:SSZ " + text. */
static bool line_is(const char *line, const char *text) {
  int y, mo, d, h, mi, s;
  char z;
  if (sscanf(line, "%4d-%2d-%2dT%2d:%2d:%2d%c", &y, &mo, &d, &h, &mi, &s, &z) !=
      7)
    return false;
  if (z != 'Z' || line[20] != ' ' || y < 2000 || mo < 1 || mo > 12)
    return false;
  size_t n = strlen(text);
  return strncmp(line + 21, text, n) == 0 && line[21 + n] == '\n';
}

START_TEST(test_off_and_stderr) {
  srv_access_log_t *log = NULL;
  ck_assert_int_eq(srv_access_log_open("", &log), 0);
  ck_assert(!srv_access_log_enabled(log));
  srv_access_log_write(log, "dropped %d", 1);
  ck_assert_int_eq(srv_access_log_reopen(log), 0);
  ck_assert(!srv_access_log_enabled(log));
  srv_access_log_close(log);
  ck_assert(!srv_access_log_enabled(NULL));
  srv_access_log_write(NULL, "nothing");
  srv_access_log_close(NULL);
  ck_assert_int_eq(srv_access_log_open("-", &log), 0);
  ck_assert(srv_access_log_enabled(log));
  ck_assert_int_eq(srv_access_log_reopen(log), 0);
  ck_assert(srv_access_log_enabled(log));
  srv_access_log_close(log);
  /* stderr is never closed by the log. */
  ck_assert_int_ne(fcntl(STDERR_FILENO, F_GETFD), -1);
}
END_TEST

START_TEST(test_file_lines_and_rotation) {
  make_dir();
  char path[128], rotated[128];
  snprintf(path, sizeof path, "%s/access.log", dir);
  snprintf(rotated, sizeof rotated, "%s/access.log.1", dir);
  /* Appended to what is there. */
  FILE *f = fopen(path, "w");
  fputs("old\n", f);
  fclose(f);
  srv_access_log_t *log;
  ck_assert_int_eq(srv_access_log_open(path, &log), 0);
  ck_assert(srv_access_log_enabled(log));
  srv_access_log_write(log, "GET %s %d", "/healthz", 200);
  srv_access_log_write(log, "%s", "");
  char *text = slurp(path);
  ck_assert(strncmp(text, "old\n", 4) == 0);
  ck_assert_msg(line_is(text + 4, "GET /healthz 200"), "%s", text);
  const char *second = strchr(text + 4, '\n') + 1;
  ck_assert_msg(line_is(second, ""), "%s", second);
  ck_assert_str_eq(strchr(second, '\n'), "\n");
  free(text);
  /* Rotation: the file is renamed, reopen starts a new one. */
  ck_assert_int_eq(rename(path, rotated), 0);
  srv_access_log_write(log, "before reopen");
  ck_assert_int_eq(srv_access_log_reopen(log), 0);
  srv_access_log_write(log, "after reopen");
  text = slurp(rotated);
  ck_assert_ptr_nonnull(strstr(text, " before reopen\n"));
  ck_assert_ptr_null(strstr(text, "after reopen"));
  free(text);
  text = slurp(path);
  ck_assert(line_is(text, "after reopen"));
  free(text);
  /* A reopen that fails keeps the file in use. */
  unlink(path);
  unlink(rotated);
  ck_assert_int_eq(rmdir(dir), 0);
  ck_assert_int_eq(srv_access_log_reopen(log), -ENOENT);
  ck_assert(srv_access_log_enabled(log));
  srv_access_log_write(log, "still written");
  srv_access_log_close(log);
}
END_TEST

START_TEST(test_open_errors) {
  srv_access_log_t *log = (srv_access_log_t *)0x1;
  ck_assert_int_eq(srv_access_log_open("/nonexistent-dir/access.log", &log),
                   -ENOENT);
  ck_assert_ptr_eq(log, (srv_access_log_t *)0x1);
  make_dir();
  /* A directory is no log file. */
  ck_assert_int_eq(srv_access_log_open(dir, &log), -EISDIR);
  rmdir(dir);
}
END_TEST

START_TEST(test_long_line_cut) {
  make_dir();
  char path[128];
  snprintf(path, sizeof path, "%s/a.log", dir);
  srv_access_log_t *log;
  ck_assert_int_eq(srv_access_log_open(path, &log), 0);
  char *big = malloc(5000);
  memset(big, 'q', 4999);
  big[4999] = '\0';
  srv_access_log_write(log, "%s", big);
  srv_access_log_close(log);
  char *text = slurp(path);
  /* Time, a space, 2047 bytes of text and the newline. */
  ck_assert_uint_eq(strlen(text), 20 + 1 + 2047 + 1);
  ck_assert_uint_eq(strspn(text + 21, "q"), 2047);
  free(text);
  free(big);
  unlink(path);
  rmdir(dir);
}
END_TEST

typedef struct writer_s {
  srv_access_log_t *log;
  int id;
} writer_t;

static void *writer(void *arg) {
  writer_t *w = arg;
  for (int i = 0; i < 300; i++)
    srv_access_log_write(w->log, "thread %d line %03d %s", w->id, i,
                         "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
  return NULL;
}

START_TEST(test_lines_whole_from_threads) {
  make_dir();
  char path[128];
  snprintf(path, sizeof path, "%s/t.log", dir);
  srv_access_log_t *log;
  ck_assert_int_eq(srv_access_log_open(path, &log), 0);
  pthread_t t[4];
  writer_t w[4];
  for (int i = 0; i < 4; i++) {
    w[i] = (writer_t){log, i};
    ck_assert_int_eq(pthread_create(&t[i], NULL, writer, &w[i]), 0);
  }
  for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
  srv_access_log_close(log);
  char *text = slurp(path);
  int seen[4] = {0};
  int lines = 0;
  for (const char *p = text; *p; p = strchr(p, '\n') + 1) {
    int id, n;
    char tail[64];
    ck_assert_int_eq(sscanf(p + 21, "thread %d line %d %63s", &id, &n, tail),
                     3);
    ck_assert(id >= 0 && id < 4);
    /* Each thread's lines in its own order. */
    ck_assert_int_eq(n, seen[id]);
    seen[id]++;
    char want[128];
    snprintf(want, sizeof want, "thread %d line %03d %s", id, n, tail);
    ck_assert(line_is(p, want));
    ck_assert_uint_eq(strlen(tail), 50);
    lines++;
  }
  ck_assert_int_eq(lines, 1200);
  free(text);
  unlink(path);
  rmdir(dir);
}
END_TEST

START_TEST(test_mask) {
  char out[64];
  srv_access_log_mask("GET /a\"b\r\n\tc\x7f\x01 d", out, sizeof out);
  ck_assert_str_eq(out, "GET /a?b???c?? d");
  /* Bytes of UTF-8 are kept. */
  srv_access_log_mask("caf\xc3\xa9", out, sizeof out);
  ck_assert_str_eq(out, "caf\xc3\xa9");
  /* Cut to the buffer. */
  srv_access_log_mask("abcdef", out, 4);
  ck_assert_str_eq(out, "abc");
  srv_access_log_mask("abcdef", out, 1);
  ck_assert_str_eq(out, "");
  srv_access_log_mask("", out, sizeof out);
  ck_assert_str_eq(out, "");
  /* A forged line cannot start: the newline is masked. */
  srv_access_log_mask("x\n2026-01-01T00:00:00Z GET / 200", out, sizeof out);
  ck_assert_ptr_null(strchr(out, '\n'));
}
END_TEST

/* A loop's buffer: nothing reaches the file before its flush, then every
 * line whole and in order; a buffer about to overflow writes itself out
 * first; a flush of an empty buffer writes nothing. */
START_TEST(test_buffered_lines) {
  make_dir();
  char path[128];
  snprintf(path, sizeof path, "%s/access.log", dir);
  srv_access_log_t *log = NULL;
  ck_assert_int_eq(srv_access_log_open(path, &log), 0);
  srv_access_log_buffer_t *buf = calloc(1, sizeof *buf);
  srv_access_log_append(log, buf, "first %d", 1);
  srv_access_log_append(log, buf, "second %s", "two");
  char *text = slurp(path);
  ck_assert_str_eq(text, "");
  free(text);
  srv_access_log_flush(log, buf);
  srv_access_log_flush(log, buf);
  text = slurp(path);
  ck_assert_uint_eq(strlen(text), 2 * 21 + strlen("first 1\nsecond two\n"));
  ck_assert(line_is(text, "first 1"));
  ck_assert(line_is(text + 21 + strlen("first 1\n"), "second two"));
  free(text);
  /* 100 lines of 1,000 bytes overflow the buffer: the first lines go out
   * before the buffer is flushed, none is cut. */
  char long_text[1001];
  memset(long_text, 'x', 1000);
  long_text[1000] = '\0';
  for (int i = 0; i < 100; i++)
    srv_access_log_append(log, buf, "%s", long_text);
  text = slurp(path);
  size_t before = strlen(text);
  ck_assert_uint_gt(before, 0);
  ck_assert_uint_eq(before % (21 + 1001), (2 * 21 + 19) % (21 + 1001));
  free(text);
  srv_access_log_flush(log, buf);
  text = slurp(path);
  ck_assert_uint_eq(strlen(text), 2 * 21 + 19 + 100 * (21 + 1001));
  free(text);
  free(buf);
  srv_access_log_close(log);
  unlink(path);
  rmdir(dir);
}
END_TEST

/* An HTTP answer's line, field by field as the printf form wrote it:
 * the target masked, the time in milliseconds rounded to three
 * decimals. */
START_TEST(test_http_line) {
  make_dir();
  char path[128];
  snprintf(path, sizeof path, "%s/http.log", dir);
  srv_access_log_t *log = NULL;
  ck_assert_int_eq(srv_access_log_open(path, &log), 0);
  srv_access_log_buffer_t *buf = calloc(1, sizeof *buf);
  srv_access_log_http(log, buf,
                      &(srv_access_http_line_t){.client = "127.0.0.1:5000",
                                                .token = "-",
                                                .method = "GET",
                                                .target = "/v1/pose?a=\"x\x01",
                                                .route = "pose",
                                                .http_minor = 1,
                                                .status = 200,
                                                .bytes = 4288,
                                                .ns = 74499});
  srv_access_log_http(log, buf,
                      &(srv_access_http_line_t){.client = "::1",
                                                .token = "0123abcd",
                                                .method = "DELETE",
                                                .target = "/v1/clips/x",
                                                .route = "none",
                                                .http_minor = 0,
                                                .status = 404,
                                                .bytes = 0,
                                                .ns = 12345678901ull});
  srv_access_log_flush(log, buf);
  char *text = slurp(path);
  ck_assert(line_is(text, "127.0.0.1:5000 - \"GET /v1/pose?a=?x? HTTP/1.1\" "
                          "200 4288 0.074ms pose"));
  const char *second = strchr(text, '\n') + 1;
  ck_assert(line_is(second, "::1 0123abcd \"DELETE /v1/clips/x HTTP/1.0\" "
                            "404 0 12345.679ms none"));
  free(text);
  free(buf);
  srv_access_log_close(log);
  unlink(path);
  rmdir(dir);
}
END_TEST

Suite *server_access_log_suite(void) {
  Suite *s = suite_create("server_access_log");
  TCase *tc = tcase_create("access_log");
  tcase_add_test(tc, test_off_and_stderr);
  tcase_add_test(tc, test_file_lines_and_rotation);
  tcase_add_test(tc, test_open_errors);
  tcase_add_test(tc, test_long_line_cut);
  tcase_add_test(tc, test_lines_whole_from_threads);
  tcase_add_test(tc, test_mask);
  tcase_add_test(tc, test_buffered_lines);
  tcase_add_test(tc, test_http_line);
  suite_add_tcase(s, tc);
  return s;
}
