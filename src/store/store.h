/* store: the registry of uploaded assets (skeletons, clips, meshes), in
 * memory and optionally on disk.
 *
 * Assets are immutable and reference-counted (atomic counts): a lookup
 * returns a retained asset that the caller releases when done, so worker
 * threads read assets without locks and deleting an asset never frees
 * memory a running job holds. A clip or mesh retains its skeleton asset.
 *
 * Identity: an asset's id is the content id of its canonical encoding
 * (formats/native_json.h: lowercase hex SHA-256 of the canonical native
 * JSON text; a clip's and a mesh's text holds its skeleton's id). Equal
 * content gives an equal id on every node, so uploading again is a no-op
 * (created = false).
 *
 * Names: a clip or mesh name is unique within its skeleton (non-empty
 * names only): an upload that brings a different clip under a name its
 * skeleton already has fails with name_conflict (FMT_ERR_NAME_CONFLICT).
 * Skeleton names need not be unique, nor clip names across skeletons; a
 * name that several assets share is ambiguous: store_find reports how
 * many match and lists their ids, so callers can tell "none" from "which
 * one?". An upload may rename its one skeleton and its one clip, qualify
 * every name with a prefix, or move the names it brings from older assets
 * to its own (replace; store_ingest_named).
 *
 * Delete: a skeleton that still has clips or meshes is refused with
 * conflict (FMT_ERR_CONFLICT) unless the delete cascades, which removes
 * the skeleton with all its clips and meshes at once: from the tables in
 * one step and, on disk, all or nothing across a crash (a commit list
 * naming the files to remove, as multi-asset uploads do).
 *
 * Persistence (data_dir set): each asset is one file
 * <data_dir>/<kind>-<id>.json (kind: skeleton, clip, mesh) holding exactly
 * its canonical encoding, so sha256sum of the file is its id. Files are
 * written atomically (temp file ".tmp-*", fsync, rename, fsync of the
 * directory) before store_ingest returns; store_open loads skeletons first,
 * then clips and meshes, and skips (reporting through the log hook) temp
 * files, files whose hash is not their name, files that do not decode, and
 * clips or meshes whose skeleton is missing. A loaded asset keeps the id
 * of its file name (its hash was checked) and the same numbers, bit for
 * bit (see formats/native_json.h). A missing data_dir is
 * created. DELETE removes the file.
 *
 * Memory: an asset's bytes are every heap byte it holds: its core object
 * (formats/asset_bytes.h: every array of the block, a clip's table of the
 * joint paths no track animates and a skeleton's name index included),
 * the asset itself and its index slots. With max_bytes set, an ingest that
 * would go beyond it fails with FMT_ERR_INSUFFICIENT_STORAGE and
 * stores nothing; store_decode_room gives decoders the room left, so that
 * an upload that cannot fit is refused before its objects are built.
 *
 * Lookups: by id and by name through hash tables (O(1) whatever the number
 * of assets).
 *
 * Threads: every function is thread-safe. Cached lookups
 * (store_find_cached) take no lock while the store is unchanged. One mutex
 * guards the tables and is held only to read them (lookups) or to link and
 * unlink prepared
 * pointers, never across disk I/O, encoding or allocation; a second one
 * serializes the mutations (ingests and deletes) with their disk writes
 * (lock order: io, then table). */
#ifndef ANIMD_STORE_STORE_H
#define ANIMD_STORE_STORE_H

#include <stdatomic.h>

#include "animd/animd.h"
#include "formats/answer.h"
#include "formats/bundle.h"
#include "formats/buf.h"
#include "formats/native_json.h"

typedef enum store_kind {
  STORE_SKELETON = 0,
  STORE_CLIP = 1,
  STORE_MESH = 2
} store_kind;

typedef struct store_asset_s store_asset_t;

/* Everything here is immutable once the asset is published. */
struct store_asset_s {
  store_kind kind;
  char id[FMT_ID_LEN + 1];
  const char *name; /* Never NULL: the core object's name. */
  /* Exactly one is set, by kind. */
  anim_skeleton_t *skeleton;
  anim_clip_t *clip;
  anim_mesh_t *mesh;
  /* Clip and mesh: the skeleton asset (retained); NULL for a skeleton. */
  store_asset_t *skeleton_asset;
  size_t bytes; /* Counted against the memory limit. */
  /* private */
  atomic_uint_fast32_t _refs;
  /* Guarded by the store's locks: */
  bool _removed;
  size_t _slot;             /* Index in the store's list. */
  uint32_t _clips, _meshes; /* A skeleton's published clips and meshes. */
  /* The store's clock at its last lookup or publication (a skeleton's: of
   * it or of one of its clips and meshes); relaxed atomic, since cached
   * lookups (store_find_cached) refresh it without the store's lock. */
  atomic_uint_fast64_t _used;
  char *_name;   /* A name given at upload (the object's name
                    points here), or NULL. */
  bool _unnamed; /* Its name moved to another asset (an upload
                    with replace): only its id finds it. */
  /* The other assets of its kind and name (across skeletons), while it
   * is named: its name group's member list. */
  store_asset_t *_named_prev, *_named_next;
  /* A skeleton: its first published clip or mesh; a clip or mesh: the
   * others of its skeleton (so a cascade visits only its own). */
  store_asset_t *_children;
  store_asset_t *_child_prev, *_child_next;
};

typedef struct store_s store_t;

typedef struct store_options_s {
  /* Directory of the asset files; NULL or "" keeps assets in memory only. */
  const char *data_dir;
  /* Upper bound of store_stats().bytes; 0 means none. */
  size_t max_bytes;
  /* Reports of files skipped at open and of disk errors (one sentence each);
   * NULL means stderr. */
  void (*log)(void *user_data, const char *message);
  void *log_user_data;
  /* Decoder limits for files loaded at open (zero: the decoder's). */
  fmt_decode_options_t decode;
  /* Names store_suggest compares at most (0: STORE_SUGGEST_SCAN). */
  size_t suggest_scan;
} store_options_t;

/* store_suggest's bound when the options give none. */
#define STORE_SUGGEST_SCAN 2000

/* Opens a store, loading every asset of data_dir. Returns 0, or a negative
 * errno (the data dir cannot be created or read; err says why). Unreadable
 * or corrupt files are skipped and reported, never fatal. */
int store_open(const store_options_t *opts, store_t **out, fmt_error_t *err);
/* Frees the store. Assets still retained by callers stay valid until their
 * last release. */
void store_close(store_t *store);

void store_asset_retain(store_asset_t *asset);
/* Drops one reference; the last one frees the asset (and releases its
 * skeleton asset). NULL is ignored. */
void store_asset_release(store_asset_t *asset);

/* One ingested asset: retained (release it), and whether this upload
 * created it. */
typedef struct store_entry_s {
  store_asset_t *asset;
  bool created;
} store_entry_t;

/* A name an upload with replace took from an older asset: old (retained)
 * lost it, new (an entry of the upload) holds it. */
typedef struct store_moved_s {
  store_asset_t *old;
  const store_asset_t *new_asset;
} store_moved_t;

typedef struct store_ingest_result_s {
  store_entry_t *entries; /* Skeletons, then clips, then meshes, each in
                             bundle order. */
  size_t count;
  bool any_created; /* Anything was created by this upload. */
  /* With replace: the names moved, by kind then old id. */
  store_moved_t *moved;
  size_t moved_count;
} store_ingest_result_t;

/* Stores a decoded bundle whole or not at all, taking ownership of its
 * objects (the bundle is left empty in both cases). external is the
 * skeleton asset the bundle's FMT_EXTERNAL_SKELETON members were built for
 * (from store_lookup or a store_resolver_t), or NULL. Returns 0 with out
 * filled, or -1 with err (its code): FMT_ERR_NAME_CONFLICT,
 * FMT_ERR_SKELETON_DELETED (external was deleted meanwhile),
 * FMT_ERR_INSUFFICIENT_STORAGE, FMT_ERR_IO_ERROR, FMT_ERR_OUT_OF_MEMORY or
 * FMT_ERR_INTERNAL. */
int store_ingest(store_t *store, fmt_bundle_t *bundle, store_asset_t *external,
                 store_ingest_result_t *out, fmt_error_t *err);
/* Releases the entries and frees the array. */
void store_ingest_result_free(store_ingest_result_t *result);

/* Finds an asset of kind by id, or by name: a skeleton by a name no other
 * skeleton has; a clip or mesh by name within skeleton (when skeleton is
 * not NULL) or, without one, by a name only one clip/mesh has. Returns it
 * retained, or NULL (none, or several: see store_find). */
store_asset_t *store_lookup(store_t *store, store_kind kind,
                            const char *id_or_name,
                            const store_asset_t *skeleton);

/* What a name or id stands for: the one asset, or how many share it. */
#define STORE_MATCH_LISTED 6
typedef struct store_match_s {
  store_asset_t *asset; /* Retained when count == 1 (release it), else NULL. */
  size_t count;         /* Assets of the kind matching: 0, 1 or more. */
  /* When count > 1: the smallest ids of the matches, ascending (at most
   * STORE_MATCH_LISTED of them). */
  size_t listed;
  char ids[STORE_MATCH_LISTED][FMT_ID_LEN + 1];
} store_match_t;

/* store_lookup's rules, telling ambiguity apart from absence. Listing the
 * ids of an ambiguous name walks the assets of that name; the other
 * answers cost a hash probe or two. */
void store_find(store_t *store, store_kind kind, const char *id_or_name,
                const store_asset_t *skeleton, store_match_t *out);

/* store_find through the calling thread's lookup cache (lookup_cache.c):
 * the same answers, but a name or id this thread found before, with
 * nothing changed in the store since (a store generation, bumped by every
 * change a lookup could see: publish, delete, drop, rename, eviction), is
 * answered without the store's lock or any shared write (a retain of the
 * asset aside). Only single matches are cached; a miss, an ambiguity and
 * a change fall back to store_find. Each thread's cache holds at most
 * STORE_LOOKUP_CACHE_SLOTS references, released when the thread next
 * sees the store changed, on store_lookup_cache_clear, and at its exit. */
#define STORE_LOOKUP_CACHE_SLOTS 16
void store_find_cached(store_t *store, store_kind kind, const char *id_or_name,
                       const store_asset_t *skeleton, store_match_t *out);
/* Releases every reference the calling thread's lookup cache holds. */
void store_lookup_cache_clear(void);
/* The calling thread's cached lookups answered from its cache (hits) and
 * through store_find (misses) since it started. */
void store_lookup_cache_counts(uint64_t *hits, uint64_t *misses);

/* The sentence an ambiguous match answers with, into out (cap bytes, at
 * least 512 for every id to fit): "'N' names 5 skeletons: ID, ID, ...
 * (use an id)", with "and K more" past the listed ids. */
void store_match_describe(const store_match_t *m, store_kind kind,
                          const char *name, char *out, size_t cap);

/* How many published assets of kind are named name (within skeleton for
 * clips and meshes when skeleton is not NULL). */
size_t store_name_count(store_t *store, store_kind kind, const char *name,
                        const store_asset_t *skeleton);

/* The clips or meshes (kind) of a skeleton asset, retained, sorted by id
 * (free with store_list_free). O(assets). Returns 0 or -ENOMEM. */
/* For "did you mean": the name of an asset of kind nearest to name
 * (formats/suggest.h), among the clips or meshes of skeleton when given,
 * else among every asset of kind, copied into out (cap bytes; "" when none
 * is near). At most the store's suggest_scan names are compared, so a miss
 * costs a bounded time whatever the store holds. */
void store_suggest(store_t *store, store_kind kind, const char *name,
                   const store_asset_t *skeleton, char *out, size_t cap);

int store_children(store_t *store, const store_asset_t *skeleton,
                   store_kind kind, store_asset_t ***out, size_t *count);

/* Names an upload gives its assets, replacing the decoded ones (NULL:
 * keep them). skeleton renames the bundle's one skeleton, clip its one
 * clip; a bundle with another number of them is refused (bad_parameter
 * at "name" or "clip"), as is an empty name or one that is a content id
 * (it would read as an id).
 *
 * prefix (NULL: none) qualifies every non-empty name of the upload,
 * skeletons, clips and meshes, given or decoded: "new/" makes "Walk"
 * "new/Walk", so two exports of one rig live side by side. It must pass
 * store_check_prefix (bad_parameter at "prefix").
 *
 * replace moves the upload's names to its assets instead of refusing a
 * clip or mesh name its skeleton already has (name_conflict): in one step
 * (a lookup sees the old owners or the new ones, never both), the older
 * assets of the same kind and name lose it: for a skeleton, every other
 * skeleton of that name; for a clip or mesh, every other one of that name
 * whose skeleton is the upload's or has the same name (the earlier exports
 * of the rig). They stay, found by their id only, and keep the name in
 * their content (their id hashes it); with a data_dir, a marker file
 * <kind>-<id>.unnamed records it, written in the upload's commit. What
 * moved is in the result (store_moved_t). Finding the older owners walks
 * the assets that share the upload's names (the name groups link their
 * members), not the store. Assets of the upload
 * that were stored already and had lost their names take them back (an
 * earlier export uploaded again: a roll-back), their markers removed in
 * the same commit. */
typedef struct store_names_s {
  const char *skeleton;
  const char *clip;
  const char *prefix;
  bool replace;
} store_names_t;

/* The longest name an upload may give an asset, in bytes (a given name,
 * a decoded one, or either with its prefix): longer is refused with 400,
 * bad_value at the name's field (skeleton.name, skeletons[i].name when
 * the upload holds several, clips[i].name, meshes[i].name: i counts that
 * kind in the upload), bad_parameter at "name", "clip" or "prefix" for a
 * name or prefix given as a parameter. Assets loaded from files or from a
 * shared store are not checked again. */
#define STORE_NAME_MAX 256

/* The longest prefix store_check_prefix accepts, in bytes. */
#define STORE_PREFIX_MAX 64

/* 0 when prefix is a valid name prefix: 1 to STORE_PREFIX_MAX bytes of
 * A-Z a-z 0-9 and "_-./:"; else -1 with bad_parameter at `at`. */
int store_check_prefix(const char *prefix, const char *at, fmt_error_t *err);

/* store_ingest with the names of the upload (names may be NULL). */
int store_ingest_named(store_t *store, fmt_bundle_t *bundle,
                       store_asset_t *external, const store_names_t *names,
                       store_ingest_result_t *out, fmt_error_t *err);

/* The bytes a decode may build for this store (fmt_decode_options_t
 * .max_bytes): the room left under max_bytes (1 when the store is full),
 * or 0 when the store has no limit. A snapshot: store_ingest checks
 * again. */
size_t store_decode_room(store_t *store);

/* Deletes the asset of kind with that id (names are not taken here).
 * Returns 0, or -1 with err: FMT_ERR_NOT_FOUND, FMT_ERR_CONFLICT (a
 * skeleton that still has clips or meshes; the message counts them),
 * FMT_ERR_IO_ERROR (the file could not be removed; the asset stays). */
int store_delete(store_t *store, store_kind kind, const char *id,
                 fmt_error_t *err);

/* Deletes the skeleton with that id together with its clips and meshes,
 * all or nothing (tables and files). *removed (optional) receives every
 * asset removed, retained, clips then meshes (each by id) then the
 * skeleton (free with store_list_free). Errors as store_delete, without
 * conflict. */
int store_delete_cascade(store_t *store, const char *id,
                         store_asset_t ***removed, size_t *count,
                         fmt_error_t *err);

/* A snapshot of every asset, retained, skeletons first then clips then
 * meshes, each kind sorted by id. Returns 0 or -ENOMEM. */
int store_list(store_t *store, store_asset_t ***out, size_t *count);
/* Releases the assets and frees the array. */
void store_list_free(store_asset_t **assets, size_t count);

/* The summary line of an upload or list answer (formats/answer.h). The
 * strings point into the asset. */
void store_asset_summary(const store_asset_t *asset, fmt_asset_summary_t *out);
/* The ids and names an answer about owner (a skeleton, or a mesh) and
 * clip (NULL: the rest pose) prints (formats/answer.h); the strings point
 * into the assets. */
fmt_asset_names_t store_answer_names(const store_asset_t *owner,
                                     const store_asset_t *clip);
/* The describe answer of GET /v1/{skeletons,clips,meshes}/{id}. */
int store_asset_describe(const store_asset_t *asset, fmt_buf_t *b);

typedef struct store_stats_s {
  size_t skeletons, clips, meshes;
  size_t bytes;      /* Sum of the stored assets' bytes. */
  size_t max_bytes;  /* 0: no limit. */
  uint64_t ingested; /* Assets created since open (loaded ones excluded). */
  uint64_t loaded;   /* Assets loaded from data_dir at open. */
  uint64_t skipped;  /* Files skipped at open. */
  uint64_t deleted;
  uint64_t refused_full; /* Ingests refused for want of room. */
  uint64_t scanned;      /* Assets read to find what deletes and drops remove
                            (their victims and, for a cascade, its skeleton's
                            children): the work they cost beyond a probe. */
} store_stats_t;

void store_stats(store_t *store, store_stats_t *out);

/* Kind names: "skeleton", "clip", "mesh"; and from the plural URL segment
 * ("skeletons", ...), -1 when unknown. */
const char *store_kind_name(store_kind kind);
int store_kind_parse_plural(const char *s, size_t len);

/* Resolves skeletons named by native JSON uploads ("skeleton" at clip or
 * mesh level) to stored ones, keeping each one retained until
 * store_resolver_release. Use it as fmt_decode_options_t.resolve with the
 * resolver as resolve_user_data; after decoding, pass
 * store_resolver_external() to store_ingest. */
#define STORE_RESOLVER_MAX 4
typedef struct store_resolver_s {
  store_t *store;
  store_asset_t *found[STORE_RESOLVER_MAX];
  size_t found_count;
} store_resolver_t;

void store_resolver_init(store_resolver_t *r, store_t *store);
/* An fmt_skeleton_resolver: user_data is a store_resolver_t. */
const anim_skeleton_t *store_resolve(const char *id_or_name, void *user_data);
/* The stored skeleton asset whose skeleton is s (one of those resolved),
 * or NULL. */
store_asset_t *store_resolver_asset(const store_resolver_t *r,
                                    const anim_skeleton_t *s);
/* The first resolved skeleton asset, or NULL (native JSON decodes refuse
 * uploads that refer to more than one stored skeleton). */
store_asset_t *store_resolver_external(const store_resolver_t *r);
void store_resolver_release(store_resolver_t *r);

#endif
