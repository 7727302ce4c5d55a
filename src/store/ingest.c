/* store: ingest of a decoded bundle, whole or not at all.
 *
 * Linear in the bundle and never holding the table lock across per-asset
 * work: each asset is wrapped, encoded and hashed with no lock; then, with
 * io_lock alone (which excludes the other mutators, so the tables cannot
 * change, while lookups go on), duplicates and name conflicts are found
 * through hash tables (the store's, and local ones for the assets of this
 * upload), the memory limit is checked, the files are written and the
 * publication is prepared (every allocation); the table lock is then held
 * only while the prepared pointers are linked in, and, with replace, while
 * the older owners of the upload's names leave their name groups. */
#include "store/internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/release_memory.h"

void store_ingest_result_free(store_ingest_result_t *result) {
  if (result == NULL) return;
  for (size_t i = 0; i < result->moved_count; i++)
    store_asset_release(result->moved[i].old);
  free(result->moved);
  for (size_t i = 0; i < result->count; i++)
    store_asset_release(result->entries[i].asset);
  free(result->entries);
  memset(result, 0, sizeof *result);
}

int store_ingest(store_t *s, fmt_bundle_t *bundle, store_asset_t *external,
                 store_ingest_result_t *out, fmt_error_t *err) {
  return store__ingest(s, bundle, external, NULL, NULL, false, false, out, err);
}

int store_ingest_named(store_t *s, fmt_bundle_t *bundle,
                       store_asset_t *external, const store_names_t *names,
                       store_ingest_result_t *out, fmt_error_t *err) {
  return store__ingest(s, bundle, external, names, NULL, false, false, out,
                       err);
}

/* ---- names given at upload ------------------------------------------------
 */

/* A name given for the one asset of a kind the bundle must hold exactly
 * one of (have): 0, or -1 with bad_parameter at `at`. */
static int check_given_name(const char *name, const char *at, const char *what,
                            size_t have, fmt_error_t *err) {
  if (name == NULL) return 0;
  if (name[0] == '\0')
    return fmt_fail(err, FMT_ERR_BAD_PARAMETER, at, "'%s' must not be empty",
                    at);
  if (strlen(name) > STORE_NAME_MAX)
    return fmt_fail(err, FMT_ERR_BAD_PARAMETER, at,
                    "'%s' is longer than %d bytes", at, STORE_NAME_MAX);
  if (fmt_is_content_id(name))
    return fmt_fail(err, FMT_ERR_BAD_PARAMETER, at,
                    "'%s' must not look like an id (64 hex digits)", at);
  if (have != 1)
    return fmt_fail(err, FMT_ERR_BAD_PARAMETER, at,
                    "'%s' names the one %s of an upload; this one holds %zu",
                    at, what, have);
  return 0;
}

int store_check_prefix(const char *prefix, const char *at, fmt_error_t *err) {
  size_t n = strlen(prefix);
  if (n == 0 || n > STORE_PREFIX_MAX)
    return fmt_fail(err, FMT_ERR_BAD_PARAMETER, at,
                    "'%s' must be 1 to %d bytes long", at, STORE_PREFIX_MAX);
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)prefix[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || strchr("_-./:", c) != NULL;
    if (!ok)
      return fmt_fail(err, FMT_ERR_BAD_PARAMETER, at,
                      "'%s' may hold only letters, digits and _ - . / : "
                      "(byte %zu is not one)",
                      at, i);
  }
  return 0;
}

/* The length of the decoded name of asset i of the bundle (skeletons,
 * clips, then meshes), with its field into at. */
static size_t decoded_name(const fmt_bundle_t *b, size_t i, char *at,
                           size_t cap) {
  size_t ns = b->skeleton_count, nc = b->clip_count;
  const char *name;
  if (i < ns) {
    name = b->skeletons[i]->name;
    if (ns == 1)
      snprintf(at, cap, "skeleton.name");
    else
      snprintf(at, cap, "skeletons[%zu].name", i);
  } else if (i < ns + nc) {
    name = b->clips[i - ns].clip->name;
    snprintf(at, cap, "clips[%zu].name", i - ns);
  } else {
    name = b->meshes[i - ns - nc].mesh->name;
    snprintf(at, cap, "meshes[%zu].name", i - ns - nc);
  }
  return name ? strlen(name) : 0;
}

/* Every name the upload gives its assets is at most STORE_NAME_MAX bytes
 * (store.h): 0, or -1 with bad_value at the decoded name's field, or
 * bad_parameter at "prefix" when the prefix makes it too long. */
static int check_name_lengths(const fmt_bundle_t *b, const store_names_t *g,
                              fmt_error_t *err) {
  size_t ns = b->skeleton_count, nc = b->clip_count;
  size_t pl = g->prefix ? strlen(g->prefix) : 0;
  for (size_t i = 0; i < ns + nc + b->mesh_count; i++) {
    char at[64];
    size_t len = decoded_name(b, i, at, sizeof at);
    const char *given = i < ns ? g->skeleton : i < ns + nc ? g->clip : NULL;
    if (given == NULL && len > STORE_NAME_MAX)
      return fmt_fail(err, FMT_ERR_BAD_VALUE, at,
                      "'%s' is %zu bytes long; a name is at most %d bytes", at,
                      len, STORE_NAME_MAX);
    if (given != NULL) len = strlen(given);
    if (len > 0 && len + pl > STORE_NAME_MAX)
      return fmt_fail(err, FMT_ERR_BAD_PARAMETER, "prefix",
                      "'prefix' makes the name of %s %zu bytes long; a name "
                      "is at most %d bytes",
                      at, len + pl, STORE_NAME_MAX);
  }
  return 0;
}

/* The name an asset of the upload gets, or NULL to keep its decoded one:
 * the given name (may be NULL), qualified by the prefix (may be NULL)
 * when the name is not empty. A qualified name is built into *owned (free
 * it); false when out of memory. */
static bool final_name(const char *given, const char *decoded,
                       const char *prefix, char **owned, const char **out) {
  *owned = NULL;
  *out = given;
  const char *base = given ? given : decoded ? decoded : "";
  if (prefix == NULL || base[0] == '\0') return true;
  size_t pl = strlen(prefix), bl = strlen(base);
  *owned = malloc(pl + bl + 1);
  if (*owned == NULL) return false;
  memcpy(*owned, prefix, pl);
  memcpy(*owned + pl, base, bl + 1);
  *out = *owned;
  return true;
}

/* ---- local tables of this upload's assets ---------------------------------
 */

/* Clips and meshes by (kind, skeleton, name). */
static bool local_name_match(const void *item, const void *key) {
  const store_asset_t *a = item, *b = key;
  return a->kind == b->kind && a->skeleton_asset == b->skeleton_asset &&
         strcmp(a->name, b->name) == 0;
}

/* Assets by (kind, name) across skeletons: the names an upload with
 * replace takes. */
static bool local_kind_name_match(const void *item, const void *key) {
  const store_asset_t *a = item, *b = key;
  return a->kind == b->kind && strcmp(a->name, b->name) == 0;
}

static int local_table(store_index_t *t, size_t n) {
  store_index_t empty = {0};
  *t = empty;
  store_index_t grown;
  if (store__index_grown(t, n, &grown) != 0) return -ENOMEM;
  store__index_adopt(t, &grown);
  return 0;
}

/* ---- names moved by replace ---------------------------------------------
 */

/* True when the stored asset old loses its name to taker, an asset of the
 * upload of the same kind and name: any other skeleton; a clip or mesh of
 * the same skeleton or of one with the same (non-empty) name. */
static bool loses_name_to(const store_asset_t *old,
                          const store_asset_t *taker) {
  if (old == taker || old->kind != taker->kind ||
      strcmp(old->name, taker->name) != 0)
    return false;
  if (old->kind == STORE_SKELETON) return true;
  const store_asset_t *a = old->skeleton_asset, *b = taker->skeleton_asset;
  return a == b || (b->name[0] != '\0' && strcmp(a->name, b->name) == 0);
}

static int compare_moved(const void *pa, const void *pb) {
  const store_moved_t *a = pa, *b = pb;
  if (a->old->kind != b->old->kind)
    return (int)a->old->kind - (int)b->old->kind;
  return memcmp(a->old->id, b->old->id, FMT_ID_LEN);
}

/* The stored assets whose names the upload's n entries take, sorted by
 * kind then id, each old one retained (io_lock held: the tables cannot
 * change). Only the members of the upload's name groups are looked at.
 * Returns 0 or -ENOMEM. */
static int find_moved(store_t *s, const store_entry_t *e, size_t n,
                      store_moved_t **out, size_t *count) {
  *out = NULL;
  *count = 0;
  store_index_t seen; /* (kind, name) pairs whose group was walked. */
  if (local_table(&seen, n) != 0) return -ENOMEM;
  store_moved_t *moved = NULL;
  size_t cap = 0, k = 0;
  int rc = 0;
  for (size_t i = 0; i < n && rc == 0; i++) {
    const store_asset_t *a = e[i].asset;
    if (a->name[0] == '\0') continue;
    uint64_t h = store__name_hash(a->kind, NULL, a->name);
    if (store__index_find(&seen, h, local_kind_name_match, a) != NULL) continue;
    store__index_insert(&seen, h, (void *)a);
    store_asset_t *old = store__named_first(s, a->kind, a->name);
    for (; old != NULL; old = old->_named_next) {
      /* Which entry, if any, takes its name. */
      const store_asset_t *taker = NULL;
      bool own = false;
      for (size_t j = 0; j < n && !own; j++) {
        own = e[j].asset == old;
        if (taker == NULL && loses_name_to(old, e[j].asset)) taker = e[j].asset;
      }
      if (own || taker == NULL) continue;
      if (k == cap) {
        cap = cap ? 2 * cap : 8;
        store_moved_t *grown = realloc(moved, cap * sizeof *grown);
        if (grown == NULL) {
          rc = -ENOMEM;
          break;
        }
        moved = grown;
      }
      store_asset_retain(old);
      moved[k++] = (store_moved_t){.old = old, .new_asset = taker};
    }
  }
  store__index_free(&seen);
  if (rc != 0) {
    for (size_t i = 0; i < k; i++) store_asset_release(moved[i].old);
    free(moved);
    return rc;
  }
  if (k > 0) qsort(moved, k, sizeof *moved, compare_moved);
  *out = moved;
  *count = k;
  return 0;
}

/* ---- ingest ----------------------------------------------------------------
 */

int store__ingest(store_t *s, fmt_bundle_t *bundle, store_asset_t *external,
                  const store_names_t *given, const char *forced_id,
                  bool from_disk, bool unnamed, store_ingest_result_t *out,
                  fmt_error_t *err) {
  memset(out, 0, sizeof *out);
  static const store_names_t keep;
  if (given == NULL) given = &keep;
  if (check_given_name(given->skeleton, "name", "skeleton",
                       bundle->skeleton_count, err) != 0 ||
      check_given_name(given->clip, "clip", "clip", bundle->clip_count, err) !=
          0 ||
      (given->prefix != NULL &&
       store_check_prefix(given->prefix, "prefix", err) != 0) ||
      (!from_disk && check_name_lengths(bundle, given, err) != 0)) {
    fmt_bundle_free(bundle);
    return -1;
  }
  size_t n = bundle->skeleton_count + bundle->clip_count + bundle->mesh_count;
  size_t ns = bundle->skeleton_count, bundle_clips = bundle->clip_count;
  size_t alloc_n = n ? n : 1;
  store_entry_t *e = calloc(alloc_n, sizeof *e);
  fmt_buf_t *texts = calloc(alloc_n, sizeof *texts);
  uint32_t *skel_of = calloc(alloc_n, sizeof *skel_of);
  store_asset_t **fresh = calloc(alloc_n, sizeof *fresh);
  fmt_buf_t *fresh_texts = calloc(alloc_n, sizeof *fresh_texts);
  store_index_t ids = {0}, names = {0};
  store_publish_t pub;
  memset(&pub, 0, sizeof pub);
  store_moved_t *moved = NULL;
  size_t moved_count = 0;
  store_asset_t **losers = NULL, **named = NULL;
  size_t named_count = 0;
  store_name_group_t **emptied = NULL;
  size_t emptied_count = 0;
  char *owned_name = NULL;
  int rc = -1;
  bool io_locked = false;
  size_t fresh_count = 0, new_bytes = 0;
  if (e == NULL || texts == NULL || skel_of == NULL || fresh == NULL ||
      fresh_texts == NULL || local_table(&ids, n) != 0 ||
      local_table(&names, n) != 0)
    goto oom;
  /* Check the bundle's references before taking anything. */
  for (size_t i = 0; i < bundle->clip_count + bundle->mesh_count; i++) {
    uint32_t k = i < bundle->clip_count
                     ? bundle->clips[i].skeleton
                     : bundle->meshes[i - bundle->clip_count].skeleton;
    if (k == FMT_EXTERNAL_SKELETON ? external == NULL : k >= ns) {
      fmt_fail(err, FMT_ERR_INTERNAL, "", "a decoded asset has no skeleton");
      goto done;
    }
    skel_of[ns + i] = k;
  }
  if (external != NULL && external->kind != STORE_SKELETON) {
    fmt_fail(err, FMT_ERR_INTERNAL, "", "the external asset is no skeleton");
    goto done;
  }
  /* Wrap and encode (no lock): skeletons first, clips and meshes refer to
   * them by id. */
  size_t m = 0;
  const char *name;
  for (size_t i = 0; i < ns; i++, m++) {
    if (!final_name(given->skeleton, bundle->skeletons[i]->name, given->prefix,
                    &owned_name, &name))
      goto oom;
    e[m].asset = store__asset_new(STORE_SKELETON, bundle->skeletons[i], NULL,
                                  forced_id, name, &texts[m]);
    free(owned_name);
    owned_name = NULL;
    bundle->skeletons[i] = NULL;
    if (e[m].asset == NULL) goto oom;
  }
  for (size_t i = 0; i < bundle->clip_count + bundle->mesh_count; i++, m++) {
    bool clip = i < bundle->clip_count;
    uint32_t k = skel_of[m];
    store_asset_t *sk = k == FMT_EXTERNAL_SKELETON ? external : e[k].asset;
    void *object = clip ? (void *)bundle->clips[i].clip
                        : (void *)bundle->meshes[i - bundle->clip_count].mesh;
    const char *decoded =
        clip ? bundle->clips[i].clip->name
             : bundle->meshes[i - bundle->clip_count].mesh->name;
    if (!final_name(clip ? given->clip : NULL, decoded, given->prefix,
                    &owned_name, &name))
      goto oom;
    e[m].asset = store__asset_new(clip ? STORE_CLIP : STORE_MESH, object, sk,
                                  forced_id, name, &texts[m]);
    free(owned_name);
    owned_name = NULL;
    if (clip)
      bundle->clips[i].clip = NULL;
    else
      bundle->meshes[i - bundle->clip_count].mesh = NULL;
    if (e[m].asset == NULL) goto oom;
  }
  fmt_bundle_free(bundle);
  for (size_t i = 0; unnamed && i < n; i++) e[i].asset->_unnamed = true;

  /* From here the tables cannot change: io_lock excludes the other
   * mutators, and this one reads them without the table lock. */
  pthread_mutex_lock(&s->io_lock);
  io_locked = true;
  if (external != NULL && external->_removed) {
    fmt_fail(err, FMT_ERR_SKELETON_DELETED, "skeleton",
             "skeleton %s was deleted while this upload was decoded",
             external->id);
    goto done;
  }
  for (size_t i = 0; i < n; i++) {
    store_asset_t *a = e[i].asset;
    if (i == ns) {
      /* Clips and meshes bound to a skeleton of this upload follow it to
       * the stored copy when it was a duplicate. */
      for (size_t j = ns; j < n; j++) {
        uint32_t k = skel_of[j];
        store_asset_t *to = k == FMT_EXTERNAL_SKELETON ? NULL : e[k].asset;
        if (to == NULL || e[j].asset->skeleton_asset == to) continue;
        store_asset_retain(to);
        store_asset_release(e[j].asset->skeleton_asset);
        e[j].asset->skeleton_asset = to;
      }
    }
    uint64_t h = store__id_hash(a->kind, a->id);
    store_asset_t *old = store__find_id(s, a->kind, a->id);
    if (old == NULL) old = store__index_find(&ids, h, store__id_match, a);
    if (old != NULL) {
      store_asset_retain(old);
      store_asset_release(a);
      e[i].asset = old;
      continue;
    }
    store__index_insert(&ids, h, a);
    /* A different clip or mesh under a name its skeleton already has
     * (with replace: that another asset of this upload has). */
    if (a->kind != STORE_SKELETON && a->name[0] != '\0' && !a->_unnamed) {
      store_asset_t *same = NULL;
      uint64_t hn = store__name_hash(a->kind, a->skeleton_asset, a->name);
      if (given->replace ||
          store__name_count(s, a->kind, a->name, a->skeleton_asset, &same) == 0)
        same = store__index_find(&names, hn, local_name_match, a);
      if (same != NULL) {
        /* Where the name is in the upload: ?clip=, or the entry. */
        char at[64];
        if (a->kind == STORE_CLIP && given->clip != NULL)
          snprintf(at, sizeof at, "clip");
        else if (a->kind == STORE_CLIP)
          snprintf(at, sizeof at, "clips[%zu].name", i - ns);
        else
          snprintf(at, sizeof at, "meshes[%zu].name", i - ns - bundle_clips);
        fmt_fail(err, FMT_ERR_NAME_CONFLICT, at,
                 "its skeleton has a %s named \"%.60s\" already (%s): "
                 "upload with ?replace=1 to move the name, or ?prefix= to "
                 "keep both",
                 store_kind_name(a->kind), a->name, same->id);
        goto done;
      }
      store__index_insert(&names, hn, a);
    }
    e[i].created = true;
    fresh[fresh_count] = a;
    fresh_texts[fresh_count] = texts[i]; /* Shallow: texts owns it. */
    fresh_count++;
    new_bytes += a->bytes;
  }
  if (s->max_bytes != 0 && !from_disk &&
      (new_bytes > s->max_bytes || s->bytes > s->max_bytes - new_bytes)) {
    size_t have = s->bytes;
    pthread_mutex_lock(&s->lock);
    s->stats.refused_full++;
    pthread_mutex_unlock(&s->lock);
    fmt_fail(err, FMT_ERR_INSUFFICIENT_STORAGE, "",
             "the store holds %zu bytes of assets; this upload needs %zu more "
             "and the limit is %zu",
             have, new_bytes, s->max_bytes);
    goto done;
  }
  if (given->replace && find_moved(s, e, n, &moved, &moved_count) != 0)
    goto oom;
  losers = calloc(moved_count ? moved_count : 1, sizeof *losers);
  emptied = calloc(2 * (moved_count ? moved_count : 1), sizeof *emptied);
  named = calloc(n ? n : 1, sizeof *named);
  if (losers == NULL || emptied == NULL || named == NULL) goto oom;
  emptied_count = 2 * moved_count;
  for (size_t i = 0; i < moved_count; i++) losers[i] = moved[i].old;
  /* Stored assets of the upload that had lost their names take them
   * back (an earlier export uploaded again with replace). */
  for (size_t i = 0; given->replace && i < n; i++) {
    store_asset_t *a = e[i].asset;
    bool seen = false;
    for (size_t k = 0; k < named_count && !seen; k++) seen = named[k] == a;
    if (a->_unnamed && a->name[0] != '\0' && !seen) named[named_count++] = a;
  }
  if (store__publish_prepare(s, fresh, fresh_count, named, named_count, &pub) !=
      0)
    goto oom;
  if (!from_disk && s->data_dir != NULL &&
      fresh_count + moved_count + named_count > 0 &&
      store__write_files(s, fresh, fresh_texts, fresh_count, losers,
                         moved_count, named, named_count, err) != 0)
    goto done;

  pthread_mutex_lock(&s->lock);
  store__publish_apply(s, &pub);
  /* The names move in the same step as the new assets appear. */
  for (size_t i = 0; i < moved_count; i++)
    store__unname(s, moved[i].old, emptied + 2 * i);
  if (from_disk)
    s->stats.loaded += fresh_count;
  else
    s->stats.ingested += fresh_count;
  pthread_mutex_unlock(&s->lock);
  for (size_t i = 0; i < fresh_count; i++)
    store_asset_retain(fresh[i]); /* The table's reference. */
  out->entries = e;
  out->count = n;
  for (size_t i = 0; i < n; i++) out->any_created |= e[i].created;
  out->moved = moved;
  out->moved_count = moved_count;
  moved = NULL;
  moved_count = 0;
  e = NULL;
  new_bytes = 0;
  rc = 0;
  goto done;
oom:
  fmt_fail(err, FMT_ERR_OUT_OF_MEMORY, "", "out of memory");
done:
  if (io_locked) pthread_mutex_unlock(&s->io_lock);
  free(owned_name);
  for (size_t i = 0; i < emptied_count; i++) free(emptied[i]);
  free(emptied);
  free(losers);
  free(named);
  for (size_t i = 0; i < moved_count; i++) store_asset_release(moved[i].old);
  free(moved);
  store__publish_done(&pub);
  store__index_free(&ids);
  store__index_free(&names);
  if (e != NULL) {
    for (size_t i = 0; i < n; i++) store_asset_release(e[i].asset);
    free(e);
  }
  if (texts != NULL)
    for (size_t i = 0; i < n; i++) fmt_buf_free(&texts[i]);
  free(texts);
  free(skel_of);
  free(fresh);
  free(fresh_texts);
  fmt_bundle_free(bundle);
  if (rc != 0) fmt_release_memory(new_bytes);
  return rc;
}
