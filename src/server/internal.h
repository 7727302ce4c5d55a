/* server: the daemon object's layout, private to server.c and the files
 * of the top room that build it (store_open.c). Nothing else includes
 * this file: the rooms below reach the server through server.h. */
#ifndef ANIMD_SERVER_INTERNAL_H
#define ANIMD_SERVER_INTERNAL_H

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

struct srv_server_s {
  uv_loop_t *loop;
  srv_config_t cfg;
  uv_tcp_t listeners[SRV_MAX_LISTENERS]; /* One per address of listen. */
  unsigned listener_count;
  char address[300];
  srv_pool_t pool;
  bool pool_open;
  struct store_s *store;
  /* The shared backend of store = redis:// (redis/store_backend.h); NULL
   * for the file store. */
  struct srv_redis_backend_s *backend;
  srv_metrics_t metrics;
  srv_conn_set_t conns; /* Connections of the HTTP loop. */
  srv_http_host_t http; /* What every HTTP session shares. */
  struct srv_ws_s *ws;  /* WebSocket streaming (ws/upgrade.h). */
  srv_access_log_t *access_log;
  srv_auth_t *auth; /* Access rules and rate limits (auth/auth.h). */
  bool draining;
  bool drained; /* The final close is scheduled. */
  uv_timer_t drain_timer;
  uint64_t drain_deadline_ns; /* uv_hrtime() by which the drain ends. */
  bool pool_abandoned;        /* A job outlived the drain (still running). */
  void (*drain_done)(srv_server_t *);
  uint64_t start_ns;
  srv_schedule_t schedule; /* Inline or pool (schedule.h). */
};

#endif
