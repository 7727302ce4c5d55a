/* server: reference-counted shared bytes (see blob.h). */
#include "server/ws/blob.h"

#include <stdlib.h>

srv_ws_blob_t *srv_ws_blob_new(size_t cap) {
  srv_ws_blob_t *b = malloc(sizeof *b + (cap ? cap : 1));
  if (b == NULL) return NULL;
  b->refs = 1;
  b->cap = cap;
  return b;
}

srv_ws_blob_t *srv_ws_blob_ref(srv_ws_blob_t *b) {
  b->refs++;
  return b;
}

void srv_ws_blob_unref(srv_ws_blob_t *b) {
  if (b != NULL && --b->refs == 0) free(b);
}
