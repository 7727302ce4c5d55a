/* server/api: a request's store, query and range (params.h). */
#include "server/api/params.h"

#include "server/api/answer.h"
#include "server/services.h"

store_t *srv__store(srv_request_t *req) {
  return srv_server_store(srv_request_server(req));
}

srv_query_t srv__query(const srv_request_t *req) {
  srv_query_t q = {
      .params = req->params,
      .count = req->param_count,
      .accept = srv_request_header(req, "Accept"),
      .max_frames = srv_server_config(srv_request_server(req))->max_frames,
      .max_frames_svg =
          srv_server_config(srv_request_server(req))->max_frames_svg,
  };
  return q;
}

int srv__check_query(srv_request_t *req, srv_endpoint ep) {
  srv_query_t q = srv__query(req);
  srv_error_t err;
  if (srv_query_check(&q, ep, &err) == 0) return 0;
  srv__respond_err(req, &err);
  return -1;
}

void srv__range_run(srv_range_t *r, srv_request_t *req,
                    const srv_range_query_t *q, size_t frame_floats, bool bin,
                    unsigned long frame_cost, const char *extra) {
  r->frame_count = q->frames;
  size_t frame_bytes = frame_floats * (bin ? 4 : 12) + 64;
  r->batch = (uint32_t)(65536 / frame_bytes) + 1;
  r->frame_cost = frame_cost;
  srv__range_start(
      r, req, bin ? "application/octet-stream" : "application/x-ndjson", extra);
}
