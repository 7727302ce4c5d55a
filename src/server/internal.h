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
  /* Answers each complete request (the API's router). */
  void (*route)(srv_request_t *req);
};

/* True when work of that cost should run on the loop thread now; counts
 * it (task.h's cost model). */
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

/* server.c: called by conn.c and http.c. */
void srv__server_conn_closed(srv_server_t *server, srv_conn_t *conn);
void srv__server_request_done(srv_server_t *server, srv_request_t *req);

#endif
