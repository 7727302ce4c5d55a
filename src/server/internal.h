/* server: private layouts shared by conn.c, http.c, server.c and the
 * router. Nothing outside src/server/ includes this file. */
#ifndef ANIMD_SERVER_INTERNAL_H
#define ANIMD_SERVER_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>

#include <llhttp.h>
#include <uv.h>

#include "server/config.h"
#include "server/net/conn.h"
#include "server/http/http.h"
#include "server/metrics.h"
#include "server/pool.h"

/* HTTP parsing state of a connection. */
typedef enum http_state {
  HTTP_IDLE = 0,   /* Between requests (or reading one). */
  HTTP_DISPATCHED, /* A request is with its handler. */
  HTTP_STREAMING,  /* A chunked answer is being produced. */
  HTTP_DONE        /* Upgraded, or closing: no more HTTP. */
} http_state;

typedef struct srv_http_s {
  llhttp_t parser;
  http_state state;
  bool in_message;       /* A request's first byte has been seen. */
  bool headers_done;
  bool last_was_value;   /* Header callback alternation. */
  bool driving;          /* srv__http_drive is on the stack. */
  bool waiting_drain;    /* Paused until queued writes drop. */
  bool peer_eof;
  bool head_only;        /* HEAD: send no body. */
  bool chunked;          /* Streaming with chunked framing. */
  bool close_after;      /* Close once this answer is queued. */
  /* Request line and headers, NUL-separated; offsets while parsing. */
  char *hbuf;
  size_t hlen, hcap;
  size_t url_off, url_len;
  unsigned nheaders;
  size_t name_off[SRV_MAX_HEADERS], name_len[SRV_MAX_HEADERS];
  size_t value_off[SRV_MAX_HEADERS], value_len[SRV_MAX_HEADERS];
  /* Decoded path and query parameters. */
  char *pbuf;
  size_t pcap;
  /* Body. */
  char *body;
  size_t blen, bcap;
  /* A parse error found in a callback. */
  int err_status;
  const char *err_code;
  const char *err_at;
  char err_msg[160];
  srv_request_t req;
  uv_timer_t timer;
} srv_http_t;

struct srv_conn_s {
  uv_tcp_t tcp;
  srv_server_t *server;
  srv_conn_t *prev, *next; /* The server's list of open connections. */
  unsigned refs;
  unsigned pending_closes; /* Handles still closing. */
  bool closing;
  bool close_when_drained;
  bool lingering;
  bool reading;
  bool eof;              /* The peer half-closed. */
  size_t queued;
  const srv_conn_proto_t *proto;
  void *proto_user;
  srv_conn_close_cb close_cb;
  void *close_arg;
  uv_shutdown_t shutdown_req;
  char peer[96];
  /* Bytes read but not yet consumed by the protocol. */
  char *rbuf;
  size_t roff, rlen, rcap;
  srv_http_t http;
};

struct srv_server_s {
  uv_loop_t *loop;
  srv_config_t cfg;
  uv_tcp_t listener;
  bool listening;
  char address[300];
  srv_pool_t pool;
  bool pool_open;
  struct store_s *store;
  srv_metrics_t metrics;
  srv_conn_t *conns;
  unsigned conn_count;
  FILE *access_log;
  bool draining;
  bool drained; /* The final close is scheduled. */
  uv_timer_t drain_timer;
  void (*drain_done)(srv_server_t *);
  uint64_t start_ns;
  /* Cost run inline in this loop iteration (reset before each poll). */
  unsigned long tick_inline;
  uv_prepare_t tick;
};

/* Cost units one loop iteration may run inline (work below inline_cost
 * each); beyond the budget work goes to the pool, so the loop never stalls
 * for long on a burst. A 67-joint binary pose (cost 67) evaluates in about
 * 1 us, while handing it to a worker and back costs tens of microseconds
 * of wake-ups and locking, so under load inline is faster too
 * (scripts/bench-http: about 65,000 against 35,000-60,000 requests/s on
 * 2 cores). */
#define SRV_INLINE_BUDGET 8192

/* A JSON answer prints every float as text: about 50 times the cost of
 * evaluating it (71 us against 1.2 us for 67 joints), so JSON work counts
 * this many times its evaluation cost. */
#define SRV_JSON_COST 32

/* The scheduling cost of work of evaluation cost `cost` answered in binary
 * or JSON. */
static inline unsigned long srv__answer_cost(unsigned long cost, bool bin) {
  return bin ? cost : cost * SRV_JSON_COST;
}

/* True when work of that cost should run on the loop thread now; counts
 * it. */
bool srv__inline_ok(srv_server_t *server, unsigned long cost);

/* conn.c */
int srv__conn_accept(srv_server_t *server, srv_conn_t **out);
void srv__conn_start_reading(srv_conn_t *conn);
/* Bytes the protocol left in the read buffer (paused parser). */
void srv__conn_consume(srv_conn_t *conn, size_t n);

/* http.c: the HTTP protocol of a fresh connection. */
extern const srv_conn_proto_t srv__http_proto;
int srv__http_init(srv_conn_t *conn);
/* Parses whatever is buffered while no request is in flight. */
void srv__http_drive(srv_conn_t *conn);
/* A write completed: resume parsing if it waited for the queue to drop. */
void srv__http_on_drain(srv_conn_t *conn);
/* The server drains: an idle keep-alive connection closes now. */
void srv__http_drain(srv_conn_t *conn);
/* An answer for a connection refused at accept (max_connections). */
void srv__http_reject(srv_conn_t *conn, int status, const char *code,
                      const char *message);

/* router.c */
void srv__route(srv_request_t *req);

/* server.c: called by conn.c and http.c. */
void srv__server_conn_closed(srv_server_t *server, srv_conn_t *conn);
void srv__server_request_done(srv_server_t *server, srv_request_t *req);

#endif
