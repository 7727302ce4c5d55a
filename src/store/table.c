/* store: the tables of published assets: the list (for listing and
 * closing), the index by (kind, id) and the index of name groups.
 *
 * A name group is every asset of one kind with one name, within one
 * skeleton or (skeleton NULL) across all of them; it keeps its member
 * count and the XOR of its members' addresses, which is the member itself
 * when the count is 1: exactly what a lookup by name needs (the one asset,
 * or none when the name is ambiguous), updated in O(1) both ways. A group
 * across skeletons also links its members (asset->_named_next), for an
 * upload with replace to find the older owners of its names without
 * scanning the store. A skeleton links its clips and meshes
 * (asset->_children), for a cascade to find them the same way. Assets with an
 * empty name, and those whose name moved away (_unnamed), are in no group.
 *
 * Publication is split so that the table lock covers pointer writes only:
 * store__publish_prepare (io_lock held, table lock not: the tables change
 * only under both locks) grows the arrays and allocates the new groups,
 * store__publish_apply (both locks) links everything in. */
#include "store/internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct store_name_group_s {
  uint64_t hash;
  store_kind kind;
  const store_asset_t *skeleton; /* NULL: across all skeletons. */
  size_t count;
  uintptr_t members_xor;
  store_asset_t *first; /* Across skeletons: the member list. */
  char name[];
};

typedef struct group_key_s {
  store_kind kind;
  const store_asset_t *skeleton;
  const char *name;
} group_key_t;

uint64_t store__id_hash(store_kind kind, const char *id) {
  unsigned char k = (unsigned char)kind;
  return store__hash_finish(
      store__hash(store__hash(STORE_HASH_SEED, &k, 1), id, FMT_ID_LEN));
}

bool store__id_match(const void *item, const void *key) {
  const store_asset_t *a = item, *k = key;
  return a->kind == k->kind && memcmp(a->id, k->id, FMT_ID_LEN) == 0;
}

uint64_t store__name_hash(store_kind kind, const store_asset_t *skeleton,
                          const char *name) {
  unsigned char k = (unsigned char)kind;
  uint64_t h = store__hash(STORE_HASH_SEED, &k, 1);
  h = store__hash(h, &skeleton, sizeof skeleton);
  return store__hash_finish(store__hash(h, name, strlen(name)));
}

static uint64_t group_hash(const group_key_t *k) {
  return store__name_hash(k->kind, k->skeleton, k->name);
}

static bool group_match(const void *item, const void *key) {
  const store_name_group_t *g = item;
  const group_key_t *k = key;
  return g->kind == k->kind && g->skeleton == k->skeleton &&
         strcmp(g->name, k->name) == 0;
}

/* The keys of the groups a has, or has once named again: 0, 1
 * (skeletons) or 2 (clips, meshes). */
static size_t group_keys_named(const store_asset_t *a, group_key_t keys[2]) {
  if (a->name[0] == '\0') return 0;
  keys[0] = (group_key_t){a->kind, NULL, a->name};
  if (a->kind == STORE_SKELETON) return 1;
  keys[1] = (group_key_t){a->kind, a->skeleton_asset, a->name};
  return 2;
}

/* The keys of the groups a is in. */
static size_t group_keys(const store_asset_t *a, group_key_t keys[2]) {
  return a->_unnamed ? 0 : group_keys_named(a, keys);
}

store_asset_t *store__find_id(const store_t *s, store_kind kind,
                              const char *id) {
  store_asset_t key;
  key.kind = kind;
  memcpy(key.id, id, FMT_ID_LEN);
  return store__index_find(&s->by_id, store__id_hash(kind, id), store__id_match,
                           &key);
}

store_asset_t *store__named_first(const store_t *s, store_kind kind,
                                  const char *name) {
  group_key_t k = {kind, NULL, name};
  const store_name_group_t *g =
      store__index_find(&s->by_name, group_hash(&k), group_match, &k);
  return g != NULL ? g->first : NULL;
}

/* Adds a to group g (key k of a's keys: 0 is the group across
 * skeletons, which lists its members). */
static void join_group(store_name_group_t *g, size_t k, store_asset_t *a) {
  g->count++;
  g->members_xor ^= (uintptr_t)a;
  if (k != 0) return;
  a->_named_prev = NULL;
  a->_named_next = g->first;
  if (g->first != NULL) g->first->_named_prev = a;
  g->first = a;
}

size_t store__name_count(const store_t *s, store_kind kind, const char *name,
                         const store_asset_t *skeleton, store_asset_t **only) {
  group_key_t k = {kind, kind == STORE_SKELETON ? NULL : skeleton, name};
  const store_name_group_t *g =
      store__index_find(&s->by_name, group_hash(&k), group_match, &k);
  if (only != NULL)
    *only = g != NULL && g->count == 1 ? (store_asset_t *)g->members_xor : NULL;
  return g != NULL ? g->count : 0;
}

/* ---- publication -------------------------------------------------------- */

int store__publish_prepare(store_t *s, store_asset_t *const *assets,
                           size_t count, store_asset_t *const *renamed,
                           size_t renamed_count, store_publish_t *p) {
  memset(p, 0, sizeof *p);
  p->assets = assets;
  p->count = count;
  p->renamed = renamed;
  p->renamed_count = renamed_count;
  size_t all = count + renamed_count;
  p->groups = calloc(2 * (all ? all : 1), sizeof *p->groups);
  p->new_groups = calloc(2 * (all ? all : 1), sizeof *p->new_groups);
  if (p->groups == NULL || p->new_groups == NULL) goto oom;
  if (s->count + count > s->cap) {
    size_t cap = s->cap ? s->cap : 64;
    while (cap < s->count + count) cap *= 2;
    p->items = malloc(cap * sizeof *p->items);
    if (p->items == NULL) goto oom;
    if (s->count) memcpy(p->items, s->items, s->count * sizeof *p->items);
    p->items_cap = cap;
  }
  /* The groups this batch needs that the store lacks, each made once. */
  store_index_t fresh = {0};
  store_index_t tmp;
  if (store__index_grown(&fresh, 2 * all, &tmp) != 0) goto oom;
  store__index_adopt(&fresh, &tmp);
  for (size_t i = 0; i < all; i++) {
    group_key_t keys[2];
    size_t nk = i < count ? group_keys(assets[i], keys)
                          : group_keys_named(renamed[i - count], keys);
    for (size_t k = 0; k < nk; k++) {
      uint64_t h = group_hash(&keys[k]);
      store_name_group_t *g =
          store__index_find(&s->by_name, h, group_match, &keys[k]);
      if (g == NULL) g = store__index_find(&fresh, h, group_match, &keys[k]);
      if (g == NULL) {
        size_t len = strlen(keys[k].name);
        g = calloc(1, sizeof *g + len + 1);
        if (g == NULL) {
          store__index_free(&fresh);
          goto oom;
        }
        g->hash = h;
        g->kind = keys[k].kind;
        g->skeleton = keys[k].skeleton;
        memcpy(g->name, keys[k].name, len + 1);
        store__index_insert(&fresh, h, g);
        p->new_groups[p->new_count++] = g;
      }
      p->groups[2 * i + k] = g;
    }
  }
  store__index_free(&fresh);
  if (store__index_grown(&s->by_id, count, &p->by_id) != 0 ||
      store__index_grown(&s->by_name, p->new_count, &p->by_name) != 0)
    goto oom;
  return 0;
oom:
  store__publish_done(p);
  return -ENOMEM;
}

void store__publish_apply(store_t *s, store_publish_t *p) {
  store__index_adopt(&s->by_id, &p->by_id);
  store__index_adopt(&s->by_name, &p->by_name);
  if (p->items != NULL) {
    store_asset_t **old = s->items;
    s->items = p->items;
    s->cap = p->items_cap;
    p->items = old; /* Freed by store__publish_done. */
  }
  for (size_t g = 0; g < p->new_count; g++)
    store__index_insert(&s->by_name, p->new_groups[g]->hash, p->new_groups[g]);
  p->new_count = 0; /* The store owns them now. */
  for (size_t i = 0; i < p->count; i++) {
    store_asset_t *a = p->assets[i];
    store__index_insert(&s->by_id, store__id_hash(a->kind, a->id), a);
    for (size_t k = 0; k < 2; k++) {
      store_name_group_t *g = p->groups[2 * i + k];
      if (g != NULL) join_group(g, k, a);
    }
    a->_slot = s->count;
    s->items[s->count++] = a;
    s->kind_count[a->kind]++;
    s->bytes += a->bytes;
    store__touch(s, a,
                 atomic_fetch_add_explicit(&s->clock, 1, memory_order_relaxed) +
                     1);
    if (a->skeleton_asset != NULL) {
      store_asset_t *sk = a->skeleton_asset;
      if (a->kind == STORE_CLIP) sk->_clips++;
      if (a->kind == STORE_MESH) sk->_meshes++;
      a->_child_prev = NULL;
      a->_child_next = sk->_children;
      if (sk->_children != NULL) sk->_children->_child_prev = a;
      sk->_children = a;
    }
  }
  for (size_t i = 0; i < p->renamed_count; i++) {
    store_asset_t *a = p->renamed[i];
    a->_unnamed = false;
    for (size_t k = 0; k < 2; k++) {
      store_name_group_t *g = p->groups[2 * (p->count + i) + k];
      if (g != NULL) join_group(g, k, a);
    }
  }
  store__changed(s);
}

void store__publish_done(store_publish_t *p) {
  for (size_t g = 0; g < p->new_count; g++) free(p->new_groups[g]);
  free(p->new_groups);
  free(p->groups);
  free(p->items);
  store__index_free(&p->by_id);
  store__index_free(&p->by_name);
  memset(p, 0, sizeof *p);
}

/* Takes a out of its name groups; the groups it emptied go to emptied. */
static void leave_groups(store_t *s, store_asset_t *a,
                         store_name_group_t *emptied[2]) {
  emptied[0] = emptied[1] = NULL;
  group_key_t keys[2];
  size_t nk = group_keys(a, keys);
  for (size_t k = 0; k < nk; k++) {
    uint64_t h = group_hash(&keys[k]);
    store_name_group_t *g =
        store__index_find(&s->by_name, h, group_match, &keys[k]);
    if (g == NULL) continue;
    g->count--;
    g->members_xor ^= (uintptr_t)a;
    if (k == 0) {
      if (a->_named_prev != NULL)
        a->_named_prev->_named_next = a->_named_next;
      else
        g->first = a->_named_next;
      if (a->_named_next != NULL) a->_named_next->_named_prev = a->_named_prev;
      a->_named_prev = a->_named_next = NULL;
    }
    if (g->count == 0) {
      store__index_remove(&s->by_name, h, g);
      emptied[k] = g;
    }
  }
}

void store__unname(store_t *s, store_asset_t *a,
                   store_name_group_t *emptied[2]) {
  leave_groups(s, a, emptied);
  a->_unnamed = true;
  store__changed(s);
}

void store__unpublish(store_t *s, store_asset_t *a,
                      store_name_group_t *emptied[2]) {
  store__index_remove(&s->by_id, store__id_hash(a->kind, a->id), a);
  leave_groups(s, a, emptied);
  store__changed(s);
  size_t last = --s->count;
  s->items[a->_slot] = s->items[last];
  s->items[a->_slot]->_slot = a->_slot;
  s->kind_count[a->kind]--;
  s->bytes -= a->bytes;
  if (a->skeleton_asset != NULL) {
    store_asset_t *sk = a->skeleton_asset;
    if (a->kind == STORE_CLIP) sk->_clips--;
    if (a->kind == STORE_MESH) sk->_meshes--;
    if (a->_child_prev != NULL)
      a->_child_prev->_child_next = a->_child_next;
    else
      sk->_children = a->_child_next;
    if (a->_child_next != NULL) a->_child_next->_child_prev = a->_child_prev;
    a->_child_prev = a->_child_next = NULL;
  }
}

void store__tables_free(store_t *s) {
  for (size_t i = 0; i < s->by_name.cap; i++)
    if (s->by_name.hashes[i] != 0) free(s->by_name.items[i]);
  store__index_free(&s->by_name);
  store__index_free(&s->by_id);
  free(s->items);
  s->items = NULL;
}
