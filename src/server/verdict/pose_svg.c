/* server: format=svg answers (pose_svg.h). */
#include "server/verdict/pose_svg.h"

#include <assert.h>
#include <stdlib.h>

#include "formats/vocab.h"
#include "server/verdict/svg.h"

static_assert((int)VERDICT_VIEW_SIDE == (int)FMT_VIEW_SIDE &&
                  (int)VERDICT_VIEW_TOP == (int)FMT_VIEW_TOP,
              "views are numbered as their words");

/* "NAME[/CLIP] at t=T, VIEW view", or "... from A to B at F fps (N
 * frames) ...", or "... blended layers ..." for a POST. */
static void put_title(fmt_buf_t *b, const verdict_pose_picture_t *p, bool range,
                      uint32_t frames) {
  const fmt_asset_names_t *n = &p->names->ids;
  fmt_buf_puts(b, n->skeleton_name != NULL ? n->skeleton_name : "skeleton");
  if (p->job->layer_count > 0) {
    fmt_buf_printf(b, ", %zu blended layer%s", p->job->layer_count,
                   p->job->layer_count == 1 ? "" : "s");
  } else if (p->job->clip == NULL) {
    fmt_buf_puts(b, ", rest pose");
  } else {
    fmt_buf_printf(b, "/%s ", n->clip_name != NULL ? n->clip_name : "clip");
    if (range) {
      fmt_buf_puts(b, "from ");
      fmt_buf_float(b, (float)p->range->from);
      fmt_buf_puts(b, " to ");
      fmt_buf_float(b, (float)p->range->to);
      fmt_buf_puts(b, " at ");
      fmt_buf_float(b, (float)p->range->fps);
      fmt_buf_printf(b, " fps (%u frames)", (unsigned)frames);
    } else {
      fmt_buf_puts(b, "at t=");
      fmt_buf_float(b, (float)p->job->t);
    }
  }
  fmt_buf_printf(b, ", %s view",
                 fmt_vocab_name(FMT_VOCAB_VIEW, (int)p->picture.view));
}

anim_result verdict_pose_svg(fmt_buf_t *b, const verdict_pose_picture_t *p,
                             srv_eval_scratch_t *s) {
  const anim_skeleton_t *sk = p->job->skeleton;
  bool range = p->range != NULL && p->range->is_range;
  uint32_t frames = range ? p->range->frames : 1;
  size_t per = 16 * (size_t)sk->joint_count;
  float *model = malloc((per * frames + 1) * sizeof *model);
  verdict_svg_pose_t *poses = calloc(frames, sizeof *poses);
  double *times = calloc(frames, sizeof *times);
  fmt_buf_t title = FMT_BUF_INIT;
  anim_result r = ANIM_OK;
  if (model == NULL || poses == NULL || times == NULL) {
    r = ANIM_ERR_OUT_OF_MEMORY;
    goto done;
  }
  srv_eval_job_t job = *p->job;
  job.space = FMT_SPACE_MODEL;
  job.joints = NULL;
  job.joint_count = 0;
  job.mesh = NULL;
  job.sampled = NULL;
  for (uint32_t i = 0; i < frames && r == ANIM_OK; i++) {
    if (range) job.t = srv_range_query_time(p->range, i);
    times[i] = job.t;
    job.out = model + per * i;
    r = srv_eval_run(&job, s);
    bool overlay = p->picture.layout == FMT_ARRANGE_OVERLAY;
    poses[i] = (verdict_svg_pose_t){
        .skeleton = sk,
        .model = job.out,
        .color = VERDICT_SVG_COLOR,
        .opacity = overlay ? verdict_svg_fade(i, frames) : 1.0,
        .highlight = p->highlight,
        .highlight_count = p->highlight_count,
    };
  }
  if (r != ANIM_OK) goto done;
  put_title(&title, p, range, frames);
  verdict_svg_desc_t desc = {
      .view = (verdict_view)p->picture.view,
      .layout = range && p->picture.layout == FMT_ARRANGE_GRID
                    ? VERDICT_LAYOUT_GRID
                    : VERDICT_LAYOUT_OVERLAY,
      .title = fmt_buf_cstr(&title),
      .times = range ? times : NULL,
  };
  verdict_svg_draw(b, poses, frames, &desc);
  if (b->failed || title.failed) r = ANIM_ERR_OUT_OF_MEMORY;
done:
  fmt_buf_free(&title);
  free(times);
  free(poses);
  free(model);
  return r;
}
