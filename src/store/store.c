/* store: the in-memory asset registry (not implemented yet: every call
 * fails). */
#include "store/store.h"

#include <errno.h>
#include <string.h>

int store_open(const store_options_t *opts, store_t **out, fmt_error_t *err) {
  *out = NULL;
  fmt_fail(err, 500, "internal", "", "the store is not built yet");
  return -ENOSYS;
}
void store_close(store_t *store) {}
void store_asset_retain(store_asset_t *asset) {}
void store_asset_release(store_asset_t *asset) {}
int store_ingest(store_t *store, fmt_bundle_t *bundle,
                 store_asset_t *external, store_ingest_result_t *out,
                 fmt_error_t *err) {
  memset(out, 0, sizeof *out);
  return fmt_fail(err, 500, "internal", "", "the store is not built yet");
}
void store_ingest_result_free(store_ingest_result_t *result) {}
store_asset_t *store_lookup(store_t *store, store_kind kind,
                            const char *id_or_name,
                            const store_asset_t *skeleton) {
  return NULL;
}
int store_delete(store_t *store, store_kind kind, const char *id,
                 fmt_error_t *err) {
  return fmt_fail(err, 404, "not_found", "", "no such asset");
}
int store_list(store_t *store, store_asset_t ***out, size_t *count) {
  *out = NULL;
  *count = 0;
  return 0;
}
void store_list_free(store_asset_t **assets, size_t count) {}
void store_asset_summary(const store_asset_t *asset,
                         fmt_asset_summary_t *out) {
  memset(out, 0, sizeof *out);
}
int store_asset_describe(const store_asset_t *asset, fmt_buf_t *b) {
  return -1;
}
void store_stats(store_t *store, store_stats_t *out) {
  memset(out, 0, sizeof *out);
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
  if (len == 9 && memcmp(s, "skeletons", 9) == 0) return STORE_SKELETON;
  if (len == 5 && memcmp(s, "clips", 5) == 0) return STORE_CLIP;
  if (len == 6 && memcmp(s, "meshes", 6) == 0) return STORE_MESH;
  return -1;
}
void store_resolver_init(store_resolver_t *r, store_t *store) {
  memset(r, 0, sizeof *r);
  r->store = store;
}
const anim_skeleton_t *store_resolve(const char *id_or_name, void *user_data) {
  return NULL;
}
store_asset_t *store_resolver_asset(const store_resolver_t *r,
                                    const anim_skeleton_t *s) {
  return NULL;
}
store_asset_t *store_resolver_external(const store_resolver_t *r) {
  return NULL;
}
void store_resolver_release(store_resolver_t *r) {}
