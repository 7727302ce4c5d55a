/* store: what a shared backend needs of a memory-only store used as a
 * node's cache of assets kept elsewhere (the server's Redis backend).
 *
 * The texts exchanged are canonical encodings (formats/native_json.h), so
 * an asset adopted from its text keeps its id and its numbers, bit for
 * bit, exactly as a file of the data directory does. Dropping only forgets
 * a cached copy: assets retained by running jobs stay valid until their
 * last release. Thread-safe, as the rest of the store. */
#ifndef ANIMD_STORE_CACHE_H
#define ANIMD_STORE_CACHE_H

#include "store/store.h"

/* Appends the canonical encoding of asset (the text its id hashes) to b.
 * Returns 0, or -1 when b failed. */
int store_asset_encode(const store_asset_t *asset, fmt_buf_t *b);

/* Decodes text, the canonical encoding of one asset of kind whose id is
 * id (its SHA-256 is checked), and stores it; a clip or mesh needs its
 * skeleton in the store already. unnamed: its name moved to another asset
 * (store_names_t replace), so only its id finds it here; a copy stored
 * already whose name does not match (it lost its name or took it back
 * since) is dropped and taken again. Returns 0 with
 * *out retained (the one already stored when it was), or -1 with err:
 * bad_input (text is not that asset), not_found (its skeleton is not
 * here), or what store_ingest returns (insufficient_storage when the
 * store is full). */
int store_adopt(store_t *store, store_kind kind, const char *id,
                const char *text, size_t len, bool unnamed, store_asset_t **out,
                fmt_error_t *err);

/* Forgets the asset of kind with that id and, for a skeleton, its clips
 * and meshes first: a probe by id (and a walk of the skeleton's own
 * children), whatever the number of assets cached. Returns how many assets
 * were dropped. */
size_t store_drop(store_t *store, store_kind kind, const char *id);
/* Forgets every asset of kind named name (and a skeleton's clips and
 * meshes): a walk of that name's group, never of the cache. Returns how
 * many were dropped. */
size_t store_drop_named(store_t *store, store_kind kind, const char *name);
/* Forgets everything. Returns how many assets were dropped. */
size_t store_drop_all(store_t *store);

/* Makes room for need more bytes under max_bytes: unless the store's
 * bytes plus need fit already, forgets the least recently used assets
 * (found or published longest ago; a skeleton with its clips and meshes,
 * which refresh it when used; a lookup answered from a thread's cache
 * stamps the asset with the store's clock as it is, so assets found
 * since the last change of the store tie) until they fit under nine tenths of
 * max_bytes, so that a full cache does not sort itself at every miss.
 * Assets retained by running jobs stay valid until their last release;
 * they no longer count. Returns how many assets were dropped. */
size_t store_evict(store_t *store, size_t need, size_t max_bytes);

#endif
