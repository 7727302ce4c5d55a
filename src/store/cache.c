/* store: the cache side of a memory-only store (cache.h): canonical texts
 * out, adopted texts in, dropping cached copies and evicting the least
 * recently used. */
#include "store/cache.h"

#include <stdlib.h>
#include <string.h>

#include "store/internal.h"

int store_asset_encode(const store_asset_t *a, fmt_buf_t *b) {
  switch (a->kind) {
  case STORE_SKELETON: return fmt_encode_skeleton(b, a->skeleton);
  case STORE_CLIP:
    return fmt_encode_clip(b, a->clip, a->skeleton_asset->skeleton,
                           a->skeleton_asset->id);
  case STORE_MESH:
    return fmt_encode_mesh(b, a->mesh, a->skeleton_asset->skeleton,
                           a->skeleton_asset->id);
  }
  return -1;
}

static size_t bundle_count(const fmt_bundle_t *b, store_kind kind) {
  return kind == STORE_SKELETON ? b->skeleton_count
         : kind == STORE_CLIP   ? b->clip_count
                                : b->mesh_count;
}

int store_adopt(store_t *s, store_kind kind, const char *id, const char *text,
                size_t len, bool unnamed, store_asset_t **out,
                fmt_error_t *err) {
  *out = NULL;
  char hash[FMT_ID_LEN + 1];
  if (!fmt_is_content_id(id) || fmt_content_id(text, len, hash) != 0 ||
      strcmp(hash, id) != 0)
    return fmt_fail(err, FMT_ERR_BAD_INPUT, "",
                    "the text of %s %.70s does not hash to its id",
                    store_kind_name(kind), id);
  store_asset_t *have = store_lookup(s, kind, id, NULL);
  if (have != NULL) {
    pthread_mutex_lock(&s->lock);
    bool same = have->_unnamed == unnamed;
    pthread_mutex_unlock(&s->lock);
    if (same) {
      *out = have;
      return 0;
    }
    /* Its name came back (or moved away) meanwhile: a name event drops
     * the named copies only (its group's), so this one is taken again. */
    store_asset_release(have);
    store_drop(s, kind, id);
  }
  store_resolver_t resolver;
  store_resolver_init(&resolver, s);
  fmt_decode_options_t opts = s->decode;
  opts.skeleton = NULL;
  opts.resolve = store_resolve;
  opts.resolve_user_data = &resolver;
  opts.max_bytes = store_decode_room(s);
  fmt_bundle_t bundle = {0};
  int r = fmt_decode_native_json(text, len, &opts, &bundle, err);
  size_t n = bundle.skeleton_count + bundle.clip_count + bundle.mesh_count;
  if (r == 0 && (n != 1 || bundle_count(&bundle, kind) != 1))
    r = fmt_fail(err, FMT_ERR_BAD_INPUT, "",
                 "the text of %s %s holds another asset", store_kind_name(kind),
                 id);
  store_ingest_result_t res;
  if (r == 0)
    r = store__ingest(s, &bundle, store_resolver_external(&resolver), NULL, id,
                      true, unnamed, &res, err);
  fmt_bundle_free(&bundle);
  store_resolver_release(&resolver);
  if (r != 0) return -1;
  *out = res.entries[0].asset;
  store_asset_retain(*out);
  store_ingest_result_free(&res);
  return 0;
}

/* Forgets the asset of kind with that id (a skeleton with its clips and
 * meshes): a probe by id, and a walk of the skeleton's own children. */
size_t store_drop(store_t *s, store_kind kind, const char *id) {
  fmt_error_t err;
  if (kind != STORE_SKELETON) return store_delete(s, kind, id, &err) == 0;
  store_asset_t **gone;
  size_t count;
  if (store_delete_cascade(s, id, &gone, &count, &err) != 0) return 0;
  store_list_free(gone, count);
  return count;
}

size_t store_drop_named(store_t *s, store_kind kind, const char *name) {
  if (name == NULL || name[0] == '\0') return 0;
  /* The name group's members (retained), then each dropped by id. */
  pthread_mutex_lock(&s->lock);
  size_t n = 0;
  for (store_asset_t *a = store__named_first(s, kind, name); a != NULL;
       a = a->_named_next)
    n++;
  store_asset_t **list = malloc((n ? n : 1) * sizeof *list);
  if (list != NULL) {
    size_t i = 0;
    for (store_asset_t *a = store__named_first(s, kind, name); a != NULL;
         a = a->_named_next) {
      list[i++] = a;
      store_asset_retain(a);
    }
    s->stats.scanned += 2 * n;
  }
  pthread_mutex_unlock(&s->lock);
  if (list == NULL) return store_drop_all(s);
  size_t dropped = 0;
  for (size_t i = 0; i < n; i++) dropped += store_drop(s, kind, list[i]->id);
  store_list_free(list, n);
  return dropped;
}

size_t store_drop_all(store_t *s) {
  store_asset_t **list;
  size_t count, dropped = 0;
  if (store_list(s, &list, &count) != 0) return 0;
  /* Clips and meshes come after skeletons in a store_list: backwards,
   * a skeleton's are gone before it. */
  for (size_t i = count; i-- > 0;) {
    fmt_error_t err;
    if (store_delete(s, list[i]->kind, list[i]->id, &err) == 0) dropped++;
  }
  store_list_free(list, count);
  return dropped;
}

typedef struct lru_entry_s {
  uint64_t used;
  store_asset_t *asset;
} lru_entry_t;

static int compare_used(const void *pa, const void *pb) {
  const lru_entry_t *a = pa, *b = pb;
  return a->used < b->used ? -1 : a->used > b->used;
}

static size_t store_bytes(store_t *s) {
  pthread_mutex_lock(&s->lock);
  size_t bytes = s->bytes;
  pthread_mutex_unlock(&s->lock);
  return bytes;
}

size_t store_evict(store_t *s, size_t need, size_t max_bytes) {
  if (max_bytes == 0 || store_bytes(s) + need <= max_bytes) return 0;
  size_t low = max_bytes - max_bytes / 10;
  pthread_mutex_lock(&s->lock);
  size_t n = s->count;
  lru_entry_t *list = malloc((n ? n : 1) * sizeof *list);
  if (list == NULL) {
    pthread_mutex_unlock(&s->lock);
    return store_drop_all(s);
  }
  for (size_t i = 0; i < n; i++) {
    list[i] = (lru_entry_t){
        atomic_load_explicit(&s->items[i]->_used, memory_order_relaxed),
        s->items[i]};
    store_asset_retain(s->items[i]);
  }
  pthread_mutex_unlock(&s->lock);
  qsort(list, n, sizeof *list, compare_used);
  size_t dropped = 0;
  for (size_t i = 0; i < n && store_bytes(s) + need > low; i++) {
    store_asset_t *a = list[i].asset;
    fmt_error_t err;
    if (a->kind == STORE_SKELETON) {
      store_asset_t **gone;
      size_t count;
      if (store_delete_cascade(s, a->id, &gone, &count, &err) == 0) {
        dropped += count;
        store_list_free(gone, count);
      }
    } else if (store_delete(s, a->kind, a->id, &err) == 0) {
      dropped++;
    }
  }
  for (size_t i = 0; i < n; i++) store_asset_release(list[i].asset);
  free(list);
  return dropped;
}
