/* server: the seam between the API's asset paths and a shared store
 * backend (the Redis one of redis/store_backend.h), which keeps every
 * asset of a fleet while the node's own store serves as its cache.
 *
 * Without a backend (the file store, the default) nothing here is used.
 * With one, a lookup that misses the node's store asks the backend to load
 * the asset into it, an upload is acknowledged only once the backend has
 * accepted it, and a delete is decided by the backend. Every call but
 * load_blocking is made on the HTTP loop thread and answers there, through
 * cb, exactly once (at once when the backend is unavailable). */
#ifndef ANIMD_SERVER_BACKEND_H
#define ANIMD_SERVER_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

#include "store/store.h"

typedef enum srv_backend_status {
  SRV_BACKEND_OK = 0,
  SRV_BACKEND_NOT_FOUND,     /* No such asset (load, remove). */
  SRV_BACKEND_AMBIGUOUS,     /* A name several assets share (load): the
                                message lists their ids. */
  SRV_BACKEND_CONFLICT,      /* A skeleton that still has clips or meshes. */
  SRV_BACKEND_NAME_CONFLICT, /* A name already used for another asset. */
  SRV_BACKEND_GONE,          /* The skeleton of an upload was deleted. */
  SRV_BACKEND_NO_ROOM,       /* The node's cache cannot hold it. */
  SRV_BACKEND_UNAVAILABLE,   /* The backend cannot be reached now. */
  SRV_BACKEND_FAILED         /* Anything else (message says what). */
} srv_backend_status;

typedef struct srv_backend_reply_s {
  srv_backend_status status;
  bool created;      /* publish: something new was stored. */
  char message[512]; /* For statuses other than OK. */
  /* list: the assets listed, by kind then id; remove_cascade: the clips
   * and meshes removed (kind and id only). Valid during the callback. */
  const fmt_asset_summary_t *items;
  size_t count;
  /* publish with replace: the names moved (store.h, store_names_t), by
   * kind then old id. Valid during the callback. */
  const fmt_moved_name_t *moved;
  size_t moved_count;
  /* NAME_CONFLICT: where in the upload (clips[i].name, meshes[i].name). */
  char at[64];
} srv_backend_reply_t;

typedef void (*srv_backend_cb)(void *arg, const srv_backend_reply_t *reply);

/* One asset of an upload: its canonical text (native_json.h). */
typedef struct srv_backend_entry_s {
  const store_asset_t *asset;
  const char *text;
  size_t len;
} srv_backend_entry_t;

typedef struct srv_backend_ops_s {
  /* Loads the asset of kind named id_or_name (an id, or a name: a clip or
   * mesh name within skeleton_id when not NULL) into the node's store;
   * requests for the same asset share one load and one decode. */
  void (*load)(void *self, store_kind kind, const char *id_or_name,
               const char *skeleton_id, srv_backend_cb cb, void *arg);
  /* Stores an upload's assets (skeletons first) whole or not at all;
   * replace moves their names to them on every node (store.h,
   * store_names_t) instead of refusing a name taken. */
  void (*publish)(void *self, const srv_backend_entry_t *entries, size_t count,
                  bool replace, srv_backend_cb cb, void *arg);
  /* Deletes the asset of kind with that id on every node. */
  void (*remove)(void *self, store_kind kind, const char *id, srv_backend_cb cb,
                 void *arg);
  /* Deletes a skeleton with its clips and meshes, at once, on every
   * node. */
  void (*remove_cascade)(void *self, const char *skeleton_id, srv_backend_cb cb,
                         void *arg);
  /* Lists, in kind then id order, at most max of the assets the backend
   * holds (skeleton_id NULL: those of kind after `after`, then every
   * asset of the kinds after it), or of the clips or meshes (kind) of one
   * skeleton after `after` ("": from the first). Redis's work per call
   * is bounded whatever max is: a listing is read a page at a time. */
  void (*list)(void *self, store_kind kind, const char *skeleton_id,
               const char *after, size_t max, srv_backend_cb cb, void *arg);
  /* load from any thread but the loop's, blocking it (a worker thread's):
   * the asset is in the node's store when this returns SRV_BACKEND_OK.
   * Waits at most the backend's timeout (twice, when its connections are
   * all taken). A not found answered a moment ago is answered again
   * without asking the backend, as load does. */
  srv_backend_status (*load_blocking)(void *self, store_kind kind,
                                      const char *id_or_name,
                                      const char *skeleton_id);
  /* True while the backend is reachable. */
  bool (*available)(void *self);
} srv_backend_ops_t;

typedef struct srv_backend_s {
  const srv_backend_ops_t *ops;
  void *self;
  const char *name; /* "redis://host:port/db", for logs and /healthz. */
} srv_backend_t;

#endif
