/* server: how the server opens, closes and measures its asset store. */
#ifndef ANIMD_SERVER_STORE_GLUE_H
#define ANIMD_SERVER_STORE_GLUE_H

#include <stddef.h>
#include <stdint.h>

typedef struct srv_server_s srv_server_t;

/* Opens the store of server (data_dir, memory_limit, the demo asset).
 * Returns 0 or a negative errno with a message in err. */
int srv__store_open(srv_server_t *server, char *err, size_t err_len);
void srv__store_close(srv_server_t *server);
/* Disconnects the shared backend, if any: after the pool is closed and
 * before the loop's last turns (its handles close there). */
void srv__backend_close(srv_server_t *server);

typedef struct srv_store_counts_s {
  uint64_t skeletons, clips, meshes, bytes, scanned;
} srv_store_counts_t;

void srv__store_counts(srv_server_t *server, srv_store_counts_t *out);

#endif
