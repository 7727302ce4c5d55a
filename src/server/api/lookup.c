/* server/api: names to assets for a handler (lookup.h). */
#include "server/api/lookup.h"

#include "server/api/answer.h"
#include "server/api/params.h"
#include "server/api/shared_store.h"

int srv__lookup_failed(srv_request_t *req, const srv_error_t *err,
                       const srv_lookup_miss_t *miss) {
  if (miss->missed && srv__load_then_resume(req, err, miss)) return -1;
  srv__respond_err(req, err);
  return -1;
}

int srv__lookup(srv_request_t *req, store_kind kind, const char *at,
                const char *name, const store_asset_t *skeleton,
                store_asset_t **out) {
  srv_error_t err;
  srv_lookup_miss_t miss = {0};
  if (srv_lookup(srv__store(req), kind, at, name, skeleton, out, &err, &miss) !=
      0)
    return srv__lookup_failed(req, &err, &miss);
  return 0;
}

int srv__resolve(srv_request_t *req, const srv_target_query_t *q,
                 srv_target_t *out) {
  srv_error_t err;
  srv_lookup_miss_t miss = {0};
  if (srv_target_resolve(srv__store(req), q, out, &err, &miss) != 0)
    return srv__lookup_failed(req, &err, &miss);
  return 0;
}
