/* Tests for every configuration key (server/config.h): each default, a
 * good value of each type in the file and as a flag, and each kind of bad
 * value with the exact message it gets (sizes and their suffixes,
 * durations and rates with their units, booleans, numbers out of range,
 * strings too long, choice lists, origin lists); the order of --config and
 * flags, --help anywhere, boolean flags with and without a value, and
 * host:port parsing. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server/config.h"
#include "server/web/static.h"

START_TEST(test_every_default) {
  srv_config_t c;
  memset(&c, 0x5a, sizeof c);
  srv_config_defaults(&c);
  ck_assert_str_eq(c.listen, "127.0.0.1:8080");
  ck_assert_str_eq(c.ready_file, "");
  ck_assert_str_eq(c.data_dir, "");
  ck_assert_str_eq(c.store, "file");
  ck_assert_uint_eq(c.redis_timeout_ms, 2000);
  ck_assert_uint_eq(c.redis_pool, 4);
  ck_assert_uint_eq(c.miss_ttl_ms, 1000);
  ck_assert_uint_eq(c.list_limit, 1000);
  ck_assert_uint_eq(c.list_limit_max, 10000);
  ck_assert_str_eq(c.access_log, "-");
  ck_assert_uint_eq(c.workers, 0);
  ck_assert_uint_eq(c.queue_max, 1024);
  ck_assert_uint_eq(c.max_connections, 4096);
  ck_assert_uint_eq(c.max_header_size, 16384);
  ck_assert_uint_eq(c.max_body_size, 64u << 20);
  ck_assert_uint_eq(c.header_timeout_ms, 10000);
  ck_assert_uint_eq(c.idle_timeout_ms, 60000);
  ck_assert_uint_eq(c.body_timeout_ms, 30000);
  ck_assert_uint_eq(c.min_body_rate, 16384);
  ck_assert_uint_eq(c.drain_timeout_ms, 10000);
  ck_assert_uint_eq(c.max_frames, 100000);
  ck_assert_uint_eq(c.max_suite_cases, 1000);
  ck_assert_uint_eq(c.max_answer_bytes, (size_t)64 << 20);
  ck_assert_uint_eq(c.memory_limit, (size_t)1 << 30);
  ck_assert_uint_eq(c.inline_cost, 2000);
  ck_assert(c.inline_yield);
  ck_assert_uint_eq(c.stream_high_water, 256 * 1024);
  ck_assert_uint_eq(c.http_threads, 0);
  ck_assert_uint_eq(c.stream_threads, 0);
  ck_assert_uint_eq(c.stream_cache_size, 64u << 20);
  ck_assert(c.stream_io_uring);
  ck_assert(!c.demo);
  ck_assert_str_eq(c.tokens_file, "");
  ck_assert(!c.auth_reads);
  ck_assert(!c.auth_metrics);
  ck_assert(!c.allow_anonymous_writes);
  ck_assert_str_eq(c.rate_limits, "auto");
  ck_assert(c.connection_rate == 50);
  ck_assert_uint_eq(c.connection_burst, 200);
  ck_assert(c.write_rate == 10);
  ck_assert_uint_eq(c.write_burst, 50);
  ck_assert_uint_eq(c.rate_table_size, 16384);
  ck_assert_str_eq(c.trusted_proxies, "");
  ck_assert_str_eq(c.allowed_origins, "loopback");
  ck_assert_str_eq(c.allowed_hosts, "");
  ck_assert_str_eq(c.three_dir, SRV_THREE_DIR);
}
END_TEST

/* One key set to a value: the field it lands in, as text. */
typedef struct keycase_s {
  const char *key;
  const char *value;
  const char *want; /* The field afterwards, printed. */
} keycase_t;

static void field_text(const srv_config_t *c, const char *key, char *out,
                       size_t cap) {
#define STR(k)                                                                 \
  if (strcmp(key, #k) == 0) {                                                  \
    snprintf(out, cap, "%s", c->k);                                            \
    return;                                                                    \
  }
#define NUM(k, name)                                                           \
  if (strcmp(key, name) == 0) {                                                \
    snprintf(out, cap, "%llu", (unsigned long long)c->k);                      \
    return;                                                                    \
  }
#define BOOL(k)                                                                \
  if (strcmp(key, #k) == 0) {                                                  \
    snprintf(out, cap, "%s", c->k ? "true" : "false");                         \
    return;                                                                    \
  }
#define RATE(k)                                                                \
  if (strcmp(key, #k) == 0) {                                                  \
    snprintf(out, cap, "%.6g", c->k);                                          \
    return;                                                                    \
  }
  STR(listen)
  STR(ready_file)
  STR(data_dir)
  STR(store)
  NUM(redis_timeout_ms, "redis_timeout")
  NUM(redis_pool, "redis_pool")
  NUM(miss_ttl_ms, "miss_ttl")
  NUM(list_limit, "list_limit")
  NUM(list_limit_max, "list_limit_max")
  STR(access_log)
  NUM(workers, "workers")
  NUM(queue_max, "queue_max")
  NUM(max_connections, "max_connections")
  NUM(max_header_size, "max_header_size")
  NUM(max_body_size, "max_body_size")
  NUM(header_timeout_ms, "header_timeout")
  NUM(idle_timeout_ms, "idle_timeout")
  NUM(body_timeout_ms, "body_timeout")
  NUM(min_body_rate, "min_body_rate")
  NUM(drain_timeout_ms, "drain_timeout")
  NUM(max_frames, "max_frames")
  NUM(max_frames_svg, "max_frames_svg")
  NUM(max_suite_cases, "max_suite_cases")
  NUM(max_answer_bytes, "max_answer_bytes")
  NUM(memory_limit, "memory_limit")
  NUM(inline_cost, "inline_cost")
  BOOL(inline_yield)
  NUM(stream_high_water, "stream_high_water")
  NUM(http_threads, "http_threads")
  NUM(stream_threads, "stream_threads")
  NUM(stream_cache_size, "stream_cache_size")
  BOOL(stream_io_uring)
  BOOL(demo)
  STR(tokens_file)
  BOOL(auth_reads)
  BOOL(auth_metrics)
  BOOL(allow_anonymous_writes)
  STR(rate_limits)
  RATE(connection_rate)
  NUM(connection_burst, "connection_burst")
  RATE(write_rate)
  NUM(write_burst, "write_burst")
  NUM(rate_table_size, "rate_table_size")
  STR(trusted_proxies)
  STR(allowed_origins)
  STR(allowed_hosts)
  STR(three_dir)
#undef STR
#undef NUM
#undef BOOL
#undef RATE
  ck_abort_msg("no field for key %s", key);
}

static const keycase_t good[] = {
    {"listen", "[::1]:0", "[::1]:0"},
    {"ready_file", "/run/animd.ready", "/run/animd.ready"},
    {"data_dir", "/var/lib/animd", "/var/lib/animd"},
    {"store", "redis://127.0.0.1:6379/2", "redis://127.0.0.1:6379/2"},
    {"redis_timeout", "250ms", "250"},
    {"redis_pool", "16", "16"},
    {"miss_ttl", "0", "0"},
    {"list_limit", "100", "100"},
    {"list_limit_max", "500", "500"},
    {"access_log", "", ""},
    {"workers", "8", "8"},
    {"queue_max", "0", "0"},
    {"max_connections", "4294967295", "4294967295"},
    {"max_header_size", "32K", "32768"},
    {"max_body_size", "1G", "1073741824"},
    {"header_timeout", "2s", "2000"},
    {"idle_timeout", "1min", "60000"},
    {"body_timeout", "1h", "3600000"},
    {"min_body_rate", "100", "100"},
    {"drain_timeout", "0", "0"},
    {"max_frames", "12", "12"},
    {"max_frames_svg", "9", "9"},
    {"max_suite_cases", "7", "7"},
    {"max_answer_bytes", "3MiB", "3145728"},
    {"memory_limit", "512MiB", "536870912"},
    {"inline_cost", "67", "67"},
    {"inline_yield", "off", "false"},
    {"stream_high_water", "64KiB", "65536"},
    {"http_threads", "2", "2"},
    {"stream_threads", "3", "3"},
    {"stream_cache_size", "7B", "7"},
    {"stream_io_uring", "no", "false"},
    {"demo", "1", "true"},
    {"tokens_file", "/etc/animd/tokens", "/etc/animd/tokens"},
    {"auth_reads", "yes", "true"},
    {"auth_metrics", "on", "true"},
    {"allow_anonymous_writes", "true", "true"},
    {"rate_limits", "off", "off"},
    {"connection_rate", "30/min", "0.5"},
    {"connection_burst", "5", "5"},
    {"write_rate", "360/h", "0.1"},
    {"write_burst", "1", "1"},
    {"rate_table_size", "100", "100"},
    {"trusted_proxies", "10.0.0.0/8, ::1", "10.0.0.0/8, ::1"},
    {"allowed_origins", "http://a.example:8000 null",
     "http://a.example:8000 null"},
    {"allowed_hosts", "animd.example, 10.0.0.5 [fd00::1] *",
     "animd.example, 10.0.0.5 [fd00::1] *"},
    {"three_dir", "", ""},
};

START_TEST(test_every_key_good) {
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    srv_config_t c;
    srv_config_defaults(&c);
    char err[512] = "";
    ck_assert_msg(
        srv_config_set(&c, good[i].key, good[i].value, err, sizeof err) == 0,
        "%s = %s: %s", good[i].key, good[i].value, err);
    char got[1100];
    field_text(&c, good[i].key, got, sizeof got);
    ck_assert_msg(strcmp(got, good[i].want) == 0, "%s = %s: got %s, want %s",
                  good[i].key, good[i].value, got, good[i].want);
  }
}
END_TEST

/* The same through flags: --key-with-dashes VALUE. */
START_TEST(test_every_key_as_flag) {
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    char flag[80];
    snprintf(flag, sizeof flag, "--%s", good[i].key);
    for (char *p = flag + 2; *p; p++)
      if (*p == '_') *p = '-';
    srv_config_t c;
    srv_config_defaults(&c);
    char *argv[] = {"animd", flag, (char *)good[i].value, NULL};
    char err[512] = "";
    bool is_bool =
        strcmp(good[i].want, "true") == 0 || strcmp(good[i].want, "false") == 0;
    if (is_bool) {
      /* A boolean flag alone turns the setting on; true/false may
       * follow it. */
      ck_assert_int_eq(
          srv_config_parse_args(&c, 2, argv, stdout, err, sizeof err), 0);
      char got[16];
      field_text(&c, good[i].key, got, sizeof got);
      ck_assert_msg(strcmp(got, "true") == 0, "%s alone: %s", flag, got);
      continue;
    }
    ck_assert_msg(srv_config_parse_args(&c, 3, argv, stdout, err, sizeof err) ==
                      0,
                  "%s %s: %s", flag, good[i].value, err);
    char got[1100];
    field_text(&c, good[i].key, got, sizeof got);
    ck_assert_msg(strcmp(got, good[i].want) == 0, "%s %s: got %s", flag,
                  good[i].value, got);
  }
}
END_TEST

/* A bad value and the whole message it gets. */
static const struct {
  const char *key, *value, *msg;
} bad[] = {
    {"workers", "", "workers: bad value ''"},
    {"workers", "two", "workers: bad value 'two'"},
    {"workers", "+2", "workers: bad value '+2'"},
    {"workers", " 2", "workers: bad value ' 2'"},
    {"workers", "2 ", "workers: bad value '2 '"},
    {"workers", "4294967296", "workers: bad value '4294967296'"},
    {"workers", "99999999999999999999",
     "workers: bad value "
     "'99999999999999999999'"},
    {"max_body_size", "1T", "max_body_size: bad value '1T'"},
    {"max_body_size", "1kB", "max_body_size: bad value '1kB'"},
    {"max_body_size", "1m", "max_body_size: bad value '1m'"},
    {"max_body_size", "-1", "max_body_size: bad value '-1'"},
    {"max_body_size", "1.5M", "max_body_size: bad value '1.5M'"},
    {"max_body_size", "18446744073709551615K",
     "max_body_size: bad value '18446744073709551615K'"},
    {"idle_timeout", "10",
     "idle_timeout: bad value '10' (a duration needs "
     "its unit: 500ms, 10s, 2min, 1h)"},
    {"idle_timeout", "1d",
     "idle_timeout: bad value '1d' (a duration needs "
     "its unit: 500ms, 10s, 2min, 1h)"},
    {"redis_timeout", "1.5s",
     "redis_timeout: bad value '1.5s' (a duration "
     "needs its unit: 500ms, 10s, 2min, 1h)"},
    {"header_timeout", "18446744073709551615h",
     "header_timeout: bad value '18446744073709551615h' (a duration needs "
     "its unit: 500ms, 10s, 2min, 1h)"},
    {"write_rate", "10",
     "write_rate: bad value '10' (a rate is a count per "
     "unit: 10/s, 30/min, 100/h)"},
    {"write_rate", "10/day",
     "write_rate: bad value '10/day' (a rate is a "
     "count per unit: 10/s, 30/min, 100/h)"},
    {"connection_rate", "1000000001/s",
     "connection_rate: bad value '1000000001/s' (a rate is a count per "
     "unit: 10/s, 30/min, 100/h)"},
    {"demo", "maybe", "demo: bad value 'maybe'"},
    {"demo", "TRUE", "demo: bad value 'TRUE'"},
    {"demo", "", "demo: bad value ''"},
    {"rate_limits", "sometimes",
     "rate_limits: bad value 'sometimes' (one of "
     "auto|on|off)"},
    {"rate_limits", "", "rate_limits: bad value '' (one of auto|on|off)"},
    {"rate_limits", "autoo",
     "rate_limits: bad value 'autoo' (one of "
     "auto|on|off)"},
    {"nope", "1", "unknown setting 'nope'"},
    {"", "1", "unknown setting ''"},
    {"max-frames", "1",
     "unknown setting 'max-frames'; did you mean 'max_frames'?"},
    {"lisen", "x", "unknown setting 'lisen'; did you mean 'listen'?"},
};

START_TEST(test_bad_values) {
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    srv_config_t c, before;
    srv_config_defaults(&c);
    before = c;
    char err[512] = "";
    ck_assert_msg(
        srv_config_set(&c, bad[i].key, bad[i].value, err, sizeof err) == -1,
        "%s = '%s' accepted", bad[i].key, bad[i].value);
    ck_assert_str_eq(err, bad[i].msg);
    /* A refused value changes nothing. */
    ck_assert_msg(memcmp(&c, &before, sizeof c) == 0, "%s changed", bad[i].key);
  }
}
END_TEST

START_TEST(test_limits_of_values) {
  srv_config_t c;
  srv_config_defaults(&c);
  char err[512];
  /* The largest unsigned setting. */
  ck_assert_int_eq(
      srv_config_set(&c, "max_frames", "4294967295", err, sizeof err), 0);
  ck_assert_uint_eq(c.max_frames, UINT32_MAX);
  /* Sizes up to what fits in 64 bits with their suffix. */
  ck_assert_int_eq(
      srv_config_set(&c, "memory_limit", "17179869183G", err, sizeof err), 0);
  ck_assert_uint_eq(c.memory_limit, 17179869183ull << 30);
  ck_assert_int_eq(
      srv_config_set(&c, "memory_limit", "17179869184G", err, sizeof err), -1);
  /* Every size suffix. */
  static const struct {
    const char *v;
    size_t want;
  } sizes[] = {{"3", 3},           {"3B", 3},          {"3k", 3072},
               {"3K", 3072},       {"3KiB", 3072},     {"3M", 3u << 20},
               {"3MiB", 3u << 20}, {"3G", 3ull << 30}, {"3GiB", 3ull << 30}};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    ck_assert_int_eq(
        srv_config_set(&c, "stream_cache_size", sizes[i].v, err, sizeof err),
        0);
    ck_assert_uint_eq(c.stream_cache_size, sizes[i].want);
  }
  /* Rates: 0 may go bare; per second, minute and hour. */
  ck_assert_int_eq(srv_config_set(&c, "write_rate", "0", err, sizeof err), 0);
  ck_assert(c.write_rate == 0);
  ck_assert_int_eq(srv_config_set(&c, "write_rate", "7/s", err, sizeof err), 0);
  ck_assert(c.write_rate == 7);
  ck_assert_int_eq(
      srv_config_set(&c, "write_rate", "1000000000/s", err, sizeof err), 0);
  ck_assert(c.write_rate == 1e9);
  ck_assert_int_eq(srv_config_set(&c, "write_rate", "1/h", err, sizeof err), 0);
  ck_assert(fabs(c.write_rate - 1.0 / 3600) < 1e-15);
  /* Durations: 0ms and 0 alike. */
  ck_assert_int_eq(srv_config_set(&c, "idle_timeout", "0ms", err, sizeof err),
                   0);
  ck_assert_uint_eq(c.idle_timeout_ms, 0);
}
END_TEST

START_TEST(test_strings_too_long) {
  static const struct {
    const char *key;
    size_t cap;
  } strs[] = {{"listen", 256},           {"ready_file", 1024},
              {"data_dir", 1024},        {"store", 300},
              {"access_log", 1024},      {"tokens_file", 1024},
              {"trusted_proxies", 1024}, {"three_dir", 1024}};
  for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) {
    char *v = malloc(strs[i].cap + 1);
    srv_config_t c;
    srv_config_defaults(&c);
    char err[512];
    /* cap - 1 bytes fit with their NUL; cap do not. */
    memset(v, 'x', strs[i].cap - 1);
    v[strs[i].cap - 1] = '\0';
    ck_assert_msg(srv_config_set(&c, strs[i].key, v, err, sizeof err) == 0,
                  "%s: %s", strs[i].key, err);
    char got[1100];
    field_text(&c, strs[i].key, got, sizeof got);
    ck_assert_uint_eq(strlen(got), strs[i].cap - 1);
    memset(v, 'x', strs[i].cap);
    v[strs[i].cap] = '\0';
    ck_assert_int_eq(srv_config_set(&c, strs[i].key, v, err, sizeof err), -1);
    char want[128];
    snprintf(want, sizeof want, "%s: value too long", strs[i].key);
    ck_assert_str_eq(err, want);
    free(v);
  }
}
END_TEST

START_TEST(test_allowed_origins_checked) {
  srv_config_t c;
  srv_config_defaults(&c);
  char err[512];
  ck_assert_int_eq(srv_config_set(&c, "allowed_origins", "*", err, sizeof err),
                   0);
  ck_assert_str_eq(c.allowed_origins, "*");
  ck_assert_int_eq(
      srv_config_set(&c, "allowed_origins", "ftp://x.example", err, sizeof err),
      -1);
  ck_assert(strncmp(err, "allowed_origins: ", 17) == 0);
  ck_assert_ptr_nonnull(strstr(err, "ftp://x.example"));
  /* The old list stays. */
  ck_assert_str_eq(c.allowed_origins, "*");
}
END_TEST

static char *write_tmp(const char *text) {
  static char path[64];
  snprintf(path, sizeof path, "/tmp/animd-cfgk-XXXXXX");
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(write(fd, text, strlen(text)), (int)strlen(text));
  close(fd);
  return path;
}

START_TEST(test_file_syntax) {
  char *path = write_tmp("  # indented comment\n"
                         "\t\n"
                         "  workers   =   5  \n"
                         "listen=\"127.0.0.1:9\"\n"
                         "trusted_proxies = \"10.0.0.1 10.0.0.2\"\n"
                         "access_log = \"\"\n"
                         "ready_file = \"unbalanced\n"
                         "data_dir = a=b\n"
                         "write_rate = 5/s # not a comment\n");
  srv_config_t c;
  srv_config_defaults(&c);
  char err[512] = "";
  /* A '#' after a value is part of it: the rate is refused. */
  ck_assert_int_eq(srv_config_load(&c, path, err, sizeof err), -1);
  char want[600];
  snprintf(want, sizeof want,
           "%s:9: write_rate: bad value '5/s # not a comment' (a rate is a "
           "count per unit: 10/s, 30/min, 100/h)",
           path);
  ck_assert_str_eq(err, want);
  /* Everything before the bad line was applied. */
  ck_assert_uint_eq(c.workers, 5);
  ck_assert_str_eq(c.listen, "127.0.0.1:9");
  ck_assert_str_eq(c.trusted_proxies, "10.0.0.1 10.0.0.2");
  ck_assert_str_eq(c.access_log, "");
  ck_assert_str_eq(c.ready_file, "\"unbalanced");
  ck_assert_str_eq(c.data_dir, "a=b");
  unlink(path);
  /* A file that is not there. */
  ck_assert_int_eq(
      srv_config_load(&c, "/nonexistent/animd.conf", err, sizeof err), -1);
  ck_assert_str_eq(err, "/nonexistent/animd.conf: No such file or directory");
  /* An empty file is fine. */
  path = write_tmp("");
  ck_assert_int_eq(srv_config_load(&c, path, err, sizeof err), 0);
  unlink(path);
}
END_TEST

START_TEST(test_flag_rules) {
  srv_config_t c;
  char err[512];
  /* --help anywhere wins, even after a bad flag. */
  srv_config_defaults(&c);
  char *help[] = {"animd", "--bogus", "-h", NULL};
  FILE *null = fopen("/dev/null", "w");
  ck_assert_int_eq(srv_config_parse_args(&c, 3, help, null, err, sizeof err),
                   1);
  fclose(null);
  /* A boolean flag followed by a word that is not true/false: that word
   * is the next flag. */
  srv_config_defaults(&c);
  char *b1[] = {"animd",     "--demo", "false", "--auth-reads",
                "--workers", "2",      NULL};
  ck_assert_int_eq(srv_config_parse_args(&c, 6, b1, stdout, err, sizeof err),
                   0);
  ck_assert(!c.demo);
  ck_assert(c.auth_reads);
  ck_assert_uint_eq(c.workers, 2);
  char *b2[] = {"animd", "--demo", "yes", NULL};
  ck_assert_int_eq(srv_config_parse_args(&c, 3, b2, stdout, err, sizeof err),
                   -1);
  ck_assert_str_eq(err, "unknown option 'yes' (see --help)");
  /* A later flag overrides an earlier one. */
  char *twice[] = {"animd", "--workers", "2", "--workers", "9", NULL};
  ck_assert_int_eq(srv_config_parse_args(&c, 5, twice, stdout, err, sizeof err),
                   0);
  ck_assert_uint_eq(c.workers, 9);
  /* Underscores in a flag are as good as dashes. */
  char *under[] = {"animd", "--max_frames", "3", NULL};
  ck_assert_int_eq(srv_config_parse_args(&c, 3, under, stdout, err, sizeof err),
                   0);
  ck_assert_uint_eq(c.max_frames, 3);
  char *single[] = {"animd", "-workers", "3", NULL};
  ck_assert_int_eq(
      srv_config_parse_args(&c, 3, single, stdout, err, sizeof err), -1);
  ck_assert_str_eq(err, "unknown option '-workers' (see --help)");
  /* Messages of flags. */
  char *nofile[] = {"animd", "--config", NULL};
  ck_assert_int_eq(
      srv_config_parse_args(&c, 2, nofile, stdout, err, sizeof err), -1);
  ck_assert_str_eq(err, "--config needs a file");
  char *novalue[] = {"animd", "--listen", NULL};
  ck_assert_int_eq(
      srv_config_parse_args(&c, 2, novalue, stdout, err, sizeof err), -1);
  ck_assert_str_eq(err, "--listen needs a value");
  char *badvalue[] = {"animd", "--idle-timeout", "5", NULL};
  ck_assert_int_eq(
      srv_config_parse_args(&c, 3, badvalue, stdout, err, sizeof err), -1);
  ck_assert_str_eq(err, "idle_timeout: bad value '5' (a duration needs its "
                        "unit: 500ms, 10s, 2min, 1h)");
  /* No flags at all: nothing changes. */
  srv_config_t d, e;
  srv_config_defaults(&d);
  e = d;
  char *none[] = {"animd", NULL};
  ck_assert_int_eq(srv_config_parse_args(&d, 1, none, stdout, err, sizeof err),
                   0);
  ck_assert(memcmp(&d, &e, sizeof d) == 0);
}
END_TEST

START_TEST(test_config_file_then_flags) {
  char *p1 = write_tmp("workers = 4\nmax_frames = 10\n");
  char first[64];
  snprintf(first, sizeof first, "%s", p1);
  char second[64];
  snprintf(second, sizeof second, "%s", write_tmp("workers = 6\n"));
  char *p2 = second;
  srv_config_t c;
  srv_config_defaults(&c);
  char err[512];
  /* Two files in order, then the flags, wherever they stand. */
  char *argv[] = {"animd", "--workers", "1", "--config",
                  first,   "--config",  p2,  NULL};
  ck_assert_int_eq(srv_config_parse_args(&c, 7, argv, stdout, err, sizeof err),
                   0);
  ck_assert_uint_eq(c.workers, 1);
  ck_assert_uint_eq(c.max_frames, 10);
  /* A bad file: its message, and nothing of the flags. */
  char *p3 = write_tmp("\nworkers = many\n");
  srv_config_defaults(&c);
  char *argv2[] = {"animd", "--max-frames", "5", "--config", p3, NULL};
  ck_assert_int_eq(srv_config_parse_args(&c, 5, argv2, stdout, err, sizeof err),
                   -1);
  char want[256];
  snprintf(want, sizeof want, "%s:2: workers: bad value 'many'", p3);
  ck_assert_str_eq(err, want);
  ck_assert_uint_eq(c.max_frames, 100000);
  unlink(first);
  unlink(p2);
  unlink(p3);
}
END_TEST

START_TEST(test_help_text) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  srv_config_print_help(f);
  fclose(f);
  /* Each kind of argument is named. */
  ck_assert_ptr_nonnull(strstr(buf, "  --listen S "));
  ck_assert_ptr_nonnull(strstr(buf, "  --workers N "));
  ck_assert_ptr_nonnull(strstr(buf, "  --max-body-size BYTES "));
  ck_assert_ptr_nonnull(strstr(buf, "  --idle-timeout DURATION "));
  ck_assert_ptr_nonnull(strstr(buf, "  --write-rate RATE "));
  ck_assert_ptr_nonnull(strstr(buf, "  --demo[=BOOL] "));
  /* Every option shows its default, as the config file spells it. */
  ck_assert_ptr_nonnull(strstr(buf, "(default: 127.0.0.1:8080)"));
  ck_assert_ptr_nonnull(strstr(buf, "(default: 64MiB)"));
  ck_assert_ptr_nonnull(strstr(buf, "(default: 60s)"));
  ck_assert_ptr_nonnull(strstr(buf, "(default: 50/s)"));
  ck_assert_ptr_null(strstr(buf, "--demo N"));
  ck_assert_ptr_nonnull(strstr(buf, "usage: animd [--config FILE]"));
  ck_assert_ptr_nonnull(strstr(buf, "A RATE is a count per unit"));
  free(buf);
}
END_TEST

/* Every option of the table as --name=value and as --name value: the same
 * settings (each given its default, read back from the table), and
 * booleans as --flag=true|false|1|0. */
START_TEST(test_every_option_with_equals) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  srv_config_print_defaults(f);
  fclose(f);
  srv_config_t want;
  srv_config_defaults(&want);
  unsigned options = 0;
  for (char *line = strtok(buf, "\n"); line != NULL;
       line = strtok(NULL, "\n")) {
    char *tab = strchr(line, '\t');
    ck_assert_ptr_nonnull(tab);
    *tab = '\0';
    char flag[96], glued[1200];
    snprintf(flag, sizeof flag, "--%s", line);
    for (char *p = flag + 2; *p; p++)
      if (*p == '_') *p = '-';
    snprintf(glued, sizeof glued, "%s=%s", flag, tab + 1);
    char err[512] = "";
    srv_config_t a, b;
    srv_config_defaults(&a);
    srv_config_defaults(&b);
    char *one[] = {"animd", glued, NULL};
    char *two[] = {"animd", flag, tab + 1, NULL};
    ck_assert_msg(srv_config_parse_args(&a, 2, one, stdout, err, sizeof err) ==
                      0,
                  "%s: %s", glued, err);
    ck_assert_msg(memcmp(&a, &want, sizeof a) == 0, "%s changed a setting",
                  glued);
    /* A boolean alone takes no value: --demo false is --demo=false. */
    ck_assert_msg(srv_config_parse_args(&b, 3, two, stdout, err, sizeof err) ==
                      0,
                  "%s %s: %s", flag, tab + 1, err);
    ck_assert_msg(memcmp(&b, &want, sizeof b) == 0, "%s %s changed a setting",
                  flag, tab + 1);
    options++;
  }
  ck_assert_uint_ge(options, 40);
  free(buf);
  srv_config_t c;
  char err[512];
  static const struct {
    const char *arg;
    bool demo;
  } bools[] = {{"--demo=1", true},   {"--demo=true", true},
               {"--demo=yes", true}, {"--demo=on", true},
               {"--demo=0", false},  {"--demo=false", false},
               {"--demo=no", false}, {"--demo=off", false}};
  for (size_t i = 0; i < sizeof bools / sizeof bools[0]; i++) {
    srv_config_defaults(&c);
    c.demo = !bools[i].demo;
    char *argv[] = {"animd", (char *)bools[i].arg, NULL};
    ck_assert_int_eq(
        srv_config_parse_args(&c, 2, argv, stdout, err, sizeof err), 0);
    ck_assert_msg(c.demo == bools[i].demo, "%s", bools[i].arg);
  }
  char *maybe[] = {"animd", "--demo=maybe", NULL};
  ck_assert_int_eq(srv_config_parse_args(&c, 2, maybe, stdout, err, sizeof err),
                   -1);
  ck_assert_str_eq(err, "demo: bad value 'maybe'");
  char *workers[] = {"animd", "--workers=3", "--listen=[::1]:0", NULL};
  ck_assert_int_eq(
      srv_config_parse_args(&c, 3, workers, stdout, err, sizeof err), 0);
  ck_assert_uint_eq(c.workers, 3);
  ck_assert_str_eq(c.listen, "[::1]:0");
  /* Unknown options: the nearest one, or none when nothing is near. */
  char *typo[] = {"animd", "--lisen", "x", NULL};
  ck_assert_int_eq(srv_config_parse_args(&c, 3, typo, stdout, err, sizeof err),
                   -1);
  ck_assert_str_eq(err, "unknown option '--lisen' (see --help); did you mean "
                        "'--listen'?");
  char *typo2[] = {"animd", "--max-frame=3", NULL};
  ck_assert_int_eq(srv_config_parse_args(&c, 2, typo2, stdout, err, sizeof err),
                   -1);
  ck_assert_str_eq(err, "unknown option '--max-frame=3' (see --help); did you "
                        "mean '--max-frames'?");
  char *far[] = {"animd", "--zzzzzz", NULL};
  ck_assert_int_eq(srv_config_parse_args(&c, 2, far, stdout, err, sizeof err),
                   -1);
  ck_assert_str_eq(err, "unknown option '--zzzzzz' (see --help)");
  char *help_value[] = {"animd", "--version=2", NULL};
  ck_assert_int_eq(
      srv_config_parse_args(&c, 2, help_value, stdout, err, sizeof err), -1);
  ck_assert_str_eq(err, "--version takes no value");
  /* --config=FILE as well. */
  char *noconf[] = {"animd", "--config=", NULL};
  ck_assert_int_eq(
      srv_config_parse_args(&c, 2, noconf, stdout, err, sizeof err), -1);
  ck_assert_str_eq(err, "--config needs a file");
}
END_TEST

START_TEST(test_host_port_cases) {
  char host[64];
  int port = -1;
  ck_assert_int_eq(
      srv_parse_host_port("localhost:80", host, sizeof host, &port), 0);
  ck_assert_str_eq(host, "localhost");
  ck_assert_int_eq(port, 80);
  ck_assert_int_eq(
      srv_parse_host_port("[fe80::1%lo]:65535", host, sizeof host, &port), 0);
  ck_assert_str_eq(host, "fe80::1%lo");
  ck_assert_int_eq(port, 65535);
  /* The last colon splits a bare name. */
  ck_assert_int_eq(srv_parse_host_port("a:b:0", host, sizeof host, &port), 0);
  ck_assert_str_eq(host, "a:b");
  ck_assert_int_eq(port, 0);
  const char *bad_hp[] = {
      "",     "80",    ":80",     "h:",    "h:-1",         "h:65536",
      "h:8x", "[::1]", "[::1]80", "[]:80", "h:99999999999"};
  for (size_t i = 0; i < sizeof bad_hp / sizeof bad_hp[0]; i++)
    ck_assert_msg(srv_parse_host_port(bad_hp[i], host, sizeof host, &port) ==
                      -1,
                  "accepted '%s'", bad_hp[i]);
  /* A host longer than the buffer. */
  char small[4];
  ck_assert_int_eq(srv_parse_host_port("abcd:1", small, sizeof small, &port),
                   -1);
  ck_assert_int_eq(srv_parse_host_port("abc:1", small, sizeof small, &port), 0);
  ck_assert_str_eq(small, "abc");
}
END_TEST

Suite *server_config_keys_suite(void) {
  Suite *s = suite_create("server_config_keys");
  TCase *tc = tcase_create("keys");
  tcase_add_test(tc, test_every_default);
  tcase_add_test(tc, test_every_key_good);
  tcase_add_test(tc, test_every_key_as_flag);
  tcase_add_test(tc, test_bad_values);
  tcase_add_test(tc, test_limits_of_values);
  tcase_add_test(tc, test_strings_too_long);
  tcase_add_test(tc, test_allowed_origins_checked);
  tcase_add_test(tc, test_file_syntax);
  tcase_add_test(tc, test_flag_rules);
  tcase_add_test(tc, test_config_file_then_flags);
  tcase_add_test(tc, test_help_text);
  tcase_add_test(tc, test_every_option_with_equals);
  tcase_add_test(tc, test_host_port_cases);
  suite_add_tcase(s, tc);
  return s;
}
