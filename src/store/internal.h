/* store: private structure shared by the registry (store.c) and its disk
 * persistence (store_disk.c). */
#ifndef ANIMD_STORE_INTERNAL_H
#define ANIMD_STORE_INTERNAL_H

#include <pthread.h>

#include "store/index.h"
#include "store/store.h"

struct store_s {
  /* Lock order: io_lock, then lock. lock guards everything below it and
   * is never held across disk I/O; io_lock serializes the mutations
   * (ingest, delete) with their file writes. */
  pthread_mutex_t io_lock;
  pthread_mutex_t lock;
  store_asset_t **items; /* Every published asset (asset->_slot). */
  size_t count, cap;
  store_index_t by_id;   /* store_asset_t by (kind, id). */
  store_index_t by_name; /* store_name_group_t by (kind, skeleton, name). */
  size_t kind_count[3];
  size_t bytes;
  /* Process-unique, never reused (per-thread lookup caches key by it). */
  uint64_t uid;
  /* Read without the lock by cached lookups (lookup_cache.c); written
   * under it. generation: bumped (release) by every change of the tables
   * a lookup could see (store__changed). clock: ticks at each lookup that
   * finds and each publication (asset->_used). On their own cache line,
   * away from the lock and the counters mutations write. */
  _Alignas(64) atomic_uint_fast64_t generation;
  atomic_uint_fast64_t clock;
  char _pad[64 - 2 * sizeof(atomic_uint_fast64_t)];
  store_stats_t stats;
  /* Settings. */
  char *data_dir; /* NULL: memory only. */
  int dir_fd;
  size_t max_bytes;
  size_t suggest_scan; /* store_suggest's bound. */
  void (*log)(void *user_data, const char *message);
  void *log_user_data;
  fmt_decode_options_t decode;
  unsigned long tmp_counter; /* Guarded by io_lock. */
  /* Tests only: make store__write_files stop as if the process died there
   * (files left as they are), at STORE_STOP_BEFORE_COMMIT or
   * STORE_STOP_AFTER_COMMIT of a multi-asset write. */
  int _stop_at;
};

enum { STORE_STOP_NONE = 0, STORE_STOP_BEFORE_COMMIT, STORE_STOP_AFTER_COMMIT };

/* ---- tables (table.c) ---------------------------------------------------- */
/* Readers hold lock; mutators hold io_lock and, to change anything, lock
 * as well, so a mutator may read with io_lock alone. */

typedef struct store_name_group_s store_name_group_t;

/* Marks a change of the tables that a lookup could see (lock held). */
void store__changed(store_t *s);

/* store_find, also giving the generation the answer was read at. */
void store__find(store_t *s, store_kind kind, const char *id_or_name,
                 const store_asset_t *skeleton, store_match_t *out,
                 uint64_t *generation);
/* Stamps a (and its skeleton) as used now: a relaxed store. */
void store__touch(store_t *s, store_asset_t *a, uint64_t now);
/* The calling thread's cache forgets the store with that uid (close). */
void store__lookup_cache_forget(uint64_t uid);

/* Hashes of an asset's (kind, id) and of a (kind, skeleton, name) key,
 * and a match of assets by (kind, id), for store/index.h tables. */
uint64_t store__id_hash(store_kind kind, const char *id);
bool store__id_match(const void *item, const void *key);
uint64_t store__name_hash(store_kind kind, const store_asset_t *skeleton,
                          const char *name);

store_asset_t *store__find_id(const store_t *s, store_kind kind,
                              const char *id);
/* The first of the assets of kind named name, across skeletons (the
 * next: asset->_named_next), or NULL. */
store_asset_t *store__named_first(const store_t *s, store_kind kind,
                                  const char *name);
/* How many assets of kind are named name within skeleton (NULL: across
 * all skeletons; ignored for skeletons), and *only the one when exactly
 * one is (else NULL). */
size_t store__name_count(const store_t *s, store_kind kind, const char *name,
                         const store_asset_t *skeleton, store_asset_t **only);

/* Publishing count new assets, and giving renamed_count published ones
 * that had lost their names (store__unname) their names back:
 * everything that allocates happens in prepare (io_lock held), apply only
 * links (both locks held), done frees what is left (after unlocking). */
typedef struct store_publish_s {
  store_asset_t *const *assets;
  size_t count;
  store_asset_t *const *renamed;
  size_t renamed_count;
  store_index_t by_id, by_name; /* Grown tables (cap 0: none needed). */
  store_asset_t **items;        /* Grown list, or NULL. */
  size_t items_cap;
  store_name_group_t **groups; /* Two per asset, then per renamed one
                                  (NULL: none). */
  store_name_group_t **new_groups;
  size_t new_count;
} store_publish_t;

int store__publish_prepare(store_t *s, store_asset_t *const *assets,
                           size_t count, store_asset_t *const *renamed,
                           size_t renamed_count, store_publish_t *p);
void store__publish_apply(store_t *s, store_publish_t *p);
void store__publish_done(store_publish_t *p);
/* Unlinks a (both locks held); the groups it emptied are returned for the
 * caller to free after unlocking. */
void store__unpublish(store_t *s, store_asset_t *a,
                      store_name_group_t *emptied[2]);
/* Takes a (published) out of its name groups for good: only its id finds
 * it now (both locks held); the groups it emptied are returned for the
 * caller to free after unlocking. */
void store__unname(store_t *s, store_asset_t *a,
                   store_name_group_t *emptied[2]);
void store__tables_free(store_t *s);

/* Logs one sentence through the store's hook. */
void store__log(store_t *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Disk: writes each text to <dir>/<kind>-<id>.json, and an empty marker
 * <dir>/<kind>-<id>.unnamed for each of the unnamed_count assets of
 * unnamed (names moved away by a replace), and removes the markers of the
 * named_count assets of named (names given back), atomically; all or
 * nothing (files written before a failure are removed). Called with
 * io_lock held. Returns 0 or a negative errno (err filled). */
int store__write_files(store_t *s, store_asset_t *const *assets,
                       const fmt_buf_t *texts, size_t count,
                       store_asset_t *const *unnamed, size_t unnamed_count,
                       store_asset_t *const *named, size_t named_count,
                       fmt_error_t *err);
/* Removes the file of an asset (ENOENT counts as done). */
int store__remove_file(store_t *s, const store_asset_t *asset);
/* Removes the files of count assets, all or nothing across a crash (a
 * commit list "remove <name>" per file when count > 1). Called with
 * io_lock held. Returns 0, or a negative errno when nothing was removed. */
int store__remove_files(store_t *s, store_asset_t *const *assets, size_t count);
/* Loads every asset file of the data dir into s (at open). */
int store__load_dir(store_t *s, fmt_error_t *err);

/* Builds an unpublished asset around an object (taking it), computing its
 * canonical text (into text, when not NULL) and id. forced_id, when not
 * NULL, is used instead of the computed id (files loaded at open keep the
 * id they were stored under); name, when not NULL, replaces the object's
 * name. Returns NULL on ENOMEM (the object is then freed). */
store_asset_t *store__asset_new(store_kind kind, void *object,
                                store_asset_t *skeleton_asset,
                                const char *forced_id, const char *name,
                                fmt_buf_t *text);

/* Publishes one decoded bundle; files are written unless from_disk. names
 * (may be NULL) renames its skeleton and clip (store_names_t). unnamed:
 * the bundle's one asset (a file loaded, a text adopted) is one whose
 * name moved away: it is published out of the name groups, and its name
 * is checked against nothing. */
int store__ingest(store_t *s, fmt_bundle_t *bundle, store_asset_t *external,
                  const store_names_t *names, const char *forced_id,
                  bool from_disk, bool unnamed, store_ingest_result_t *out,
                  fmt_error_t *err);

#endif
