/* server: the daemon's configuration: defaults, the key = value file
 * (config/animd.conf) and the command-line flags that override it.
 *
 * Every setting has one entry in a table (key, flag, type, help), so the
 * file parser, the flag parser, --help and /v1/info cannot drift apart.
 * Sizes accept k/K/KiB, M/MiB, G/GiB suffixes; durations ms, s, min or h;
 * rates a count per unit (10/s, 30/min, 100/h). */
#ifndef ANIMD_SERVER_CONFIG_H
#define ANIMD_SERVER_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Where make install puts three.js from npm (three_dir's default; make run
 * and the tests name the copy make deps installed under web/three). */
#define SRV_THREE_DIR "/usr/local/share/animd/three"

typedef struct srv_config_s {
  char listen[256];           /* host:port; port 0 picks a free one. */
  char ready_file[1024];      /* Written with the bound host:port. "" off. */
  char data_dir[1024];        /* Persistent store; "" keeps it in memory. */
  char store[300];            /* "file" (data_dir), or redis://host:port/db. */
  uint64_t redis_timeout_ms;  /* A Redis command unanswered: 503, reconnect. */
  unsigned redis_pool;        /* Redis connections of worker loads. */
  uint64_t miss_ttl_ms;       /* A shared store's miss remembered; 0 off. */
  unsigned list_limit;        /* Assets a listing page holds by default. */
  unsigned list_limit_max;    /* Assets a listing page may hold (?limit). */
  char access_log[1024];      /* "-" stderr, "" off, else a file path. */
  unsigned workers;           /* Pool threads; 0 = one per CPU. */
  unsigned queue_max;         /* Pool jobs waiting; beyond: 503. */
  unsigned max_connections;   /* Beyond: 503 and close. */
  size_t max_header_size;     /* Bytes of request line + headers (16 KiB). */
  size_t max_body_size;       /* Bytes (64 MiB). */
  uint64_t header_timeout_ms; /* First byte to end of headers. */
  uint64_t idle_timeout_ms;   /* Keep-alive silence; stalled writes. */
  uint64_t body_timeout_ms;   /* Headers' end to body's end (+ size). */
  size_t min_body_rate;       /* Bytes/s a body may arrive at. */
  uint64_t drain_timeout_ms;  /* SIGTERM: wait this long for in-flight. */
  unsigned max_frames;        /* Frames per range request (100,000). */
  unsigned max_frames_svg;    /* Frames a format=svg range draws (64). */
  unsigned max_suite_cases;   /* Cases per test suite (1,000). */
  size_t max_answer_bytes;    /* Bytes of a pose or skin answer (64 MiB). */
  size_t memory_limit;        /* Store bytes; beyond: 507. 0 = none. */
  unsigned inline_cost;       /* Work below this cost runs on the loop. */
  bool inline_yield;          /* Yield the CPU after inline work. */
  size_t stream_high_water;   /* Bytes queued before a stream pauses. */
  unsigned http_threads;      /* HTTP loops; 0 = one per CPU. */
  unsigned stream_threads;    /* Stream loops; 0 = one per CPU. */
  size_t stream_cache_size;   /* Shared frame bytes per stream loop. */
  bool stream_io_uring;       /* A tick's writes through io_uring. */
  bool demo;                  /* Load the embedded demo asset. */
  /* Access control (auth/auth.h). */
  char tokens_file[1024];      /* "<scope> sha256:<hex>" lines; "" none. */
  bool auth_reads;             /* Reads need a read token. */
  bool auth_metrics;           /* /metrics needs an admin token. */
  bool allow_anonymous_writes; /* Off loopback, no tokens: writes open. */
  char rate_limits[8];         /* auto (on off loopback), on or off. */
  double connection_rate;      /* New connections/s per client address. */
  unsigned connection_burst;   /* Connections a quiet address may open. */
  double write_rate;           /* Write requests/s per client address. */
  unsigned write_burst;        /* Writes a quiet address may send. */
  unsigned rate_table_size;    /* Client addresses tracked (LRU beyond). */
  char trusted_proxies[1024];  /* Addresses/prefixes, comma-separated. */
  /* Web pages allowed to read answers and open streams (cors.h):
   * origins, "*", "loopback" (default) or "null". */
  char allowed_origins[1024];
  /* Names besides loopback and the listen address that Host may give
   * (hosts.h); "*" any. */
  char allowed_hosts[1024];
  /* three.js (npm's three), served under /three/ for /viewer; "" none. */
  char three_dir[1024];
  unsigned hint_scan; /* Names a "did you mean" compares on a miss. */
  char kernels[16];   /* features, measured, scalar, avx2, avx512. */
} srv_config_t;

/* Fills the built-in defaults. */
void srv_config_defaults(srv_config_t *cfg);

/* Applies one setting by its file key ("max_body_size") and text value.
 * Returns 0, or -1 with a message in err (err_len bytes). */
int srv_config_set(srv_config_t *cfg, const char *key, const char *value,
                   char *err, size_t err_len);

/* Reads a key = value file ('#' comments, blank lines). Returns 0 or -1
 * with "path:line: message" in err. */
int srv_config_load(srv_config_t *cfg, const char *path, char *err,
                    size_t err_len);

/* Parses flags: --config FILE is applied first, then every other flag in
 * order (each setting has a flag --key-with-dashes VALUE; booleans take no
 * value). Returns 0, 1 when --help was given (help printed to out), or -1
 * with a message in err. */
int srv_config_parse_args(srv_config_t *cfg, int argc, char **argv, FILE *out,
                          char *err, size_t err_len);

/* `animd --help`: the usage lines (commands: the offline commands' lines,
 * NULL for a line pointing to their own --help), every option with its
 * default (formats/help.h), and how values are written. */
void srv_config_print_help_with(FILE *out, const char *commands);
void srv_config_print_help(FILE *out);
/* The option lines alone. */
void srv_config_print_options(FILE *out);
/* "key<TAB>default" a line for every setting, for the documentation
 * check (scripts/check-option-docs). */
void srv_config_print_defaults(FILE *out);

/* Parses "host:port" or "[v6]:port". Returns 0 or -1. */
int srv_parse_host_port(const char *s, char *host, size_t host_len, int *port);

#endif
