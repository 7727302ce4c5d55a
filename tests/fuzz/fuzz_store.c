/* fuzz: uploads into a persistent store; stored data is never lost.
 *
 * The first byte picks the Content-Type (native JSON, glTF JSON, BVH,
 * md5mesh), the rest is the body. A decoded upload is ingested into a
 * store that keeps its assets on disk next to a base skeleton and clip.
 * After every accepted upload a second store is opened on the same
 * directory and must load every asset back (the canonical files written
 * must decode again: nothing is skipped or lost on a restart); then the
 * upload's new assets are deleted, and the base assets must still be
 * there, unchanged in number. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/bundle.h"
#include "store/store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const types[] = {"application/json", "model/gltf+json",
                                    "application/x-bvh",
                                    "application/x-md5mesh"};

static const char base[] =
    "{\"skeleton\":{\"name\":\"base\",\"joints\":["
    "{\"name\":\"root\",\"parent\":-1},"
    "{\"name\":\"spine\",\"parent\":0,\"translation\":[0,1,0]},"
    "{\"name\":\"head\",\"parent\":1,\"translation\":[0,1,0]}]},"
    "\"clips\":[{\"name\":\"idle\",\"tracks\":[{\"joint\":\"head\","
    "\"path\":\"rotation\",\"times\":[0,1],"
    "\"values\":[0,0,0,1,0,0.7071068,0,0.7071068]}]}]}";

static store_t *store;
static char dir[256];
static store_stats_t base_stats;
static unsigned skipped;

static void on_log(void *user, const char *message) {
  (void)user;
  fprintf(stderr, "fuzz_store: store says: %s\n", message);
  skipped++;
}

static store_options_t options(void) {
  store_options_t o;
  memset(&o, 0, sizeof o);
  o.data_dir = dir;
  o.max_bytes = 256u << 20;
  o.log = on_log;
  return o;
}

/* The directory goes away with the fuzzer. */
static void remove_dir(void) {
  DIR *d = opendir(dir);
  if (d == NULL) return;
  struct dirent *e;
  char path[600];
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.' &&
        (e->d_name[1] == '\0' || (e->d_name[1] == '.' && e->d_name[2] == 0)))
      continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    unlink(path);
  }
  closedir(d);
  rmdir(dir);
}

static void start(void) {
  const char *tmp = getenv("TMPDIR");
  struct stat st;
  if (tmp == NULL) tmp = stat("/dev/shm", &st) == 0 ? "/dev/shm" : "/tmp";
  snprintf(dir, sizeof dir, "%s/animd-fuzz-store-XXXXXX", tmp);
  if (mkdtemp(dir) == NULL) abort();
  atexit(remove_dir);
  store_options_t o = options();
  fmt_error_t err;
  if (store_open(&o, &store, &err) != 0) abort();
  fmt_bundle_t b;
  if (fmt_decode("application/json", base, sizeof base - 1, NULL, &b, &err) !=
      0)
    abort();
  store_ingest_result_t res;
  if (store_ingest(store, &b, NULL, &res, &err) != 0) abort();
  store_ingest_result_free(&res);
  fmt_bundle_free(&b);
  store_stats(store, &base_stats);
}

static size_t total(const store_stats_t *s) {
  return s->skeletons + s->clips + s->meshes;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (store == NULL) start();
  if (size == 0) return 0;
  const char *type = types[data[0] % 4];
  store_resolver_t resolver;
  store_resolver_init(&resolver, store);
  fmt_decode_options_t opts;
  memset(&opts, 0, sizeof opts);
  opts.resolve = store_resolve;
  opts.resolve_user_data = &resolver;
  opts.max_joints = 256;
  opts.max_keys = 1u << 14;
  opts.max_vertices = 1u << 14;
  fmt_bundle_t b;
  memset(&b, 0, sizeof b);
  fmt_error_t err;
  if (fmt_decode(type, data + 1, size - 1, &opts, &b, &err) != 0) {
    if (getenv("FUZZ_VERBOSE"))
      fprintf(stderr, "fuzz_store: %s at %s\n", err.message, err.at);
    store_resolver_release(&resolver);
    return 0;
  }
  store_ingest_result_t res;
  memset(&res, 0, sizeof res);
  int rc =
      store_ingest(store, &b, store_resolver_external(&resolver), &res, &err);
  fmt_bundle_free(&b);
  store_resolver_release(&resolver);
  if (rc != 0) {
    if (err.code != FMT_ERR_NAME_CONFLICT &&
        err.code != FMT_ERR_INSUFFICIENT_STORAGE) {
      fprintf(stderr, "fuzz_store: ingest failed: %s at %s: %s\n",
              fmt_error_name(err.code), err.at, err.message);
      abort();
    }
    return 0;
  }
  if (getenv("FUZZ_VERBOSE"))
    fprintf(stderr, "fuzz_store: %zu assets ingested\n", res.count);
  /* A restart loads exactly what is stored. */
  store_stats_t now, again;
  store_stats(store, &now);
  store_t *second;
  store_options_t o = options();
  if (store_open(&o, &second, &err) != 0) abort();
  store_stats(second, &again);
  store_close(second);
  if (total(&again) != total(&now) || again.skipped != 0 || skipped != 0) {
    fprintf(stderr,
            "fuzz_store: %zu assets stored, %zu loaded back, %llu "
            "skipped\n",
            total(&now), total(&again), (unsigned long long)again.skipped);
    abort();
  }
  /* Remove what this upload created: meshes and clips before their
   * skeletons. */
  for (size_t i = res.count; i-- > 0;) {
    store_asset_t *a = res.entries[i].asset;
    if (!res.entries[i].created) continue;
    if (store_delete(store, a->kind, a->id, &err) != 0) {
      fprintf(stderr, "fuzz_store: delete %s failed: %s: %s\n", a->id,
              fmt_error_name(err.code), err.message);
      abort();
    }
  }
  store_ingest_result_free(&res);
  store_stats(store, &now);
  if (now.skeletons != base_stats.skeletons || now.clips != base_stats.clips ||
      now.meshes != base_stats.meshes)
    abort();
  return 0;
}
