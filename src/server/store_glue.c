/* server: opening and measuring the asset store (store_glue.h). Until the
 * store is linked in, the server runs without one. */
#include <string.h>

#include "server/internal.h"
#include "server/store_glue.h"

int srv__store_open(srv_server_t *s, char *err, size_t err_len) {
  (void)err;
  (void)err_len;
  s->store = NULL;
  return 0;
}

void srv__store_close(srv_server_t *s) {
  s->store = NULL;
}

void srv__store_counts(srv_server_t *s, srv_store_counts_t *out) {
  (void)s;
  memset(out, 0, sizeof *out);
}
