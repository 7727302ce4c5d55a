/* server: assets a stream loop fetches from the shared store (backend.h)
 * for a play or pose command that named one its node had not cached.
 *
 * The command's text is kept, the asset is loaded into the node's store
 * on the worker pool (the backend's blocking load: a connection of the
 * backend's bounded pool, at most the backend's timeout; a miss Redis
 * answered a moment ago answers at once), and the command is
 * handed back to the stream loop, through its pool inbox, to be run
 * again. A client that goes meanwhile is forgotten (its fetches finish
 * and are dropped). Stream loop thread only. */
#ifndef ANIMD_SERVER_WS_FETCH_H
#define ANIMD_SERVER_WS_FETCH_H

#include <stddef.h>

#include "server/backend.h"
#include "server/pool.h"

typedef struct srv_ws_fetch_s srv_ws_fetch_t;

/* Runs on the stream loop when a fetch is done: client as given to
 * srv_ws_fetch_start (still there), the command's text, and how the load
 * went. */
typedef void (*srv_ws_fetched_cb)(void *client, const char *message, size_t len,
                                  unsigned depth, srv_backend_status status);

/* Fetches through backend on pool, done coming back through inbox (the
 * stream loop's). Returns NULL on ENOMEM. */
srv_ws_fetch_t *srv_ws_fetch_new(const srv_backend_t *backend, srv_pool_t *pool,
                                 srv_pool_inbox_t *inbox,
                                 srv_ws_fetched_cb done);
/* Frees it once the fetches out are back (their callbacks do not run). */
void srv_ws_fetch_free(srv_ws_fetch_t *f);

/* Loads kind id_or_name (a clip or mesh within skeleton_id when not NULL)
 * for client, then calls done with message (copied) and depth. Returns 0,
 * or a negative errno (the queue is full, ENOMEM). */
int srv_ws_fetch_start(srv_ws_fetch_t *f, void *client, store_kind kind,
                       const char *id_or_name, const char *skeleton_id,
                       const char *message, size_t len, unsigned depth);

/* The client is gone: its fetches end without calling done. */
void srv_ws_fetch_forget(srv_ws_fetch_t *f, void *client);

#endif
