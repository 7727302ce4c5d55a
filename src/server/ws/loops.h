/* server: the stream loops: threads that each run an event loop carrying
 * WebSocket streaming clients, so paced frames go out from every core
 * while the HTTP loop stays free for requests.
 *
 * The HTTP loop checks a handshake, then hands the connected socket over
 * (srv_ws_loops_hand_off): the loop with the fewest clients takes it,
 * writes the handshake answer and serves the client there (ws/socket.h)
 * with a streaming hub of its own (ws/stream.h: its own pacing timer and
 * frame cache; skinned-mesh frames are computed ahead on the server's
 * worker pool and come back to the loop through an inbox, pool.h). So N
 * viewers of one animation cost one evaluation per frame time on each
 * loop that has any of them.
 *
 * Drain: every client gets a close frame with the code given, each loop
 * ends once its clients are gone (bounded by the hub's close timeout and
 * the socket's) and its pool jobs are back, and srv_ws_loops_free joins
 * the threads; the pool must stay open until then. Counters are
 * published by each loop once per loop iteration, so a reader on another
 * thread sees them at most one iteration old. Every function is called
 * from the thread that created the loops. */
#ifndef ANIMD_SERVER_WS_LOOPS_H
#define ANIMD_SERVER_WS_LOOPS_H

#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "server/access_log.h"
#include "server/pool.h"
#include "server/ws/stream.h"
#include "store/store.h"

typedef struct srv_ws_loops_s srv_ws_loops_t;

/* Starts count threads (count >= 1), each a loop with a hub over store
 * with limits lim; pool (may be NULL) computes skinned-mesh frames ahead;
 * log (may be NULL) gets one line per session.
 * store and pool are not owned and must outlive the loops. Returns 0 and
 * *out, or a negative errno. */
int srv_ws_loops_new(unsigned count, store_t *store, srv_pool_t *pool,
                     const srv_ws_limits_t *lim, srv_access_log_t *log,
                     srv_ws_loops_t **out);

/* Gives fd (a connected socket whose handshake was checked; owned from now
 * on, closed on failure) to the least busy loop, which writes head (the
 * handshake answer) and feeds in (bytes the peer sent after its request)
 * to the client, admitted with cred (NULL: none). Returns 0, UV_ENOMEM,
 * or UV_ESHUTDOWN after a drain. */
int srv_ws_loops_hand_off(srv_ws_loops_t *loops, uv_os_sock_t fd,
                          const void *head, size_t head_len, const void *in,
                          size_t in_len, const srv_ws_credential_t *cred);

/* Asks every loop to close the clients whose credential valid no longer
 * accepts (srv_ws_hub_revoke), on the loop's thread: valid and arg (the
 * first call's are kept) must stay usable until the loops are freed. A socket
 * handed off with an older epoch (admitted before this call, handed off after
 * the loop's check) is checked when it arrives, and closed unanswered if
 * refused. */
void srv_ws_loops_revoke(srv_ws_loops_t *loops,
                         srv_ws_credential_valid_cb valid, void *arg);

/* The epoch to stamp a credential with at its admission: the number of
 * srv_ws_loops_revoke calls so far. Any thread. */
unsigned srv_ws_loops_epoch(const srv_ws_loops_t *loops);

/* Clients handed off and not yet gone, on every loop. */
unsigned srv_ws_loops_clients(const srv_ws_loops_t *loops);

/* Adds every loop's published counters to *sum. */
void srv_ws_loops_stats(srv_ws_loops_t *loops, srv_ws_hub_stats_t *sum);

/* Sends every client a close frame (code, reason) and lets each loop end
 * once its clients are gone. Later hand-offs fail with UV_ESHUTDOWN. */
void srv_ws_loops_drain(srv_ws_loops_t *loops, uint16_t code,
                        const char *reason);

/* Drains (code 1001) if not yet drained, joins the threads and frees. */
void srv_ws_loops_free(srv_ws_loops_t *loops);

#endif
