/* server: the operational endpoints: /healthz, /v1/info, /metrics. They
 * answer inline on the loop thread: nothing here is worth a pool job. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "animd/animd.h"
#include "server/api/handlers.h"
#include "server/api/answer.h"
#include "server/api/shared_store.h"
#include "server/services.h"

static void respond_json(srv_request_t *req, int status, json_t *o) {
  char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
  json_decref(o);
  if (text == NULL) {
    srv__fail(req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    return;
  }
  size_t n = strlen(text);
  text[n] = '\n';
  srv_respond(req, status, "application/json", NULL, text, n + 1);
  free(text);
}

void srv__handle_healthz(srv_request_t *req) {
  if (srv_server_draining(srv_request_server(req))) {
    srv_respond(req, 503, "application/json", "Retry-After: 1\r\n",
                "{\"status\":\"draining\"}\n", 21);
    return;
  }
  /* Without its shared store a node still serves what it has cached, so
   * it stays in the balancer's pool, but says it is degraded. */
  const srv_backend_t *b = srv__backend(req);
  if (b != NULL && !b->ops->available(b->self)) {
    static const char degraded[] =
        "{\"status\":\"degraded\",\"store\":\"unavailable\"}\n";
    srv_respond(req, 200, "application/json", NULL, degraded,
                sizeof degraded - 1);
    return;
  }
  srv_respond(req, 200, "application/json", NULL, "{\"status\":\"ok\"}\n", 16);
}

void srv__handle_info(srv_request_t *req) {
  srv_server_t *s = srv_request_server(req);
  const srv_config_t *cfg = srv_server_config(s);
  json_t *o = json_pack(
      "{s:s,s:s,s:s,s:{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I},"
      "s:{s:I,s:s},s:b}",
      "name", "animd", "version", ANIMD_VERSION, "api", "v1", "limits",
      "max_header_size", (json_int_t)cfg->max_header_size, "max_body_size",
      (json_int_t)cfg->max_body_size, "max_connections",
      (json_int_t)cfg->max_connections, "max_frames",
      (json_int_t)cfg->max_frames, "max_frames_svg",
      (json_int_t)cfg->max_frames_svg, "max_suite_cases",
      (json_int_t)cfg->max_suite_cases, "max_answer_bytes",
      (json_int_t)cfg->max_answer_bytes, "memory_limit",
      (json_int_t)cfg->memory_limit, "header_timeout_ms",
      (json_int_t)cfg->header_timeout_ms, "idle_timeout_ms",
      (json_int_t)cfg->idle_timeout_ms, "queue_max", (json_int_t)cfg->queue_max,
      "max_joints", (json_int_t)ANIM_MAX_JOINTS, "pool", "workers",
      (json_int_t)srv_pool_threads(srv_server_pool(s)), "inline_cost",
      cfg->inline_cost ? "enabled" : "disabled", "persistent",
      cfg->data_dir[0] != '\0');
  respond_json(req, 200, o);
}

void srv__handle_metrics(srv_request_t *req) {
  char *text;
  size_t len;
  if (srv_server_metrics_text(srv_request_server(req), &text, &len) != 0) {
    srv__fail(req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    return;
  }
  srv_respond(req, 200, "text/plain; version=0.0.4; charset=utf-8", NULL, text,
              len);
  free(text);
}
