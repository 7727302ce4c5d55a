/* store: the registry of immutable, reference-counted assets: wrapping
 * decoded objects as assets (canonical text, id, bytes), lookups, deletion,
 * listing and statistics. Ingest is in ingest.c, the tables in table.c,
 * the files in store_disk.c, the per-thread lookup cache in
 * lookup_cache.c. Lookups take the table lock for a hash probe or two; it
 * is never held across disk I/O or encoding. */
#include "store/internal.h"

#include "formats/asset_bytes.h"
#include "formats/release_memory.h"
#include "formats/suggest.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void store__log(store_t *s, const char *fmt, ...) {
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (s->log != NULL)
    s->log(s->log_user_data, line);
  else
    fprintf(stderr, "animd store: %s\n", line);
}

const char *store_kind_name(store_kind kind) {
  switch (kind) {
  case STORE_SKELETON: return "skeleton";
  case STORE_CLIP: return "clip";
  case STORE_MESH: return "mesh";
  }
  return "unknown";
}

int store_kind_parse_plural(const char *s, size_t len) {
  if (s == NULL) return -1;
  if (len == 9 && memcmp(s, "skeletons", 9) == 0) return STORE_SKELETON;
  if (len == 5 && memcmp(s, "clips", 5) == 0) return STORE_CLIP;
  if (len == 6 && memcmp(s, "meshes", 6) == 0) return STORE_MESH;
  return -1;
}

/* ---- assets ---------------------------------------------------------------
 */

/* What an asset costs the store besides its core object: the asset itself
 * and its share of the indexes (an id slot and two name-group slots, each
 * a hash and a pointer in tables kept at most half full). */
#define ASSET_OVERHEAD (sizeof(store_asset_t) + FMT_BLOCK_OVERHEAD + 3 * 2 * 16)

static void asset_free(store_asset_t *a) {
  anim_skeleton_free(a->skeleton);
  anim_clip_free(a->clip);
  anim_mesh_free(a->mesh);
  store_asset_release(a->skeleton_asset);
  free(a->_name);
  free(a);
}

/* Points the object's name at the asset's own copy of name: the object's
 * name lives in its block, which cannot grow; the object is freed before
 * the copy (asset_free). */
static bool rename_object(store_asset_t *a, store_kind kind, void *object,
                          const char *name) {
  a->_name = strdup(name);
  if (a->_name == NULL) return false;
  if (kind == STORE_SKELETON) ((anim_skeleton_t *)object)->name = a->_name;
  if (kind == STORE_CLIP) ((anim_clip_t *)object)->name = a->_name;
  if (kind == STORE_MESH) ((anim_mesh_t *)object)->name = a->_name;
  return true;
}

store_asset_t *store__asset_new(store_kind kind, void *object,
                                store_asset_t *skeleton_asset,
                                const char *forced_id, const char *name,
                                fmt_buf_t *text) {
  store_asset_t *a = calloc(1, sizeof *a);
  if (a == NULL) goto fail;
  a->kind = kind;
  atomic_init(&a->_refs, 1);
  if (name != NULL && !rename_object(a, kind, object, name)) {
    free(a);
    goto fail;
  }
  fmt_buf_t local = FMT_BUF_INIT;
  fmt_buf_t *b = text ? text : &local;
  fmt_buf_reset(b);
  int rc = -1;
  switch (kind) {
  case STORE_SKELETON:
    a->skeleton = object;
    a->name = a->skeleton->name;
    a->bytes = fmt_skeleton_bytes(a->skeleton);
    rc = fmt_encode_skeleton(b, a->skeleton);
    break;
  case STORE_CLIP:
    a->clip = object;
    a->name = a->clip->name;
    a->bytes = fmt_clip_bytes(a->clip);
    rc = fmt_encode_clip(b, a->clip, skeleton_asset->skeleton,
                         skeleton_asset->id);
    break;
  case STORE_MESH:
    a->mesh = object;
    a->name = a->mesh->name ? a->mesh->name : "";
    a->bytes = fmt_mesh_bytes(a->mesh);
    rc = fmt_encode_mesh(b, a->mesh, skeleton_asset->skeleton,
                         skeleton_asset->id);
    break;
  }
  if (skeleton_asset != NULL) {
    store_asset_retain(skeleton_asset);
    a->skeleton_asset = skeleton_asset;
  }
  a->bytes += ASSET_OVERHEAD;
  if (rc == 0 && forced_id != NULL) {
    memcpy(a->id, forced_id, FMT_ID_LEN + 1);
  } else if (rc == 0) {
    rc = fmt_content_id(b->data, b->len, a->id);
  }
  fmt_buf_free(&local);
  if (rc != 0) {
    asset_free(a);
    return NULL;
  }
  return a;
fail:
  if (kind == STORE_SKELETON) anim_skeleton_free(object);
  if (kind == STORE_CLIP) anim_clip_free(object);
  if (kind == STORE_MESH) anim_mesh_free(object);
  return NULL;
}

void store_asset_retain(store_asset_t *asset) {
  if (asset != NULL)
    atomic_fetch_add_explicit(&asset->_refs, 1, memory_order_relaxed);
}

/* Drops one reference; returns the bytes the asset held when this was the
 * last one (it is freed), else 0. */
static size_t drop_reference(store_asset_t *asset) {
  if (asset == NULL) return 0;
  if (atomic_fetch_sub_explicit(&asset->_refs, 1, memory_order_acq_rel) != 1)
    return 0;
  size_t bytes = asset->bytes;
  asset_free(asset);
  return bytes;
}

void store_asset_release(store_asset_t *asset) { drop_reference(asset); }

void store_asset_summary(const store_asset_t *asset, fmt_asset_summary_t *out) {
  memset(out, 0, sizeof *out);
  out->kind = (fmt_asset_kind)asset->kind;
  out->id = asset->id;
  out->name = asset->name;
  if (asset->skeleton_asset) out->skeleton = asset->skeleton_asset->id;
  if (asset->skeleton) out->count = asset->skeleton->joint_count;
  if (asset->mesh) out->count = asset->mesh->vertex_count;
  if (asset->clip) out->duration = asset->clip->duration;
}

fmt_asset_names_t store_answer_names(const store_asset_t *owner,
                                     const store_asset_t *clip) {
  bool mesh = owner->kind == STORE_MESH;
  const store_asset_t *sk = mesh ? owner->skeleton_asset : owner;
  fmt_asset_names_t n = {
      .skeleton_id = sk->id,
      .skeleton_name = sk->name,
      .clip_id = clip ? clip->id : NULL,
      .clip_name = clip ? clip->name : NULL,
      .mesh_id = mesh ? owner->id : NULL,
      .mesh_name = mesh ? owner->name : NULL,
  };
  return n;
}

int store_asset_describe(const store_asset_t *asset, fmt_buf_t *b) {
  if (asset == NULL || b == NULL) return -1;
  switch (asset->kind) {
  case STORE_SKELETON:
    return fmt_describe_skeleton(b, asset->id, asset->skeleton);
  case STORE_CLIP:
    return fmt_describe_clip(b, asset->id, asset->clip,
                             asset->skeleton_asset->skeleton,
                             asset->skeleton_asset->id);
  case STORE_MESH:
    return fmt_describe_mesh(b, asset->id, asset->mesh,
                             asset->skeleton_asset->skeleton,
                             asset->skeleton_asset->id);
  }
  return -1;
}

/* ---- lookups ------------------------------------------------------------ */

store_asset_t *store_lookup(store_t *s, store_kind kind, const char *id_or_name,
                            const store_asset_t *skeleton) {
  store_match_t m;
  store_find(s, kind, id_or_name, skeleton, &m);
  return m.asset;
}

/* Inserts id into the ascending list of the smallest ids seen. */
static void list_id(store_match_t *m, const char *id) {
  size_t at = m->listed;
  while (at > 0 && memcmp(m->ids[at - 1], id, FMT_ID_LEN) > 0) at--;
  if (at == STORE_MATCH_LISTED) return;
  size_t last =
      m->listed < STORE_MATCH_LISTED ? m->listed : STORE_MATCH_LISTED - 1;
  memmove(m->ids[at + 1], m->ids[at], (last - at) * sizeof m->ids[0]);
  memcpy(m->ids[at], id, FMT_ID_LEN + 1);
  if (m->listed < STORE_MATCH_LISTED) m->listed++;
}

/* True when a is an asset of kind named name (within skeleton, when
 * given, for clips and meshes). */
static bool named(const store_asset_t *a, store_kind kind, const char *name,
                  const store_asset_t *skeleton) {
  return a->kind == kind && strcmp(a->name, name) == 0 &&
         (kind == STORE_SKELETON || skeleton == NULL ||
          a->skeleton_asset == skeleton);
}

void store__changed(store_t *s) {
  atomic_fetch_add_explicit(&s->generation, 1, memory_order_release);
}

void store__touch(store_t *s, store_asset_t *a, uint64_t now) {
  (void)s;
  atomic_store_explicit(&a->_used, now, memory_order_relaxed);
  if (a->skeleton_asset != NULL)
    atomic_store_explicit(&a->skeleton_asset->_used, now, memory_order_relaxed);
}

void store__find(store_t *s, store_kind kind, const char *id_or_name,
                 const store_asset_t *skeleton, store_match_t *out,
                 uint64_t *generation) {
  memset(out, 0, sizeof *out);
  if (s == NULL || id_or_name == NULL || id_or_name[0] == '\0') return;
  pthread_mutex_lock(&s->lock);
  store_asset_t *a = NULL;
  if (fmt_is_content_id(id_or_name)) a = store__find_id(s, kind, id_or_name);
  if (a != NULL && skeleton != NULL && kind != STORE_SKELETON &&
      a->skeleton_asset != skeleton)
    a = NULL;
  out->count =
      a != NULL ? 1 : store__name_count(s, kind, id_or_name, skeleton, &a);
  /* The ids of an ambiguous name: its group's members (across skeletons,
   * which holds those within one), never the whole store. */
  if (out->count > 1)
    for (store_asset_t *m = store__named_first(s, kind, id_or_name); m != NULL;
         m = m->_named_next)
      if (named(m, kind, id_or_name, skeleton)) list_id(out, m->id);
  if (a != NULL)
    store__touch(s, a,
                 atomic_fetch_add_explicit(&s->clock, 1, memory_order_relaxed) +
                     1);
  store_asset_retain(a);
  out->asset = a;
  if (generation != NULL)
    *generation = atomic_load_explicit(&s->generation, memory_order_relaxed);
  pthread_mutex_unlock(&s->lock);
}

void store_find(store_t *s, store_kind kind, const char *id_or_name,
                const store_asset_t *skeleton, store_match_t *out) {
  store__find(s, kind, id_or_name, skeleton, out, NULL);
}

void store_suggest(store_t *s, store_kind kind, const char *name,
                   const store_asset_t *skeleton, char *out, size_t cap) {
  if (cap > 0) out[0] = '\0';
  if (s == NULL || name == NULL || cap == 0) return;
  fmt_suggest_t near;
  fmt_suggest_init(&near, name, s->suggest_scan);
  pthread_mutex_lock(&s->lock);
  if (skeleton != NULL && kind != STORE_SKELETON) {
    for (const store_asset_t *c = skeleton->_children;
         c != NULL && !fmt_suggest_full(&near); c = c->_child_next)
      if (c->kind == kind && !c->_unnamed) fmt_suggest_offer(&near, c->name);
  } else {
    for (size_t i = 0; i < s->count && !fmt_suggest_full(&near); i++)
      if (s->items[i]->kind == kind && !s->items[i]->_unnamed)
        fmt_suggest_offer(&near, s->items[i]->name);
  }
  if (fmt_suggest_best(&near) != NULL)
    snprintf(out, cap, "%s", fmt_suggest_best(&near));
  pthread_mutex_unlock(&s->lock);
}

void store_match_describe(const store_match_t *m, store_kind kind,
                          const char *name, char *out, size_t cap) {
  fmt_buf_t b = FMT_BUF_INIT;
  static const char *const plural[] = {"skeletons", "clips", "meshes"};
  fmt_buf_printf(&b, "'%.60s' names %zu %s:", name, m->count, plural[kind]);
  for (size_t i = 0; i < m->listed; i++)
    fmt_buf_printf(&b, "%s %s", i ? "," : "", m->ids[i]);
  if (m->count > m->listed)
    fmt_buf_printf(&b, " and %zu more", m->count - m->listed);
  fmt_buf_puts(&b, " (use an id)");
  snprintf(out, cap, "%s",
           b.failed ? "several assets share this name" : fmt_buf_cstr(&b));
  fmt_buf_free(&b);
}

size_t store_name_count(store_t *s, store_kind kind, const char *name,
                        const store_asset_t *skeleton) {
  if (s == NULL || name == NULL || name[0] == '\0') return 0;
  pthread_mutex_lock(&s->lock);
  size_t n = store__name_count(s, kind, name, skeleton, NULL);
  pthread_mutex_unlock(&s->lock);
  return n;
}

size_t store_decode_room(store_t *s) {
  pthread_mutex_lock(&s->lock);
  size_t room = 0;
  if (s->max_bytes != 0)
    room = s->bytes < s->max_bytes ? s->max_bytes - s->bytes : 1;
  pthread_mutex_unlock(&s->lock);
  return room;
}

/* ---- delete, list, stats
 * -------------------------------------------------------- */

/* Removes victims (io_lock held; a skeleton after its clips and meshes):
 * their files, then their table entries in one step under the table lock;
 * scanned: the assets read to find them (stats). Returns 0, or -1 with err
 * (nothing removed). */
static int remove_assets(store_t *s, store_asset_t *const *victims, size_t n,
                         size_t scanned, fmt_error_t *err) {
  if (s->data_dir != NULL) {
    int r = store__remove_files(s, victims, n);
    if (r != 0)
      return fmt_fail(
          err, FMT_ERR_IO_ERROR, "", "cannot remove the file of %s %s: %s",
          store_kind_name(victims[0]->kind), victims[0]->id, strerror(-r));
  }
  store_name_group_t **emptied = calloc(2 * n, sizeof *emptied);
  if (emptied == NULL)
    return fmt_fail(err, FMT_ERR_OUT_OF_MEMORY, "", "out of memory");
  pthread_mutex_lock(&s->lock);
  for (size_t i = 0; i < n; i++) {
    store__unpublish(s, victims[i], emptied + 2 * i);
    victims[i]->_removed = true;
    s->stats.deleted++;
  }
  s->stats.scanned += scanned;
  pthread_mutex_unlock(&s->lock);
  for (size_t i = 0; i < 2 * n; i++) free(emptied[i]);
  free(emptied);
  return 0;
}

/* The published asset of kind with that id (io_lock held), or NULL after
 * filling err. */
static store_asset_t *find_for_delete(store_t *s, store_kind kind,
                                      const char *id, fmt_error_t *err) {
  store_asset_t *a = store__find_id(s, kind, id);
  if (a == NULL)
    fmt_fail(err, FMT_ERR_NOT_FOUND, "id", "no %s with id %s",
             store_kind_name(kind), id);
  return a;
}

static int not_an_id(store_kind kind, const char *id, fmt_error_t *err) {
  return fmt_fail(err, FMT_ERR_NOT_FOUND, "id", "no %s with id \"%.70s\"",
                  store_kind_name(kind), id ? id : "");
}

int store_delete(store_t *s, store_kind kind, const char *id,
                 fmt_error_t *err) {
  if (!fmt_is_content_id(id)) return not_an_id(kind, id, err);
  /* io_lock alone lets this mutator read the tables. */
  pthread_mutex_lock(&s->io_lock);
  store_asset_t *a = find_for_delete(s, kind, id, err);
  int rc = -1;
  if (a == NULL) goto done;
  if (kind == STORE_SKELETON && a->_clips + a->_meshes > 0) {
    fmt_fail(err, FMT_ERR_CONFLICT, "id",
             "skeleton %s still has %u clip(s) and %u mesh(es): delete "
             "them first, or delete with ?cascade=1",
             id, a->_clips, a->_meshes);
    goto done;
  }
  rc = remove_assets(s, &a, 1, 1, err);
done:
  pthread_mutex_unlock(&s->io_lock);
  if (rc != 0) return -1;
  size_t freed = a->bytes;
  store_asset_release(a);
  fmt_release_memory(freed);
  return 0;
}

static int compare_assets(const void *pa, const void *pb);

/* The clips or meshes of skeleton into list (kind order, then id), with
 * a lock that guards the tables held: its own list of children, never the
 * store's. Returns how many were added. */
static size_t collect_children(const store_asset_t *sk, store_kind kind,
                               store_asset_t **list) {
  size_t n = 0;
  for (store_asset_t *c = sk->_children; c != NULL; c = c->_child_next)
    if (c->kind == kind) list[n++] = c;
  qsort(list, n, sizeof *list, compare_assets);
  return n;
}

int store_delete_cascade(store_t *s, const char *id, store_asset_t ***removed,
                         size_t *count, fmt_error_t *err) {
  if (removed != NULL) *removed = NULL;
  if (count != NULL) *count = 0;
  if (!fmt_is_content_id(id)) return not_an_id(STORE_SKELETON, id, err);
  pthread_mutex_lock(&s->io_lock);
  store_asset_t *sk = find_for_delete(s, STORE_SKELETON, id, err);
  store_asset_t **victims = NULL;
  size_t n = 0;
  int rc = -1;
  if (sk == NULL) goto done;
  victims = malloc((sk->_clips + sk->_meshes + 1) * sizeof *victims);
  if (victims == NULL) {
    fmt_fail(err, FMT_ERR_OUT_OF_MEMORY, "", "out of memory");
    goto done;
  }
  n = collect_children(sk, STORE_CLIP, victims);
  n += collect_children(sk, STORE_MESH, victims + n);
  victims[n++] = sk;
  /* Each child was read twice (clips, then meshes). */
  rc = remove_assets(s, victims, n, 2 * (n - 1) + 1, err);
done:
  pthread_mutex_unlock(&s->io_lock);
  if (rc != 0) {
    free(victims);
    return -1;
  }
  size_t freed = 0;
  for (size_t i = 0; i < n; i++) freed += victims[i]->bytes;
  /* The tables' references become the caller's. */
  if (removed != NULL) {
    *removed = victims;
    *count = n;
  } else {
    store_list_free(victims, n);
  }
  fmt_release_memory(freed);
  return 0;
}

int store_children(store_t *s, const store_asset_t *skeleton, store_kind kind,
                   store_asset_t ***out, size_t *count) {
  *out = NULL;
  *count = 0;
  pthread_mutex_lock(&s->lock);
  uint32_t cap = kind == STORE_CLIP   ? skeleton->_clips
                 : kind == STORE_MESH ? skeleton->_meshes
                                      : 0;
  store_asset_t **list = malloc((cap ? cap : 1) * sizeof *list);
  if (list == NULL) {
    pthread_mutex_unlock(&s->lock);
    return -ENOMEM;
  }
  size_t n = cap ? collect_children(skeleton, kind, list) : 0;
  for (size_t i = 0; i < n; i++) store_asset_retain(list[i]);
  pthread_mutex_unlock(&s->lock);
  *out = list;
  *count = n;
  return 0;
}

static int compare_assets(const void *pa, const void *pb) {
  const store_asset_t *a = *(store_asset_t *const *)pa;
  const store_asset_t *b = *(store_asset_t *const *)pb;
  if (a->kind != b->kind) return (int)a->kind - (int)b->kind;
  return memcmp(a->id, b->id, FMT_ID_LEN);
}

int store_list(store_t *s, store_asset_t ***out, size_t *count) {
  *out = NULL;
  *count = 0;
  pthread_mutex_lock(&s->lock);
  size_t n = s->count;
  store_asset_t **list = malloc((n ? n : 1) * sizeof *list);
  if (list == NULL) {
    pthread_mutex_unlock(&s->lock);
    return -ENOMEM;
  }
  for (size_t i = 0; i < n; i++) {
    list[i] = s->items[i];
    store_asset_retain(list[i]);
  }
  pthread_mutex_unlock(&s->lock);
  qsort(list, n, sizeof *list, compare_assets);
  *out = list;
  *count = n;
  return 0;
}

void store_list_free(store_asset_t **assets, size_t count) {
  size_t freed = 0;
  for (size_t i = 0; i < count; i++) freed += drop_reference(assets[i]);
  free(assets);
  /* The last references of a cascade's assets (store_delete_cascade hands
   * them to its caller) are often dropped here. */
  fmt_release_memory(freed);
}

void store_stats(store_t *s, store_stats_t *out) {
  pthread_mutex_lock(&s->lock);
  *out = s->stats;
  out->skeletons = s->kind_count[STORE_SKELETON];
  out->clips = s->kind_count[STORE_CLIP];
  out->meshes = s->kind_count[STORE_MESH];
  out->bytes = s->bytes;
  out->max_bytes = s->max_bytes;
  pthread_mutex_unlock(&s->lock);
}

/* ---- open, close
 * -------------------------------------------------------------- */

int store_open(const store_options_t *opts, store_t **out, fmt_error_t *err) {
  static const store_options_t defaults;
  if (opts == NULL) opts = &defaults;
  *out = NULL;
  /* Aligned: the lookup fields have a cache line of their own. */
  store_t *s = aligned_alloc(_Alignof(store_t), sizeof *s);
  if (s != NULL) memset(s, 0, sizeof *s);
  if (s == NULL) {
    fmt_fail(err, FMT_ERR_OUT_OF_MEMORY, "", "out of memory");
    return -ENOMEM;
  }
  pthread_mutex_init(&s->io_lock, NULL);
  pthread_mutex_init(&s->lock, NULL);
  static atomic_uint_fast64_t next_uid = 1;
  s->uid = atomic_fetch_add_explicit(&next_uid, 1, memory_order_relaxed);
  s->dir_fd = -1;
  s->max_bytes = opts->max_bytes;
  s->suggest_scan =
      opts->suggest_scan != 0 ? opts->suggest_scan : STORE_SUGGEST_SCAN;
  s->log = opts->log;
  s->log_user_data = opts->log_user_data;
  s->decode = opts->decode;
  if (opts->data_dir != NULL && opts->data_dir[0] != '\0') {
    s->data_dir = strdup(opts->data_dir);
    if (s->data_dir == NULL) {
      store_close(s);
      fmt_fail(err, FMT_ERR_OUT_OF_MEMORY, "", "out of memory");
      return -ENOMEM;
    }
    int r = store__load_dir(s, err);
    if (r != 0) {
      store_close(s);
      return r;
    }
  }
  *out = s;
  return 0;
}

void store_close(store_t *s) {
  if (s == NULL) return;
  /* Other threads' caches let go of its assets when they next look up
   * or exit; their entries can never match another store (uid). */
  store__lookup_cache_forget(s->uid);
  /* Clips and meshes first: they hold their skeletons. */
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < s->count; i++) {
      store_asset_t *a = s->items[i];
      if (a == NULL || (a->kind == STORE_SKELETON) != (pass == 1)) continue;
      s->items[i] = NULL;
      store_asset_release(a);
    }
  store__tables_free(s);
  free(s->data_dir);
  if (s->dir_fd >= 0) close(s->dir_fd);
  pthread_mutex_destroy(&s->io_lock);
  pthread_mutex_destroy(&s->lock);
  free(s);
}

/* ---- resolver
 * ----------------------------------------------------------------------- */

void store_resolver_init(store_resolver_t *r, store_t *store) {
  memset(r, 0, sizeof *r);
  r->store = store;
}

const anim_skeleton_t *store_resolve(const char *id_or_name, void *user_data) {
  store_resolver_t *r = user_data;
  if (r == NULL || r->store == NULL) return NULL;
  store_asset_t *a = store_lookup(r->store, STORE_SKELETON, id_or_name, NULL);
  if (a == NULL) return NULL;
  for (size_t i = 0; i < r->found_count; i++) {
    if (r->found[i] == a) {
      store_asset_release(a);
      return r->found[i]->skeleton;
    }
  }
  if (r->found_count == STORE_RESOLVER_MAX) {
    store_asset_release(a);
    return NULL;
  }
  r->found[r->found_count++] = a;
  return a->skeleton;
}

store_asset_t *store_resolver_asset(const store_resolver_t *r,
                                    const anim_skeleton_t *s) {
  for (size_t i = 0; i < r->found_count; i++)
    if (r->found[i]->skeleton == s) return r->found[i];
  return NULL;
}

store_asset_t *store_resolver_external(const store_resolver_t *r) {
  return r->found_count ? r->found[0] : NULL;
}

void store_resolver_release(store_resolver_t *r) {
  for (size_t i = 0; i < r->found_count; i++) store_asset_release(r->found[i]);
  r->found_count = 0;
}
