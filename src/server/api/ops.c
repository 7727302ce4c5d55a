/* server: the operational endpoints: /healthz, /v1/info, /metrics. They
 * answer inline on the loop thread: nothing here is worth a pool job. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "animd/animd.h"
#include "server/api/handlers.h"
#include "server/internal.h"
#include "server/server.h"
#include "server/store_open.h"
#include "server/ws/upgrade.h"

static void respond_json(srv_request_t *req, int status, json_t *o) {
  char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
  json_decref(o);
  if (text == NULL) {
    srv_respond_error(req, 500, "out_of_memory", NULL, "out of memory");
    return;
  }
  size_t n = strlen(text);
  text[n] = '\n';
  srv_respond(req, status, "application/json", NULL, text, n + 1);
  free(text);
}

void srv__handle_healthz(srv_request_t *req) {
  srv_server_t *s = srv_conn_server(req->conn);
  if (s->draining) {
    srv_respond(req, 503, "application/json", "Retry-After: 1\r\n",
                "{\"status\":\"draining\"}\n", 21);
    return;
  }
  srv_respond(req, 200, "application/json", NULL, "{\"status\":\"ok\"}\n",
              16);
}

void srv__handle_info(srv_request_t *req) {
  srv_server_t *s = srv_conn_server(req->conn);
  const srv_config_t *cfg = &s->cfg;
  json_t *o = json_pack(
      "{s:s,s:s,s:s,s:{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I},"
      "s:{s:I,s:s},s:b}",
      "name", "animd", "version", ANIMD_VERSION, "api", "v1", "limits",
      "max_header_size", (json_int_t)cfg->max_header_size, "max_body_size",
      (json_int_t)cfg->max_body_size, "max_connections",
      (json_int_t)cfg->max_connections, "max_frames",
      (json_int_t)cfg->max_frames, "memory_limit",
      (json_int_t)cfg->memory_limit, "header_timeout_ms",
      (json_int_t)cfg->header_timeout_ms, "idle_timeout_ms",
      (json_int_t)cfg->idle_timeout_ms, "queue_max",
      (json_int_t)cfg->queue_max, "max_joints", (json_int_t)ANIM_MAX_JOINTS,
      "pool", "workers", (json_int_t)srv_pool_threads(&s->pool),
      "inline_cost", cfg->inline_cost ? "enabled" : "disabled",
      "persistent",
      cfg->data_dir[0] != '\0');
  respond_json(req, 200, o);
}

void srv__handle_metrics(srv_request_t *req) {
  srv_server_t *s = srv_conn_server(req->conn);
  srv_store_counts_t sc;
  srv__store_counts(s, &sc);
  srv_metrics_gauges_t g = {
      .connections = s->conn_count + srv_ws_moved_connections(),
      .pool_threads = srv_pool_threads(&s->pool),
      .pool_queue = srv_pool_queue_depth(&s->pool),
      .pool_busy = srv_pool_busy(&s->pool),
      .assets_skeletons = sc.skeletons,
      .assets_clips = sc.clips,
      .assets_meshes = sc.meshes,
      .store_bytes = sc.bytes,
      .uptime_s = (double)(uv_hrtime() - s->start_ns) / 1e9,
  };
  char *text;
  size_t len;
  if (srv_metrics_render(&s->metrics, &g, &text, &len) != 0) {
    srv_respond_error(req, 500, "out_of_memory", NULL, "out of memory");
    return;
  }
  if (srv_ws_metrics_render(&text, &len) != 0) {
    free(text);
    srv_respond_error(req, 500, "out_of_memory", NULL, "out of memory");
    return;
  }
  srv_respond(req, 200, "text/plain; version=0.0.4; charset=utf-8", NULL,
              text, len);
  free(text);
}
