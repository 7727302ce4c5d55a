/* server/auth: access control: who may upload, delete, read and see the
 * metrics, and how often an address may connect and write.
 *
 * The rules, from the configuration (config.h):
 * - With a tokens_file (tokens.h), uploads and deletes need a write token
 *   (Authorization: Bearer <token>; missing or unknown: 401 unauthorized
 *   with WWW-Authenticate: Bearer; known but too weak: 403 forbidden);
 *   reads need a read token when auth_reads is set, /metrics an admin
 *   token when auth_metrics is set; /healthz and CORS preflights
 *   (OPTIONS) are always open. A WebSocket upgrade is a read and may
 *   carry its token as ?token= (a browser cannot set its headers): on
 *   /v1/stream only.
 * - Without one, the daemon is open while it listens on loopback only;
 *   listening on any other address, uploads and deletes get 403 unless
 *   allow_anonymous_writes is set.
 * - Rate limits (rate_limit.h) per client address (forwarded.h) on new
 *   connections and on writes: 429 with Retry-After. rate_limits = auto
 *   turns them on when listening beyond loopback.
 * What a request is (a read, a write, /metrics, open) is not derived
 * here: the router passes the access class of the route it matched (a
 * row of the API's routing table), and whether ?token= is a credential
 * there (req->query_token).
 * Key choice: one check between the router and the handler, and one at
 * accept; the handlers know nothing of it. Thread-safe: every HTTP loop checks
 * against the same tokens, counters and rate limits (per daemon). */
#ifndef ANIMD_SERVER_AUTH_AUTH_H
#define ANIMD_SERVER_AUTH_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "server/auth/tokens.h"
#include "server/config.h"
#include "server/http/http.h"

typedef struct srv_auth_s srv_auth_t;

/* The access class of a route (a row of the API's routing table): what
 * srv_auth_admit asks of a request to it. */
typedef enum srv_access {
  SRV_ACCESS_OPEN = 0, /* Anyone (/healthz). */
  SRV_ACCESS_READ,     /* A read token when auth_reads is on. */
  /* Uploads and deletes: the write rate limit, then a write token (or,
   * without a tokens file, loopback or allow_anonymous_writes). */
  SRV_ACCESS_WRITE,
  SRV_ACCESS_ADMIN /* Operators' data (/metrics): an admin token when
                    * auth_metrics is on. */
} srv_access;

/* The rules of cfg (the settings are copied): reads tokens_file and parses
 * trusted_proxies. auth_reads and auth_metrics need a tokens_file.
 * Returns 0 and *out, or -1 with a message in err. */
int srv_auth_new(const srv_config_t *cfg, srv_auth_t **out, char *err,
                 size_t err_len);
void srv_auth_free(srv_auth_t *a);

/* Where the daemon listens: beyond_loopback when any address it listens
 * on is not a loopback address (until told: loopback only). Decides, with
 * each request's client (the peer, or the client a trusted proxy
 * forwards), the mode without tokens (writes open when both are on
 * loopback) and, with rate_limits = auto, the rate limits (on for every
 * client when listening beyond loopback, else for clients beyond loopback
 * that trusted proxies forward). Returns 0 or -ENOMEM. */
int srv_auth_set_exposed(srv_auth_t *a, bool beyond_loopback);

/* Re-reads tokens_file (SIGHUP). Returns 0 with what is now in force in
 * msg, 1 when there is no tokens file (msg empty), or -1 with why in msg:
 * the tokens in force stay. */
int srv_auth_reload(srv_auth_t *a, char *msg, size_t cap);

/* The check between the router and a handler, for a request to a route
 * of class access (its credential: the Authorization header, or a ?token=
 * parameter when req->query_token): true when req may go on to its
 * handler; false when it has been answered (401, 403 or 429). A write
 * takes one from its client's write rate limit: call it once per
 * request. */
bool srv_auth_admit(srv_auth_t *a, srv_request_t *req, srv_access access);

/* For a session that outlives its request (a WebSocket stream): whether
 * req, admitted to a route of class access, needed a token for it; if so
 * the token's hash goes into hash, for srv_auth_token_valid. */
bool srv_auth_session_token(srv_auth_t *a, const srv_request_t *req,
                            srv_access access,
                            uint8_t hash[SRV_TOKEN_HASH_LEN]);

/* Whether the token of this hash is in force now (any scope: a session
 * asks only of the read access it was admitted to); auth is the
 * srv_auth_t. Any thread (srv_ws_revoke calls it from the stream loops
 * after srv_auth_reload). */
bool srv_auth_token_valid(void *auth, const uint8_t hash[SRV_TOKEN_HASH_LEN]);

/* A new connection from peer ("ip:port"): 0 when allowed, else the
 * nanoseconds until the address may connect again. Connections from
 * trusted proxies are not limited (their clients' writes are, by
 * X-Forwarded-For). */
uint64_t srv_auth_admit_connection(srv_auth_t *a, const char *peer);

/* The mode in force, for the start-up line. */
void srv_auth_describe(srv_auth_t *a, char *out, size_t cap);

/* Appends the access-control metrics (Prometheus text) to the malloc'd
 * *text of *len bytes. Returns 0 or -ENOMEM (*text unchanged). */
int srv_auth_metrics_render(srv_auth_t *a, char **text, size_t *len);

/* For the access log: the id of the token req presents (8 hex digits of
 * its hash; "-" when none) into out (SRV_TOKEN_ID_LEN + 1 bytes), and the
 * target with the value of every token parameter replaced by '*'. */
void srv_auth_log_id(const srv_request_t *req, char *out);
/* The client of req for the access log: the peer ("ip:port"), or, when a
 * trusted proxy forwards another client, "<client> via <peer>". */
void srv_auth_log_client(srv_auth_t *a, const srv_request_t *req, char *out,
                         size_t cap);
void srv_auth_redact_target(const char *target, char *out, size_t cap);

#endif
