/* store: the registry of immutable, reference-counted assets: ingest of
 * decoded bundles (all or nothing), lookups, listing, deletion and the
 * stuck-together bookkeeping (counts, bytes, memory limit).
 *
 * Assets live in one array scanned under the table lock: ids are compared
 * with memcmp (64 bytes) and names with strcmp, which stays far below a
 * microsecond per hundred assets; the lock is held only for these scans and
 * for pointer updates, never across disk I/O or encoding. */
#include "store/internal.h"

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

/* ---- assets --------------------------------------------------------------- */

static size_t skeleton_bytes(const anim_skeleton_t *s) {
  size_t n = s->joint_count;
  size_t b = sizeof *s + strlen(s->name) + 1;
  b += n * (sizeof(int16_t) + sizeof(char *) + sizeof(anim_transform_t) +
            sizeof(anim_quat_t) + sizeof(anim_mat4_t) + 2 * sizeof(uint32_t));
  for (size_t i = 0; i < n; i++) b += strlen(s->names[i]) + 1;
  return b;
}

static size_t clip_bytes(const anim_clip_t *c) {
  size_t b = sizeof *c + strlen(c->name) + 1;
  for (uint32_t i = 0; i < c->track_count; i++) {
    const anim_track_t *t = &c->tracks[i];
    size_t per_key = t->components;
    if (t->interpolation == ANIM_INTERP_CUBICSPLINE) per_key *= 3;
    b += sizeof *t + (size_t)t->key_count * (1 + per_key) * sizeof(float);
    if (t->bezier) b += (size_t)t->key_count * 4 * sizeof(float);
    if (t->squad_controls)
      b += (size_t)t->key_count * 2 * sizeof(anim_quat_t);
  }
  return b;
}

static size_t mesh_bytes(const anim_mesh_t *m) {
  size_t v = m->vertex_count, k = m->influences;
  size_t b = sizeof *m + (m->name ? strlen(m->name) + 1 : 0);
  b += v * 3 * sizeof(float) * (m->normals ? 2 : 1);
  b += v * k * (sizeof(uint16_t) + sizeof(float));
  b += (size_t)m->index_count * sizeof(uint32_t);
  return b;
}

static void asset_free(store_asset_t *a) {
  anim_skeleton_free(a->skeleton);
  anim_clip_free(a->clip);
  anim_mesh_free(a->mesh);
  store_asset_release(a->skeleton_asset);
  free(a);
}

store_asset_t *store__asset_new(store_kind kind, void *object,
                                store_asset_t *skeleton_asset,
                                const char *forced_id, fmt_buf_t *text) {
  store_asset_t *a = calloc(1, sizeof *a);
  if (a == NULL) goto fail;
  a->kind = kind;
  atomic_init(&a->_refs, 1);
  fmt_buf_t local = FMT_BUF_INIT;
  fmt_buf_t *b = text ? text : &local;
  fmt_buf_reset(b);
  int rc = -1;
  switch (kind) {
    case STORE_SKELETON:
      a->skeleton = object;
      a->name = a->skeleton->name;
      a->bytes = skeleton_bytes(a->skeleton);
      rc = fmt_encode_skeleton(b, a->skeleton);
      break;
    case STORE_CLIP:
      a->clip = object;
      a->name = a->clip->name;
      a->bytes = clip_bytes(a->clip);
      rc = fmt_encode_clip(b, a->clip, skeleton_asset->skeleton,
                           skeleton_asset->id);
      break;
    case STORE_MESH:
      a->mesh = object;
      a->name = a->mesh->name ? a->mesh->name : "";
      a->bytes = mesh_bytes(a->mesh);
      rc = fmt_encode_mesh(b, a->mesh, skeleton_asset->skeleton,
                           skeleton_asset->id);
      break;
  }
  if (skeleton_asset != NULL) {
    store_asset_retain(skeleton_asset);
    a->skeleton_asset = skeleton_asset;
  }
  a->bytes += sizeof *a;
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

void store_asset_release(store_asset_t *asset) {
  if (asset == NULL) return;
  if (atomic_fetch_sub_explicit(&asset->_refs, 1, memory_order_acq_rel) == 1)
    asset_free(asset);
}

void store_asset_summary(const store_asset_t *asset,
                         fmt_asset_summary_t *out) {
  memset(out, 0, sizeof *out);
  out->kind = (fmt_asset_kind)asset->kind;
  out->id = asset->id;
  out->name = asset->name;
  if (asset->skeleton_asset) out->skeleton = asset->skeleton_asset->id;
  if (asset->skeleton) out->count = asset->skeleton->joint_count;
  if (asset->mesh) out->count = asset->mesh->vertex_count;
  if (asset->clip) out->duration = asset->clip->duration;
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

/* ---- the table ---------------------------------------------------------------- */

/* Under lock. */
static store_asset_t *find_id(store_t *s, store_kind kind, const char *id) {
  for (size_t i = 0; i < s->count; i++) {
    store_asset_t *a = s->items[i];
    if (a->kind == kind && memcmp(a->id, id, FMT_ID_LEN) == 0) return a;
  }
  return NULL;
}

/* Under lock: the asset of kind named name within skeleton (any skeleton
 * when NULL); NULL when none or, without skeleton, several. */
static store_asset_t *find_name(store_t *s, store_kind kind, const char *name,
                                const store_asset_t *skeleton) {
  store_asset_t *found = NULL;
  for (size_t i = 0; i < s->count; i++) {
    store_asset_t *a = s->items[i];
    if (a->kind != kind || strcmp(a->name, name) != 0) continue;
    if (skeleton != NULL && a->skeleton_asset != skeleton) continue;
    if (found != NULL) return NULL;
    found = a;
  }
  return found;
}

store_asset_t *store_lookup(store_t *s, store_kind kind,
                            const char *id_or_name,
                            const store_asset_t *skeleton) {
  if (s == NULL || id_or_name == NULL || id_or_name[0] == '\0') return NULL;
  pthread_mutex_lock(&s->lock);
  store_asset_t *a = NULL;
  if (fmt_is_content_id(id_or_name)) a = find_id(s, kind, id_or_name);
  if (a != NULL && skeleton != NULL && kind != STORE_SKELETON &&
      a->skeleton_asset != skeleton)
    a = NULL;
  if (a == NULL) a = find_name(s, kind, id_or_name, skeleton);
  store_asset_retain(a);
  pthread_mutex_unlock(&s->lock);
  return a;
}

static int table_push(store_t *s, store_asset_t *a) {
  if (s->count == s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 64;
    store_asset_t **grown = realloc(s->items, cap * sizeof *grown);
    if (grown == NULL) return -ENOMEM;
    s->items = grown;
    s->cap = cap;
  }
  s->items[s->count++] = a;
  s->kind_count[a->kind]++;
  s->bytes += a->bytes;
  return 0;
}

/* ---- ingest ----------------------------------------------------------------------- */

void store_ingest_result_free(store_ingest_result_t *result) {
  if (result == NULL) return;
  for (size_t i = 0; i < result->count; i++)
    store_asset_release(result->entries[i].asset);
  free(result->entries);
  memset(result, 0, sizeof *result);
}

int store_ingest(store_t *s, fmt_bundle_t *bundle, store_asset_t *external,
                 store_ingest_result_t *out, fmt_error_t *err) {
  return store__ingest(s, bundle, external, NULL, false, out, err);
}

int store__ingest(store_t *s, fmt_bundle_t *bundle, store_asset_t *external,
                  const char *forced_id, bool from_disk,
                  store_ingest_result_t *out, fmt_error_t *err) {
  memset(out, 0, sizeof *out);
  size_t n = bundle->skeleton_count + bundle->clip_count + bundle->mesh_count;
  size_t ns = bundle->skeleton_count;
  store_entry_t *e = calloc(n ? n : 1, sizeof *e);
  fmt_buf_t *texts = calloc(n ? n : 1, sizeof *texts);
  bool *is_new = calloc(n ? n : 1, sizeof *is_new);
  store_asset_t **fresh = calloc(n ? n : 1, sizeof *fresh);
  fmt_buf_t *fresh_texts = calloc(n ? n : 1, sizeof *fresh_texts);
  int rc = -1;
  bool io_locked = false;
  if (e == NULL || texts == NULL || is_new == NULL || fresh == NULL ||
      fresh_texts == NULL) {
    fmt_fail(err, FMT_ERR_OUT_OF_MEMORY, "out_of_memory", "", "out of memory");
    goto done;
  }
  /* Check the bundle's references before taking anything. */
  for (size_t i = 0; i < bundle->clip_count + bundle->mesh_count; i++) {
    uint32_t k = i < bundle->clip_count
                     ? bundle->clips[i].skeleton
                     : bundle->meshes[i - bundle->clip_count].skeleton;
    if (k == FMT_EXTERNAL_SKELETON ? external == NULL : k >= ns) {
      fmt_fail(err, FMT_ERR_INTERNAL, "internal", "", "a decoded asset has no skeleton");
      goto done;
    }
  }
  if (external != NULL && external->kind != STORE_SKELETON) {
    fmt_fail(err, FMT_ERR_INTERNAL, "internal", "", "the external asset is no skeleton");
    goto done;
  }
  /* Wrap and encode (no lock): skeletons first, clips and meshes refer to
   * them by id. */
  size_t m = 0;
  for (size_t i = 0; i < ns; i++, m++) {
    e[m].asset = store__asset_new(STORE_SKELETON, bundle->skeletons[i], NULL,
                                  forced_id, &texts[m]);
    bundle->skeletons[i] = NULL;
    if (e[m].asset == NULL) goto oom;
  }
  for (size_t i = 0; i < bundle->clip_count; i++, m++) {
    uint32_t k = bundle->clips[i].skeleton;
    store_asset_t *sk = k == FMT_EXTERNAL_SKELETON ? external : e[k].asset;
    e[m].asset = store__asset_new(STORE_CLIP, bundle->clips[i].clip, sk,
                                  forced_id, &texts[m]);
    bundle->clips[i].clip = NULL;
    if (e[m].asset == NULL) goto oom;
  }
  for (size_t i = 0; i < bundle->mesh_count; i++, m++) {
    uint32_t k = bundle->meshes[i].skeleton;
    store_asset_t *sk = k == FMT_EXTERNAL_SKELETON ? external : e[k].asset;
    e[m].asset = store__asset_new(STORE_MESH, bundle->meshes[i].mesh, sk,
                                  forced_id, &texts[m]);
    bundle->meshes[i].mesh = NULL;
    if (e[m].asset == NULL) goto oom;
  }
  fmt_bundle_free(bundle);

  pthread_mutex_lock(&s->io_lock);
  io_locked = true;
  pthread_mutex_lock(&s->lock);
  if (external != NULL && external->_removed) {
    pthread_mutex_unlock(&s->lock);
    fmt_fail(err, FMT_ERR_CONFLICT, "skeleton_deleted", "skeleton",
             "skeleton %s was deleted while this upload was decoded",
             external->id);
    goto done;
  }
  /* Which assets exist already; an existing skeleton replaces the new copy
   * for the clips and meshes of this upload. */
  size_t new_bytes = 0, fresh_count = 0;
  for (size_t i = 0; i < n; i++) {
    store_asset_t *a = e[i].asset;
    store_asset_t *old = find_id(s, a->kind, a->id);
    for (size_t j = 0; old == NULL && j < i; j++)
      if (e[j].asset->kind == a->kind &&
          memcmp(e[j].asset->id, a->id, FMT_ID_LEN) == 0)
        old = e[j].asset;
    if (old != NULL) {
      store_asset_retain(old);
      /* Clips and meshes of this upload bound to the duplicate follow it
       * to the stored one. */
      for (size_t j = ns; a->kind == STORE_SKELETON && j < n; j++) {
        if (e[j].asset->skeleton_asset == a) {
          store_asset_retain(old);
          e[j].asset->skeleton_asset = old;
          store_asset_release(a);
        }
      }
      store_asset_release(a);
      e[i].asset = old;
      continue;
    }
    /* A different clip or mesh under a name its skeleton already has. */
    if (a->kind != STORE_SKELETON && a->name[0] != '\0') {
      store_asset_t *same = find_name(s, a->kind, a->name, a->skeleton_asset);
      if (same == NULL) {
        for (size_t j = ns; j < i; j++)
          if (e[j].asset->kind == a->kind && is_new[j] &&
              e[j].asset->skeleton_asset == a->skeleton_asset &&
              strcmp(e[j].asset->name, a->name) == 0)
            same = e[j].asset;
      }
      if (same != NULL) {
        pthread_mutex_unlock(&s->lock);
        fmt_fail(err, FMT_ERR_NAME_CONFLICT, "name_conflict", "",
                 "skeleton %s already has a %s named \"%.60s\" (%s): delete "
                 "it first or use another name",
                 a->skeleton_asset->id, store_kind_name(a->kind), a->name,
                 same->id);
        goto done;
      }
    }
    is_new[i] = true;
    e[i].created = true;
    fresh[fresh_count] = a;
    fresh_texts[fresh_count] = texts[i]; /* Shallow: texts owns it. */
    fresh_count++;
    new_bytes += a->bytes;
  }
  if (s->max_bytes != 0 && !from_disk &&
      (new_bytes > s->max_bytes || s->bytes > s->max_bytes - new_bytes)) {
    s->stats.refused_full++;
    size_t have = s->bytes;
    pthread_mutex_unlock(&s->lock);
    fmt_fail(err, FMT_ERR_NO_ROOM, "insufficient_storage", "",
             "the store holds %zu bytes of assets; this upload needs %zu more "
             "and the limit is %zu",
             have, new_bytes, s->max_bytes);
    goto done;
  }
  pthread_mutex_unlock(&s->lock);

  if (!from_disk && s->data_dir != NULL && fresh_count > 0) {
    if (store__write_files(s, fresh, fresh_texts, fresh_count, err) != 0) goto done;
  }

  pthread_mutex_lock(&s->lock);
  for (size_t i = 0; i < fresh_count; i++) {
    if (table_push(s, fresh[i]) != 0) {
      /* Only the array can fail to grow: undo this upload's entries. */
      for (size_t j = 0; j < i; j++) {
        s->count--;
        s->kind_count[fresh[j]->kind]--;
        s->bytes -= fresh[j]->bytes;
      }
      pthread_mutex_unlock(&s->lock);
      for (size_t j = 0; !from_disk && s->data_dir && j < fresh_count; j++)
        store__remove_file(s, fresh[j]);
      fmt_fail(err, FMT_ERR_OUT_OF_MEMORY, "out_of_memory", "", "out of memory");
      goto done;
    }
    store_asset_retain(fresh[i]); /* The table's reference. */
  }
  if (from_disk)
    s->stats.loaded += fresh_count;
  else
    s->stats.ingested += fresh_count;
  pthread_mutex_unlock(&s->lock);
  out->entries = e;
  out->count = n;
  for (size_t i = 0; i < n; i++) out->any_created |= e[i].created;
  e = NULL;
  rc = 0;
  goto done;
oom:
  fmt_fail(err, FMT_ERR_OUT_OF_MEMORY, "out_of_memory", "", "out of memory");
done:
  if (io_locked) pthread_mutex_unlock(&s->io_lock);
  if (e != NULL) {
    for (size_t i = 0; i < n; i++) store_asset_release(e[i].asset);
    free(e);
  }
  if (texts != NULL)
    for (size_t i = 0; i < n; i++) fmt_buf_free(&texts[i]);
  free(texts);
  free(is_new);
  free(fresh);
  free(fresh_texts);
  fmt_bundle_free(bundle);
  return rc;
}

/* ---- delete, list, stats -------------------------------------------------------- */

int store_delete(store_t *s, store_kind kind, const char *id,
                 fmt_error_t *err) {
  if (!fmt_is_content_id(id))
    return fmt_fail(err, FMT_ERR_NOT_FOUND, "not_found", "id", "no %s with id \"%.70s\"",
                    store_kind_name(kind), id ? id : "");
  pthread_mutex_lock(&s->io_lock);
  pthread_mutex_lock(&s->lock);
  store_asset_t *a = find_id(s, kind, id);
  if (a == NULL) {
    pthread_mutex_unlock(&s->lock);
    pthread_mutex_unlock(&s->io_lock);
    return fmt_fail(err, FMT_ERR_NOT_FOUND, "not_found", "id", "no %s with id %s",
                    store_kind_name(kind), id);
  }
  if (kind == STORE_SKELETON) {
    size_t clips = 0, meshes = 0;
    for (size_t i = 0; i < s->count; i++) {
      if (s->items[i]->skeleton_asset != a) continue;
      if (s->items[i]->kind == STORE_CLIP) clips++;
      if (s->items[i]->kind == STORE_MESH) meshes++;
    }
    if (clips + meshes > 0) {
      pthread_mutex_unlock(&s->lock);
      pthread_mutex_unlock(&s->io_lock);
      return fmt_fail(err, FMT_ERR_CONFLICT, "conflict", "id",
                      "skeleton %s still has %zu clip(s) and %zu mesh(es): "
                      "delete them first",
                      id, clips, meshes);
    }
  }
  pthread_mutex_unlock(&s->lock);
  if (s->data_dir != NULL) {
    int r = store__remove_file(s, a);
    if (r != 0) {
      pthread_mutex_unlock(&s->io_lock);
      return fmt_fail(err, FMT_ERR_IO, "io_error", "",
                      "cannot remove the file of %s %s: %s",
                      store_kind_name(kind), id, strerror(-r));
    }
  }
  pthread_mutex_lock(&s->lock);
  for (size_t i = 0; i < s->count; i++) {
    if (s->items[i] != a) continue;
    memmove(&s->items[i], &s->items[i + 1],
            (s->count - i - 1) * sizeof *s->items);
    s->count--;
    break;
  }
  a->_removed = true;
  s->kind_count[kind]--;
  s->bytes -= a->bytes;
  s->stats.deleted++;
  pthread_mutex_unlock(&s->lock);
  pthread_mutex_unlock(&s->io_lock);
  store_asset_release(a);
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
  for (size_t i = 0; i < count; i++) store_asset_release(assets[i]);
  free(assets);
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

/* ---- open, close -------------------------------------------------------------- */

int store_open(const store_options_t *opts, store_t **out, fmt_error_t *err) {
  static const store_options_t defaults;
  if (opts == NULL) opts = &defaults;
  *out = NULL;
  store_t *s = calloc(1, sizeof *s);
  if (s == NULL) {
    fmt_fail(err, FMT_ERR_OUT_OF_MEMORY, "out_of_memory", "", "out of memory");
    return -ENOMEM;
  }
  pthread_mutex_init(&s->io_lock, NULL);
  pthread_mutex_init(&s->lock, NULL);
  s->dir_fd = -1;
  s->max_bytes = opts->max_bytes;
  s->log = opts->log;
  s->log_user_data = opts->log_user_data;
  s->decode = opts->decode;
  if (opts->data_dir != NULL && opts->data_dir[0] != '\0') {
    s->data_dir = strdup(opts->data_dir);
    if (s->data_dir == NULL) {
      store_close(s);
      fmt_fail(err, FMT_ERR_OUT_OF_MEMORY, "out_of_memory", "", "out of memory");
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
  /* Clips and meshes first: they hold their skeletons. */
  for (size_t i = s->count; i-- > 0;) store_asset_release(s->items[i]);
  free(s->items);
  free(s->data_dir);
  if (s->dir_fd >= 0) close(s->dir_fd);
  pthread_mutex_destroy(&s->io_lock);
  pthread_mutex_destroy(&s->lock);
  free(s);
}

/* ---- resolver ----------------------------------------------------------------------- */

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
  for (size_t i = 0; i < r->found_count; i++)
    store_asset_release(r->found[i]);
  r->found_count = 0;
}
