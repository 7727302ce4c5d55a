/* server/verdict: a clip's channels over time as an SVG line chart (GET
 * /v1/clips/{id}/plot): one <polyline data-joint data-component> per
 * joint and component, axes with tick labels, a legend, and the clip's
 * key times marked on the time axis. The poses come from the evaluation
 * pipeline (request/evaluate.h), so a line goes through the numbers GET
 * /v1/pose answers at the same times. */
#ifndef ANIMD_SERVER_VERDICT_PLOT_H
#define ANIMD_SERVER_VERDICT_PLOT_H

#include <stdint.h>

#include "animd/animd.h"
#include "formats/buf.h"
#include "server/errors.h"
#include "server/request/requests.h"

/* The picture's size in pixels (the height grows with a long legend). */
#define VERDICT_PLOT_WIDTH 800
#define VERDICT_PLOT_HEIGHT 400

typedef struct verdict_plot_s {
  srv_plot_channel channel;
  /* Caller-order joints of the skeleton; NULL (count 0): joint 0. */
  const uint32_t *joints;
  uint32_t joint_count;
  double from, to, fps; /* Frames at from + i / fps, i = 0 ... floor((to -
                           from) * fps), clamped to the clip. */
  const char *title;    /* <title> text; NULL: none. */
} verdict_plot_t;

/* Frames of the plot: floor((to - from) * fps + 1e-9) + 1. */
double verdict_plot_frame_count(const verdict_plot_t *p);
/* Components per joint of a channel: 4, 3 or 1. */
unsigned verdict_plot_components(srv_plot_channel c);

/* Appends the chart to out (an <svg> element with its XML namespace, no
 * XML declaration). 0, or -1 with err: too_many_frames at "fps" when
 * frames times lines (joints times components) exceed max_frames,
 * out_of_memory. Any thread. */
int verdict_plot_run(const anim_skeleton_t *sk, const anim_clip_t *clip,
                     const verdict_plot_t *p, unsigned max_frames,
                     fmt_buf_t *out, srv_error_t *err);

#endif
