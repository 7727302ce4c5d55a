/* server: opening, closing and measuring the asset store (store_glue.h),
 * and loading the demo asset embedded in the binary (demo.S). */
#include <stdio.h>
#include <string.h>

#include "server/internal.h"
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

int srv__store_open(srv_server_t *s, char *err, size_t err_len) {
  store_options_t opts = {
      .data_dir = s->cfg.data_dir,
      .max_bytes = s->cfg.memory_limit,
      .log = store_log,
  };
  fmt_error_t fe = {0};
  store_t *st = NULL;
  int rc = store_open(&opts, &st, &fe);
  if (rc != 0) {
    snprintf(err, err_len, "store: %s", fe.message[0] ? fe.message
                                                      : uv_strerror(rc));
    return rc < 0 ? rc : UV_EIO;
  }
  s->store = (struct store_s *)st;
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
}
