/* Tests for the configuration: defaults, the key = value file, flags
 * overriding the file, units, and errors naming the line. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server/config.h"

static char *write_tmp(const char *text) {
  static char path[64];
  snprintf(path, sizeof path, "/tmp/animd-cfg-XXXXXX");
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(write(fd, text, strlen(text)), (int)strlen(text));
  close(fd);
  return path;
}

START_TEST(test_defaults) {
  srv_config_t c;
  srv_config_defaults(&c);
  ck_assert_uint_eq(c.max_header_size, 16384);
  ck_assert_uint_eq(c.max_body_size, 64u * 1024 * 1024);
  ck_assert_uint_eq(c.max_frames, 100000);
  ck_assert_str_eq(c.listen, "127.0.0.1:8080");
  ck_assert_uint_eq(c.inline_cost, 2000);
  ck_assert(c.inline_yield);
  char *argv[] = {"animd", "--inline-yield", "false", NULL};
  char err[128];
  ck_assert_int_eq(srv_config_parse_args(&c, 3, argv, stdout, err, sizeof err),
                   0);
  ck_assert(!c.inline_yield);
}
END_TEST

START_TEST(test_file_and_units) {
  char *path = write_tmp("# comment\n\nmax_body_size = 2MiB\n"
                         "max_header_size=8k\nidle_timeout = 1500ms\n"
                         "header_timeout = 3s\nworkers = 3\n"
                         "data_dir = \"/tmp/x y\"\ndemo = yes\n"
                         "access_log = \"\"\n");
  srv_config_t c;
  srv_config_defaults(&c);
  char err[256];
  ck_assert_int_eq(srv_config_load(&c, path, err, sizeof err), 0);
  unlink(path);
  ck_assert_uint_eq(c.max_body_size, 2u * 1024 * 1024);
  ck_assert_uint_eq(c.max_header_size, 8192);
  ck_assert_uint_eq(c.idle_timeout_ms, 1500);
  ck_assert_uint_eq(c.header_timeout_ms, 3000);
  ck_assert_uint_eq(c.workers, 3);
  ck_assert_str_eq(c.data_dir, "/tmp/x y");
  ck_assert_str_eq(c.access_log, "");
  ck_assert(c.demo);
}
END_TEST

START_TEST(test_errors_name_line) {
  char *path = write_tmp("workers = 2\nmax_body_size = lots\n");
  srv_config_t c;
  srv_config_defaults(&c);
  char err[512];
  ck_assert_int_eq(srv_config_load(&c, path, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, ":2: max_body_size: bad value"));
  unlink(path);
  path = write_tmp("no_such_key = 1\n");
  ck_assert_int_eq(srv_config_load(&c, path, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, ":1: unknown setting 'no_such_key'"));
  unlink(path);
  path = write_tmp("workers\n");
  ck_assert_int_eq(srv_config_load(&c, path, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, ":1: expected key = value"));
  unlink(path);
  ck_assert_int_eq(srv_config_set(&c, "workers", "-1", err, sizeof err), -1);
  ck_assert_int_eq(
      srv_config_set(&c, "workers", "99999999999", err, sizeof err), -1);
  /* A duration needs its unit: a bare number is refused (but 0). */
  ck_assert_int_eq(srv_config_set(&c, "idle_timeout", "10000", err, sizeof err),
                   -1);
  ck_assert_ptr_nonnull(strstr(err, "a duration needs its unit"));
  ck_assert_int_eq(srv_config_set(&c, "idle_timeout", "5mins", err, sizeof err),
                   -1);
  ck_assert_int_eq(srv_config_set(&c, "idle_timeout", "5min", err, sizeof err),
                   0);
  ck_assert_uint_eq(c.idle_timeout_ms, 300000);
  ck_assert_int_eq(srv_config_set(&c, "drain_timeout", "2h", err, sizeof err),
                   0);
  ck_assert_uint_eq(c.drain_timeout_ms, 7200000);
  ck_assert_int_eq(srv_config_set(&c, "body_timeout", "0", err, sizeof err), 0);
  ck_assert_uint_eq(c.body_timeout_ms, 0);
}
END_TEST

START_TEST(test_flags_override_file) {
  char *path = write_tmp("max_frames = 10\nlisten = 0.0.0.0:1\n");
  srv_config_t c;
  srv_config_defaults(&c);
  /* The flag comes before --config on the line and still wins. */
  char *argv[] = {"animd",  "--max-frames", "77", "--config", path,
                  "--demo", "--access-log", "-",  NULL};
  char err[256];
  ck_assert_int_eq(srv_config_parse_args(&c, 8, argv, stdout, err, sizeof err),
                   0);
  unlink(path);
  ck_assert_uint_eq(c.max_frames, 77);
  ck_assert_str_eq(c.listen, "0.0.0.0:1");
  ck_assert(c.demo);
  char *bad[] = {"animd", "--bogus", NULL};
  ck_assert_int_eq(srv_config_parse_args(&c, 2, bad, stdout, err, sizeof err),
                   -1);
  ck_assert_ptr_nonnull(strstr(err, "--bogus"));
  char *missing[] = {"animd", "--workers", NULL};
  ck_assert_int_eq(
      srv_config_parse_args(&c, 2, missing, stdout, err, sizeof err), -1);
}
END_TEST

START_TEST(test_help_lists_every_flag) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  srv_config_t c;
  srv_config_defaults(&c);
  char *argv[] = {"animd", "--help", NULL};
  char err[64];
  ck_assert_int_eq(srv_config_parse_args(&c, 2, argv, f, err, sizeof err), 1);
  fclose(f);
  const char *flags[] = {"--listen",          "--ready-file",
                         "--data-dir",        "--access-log",
                         "--workers",         "--queue-max",
                         "--max-connections", "--max-header-size",
                         "--max-body-size",   "--header-timeout",
                         "--idle-timeout",    "--drain-timeout",
                         "--max-frames",      "--memory-limit",
                         "--inline-cost",     "--demo",
                         "--config",          "animd eval"};
  for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
    ck_assert_msg(strstr(buf, flags[i]) != NULL, "missing %s", flags[i]);
  free(buf);
}
END_TEST

START_TEST(test_host_port) {
  char host[64];
  int port;
  ck_assert_int_eq(srv_parse_host_port("127.0.0.1:0", host, sizeof host, &port),
                   0);
  ck_assert_str_eq(host, "127.0.0.1");
  ck_assert_int_eq(port, 0);
  ck_assert_int_eq(srv_parse_host_port("[::1]:8080", host, sizeof host, &port),
                   0);
  ck_assert_str_eq(host, "::1");
  ck_assert_int_eq(port, 8080);
  ck_assert_int_eq(srv_parse_host_port("localhost", host, sizeof host, &port),
                   -1);
  ck_assert_int_eq(srv_parse_host_port("h:70000", host, sizeof host, &port),
                   -1);
  ck_assert_int_eq(srv_parse_host_port(":80", host, sizeof host, &port), -1);
}
END_TEST

Suite *server_config_suite(void) {
  Suite *s = suite_create("server_config");
  TCase *tc = tcase_create("config");
  tcase_add_test(tc, test_defaults);
  tcase_add_test(tc, test_file_and_units);
  tcase_add_test(tc, test_errors_name_line);
  tcase_add_test(tc, test_flags_override_file);
  tcase_add_test(tc, test_help_lists_every_flag);
  tcase_add_test(tc, test_host_port);
  suite_add_tcase(s, tc);
  return s;
}
