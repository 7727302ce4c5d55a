/* server: GET /v1/clips/{id}/plot: a clip's channels over time as an SVG
 * line chart (verdict/plot.h), drawn on the pool. */
#include <stdio.h>
#include <stdlib.h>

#include "server/api/answer.h"
#include "server/api/handlers.h"
#include "server/api/large_answer.h"
#include "server/api/lookup.h"
#include "server/api/params.h"
#include "server/http/task.h"
#include "server/schedule.h"
#include "server/verdict/plot.h"

typedef struct plot_task_s {
  srv_task_t task;
  store_asset_t *clip;
  verdict_plot_t plot;
  uint32_t *joints;
  char title[256];
  unsigned max_frames;
  srv_error_t err;
  bool failed;
  fmt_buf_t svg;
} plot_task_t;

static void plot_work(srv_task_t *t) {
  plot_task_t *p = (plot_task_t *)t;
  p->failed = verdict_plot_run(p->clip->skeleton_asset->skeleton, p->clip->clip,
                               &p->plot, p->max_frames, &p->svg, &p->err) != 0;
  if (!p->failed) fmt_buf_putc(&p->svg, '\n');
}

static void plot_respond(srv_task_t *t) {
  plot_task_t *p = (plot_task_t *)t;
  if (p->failed)
    srv__respond_err(t->req, &p->err);
  else
    srv__respond_large(t->req, 200, &p->svg, "image/svg+xml", NULL);
}

static void plot_free(srv_task_t *t) {
  plot_task_t *p = (plot_task_t *)t;
  store_asset_release(p->clip);
  free(p->joints);
  fmt_buf_free(&p->svg);
  free(p);
}

void srv__handle_clip_plot(srv_request_t *req, const char *id) {
  srv_query_t q = srv__query(req);
  srv_plot_query_t pq;
  srv_error_t err;
  if (srv_plot_query_parse(&q, &pq, &err) != 0) {
    srv__respond_err(req, &err);
    return;
  }
  plot_task_t *p = calloc(1, sizeof *p);
  if (p == NULL) {
    srv__fail(req, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    return;
  }
  fmt_buf_init(&p->svg);
  p->task.work = plot_work;
  p->task.respond = plot_respond;
  p->task.free = plot_free;
  p->max_frames = q.max_frames;
  if (srv__lookup(req, STORE_CLIP, "id", id, NULL, &p->clip) != 0) {
    plot_free(&p->task);
    return;
  }
  const anim_clip_t *clip = p->clip->clip;
  srv_names_t names = {.csv = pq.joints};
  if (pq.joints != NULL &&
      srv_joints_resolve(&names, p->clip->skeleton_asset->skeleton, &p->joints,
                         &p->plot.joint_count, &err) != 0) {
    srv__respond_err(req, &err);
    plot_free(&p->task);
    return;
  }
  p->plot.joints = p->joints;
  p->plot.channel = pq.channel;
  p->plot.from = pq.from;
  p->plot.to = pq.has_to ? pq.to : clip->duration;
  p->plot.fps = pq.fps;
  if (p->plot.to < p->plot.from) {
    srv__fail(req, SRV_ERR_BAD_PARAMETER, "from",
              "from must not be past to (the clip's duration, %g s)",
              (double)clip->duration);
    plot_free(&p->task);
    return;
  }
  snprintf(p->title, sizeof p->title, "%s: %s", clip->name,
           srv_plot_channel_name(pq.channel));
  p->plot.title = p->title;
  double frames = verdict_plot_frame_count(&p->plot);
  if (frames > p->max_frames) frames = p->max_frames;
  /* A pose per frame, and its points printed, as a JSON range's. */
  srv__task_run(&p->task, req,
                (unsigned long)frames * clip->joint_count * SRV_JSON_COST);
}
