/* server: configuration defaults, file and flag parsing (see config.h).
 *
 * One table describes every setting; the parsers, --help and the
 * documentation in config/animd.conf follow it. */
#include "server/config.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/help.h"
#include "formats/suggest.h"
#include "server/cors.h"
#include "server/hosts.h"

typedef enum cfg_type {
  CFG_STR,
  CFG_UINT,
  CFG_SIZE,
  CFG_MS,
  CFG_BOOL,
  CFG_RATE
} cfg_type;

typedef struct cfg_entry_s {
  const char *key;
  cfg_type type;
  size_t offset;
  size_t size; /* For strings: the buffer size. */
  const char *help;
} cfg_entry_t;

#define F(name) offsetof(srv_config_t, name)
#define S(name) sizeof(((srv_config_t *)0)->name)

static const cfg_entry_t entries[] = {
    {"listen", CFG_STR, F(listen), S(listen),
     "address to listen on, host:port ([::1]:port for IPv6; port 0 = any; a "
     "name such as localhost: every address it resolves to)"},
    {"ready_file", CFG_STR, F(ready_file), S(ready_file),
     "write the bound host:port to this file once listening"},
    {"data_dir", CFG_STR, F(data_dir), S(data_dir),
     "directory of the persistent store (empty: memory only)"},
    {"store", CFG_STR, F(store), S(store),
     "where assets live: file (this node: data_dir or memory), or "
     "redis://host:port/db shared by a fleet (this node's memory then "
     "caches it)"},
    {"redis_timeout", CFG_MS, F(redis_timeout_ms), 0,
     "with store = redis://: a command Redis has not answered within this "
     "time fails with 503 store_unavailable and the connection is made "
     "again"},
    {"redis_pool", CFG_UINT, F(redis_pool), 0,
     "with store = redis://: Redis connections kept for the loads of "
     "WebSocket misses (worker threads), at most (0 = 4)"},
    {"miss_ttl", CFG_MS, F(miss_ttl_ms), 0,
     "with store = redis://: an asset Redis does not have answers 404 "
     "without asking again for this long, unless something is uploaded "
     "meanwhile (0: always ask)"},
    {"list_limit", CFG_UINT, F(list_limit), 0,
     "assets a listing answers per page when ?limit= is not given (the "
     "answer's \"next\" continues it; 0 = 1000)"},
    {"list_limit_max", CFG_UINT, F(list_limit_max), 0,
     "largest ?limit= a listing accepts (400 beyond; 0 = 10000)"},
    {"access_log", CFG_STR, F(access_log), S(access_log),
     "access log: a file path, - for stderr, empty for none"},
    {"workers", CFG_UINT, F(workers), 0,
     "worker pool threads (0 = one per CPU)"},
    {"queue_max", CFG_UINT, F(queue_max), 0,
     "pool jobs allowed to wait; beyond it requests get 503"},
    {"max_connections", CFG_UINT, F(max_connections), 0,
     "open client connections; beyond it: 503 and close"},
    {"max_header_size", CFG_SIZE, F(max_header_size), 0,
     "request line plus headers, bytes (431 beyond)"},
    {"max_body_size", CFG_SIZE, F(max_body_size), 0,
     "request body, bytes (413 beyond)"},
    {"header_timeout", CFG_MS, F(header_timeout_ms), 0,
     "time from a request's first byte to the end of its headers (408)"},
    {"idle_timeout", CFG_MS, F(idle_timeout_ms), 0,
     "silence allowed on a keep-alive connection between requests, and "
     "time an answer may make no progress to a client that does not read"},
    {"body_timeout", CFG_MS, F(body_timeout_ms), 0,
     "time from the end of the headers to the end of the body, plus "
     "the body's size at min_body_rate (408)"},
    {"min_body_rate", CFG_SIZE, F(min_body_rate), 0,
     "bytes per second a body is allowed to arrive at, beyond "
     "body_timeout"},
    {"drain_timeout", CFG_MS, F(drain_timeout_ms), 0,
     "on SIGTERM, how long in-flight requests may take to finish"},
    {"max_frames", CFG_UINT, F(max_frames), 0,
     "frames one range request may ask for (400 beyond)"},
    {"max_frames_svg", CFG_UINT, F(max_frames_svg), 0,
     "frames a format=svg range may draw (400 beyond; 0 = 64)"},
    {"max_suite_cases", CFG_UINT, F(max_suite_cases), 0,
     "cases one test suite may hold (POST /v1/test; 413 beyond)"},
    {"max_answer_bytes", CFG_SIZE, F(max_answer_bytes), 0,
     "bytes a pose or skin answer (or one frame of a range or stream) may "
     "take, judged before any work (413 too_large beyond; 0 = no limit)"},
    {"memory_limit", CFG_SIZE, F(memory_limit), 0,
     "bytes of assets the store may hold (507 beyond; 0 = no limit)"},
    {"inline_cost", CFG_UINT, F(inline_cost), 0,
     "work cheaper than this (joints + vertices x influences) runs on the "
     "loop thread instead of the pool"},
    {"inline_yield", CFG_BOOL, F(inline_yield), 0,
     "after an event loop iteration that ran work inline, an HTTP loop "
     "lets other threads waiting for its CPU run before it polls again, "
     "pausing after a yield that kept it away over 1 ms (false: it keeps "
     "the CPU until the kernel takes it)"},
    {"stream_high_water", CFG_SIZE, F(stream_high_water), 0,
     "bytes queued to a client before a streamed answer waits"},
    {"http_threads", CFG_UINT, F(http_threads), 0,
     "threads whose event loops answer HTTP, sharing the listening port "
     "(0 = one per CPU; 1 with store = redis://)"},
    {"stream_threads", CFG_UINT, F(stream_threads), 0,
     "threads whose event loops carry WebSocket streams (0 = one per CPU)"},
    {"stream_cache_size", CFG_SIZE, F(stream_cache_size), 0,
     "bytes of evaluated frames each stream loop keeps to share between "
     "subscribers (least recently used go first)"},
    {"stream_io_uring", CFG_BOOL, F(stream_io_uring), 0,
     "stream loops hand a tick's frames for all clients to the kernel in "
     "one io_uring call where the kernel allows it (false: one system call "
     "per client)"},
    {"demo", CFG_BOOL, F(demo), 0,
     "load the built-in demo rig, clip and mesh at start"},
    {"tokens_file", CFG_STR, F(tokens_file), S(tokens_file),
     "file of bearer token hashes, one '<read|write|admin> sha256:<hex>' "
     "a line (re-read on SIGHUP); empty: no tokens"},
    {"auth_reads", CFG_BOOL, F(auth_reads), 0,
     "reads (poses, skins, assets, streams, info) need a read token"},
    {"auth_metrics", CFG_BOOL, F(auth_metrics), 0,
     "/metrics needs an admin token"},
    {"allow_anonymous_writes", CFG_BOOL, F(allow_anonymous_writes), 0,
     "listening beyond loopback without a tokens_file, accept uploads and "
     "deletes from anyone (refused with 403 otherwise)"},
    {"rate_limits", CFG_STR, F(rate_limits), S(rate_limits),
     "per-address rate limits: auto (on unless listening on loopback only), "
     "on or off"},
    {"connection_rate", CFG_RATE, F(connection_rate), 0,
     "new connections one client address may open (429 beyond; 0 = no "
     "limit)"},
    {"connection_burst", CFG_UINT, F(connection_burst), 0,
     "connections a quiet client address may open at once"},
    {"write_rate", CFG_RATE, F(write_rate), 0,
     "uploads and deletes one client address may send (429 beyond; 0 = no "
     "limit)"},
    {"write_burst", CFG_UINT, F(write_burst), 0,
     "uploads and deletes a quiet client address may send at once"},
    {"rate_table_size", CFG_UINT, F(rate_table_size), 0,
     "client addresses the rate limits remember (the least recently seen "
     "is forgotten beyond)"},
    {"trusted_proxies", CFG_STR, F(trusted_proxies), S(trusted_proxies),
     "balancers whose X-Forwarded-For names the client: addresses or "
     "prefixes (10.0.0.0/8, ::1), comma-separated"},
    {"allowed_origins", CFG_STR, F(allowed_origins), S(allowed_origins),
     "web pages that may read answers and open streams: origins "
     "(http://host:port), *, loopback, null; comma-separated"},
    {"allowed_hosts", CFG_STR, F(allowed_hosts), S(allowed_hosts),
     "names a request's Host may give besides loopback and the listen "
     "address (421 otherwise, against DNS rebinding): host names or "
     "addresses, comma-separated; * any"},
    {"three_dir", CFG_STR, F(three_dir), S(three_dir),
     "three.js files served under /three/ for /viewer (empty: none)"},
    {"hint_scan", CFG_UINT, F(hint_scan), 0,
     "asset names a \"did you mean\" hint compares at most when a name is "
     "not found (bounds the time of a miss; 0 = 2000)"},
    {"kernels", CFG_STR, F(kernels), S(kernels),
     "SIMD kernels of sampling, local-to-model and skinning: features (the "
     "best the CPU has), measured (the fastest, timed at start), scalar, "
     "avx2 or avx512"},
};

#define ENTRY_COUNT (sizeof entries / sizeof entries[0])

/* The string settings that take one of a few words. */
static const struct {
  const char *key;
  const char *choices;
} choice_lists[] = {{"rate_limits", "auto|on|off"},
                    {"kernels", "features|measured|scalar|avx2|avx512"}};

static const char *choices_of(const char *key) {
  for (size_t i = 0; i < sizeof choice_lists / sizeof choice_lists[0]; i++)
    if (strcmp(choice_lists[i].key, key) == 0) return choice_lists[i].choices;
  return NULL;
}

void srv_config_defaults(srv_config_t *cfg) {
  memset(cfg, 0, sizeof *cfg);
  snprintf(cfg->listen, sizeof cfg->listen, "127.0.0.1:8080");
  snprintf(cfg->access_log, sizeof cfg->access_log, "-");
  snprintf(cfg->store, sizeof cfg->store, "file");
  cfg->redis_timeout_ms = 2000;
  cfg->redis_pool = 4;
  cfg->miss_ttl_ms = 1000;
  cfg->list_limit = 1000;
  cfg->list_limit_max = 10000;
  cfg->workers = 0;
  cfg->queue_max = 1024;
  cfg->max_connections = 4096;
  cfg->max_header_size = 16 * 1024;
  cfg->max_body_size = 64 * 1024 * 1024;
  cfg->header_timeout_ms = 10000;
  cfg->idle_timeout_ms = 60000;
  cfg->body_timeout_ms = 30000;
  cfg->min_body_rate = 16384;
  cfg->stream_cache_size = 64u << 20;
  cfg->stream_io_uring = true;
  cfg->drain_timeout_ms = 10000;
  cfg->max_frames = 100000;
  cfg->max_frames_svg = 64;
  cfg->max_suite_cases = 1000;
  cfg->max_answer_bytes = (size_t)64 << 20;
  cfg->memory_limit = (size_t)1 << 30;
  cfg->inline_cost = 2000;
  cfg->inline_yield = true;
  cfg->stream_high_water = 256 * 1024;
  cfg->stream_threads = 0;
  cfg->http_threads = 0;
  cfg->demo = false;
  snprintf(cfg->rate_limits, sizeof cfg->rate_limits, "auto");
  cfg->connection_rate = 50;
  cfg->connection_burst = 200;
  cfg->write_rate = 10;
  cfg->write_burst = 50;
  cfg->rate_table_size = 16384;
  snprintf(cfg->allowed_origins, sizeof cfg->allowed_origins, "%s",
           SRV_CORS_DEFAULT);
  snprintf(cfg->three_dir, sizeof cfg->three_dir, "%s", SRV_THREE_DIR);
  cfg->hint_scan = 2000;
  snprintf(cfg->kernels, sizeof cfg->kernels, "features");
}

static const cfg_entry_t *find_entry(const char *key) {
  for (size_t i = 0; i < ENTRY_COUNT; i++)
    if (strcmp(entries[i].key, key) == 0) return &entries[i];
  return NULL;
}

/* The key nearest to a mistyped one (formats/suggest.h), or NULL. */
static const char *nearest_key(const char *key) {
  fmt_suggest_t s;
  fmt_suggest_init(&s, key, 0);
  for (size_t i = 0; i < ENTRY_COUNT; i++)
    fmt_suggest_offer(&s, entries[i].key);
  return fmt_suggest_best(&s);
}

static int parse_u64(const char *v, uint64_t *out, const char **rest) {
  if (!isdigit((unsigned char)*v)) return -1;
  errno = 0;
  char *end;
  unsigned long long x = strtoull(v, &end, 10);
  if (errno != 0) return -1;
  *out = x;
  *rest = end;
  return 0;
}

/* A unit a number may carry, and what it multiplies (or divides) by. */
typedef struct unit_s {
  const char *suffix;
  uint64_t factor;
} unit_t;

/* A number and one of its kind's units: units is a list ended by a NULL
 * suffix; a bare number is taken when bare is set, and a bare 0 always.
 * *count gets the number, *factor its unit's factor (1 when bare). */
static int parse_with_unit(const char *v, const unit_t *units, bool bare,
                           uint64_t *count, uint64_t *factor) {
  const char *rest;
  if (parse_u64(v, count, &rest) != 0) return -1;
  if (*rest == '\0' && (bare || *count == 0)) {
    *factor = 1;
    return 0;
  }
  for (const unit_t *u = units; u->suffix != NULL; u++)
    if (strcmp(rest, u->suffix) == 0) {
      *factor = u->factor;
      return 0;
    }
  return -1;
}

/* A size: bytes, bare or with a binary unit. */
static int parse_size(const char *v, uint64_t *out) {
  static const unit_t units[] = {
      {"B", 1},        {"k", 1024},        {"K", 1024},
      {"KiB", 1024},   {"M", 1024 * 1024}, {"MiB", 1024 * 1024},
      {"G", 1u << 30}, {"GiB", 1u << 30},  {NULL, 0}};
  uint64_t x, mul;
  if (parse_with_unit(v, units, true, &x, &mul) != 0) return -1;
  if (x > UINT64_MAX / mul) return -1;
  *out = x * mul;
  return 0;
}

/* A duration always carries its unit (ms, s, min, h), so 10000 can never
 * mean seconds to one reader and milliseconds to another; only 0 may go
 * bare. */
static int parse_ms(const char *v, uint64_t *out) {
  static const unit_t units[] = {
      {"ms", 1}, {"s", 1000}, {"min", 60000}, {"h", 3600000}, {NULL, 0}};
  uint64_t x, mul;
  if (parse_with_unit(v, units, false, &x, &mul) != 0) return -1;
  if (x > UINT64_MAX / mul) return -1;
  *out = x * mul;
  return 0;
}

/* A rate carries its unit too: a count per s, min or h (only 0 may go
 * bare). Stored per second. */
static int parse_rate(const char *v, double *out) {
  static const unit_t units[] = {
      {"/s", 1}, {"/min", 60}, {"/h", 3600}, {NULL, 0}};
  uint64_t x, per;
  if (parse_with_unit(v, units, false, &x, &per) != 0) return -1;
  if (x > 1000000000) return -1;
  *out = (double)x / (double)per;
  return 0;
}

/* Whether value is one of choices ("a|b|c"). */
static bool is_choice(const char *choices, const char *value) {
  size_t n = strlen(value);
  for (const char *c = choices; *c;) {
    const char *bar = strchr(c, '|');
    size_t len = bar ? (size_t)(bar - c) : strlen(c);
    if (len == n && strncmp(c, value, n) == 0) return true;
    if (bar == NULL) break;
    c = bar + 1;
  }
  return false;
}

static int parse_bool(const char *v, bool *out) {
  if (!strcmp(v, "1") || !strcmp(v, "true") || !strcmp(v, "yes") ||
      !strcmp(v, "on"))
    *out = true;
  else if (!strcmp(v, "0") || !strcmp(v, "false") || !strcmp(v, "no") ||
           !strcmp(v, "off"))
    *out = false;
  else
    return -1;
  return 0;
}

int srv_config_set(srv_config_t *cfg, const char *key, const char *value,
                   char *err, size_t err_len) {
  const cfg_entry_t *e = find_entry(key);
  if (e == NULL) {
    const char *near = nearest_key(key);
    snprintf(err, err_len, "unknown setting '%.100s'%s%s%s", key,
             near ? "; did you mean '" : "", near ? near : "",
             near ? "'?" : "");
    return -1;
  }
  char *base = (char *)cfg + e->offset;
  uint64_t x;
  switch (e->type) {
  case CFG_STR:
    if (choices_of(key) != NULL && !is_choice(choices_of(key), value)) {
      snprintf(err, err_len, "%s: bad value '%s' (one of %s)", key, value,
               choices_of(key));
      return -1;
    }
    if (strlen(value) >= e->size) {
      snprintf(err, err_len, "%s: value too long", key);
      return -1;
    }
    if (e->offset == F(allowed_origins) || e->offset == F(allowed_hosts)) {
      char why[320];
      if ((e->offset == F(allowed_origins)
               ? srv_cors_validate(value, why, sizeof why)
               : srv_hosts_validate(value, why, sizeof why)) != 0) {
        snprintf(err, err_len, "%s: %s", key, why);
        return -1;
      }
    }
    memcpy(base, value, strlen(value) + 1);
    return 0;
  case CFG_UINT: {
    const char *rest;
    if (parse_u64(value, &x, &rest) != 0 || *rest != '\0' || x > UINT32_MAX)
      break;
    *(unsigned *)base = (unsigned)x;
    return 0;
  }
  case CFG_SIZE:
    if (parse_size(value, &x) != 0 || x > SIZE_MAX) break;
    *(size_t *)base = (size_t)x;
    return 0;
  case CFG_MS:
    if (parse_ms(value, &x) != 0) break;
    *(uint64_t *)base = x;
    return 0;
  case CFG_BOOL:
    if (parse_bool(value, (bool *)base) != 0) break;
    return 0;
  case CFG_RATE:
    if (parse_rate(value, (double *)base) != 0) break;
    return 0;
  }
  if (e->type == CFG_MS)
    snprintf(err, err_len,
             "%s: bad value '%s' (a duration needs its unit: "
             "500ms, 10s, 2min, 1h)",
             key, value);
  else if (e->type == CFG_RATE)
    snprintf(err, err_len,
             "%s: bad value '%s' (a rate is a count per "
             "unit: 10/s, 30/min, 100/h)",
             key, value);
  else
    snprintf(err, err_len, "%s: bad value '%s'", key, value);
  return -1;
}

static char *trim(char *s) {
  while (isspace((unsigned char)*s)) s++;
  size_t n = strlen(s);
  while (n > 0 && isspace((unsigned char)s[n - 1])) s[--n] = '\0';
  return s;
}

int srv_config_load(srv_config_t *cfg, const char *path, char *err,
                    size_t err_len) {
  FILE *f = fopen(path, "r");
  if (f == NULL) {
    snprintf(err, err_len, "%s: %s", path, strerror(errno));
    return -1;
  }
  char line[2048];
  int lineno = 0, rc = 0;
  while (fgets(line, sizeof line, f) != NULL) {
    lineno++;
    char *s = trim(line);
    if (*s == '\0' || *s == '#') continue;
    char *eq = strchr(s, '=');
    if (eq == NULL) {
      snprintf(err, err_len, "%s:%d: expected key = value", path, lineno);
      rc = -1;
      break;
    }
    *eq = '\0';
    char *key = trim(s), *value = trim(eq + 1);
    /* A value may be quoted to keep spaces or to be empty. */
    size_t vn = strlen(value);
    if (vn >= 2 && value[0] == '"' && value[vn - 1] == '"') {
      value[vn - 1] = '\0';
      value++;
    }
    char msg[512];
    if (srv_config_set(cfg, key, value, msg, sizeof msg) != 0) {
      snprintf(err, err_len, "%s:%d: %s", path, lineno, msg);
      rc = -1;
      break;
    }
  }
  fclose(f);
  return rc;
}

/* A flag's key: "--max-body-size" or "--max-body-size=1M" ->
 * "max_body_size" into key (cap bytes), *value the text after '=' (NULL
 * when none). False when arg is not "--" and a name. */
static bool flag_key(const char *arg, char *key, size_t cap,
                     const char **value) {
  *value = NULL;
  if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0') return false;
  const char *name = arg + 2;
  size_t n = strcspn(name, "=");
  if (name[n] == '=') *value = name + n + 1;
  if (n >= cap) n = cap - 1;
  for (size_t i = 0; i < n; i++) key[i] = name[i] == '-' ? '_' : name[i];
  key[n] = '\0';
  return true;
}

/* The flag of a key: "max_body_size" -> "--max-body-size". */
static void key_flag(const char *key, char *flag, size_t cap) {
  snprintf(flag, cap, "--%s", key);
  for (char *p = flag + 2; *p; p++)
    if (*p == '_') *p = '-';
}

/* -1 with "unknown option" and the nearest flag, if one is near. */
static int unknown_option(const char *arg, char *err, size_t err_len) {
  char key[64];
  const char *value;
  const char *near = NULL;
  if (flag_key(arg, key, sizeof key, &value)) {
    fmt_suggest_t s;
    fmt_suggest_init(&s, key, 0);
    for (size_t i = 0; i < ENTRY_COUNT; i++)
      fmt_suggest_offer(&s, entries[i].key);
    static const char *const others[] = {"config", "help", "version"};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
      fmt_suggest_offer(&s, others[i]);
    near = fmt_suggest_best(&s);
  }
  char flag[80] = "";
  if (near != NULL) key_flag(near, flag, sizeof flag);
  snprintf(err, err_len, "unknown option '%.100s' (see --help)%s%s%s", arg,
           near ? "; did you mean '" : "", flag, near ? "'?" : "");
  return -1;
}

/* --config FILE or --config=FILE: the file, *skip set when it took the
 * next argument; NULL when arg is not --config. */
static const char *config_file(int argc, char **argv, int i, bool *skip,
                               bool *missing) {
  *skip = false;
  *missing = false;
  if (strncmp(argv[i], "--config=", 9) == 0) return argv[i] + 9;
  if (strcmp(argv[i], "--config") != 0) return NULL;
  if (i + 1 >= argc) {
    *missing = true;
    return "";
  }
  *skip = true;
  return argv[i + 1];
}

int srv_config_parse_args(srv_config_t *cfg, int argc, char **argv, FILE *out,
                          char *err, size_t err_len) {
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      srv_config_print_help(out);
      return 1;
    }
  }
  /* The file first, so flags override it wherever they appear. */
  for (int i = 1; i < argc; i++) {
    bool skip, missing;
    const char *file = config_file(argc, argv, i, &skip, &missing);
    if (file == NULL) continue;
    if (missing || file[0] == '\0') {
      snprintf(err, err_len, "--config needs a file");
      return -1;
    }
    if (srv_config_load(cfg, file, err, err_len) != 0) return -1;
    i += skip;
  }
  for (int i = 1; i < argc; i++) {
    bool skip, missing;
    if (config_file(argc, argv, i, &skip, &missing) != NULL) {
      i += skip;
      continue;
    }
    if (strncmp(argv[i], "--help=", 7) == 0 ||
        strncmp(argv[i], "--version=", 10) == 0) {
      snprintf(err, err_len, "%.*s takes no value", (int)strcspn(argv[i], "="),
               argv[i]);
      return -1;
    }
    char key[64];
    const char *value;
    const cfg_entry_t *e =
        flag_key(argv[i], key, sizeof key, &value) ? find_entry(key) : NULL;
    if (e == NULL) return unknown_option(argv[i], err, err_len);
    if (value != NULL) {
      /* --name=value, booleans included (--demo=1, --demo=false). */
    } else if (e->type == CFG_BOOL) {
      value = "true";
      if (i + 1 < argc &&
          (!strcmp(argv[i + 1], "true") || !strcmp(argv[i + 1], "false")))
        value = argv[++i];
    } else {
      if (i + 1 >= argc) {
        snprintf(err, err_len, "%s needs a value", argv[i]);
        return -1;
      }
      value = argv[++i];
    }
    if (srv_config_set(cfg, e->key, value, err, err_len) != 0) return -1;
  }
  return 0;
}

/* The value of entry e in cfg as the config file would spell it: sizes in
 * the largest whole unit, durations in h, min (from 10 min), s or ms,
 * rates per second, booleans as true or false. */
static void entry_value(const srv_config_t *cfg, const cfg_entry_t *e,
                        char *out, size_t cap) {
  const char *base = (const char *)cfg + e->offset;
  switch (e->type) {
  case CFG_STR: snprintf(out, cap, "%s", base); return;
  case CFG_UINT: snprintf(out, cap, "%u", *(const unsigned *)base); return;
  case CFG_BOOL:
    snprintf(out, cap, "%s", *(const bool *)base ? "true" : "false");
    return;
  case CFG_SIZE: {
    size_t x = *(const size_t *)base;
    static const char *const units[] = {"GiB", "MiB", "KiB"};
    for (int u = 0; u < 3 && x != 0; u++) {
      size_t m = (size_t)1 << (10 * (3 - u));
      if (x % m == 0) {
        snprintf(out, cap, "%zu%s", x / m, units[u]);
        return;
      }
    }
    snprintf(out, cap, "%zu", x);
    return;
  }
  case CFG_MS: {
    uint64_t ms = *(const uint64_t *)base;
    if (ms == 0)
      snprintf(out, cap, "0");
    else if (ms % 3600000 == 0)
      snprintf(out, cap, "%lluh", (unsigned long long)(ms / 3600000));
    else if (ms % 60000 == 0 && ms >= 600000)
      snprintf(out, cap, "%llumin", (unsigned long long)(ms / 60000));
    else if (ms % 1000 == 0)
      snprintf(out, cap, "%llus", (unsigned long long)(ms / 1000));
    else
      snprintf(out, cap, "%llums", (unsigned long long)ms);
    return;
  }
  case CFG_RATE: {
    double r = *(const double *)base;
    if (r == 0)
      snprintf(out, cap, "0");
    else if (r == (double)(uint64_t)r)
      snprintf(out, cap, "%llu/s", (unsigned long long)r);
    else if (r * 60 == (double)(uint64_t)(r * 60))
      snprintf(out, cap, "%llu/min", (unsigned long long)(r * 60));
    else
      snprintf(out, cap, "%llu/h", (unsigned long long)(r * 3600 + 0.5));
    return;
  }
  }
  out[0] = '\0';
}

void srv_config_print_options(FILE *out) {
  srv_config_t d;
  srv_config_defaults(&d);
  fmt_help_option(out, "--config", "FILE", "read settings from FILE first",
                  NULL);
  for (size_t i = 0; i < ENTRY_COUNT; i++) {
    char flag[80], def[1100];
    key_flag(entries[i].key, flag, sizeof flag);
    const char *arg = entries[i].type == CFG_BOOL   ? "[=BOOL]"
                      : entries[i].type == CFG_STR  ? "S"
                      : entries[i].type == CFG_SIZE ? "BYTES"
                      : entries[i].type == CFG_MS   ? "DURATION"
                      : entries[i].type == CFG_RATE ? "RATE"
                                                    : "N";
    entry_value(&d, &entries[i], def, sizeof def);
    if (entries[i].type == CFG_BOOL) {
      /* "--demo[=BOOL]": the value is glued to the flag. */
      char glued[100];
      snprintf(glued, sizeof glued, "%s%s", flag, arg);
      fmt_help_option(out, glued, NULL, entries[i].help, def);
    } else {
      fmt_help_option(out, flag, arg, entries[i].help, def);
    }
  }
}

void srv_config_print_help_with(FILE *out, const char *commands) {
  fprintf(out, "usage: animd [--config FILE] [--OPTION VALUE | "
               "--OPTION=VALUE]...\n");
  if (commands != NULL)
    fputs(commands, out);
  else
    fprintf(out, "       animd eval FILE... [--OPTION VALUE]...  (animd eval "
                 "--help lists them)\n"
                 "       animd test SUITE.json [FILE...] [--OPTION VALUE]...  "
                 "(animd test --help)\n");
  fprintf(out, "       animd --version | --help\n\n"
               "Options (each is also a key of the config file, with _ for "
               "-):\n");
  srv_config_print_options(out);
  fprintf(out, "\nEvery option takes its value as --OPTION VALUE or "
               "--OPTION=VALUE; a BOOL is\ntrue, false, 1, 0, yes, no, on or "
               "off (a boolean flag alone means true).\n"
               "A DURATION carries its unit: 500ms, 10s, 2min or 1h (only 0 "
               "may go bare).\nBYTES may end in K, KiB, M, MiB, G or GiB.\n"
               "A RATE is a count per unit: 10/s, 30/min or 100/h.\n");
}

void srv_config_print_help(FILE *out) { srv_config_print_help_with(out, NULL); }

void srv_config_print_defaults(FILE *out) {
  srv_config_t d;
  srv_config_defaults(&d);
  for (size_t i = 0; i < ENTRY_COUNT; i++) {
    char def[1100];
    entry_value(&d, &entries[i], def, sizeof def);
    fprintf(out, "%s\t%s\n", entries[i].key, def);
  }
}

int srv_parse_host_port(const char *s, char *host, size_t host_len, int *port) {
  const char *colon;
  const char *h = s;
  size_t hn;
  if (*s == '[') {
    const char *close = strchr(s, ']');
    if (close == NULL || close[1] != ':') return -1;
    h = s + 1;
    hn = (size_t)(close - h);
    colon = close + 1;
  } else {
    colon = strrchr(s, ':');
    if (colon == NULL) return -1;
    hn = (size_t)(colon - s);
  }
  if (hn == 0 || hn >= host_len) return -1;
  memcpy(host, h, hn);
  host[hn] = '\0';
  char *end;
  errno = 0;
  long p = strtol(colon + 1, &end, 10);
  if (errno || *end != '\0' || end == colon + 1 || p < 0 || p > 65535)
    return -1;
  *port = (int)p;
  return 0;
}
