/* server: the daemon object's layout, private to server.c and the files
 * of the top room that build it (store_open.c). Nothing else includes
 * this file: the rooms below reach the server through server.h. */
#ifndef ANIMD_SERVER_INTERNAL_H
#define ANIMD_SERVER_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

#include <uv.h>

#include "server/access_log.h"
#include "server/auth/auth.h"
#include "server/config.h"
#include "server/http/session.h"
#include "server/metrics.h"
#include "server/net/conn.h"
#include "server/pool.h"
#include "server/schedule.h"

/* Addresses one listen host may resolve to (localhost: 127.0.0.1, ::1). */
#define SRV_MAX_LISTENERS 4

/* One HTTP loop: its thread (none for the first, which runs on the
 * daemon's own loop), listeners on the shared port, connections, sessions'
 * host and scheduling. Every field but the atomics belongs to the loop's
 * thread once it runs. */
typedef struct srv_http_loop_s {
  srv_server_t *server;
  unsigned index;
  uv_loop_t *loop; /* The daemon's loop for index 0, else &own. */
  uv_loop_t own;
  pthread_t thread;
  bool started;                          /* The thread runs (index > 0). */
  uv_tcp_t listeners[SRV_MAX_LISTENERS]; /* One per address of listen. */
  unsigned listener_count;
  srv_conn_set_t conns;
  srv_http_host_t http;    /* What every HTTP session of the loop shares. */
  srv_schedule_t schedule; /* Inline or pool (schedule.h). */
  srv_pool_inbox_t inbox;  /* Pool jobs back to this loop (index > 0). */
  uv_async_t wake;         /* The daemon asks for the drain (index > 0). */
  uv_timer_t drain_timer;  /* Cuts what is left at the deadline (index > 0). */
  bool draining;
  bool closed;             /* Its handles are closing. */
  atomic_bool drain_asked; /* Set by the daemon's thread, then wake. */
  atomic_bool quiet;       /* Draining, its connections all gone. */
  atomic_bool ended;       /* uv_run returned on the loop's thread. */
  /* Written by this loop's thread alone, read by any (/metrics, the
   * connection limit): nothing per request or connection is shared
   * between loops. */
  srv_metrics_t metrics;
  atomic_uint open;            /* Its open HTTP connections. */
  srv_access_log_buffer_t log; /* Its access log lines, out once per
                                  iteration. */
} srv_http_loop_t;

struct srv_server_s {
  uv_loop_t *loop;
  srv_config_t cfg;
  srv_http_loop_t *loops; /* loops[0] runs on loop. */
  unsigned loop_count;
  uv_async_t loop_ended; /* A loop thread ended: the drain may finish. */
  char address[300];
  char kernels[200]; /* The kernel level of each job (animd/kernels.h). */
  srv_pool_t pool;
  bool pool_open;
  struct store_s *store;
  /* The shared backend of store = redis:// (redis/store_backend.h); NULL
   * for the file store. */
  struct srv_redis_backend_s *backend;
  struct srv_ws_s *ws; /* WebSocket streaming (ws/upgrade.h). */
  srv_access_log_t *access_log;
  srv_auth_t *auth; /* Access rules and rate limits (auth/auth.h). */
  atomic_bool draining;
  bool drained;         /* The final close is scheduled. */
  bool deadline_passed; /* drain_timeout is over. */
  uv_timer_t drain_timer;
  uint64_t drain_deadline_ns; /* uv_hrtime() by which the drain ends. */
  bool pool_abandoned;        /* A job outlived the drain (still running). */
  void (*drain_done)(srv_server_t *);
  uint64_t start_ns;
};

/* The HTTP loops (http_loops.c), from the daemon's thread unless said.
 * How many: http_threads (0: one per CPU), 1 with a shared backend. */
unsigned srv__http_loops_count(const srv_config_t *cfg, bool backend);
/* Makes count loops: loops[0] on the daemon's loop (on_main_empty runs when
 * its connections are gone), the others ready for their threads. */
int srv__http_loops_new(srv_server_t *s, unsigned count,
                        void (*on_main_empty)(srv_conn_set_t *));
/* Listens on addr with every loop; *bound is the address bound. */
int srv__http_loops_listen(srv_server_t *s, const struct sockaddr *addr,
                           bool v6only, struct sockaddr_storage *bound);
/* Starts the threads of loops 1.. . */
int srv__http_loops_start(srv_server_t *s);
/* Stops accepting, closes idle connections and lets busy ones finish (on
 * the loop's own thread); loops other than 0 end once their connections
 * and pool jobs are gone, cutting what is left at deadline_ns. */
void srv__http_loop_drain(srv_http_loop_t *l, uint64_t deadline_ns);
/* Asks loops 1.. to drain (by s->drain_deadline_ns). */
void srv__http_loops_ask_drain(srv_server_t *s);
/* True when every started loop 1.. has ended. */
bool srv__http_loops_ended(srv_server_t *s);
/* True when every started loop 1.. has ended or, draining, has no
 * connection left (it waits for pool jobs only: nothing of it reaches the
 * stream loops any more). */
bool srv__http_loops_quiet(srv_server_t *s);
/* Joins the threads of loops 1.. (each must be ending). */
void srv__http_loops_join(srv_server_t *s);
/* Frees the loops (closing those never started). */
void srv__http_loops_free(srv_server_t *s);
/* Summed over every loop: pool jobs refused, and the times a loop yielded
 * its CPU after running work inline. */
/* Open HTTP connections on every loop (each loop counts its own). */
unsigned srv__http_loops_open(srv_server_t *s);
/* Every loop's counters added into m (zeroed by the caller). */
void srv__http_loops_metrics(srv_server_t *s, srv_metrics_t *m);

#endif
