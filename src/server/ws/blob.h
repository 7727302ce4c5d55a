/* server: a reference-counted byte buffer shared by the frames queued to
 * several WebSocket clients.
 *
 * One evaluated frame's payload (its floats, or its q16 bytes) is made
 * once and handed to every subscriber of the same stream state: each
 * queued frame holds a reference, the frame cache holds one while the
 * entry keeps the frame, and the bytes are freed when the last reference
 * goes. A buffer with more than one reference is never written again.
 * References are taken and dropped on the loop thread only; a pool job
 * may fill the bytes of a buffer nobody else references yet. */
#ifndef ANIMD_SERVER_WS_BLOB_H
#define ANIMD_SERVER_WS_BLOB_H

#include <stddef.h>
#include <stdint.h>

typedef struct srv_ws_blob_s {
  unsigned refs;
  size_t cap; /* Bytes of data. */
  /* Aligned for the floats and words it carries. */
  _Alignas(16) uint8_t data[];
} srv_ws_blob_t;

/* A buffer of cap bytes (content undefined) with one reference, or NULL
 * on ENOMEM. */
srv_ws_blob_t *srv_ws_blob_new(size_t cap);
/* Takes a reference; returns b. */
srv_ws_blob_t *srv_ws_blob_ref(srv_ws_blob_t *b);
/* Drops a reference (b may be NULL); the last one frees the buffer. */
void srv_ws_blob_unref(srv_ws_blob_t *b);

#endif
