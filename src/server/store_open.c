/* server: opening, closing and measuring the asset store (store_open.h),
 * its shared backend when the store is redis:// (the node's store is then
 * its cache), and loading the demo asset embedded in the binary
 * (demo.S). */
#include <stdio.h>
#include <string.h>

#include "server/internal.h"
#include "server/redis/store_backend.h"
#include "server/server.h"
#include "server/store_open.h"
#include "store/store.h"

/* demo.S: config/demo.json between these two symbols. */
extern const char srv_demo_json_start[];
extern const char srv_demo_json_end[];

static void store_log(void *user, const char *message) {
  (void)user;
  fprintf(stderr, "animd: store: %s\n", message);
}

static int load_demo(store_t *st, char *err, size_t err_len) {
  size_t len = (size_t)(srv_demo_json_end - srv_demo_json_start);
  fmt_bundle_t bundle = {0};
  fmt_error_t fe = {0};
  if (fmt_decode("application/json", srv_demo_json_start, len, NULL, &bundle,
                 &fe) != 0) {
    snprintf(err, err_len, "demo asset: %s at %s", fe.message, fe.at);
    return UV_EINVAL;
  }
  store_ingest_result_t res;
  int rc = store_ingest(st, &bundle, NULL, &res, &fe);
  fmt_bundle_free(&bundle);
  if (rc != 0) {
    snprintf(err, err_len, "demo asset: %s", fe.message);
    return UV_EIO;
  }
  store_ingest_result_free(&res);
  return 0;
}

static bool is_redis(const char *store) {
  return strncmp(store, "redis://", 8) == 0;
}

int srv__store_open(srv_server_t *s, char *err, size_t err_len) {
  const char *kind = s->cfg.store;
  bool redis = is_redis(kind);
  if (!redis && kind[0] != '\0' && strcmp(kind, "file") != 0) {
    snprintf(err, err_len,
             "store: '%s' is neither file nor "
             "redis://host:port/db",
             kind);
    return UV_EINVAL;
  }
  if (redis && (s->cfg.data_dir[0] != '\0' || s->cfg.demo)) {
    snprintf(err, err_len,
             "store: with %s, data_dir and demo must be "
             "left out (upload the assets through any node)",
             kind);
    return UV_EINVAL;
  }
  store_options_t opts = {
      .data_dir = s->cfg.data_dir,
      /* With redis the store is a cache that empties itself when full
       * (redis/store_backend.h) rather than refuse. */
      .max_bytes = redis ? 0 : s->cfg.memory_limit,
      .log = store_log,
      .suggest_scan = s->cfg.hint_scan,
  };
  fmt_error_t fe = {0};
  store_t *st = NULL;
  int rc = store_open(&opts, &st, &fe);
  if (rc != 0) {
    snprintf(err, err_len, "store: %s",
             fe.message[0] ? fe.message : uv_strerror(rc));
    return rc < 0 ? rc : UV_EIO;
  }
  s->store = (struct store_s *)st;
  if (redis) {
    srv_redis_backend_t *b = NULL;
    srv_redis_backend_limits_t limits = {
        .timeout_ms = (unsigned)s->cfg.redis_timeout_ms,
        .pool_size = s->cfg.redis_pool,
        .miss_ttl_ms = (unsigned)s->cfg.miss_ttl_ms};
    if (srv_redis_backend_open(s->loop, kind, st, &s->pool, s->cfg.memory_limit,
                               &limits, &b, err, err_len) != 0) {
      srv__store_close(s);
      return UV_EINVAL;
    }
    s->backend = b;
    return 0;
  }
  if (s->cfg.demo) {
    rc = load_demo(st, err, err_len);
    if (rc != 0) {
      store_close(st);
      s->store = NULL;
      return rc;
    }
  }
  return 0;
}

void srv__backend_close(srv_server_t *s) {
  srv_redis_backend_close(s->backend);
  s->backend = NULL;
}

const srv_backend_t *srv_server_backend(srv_server_t *s) {
  return s->backend ? srv_redis_backend(s->backend) : NULL;
}

void srv__store_close(srv_server_t *s) {
  if (s->store) store_close((store_t *)s->store);
  s->store = NULL;
}

void srv__store_counts(srv_server_t *s, srv_store_counts_t *out) {
  memset(out, 0, sizeof *out);
  if (s->store == NULL) return;
  store_stats_t st;
  store_stats((store_t *)s->store, &st);
  out->skeletons = st.skeletons;
  out->clips = st.clips;
  out->meshes = st.meshes;
  out->bytes = st.bytes;
  out->scanned = st.scanned;
}
