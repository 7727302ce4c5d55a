/* server/verdict: a clip's channels as an SVG line chart (plot.h): the
 * frames evaluated, the values per line, then the picture: axes with
 * "nice" ticks (1, 2 or 5 times a power of ten), the clip's key times as
 * short marks on the time axis, one polyline per joint and component,
 * and the legend. */
#include "server/verdict/plot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "server/request/evaluate.h"
#include "server/verdict/check.h"

/* The chart's frame within the picture. */
#define LEFT 64
#define RIGHT 180 /* The legend's column. */
#define TOP 28
#define BOTTOM 44
#define LEGEND_ROW 16

static const char *const palette[] = {
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
#define PALETTE (sizeof palette / sizeof palette[0])

static const char *const xyzw[] = {"x", "y", "z", "w"};

double verdict_plot_frame_count(const verdict_plot_t *p) {
  return floor((p->to - p->from) * p->fps + 1e-9) + 1;
}

unsigned verdict_plot_components(srv_plot_channel c) {
  return c == SRV_PLOT_ROTATION ? 4 : c == SRV_PLOT_ANGLE ? 1 : 3;
}

/* ---- values
 * ------------------------------------------------------------------
 */

/* values[frame * lines + line] for every frame. */
static int plot_values(const anim_skeleton_t *sk, const anim_clip_t *clip,
                       const verdict_plot_t *p, const uint32_t *joints,
                       uint32_t joint_count, uint32_t frames, double *values,
                       srv_error_t *err) {
  unsigned comps = verdict_plot_components(p->channel);
  size_t lines = (size_t)joint_count * comps;
  bool model = p->channel == SRV_PLOT_POSITION;
  size_t stride = model ? 16 : 10;
  float *pose = malloc(joint_count * stride * sizeof(float));
  float *rest = malloc(joint_count * 10 * sizeof(float));
  float *prev = malloc(joint_count * 4 * sizeof(float));
  srv_eval_scratch_t *scratch = srv_eval_scratch_thread();
  anim_result r = ANIM_ERR_OUT_OF_MEMORY;
  if (pose == NULL || rest == NULL || prev == NULL || scratch == NULL)
    goto done;
  srv_eval_job_t job = {.skeleton = sk,
                        .clip = NULL,
                        .space = FMT_SPACE_LOCAL,
                        .joints = joints,
                        .joint_count = joint_count,
                        .out = rest};
  if (p->channel == SRV_PLOT_ANGLE &&
      (r = srv_eval_run(&job, scratch)) != ANIM_OK)
    goto done;
  job.clip = clip;
  job.wrap = ANIM_WRAP_CLAMP;
  job.space = model ? FMT_SPACE_MODEL : FMT_SPACE_LOCAL;
  job.out = pose;
  for (uint32_t i = 0; i < frames; i++) {
    job.t = p->from + (double)i / p->fps;
    if ((r = srv_eval_run(&job, scratch)) != ANIM_OK) goto done;
    double *row = values + (size_t)i * lines;
    for (uint32_t j = 0; j < joint_count; j++) {
      const float *e = pose + j * stride;
      double *v = row + (size_t)j * comps;
      switch (p->channel) {
      case SRV_PLOT_ROTATION: {
        /* q and -q are one rotation: keep the line on the side of the
         * frame before. */
        float q[4] = {e[3], e[4], e[5], e[6]};
        float *last = prev + j * 4;
        if (i > 0 &&
            q[0] * last[0] + q[1] * last[1] + q[2] * last[2] + q[3] * last[3] <
                0)
          for (int k = 0; k < 4; k++) q[k] = -q[k];
        memcpy(last, q, sizeof q);
        for (int k = 0; k < 4; k++) v[k] = q[k];
        break;
      }
      case SRV_PLOT_TRANSLATION:
        for (int k = 0; k < 3; k++) v[k] = e[k];
        break;
      case SRV_PLOT_SCALE:
        for (int k = 0; k < 3; k++) v[k] = e[7 + k];
        break;
      case SRV_PLOT_POSITION:
        for (int k = 0; k < 3; k++) v[k] = e[12 + k];
        break;
      default: v[0] = verdict_rotation_angle(rest + j * 10 + 3, e + 3);
      }
    }
  }
  r = ANIM_OK;
done:
  free(pose);
  free(rest);
  free(prev);
  if (r == ANIM_OK) return 0;
  if (r == ANIM_ERR_OUT_OF_MEMORY)
    return srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
  return srv_error_set(err, SRV_ERR_INTERNAL, NULL, "evaluation failed: %s",
                       anim_result_str(r));
}

/* ---- the picture
 * ---------------------------------------------------------------
 */

/* A number with two decimals (pixels), no negative zero. */
static void put_px(fmt_buf_t *b, double v) {
  double r = round(v * 100) / 100;
  fmt_buf_printf(b, "%.2f", r == 0 ? 0.0 : r);
}

/* A tick's step for a span: 1, 2 or 5 times a power of ten, about six
 * ticks over it. */
static double tick_step(double span) {
  double raw = span / 6, mag = pow(10, floor(log10(raw)));
  double f = raw / mag;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

/* A tick label: as many decimals as the step needs. */
static void tick_label(char *out, size_t cap, double v, double step) {
  int decimals = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
  if (decimals > 9) decimals = 9;
  snprintf(out, cap, "%.*f", decimals, fabs(v) < step * 1e-6 ? 0 : v);
}

/* Tick k of a step over [lo, hi] (k = 0, 1, ...): false past hi (or past
 * 50 ticks, a bound no step of tick_step reaches). */
static bool tick_at(double lo, double hi, double step, int k, double *v) {
  *v = (ceil(lo / step - 1e-9) + k) * step;
  return k < 50 && *v <= hi + step * 1e-9;
}

typedef struct frame_s {
  double x0, x1, y0, y1; /* Pixels of the chart's area. */
  double t0, t1, v0, v1; /* What they show. */
} frame_t;

static double px_x(const frame_t *f, double t) {
  return f->x0 + (t - f->t0) / (f->t1 - f->t0) * (f->x1 - f->x0);
}

static double px_y(const frame_t *f, double v) {
  return f->y1 - (v - f->v0) / (f->v1 - f->v0) * (f->y1 - f->y0);
}

static void put_line(fmt_buf_t *b, double x1, double y1, double x2, double y2) {
  fmt_buf_puts(b, "<line x1=\"");
  put_px(b, x1);
  fmt_buf_puts(b, "\" y1=\"");
  put_px(b, y1);
  fmt_buf_puts(b, "\" x2=\"");
  put_px(b, x2);
  fmt_buf_puts(b, "\" y2=\"");
  put_px(b, y2);
  fmt_buf_puts(b, "\"/>");
}

static void put_text_at(fmt_buf_t *b, double x, double y, const char *anchor,
                        const char *text) {
  fmt_buf_puts(b, "<text x=\"");
  put_px(b, x);
  fmt_buf_puts(b, "\" y=\"");
  put_px(b, y);
  fmt_buf_printf(b, "\" text-anchor=\"%s\">", anchor);
  fmt_buf_xml_text(b, text);
  fmt_buf_puts(b, "</text>");
}

static void put_axes(fmt_buf_t *b, const frame_t *f, srv_plot_channel ch) {
  fmt_buf_puts(b, "<g class=\"grid\" stroke=\"#e4e4e4\">");
  double ys = tick_step(f->v1 - f->v0), xs = tick_step(f->t1 - f->t0), v, t;
  for (int k = 0; tick_at(f->v0, f->v1, ys, k, &v); k++)
    put_line(b, f->x0, px_y(f, v), f->x1, px_y(f, v));
  fmt_buf_puts(b, "</g><g class=\"axes\" stroke=\"#444\">");
  put_line(b, f->x0, f->y1, f->x1, f->y1);
  put_line(b, f->x0, f->y0, f->x0, f->y1);
  fmt_buf_puts(b, "</g><g class=\"ticks\" fill=\"#222\">");
  char label[64];
  for (int k = 0; tick_at(f->v0, f->v1, ys, k, &v); k++) {
    tick_label(label, sizeof label, v, ys);
    fmt_buf_puts(b, "<g stroke=\"#444\">");
    put_line(b, f->x0 - 4, px_y(f, v), f->x0, px_y(f, v));
    fmt_buf_puts(b, "</g>");
    put_text_at(b, f->x0 - 7, px_y(f, v) + 4, "end", label);
  }
  for (int k = 0; tick_at(f->t0, f->t1, xs, k, &t); k++) {
    tick_label(label, sizeof label, t, xs);
    fmt_buf_puts(b, "<g stroke=\"#444\">");
    put_line(b, px_x(f, t), f->y1, px_x(f, t), f->y1 + 4);
    fmt_buf_puts(b, "</g>");
    put_text_at(b, px_x(f, t), f->y1 + 16, "middle", label);
  }
  fmt_buf_puts(b, "</g>");
  put_text_at(b, (f->x0 + f->x1) / 2, f->y1 + 34, "middle", "time (s)");
  static const char *const units[SRV_PLOT_CHANNEL_COUNT_] = {
      "rotation (quaternion)", "translation (clip units)", "scale",
      "position (model units)", "angle from rest (degrees)"};
  put_text_at(b, f->x0, f->y0 - 10, "start", units[ch]);
}

/* The clip's key times within the frame, one mark per pixel column at
 * most, on the time axis. */
static int put_keys(fmt_buf_t *b, const anim_clip_t *clip, const frame_t *f) {
  size_t columns = (size_t)(f->x1 - f->x0) + 1;
  bool *marked = calloc(columns, sizeof *marked);
  if (marked == NULL) return -1;
  fmt_buf_puts(b, "<g class=\"keys\" stroke=\"#888\">");
  for (uint32_t k = 0; k < clip->track_count; k++) {
    const anim_track_t *tr = &clip->tracks[k];
    for (uint32_t i = 0; i < tr->key_count; i++) {
      double t = tr->times[i];
      if (t < f->t0 || t > f->t1) continue;
      double x = px_x(f, t);
      size_t col = (size_t)lround(x - f->x0);
      if (col >= columns || marked[col]) continue;
      marked[col] = true;
      put_line(b, x, f->y1 - 6, x, f->y1);
    }
  }
  fmt_buf_puts(b, "</g>");
  free(marked);
  return 0;
}

int verdict_plot_run(const anim_skeleton_t *sk, const anim_clip_t *clip,
                     const verdict_plot_t *p, unsigned max_frames,
                     fmt_buf_t *out, srv_error_t *err) {
  static const uint32_t first = 0;
  const uint32_t *joints = p->joint_count > 0 ? p->joints : &first;
  uint32_t joint_count = p->joint_count > 0 ? p->joint_count : 1;
  unsigned comps = verdict_plot_components(p->channel);
  size_t lines = (size_t)joint_count * comps;
  double frames = verdict_plot_frame_count(p);
  if (frames * (double)lines > (double)max_frames)
    return srv_error_set(err, SRV_ERR_TOO_MANY_FRAMES, "fps",
                         "the plot has %.0f frames of %zu lines; max_frames "
                         "(%u) bounds frames times lines",
                         frames, lines, max_frames);
  uint32_t n = (uint32_t)frames;
  double *values = malloc((size_t)n * lines * sizeof *values);
  if (values == NULL)
    return srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
  if (plot_values(sk, clip, p, joints, joint_count, n, values, err) != 0) {
    free(values);
    return -1;
  }
  /* The value axis spans the finite values, a unit around a flat line. */
  double lo = INFINITY, hi = -INFINITY;
  for (size_t i = 0; i < (size_t)n * lines; i++)
    if (isfinite(values[i])) {
      if (values[i] < lo) lo = values[i];
      if (values[i] > hi) hi = values[i];
    }
  if (!(lo <= hi)) lo = hi = 0;
  double pad = hi > lo ? (hi - lo) * 0.05 : 0.5;
  unsigned height = VERDICT_PLOT_HEIGHT;
  if (TOP + lines * LEGEND_ROW + 8 > height)
    height = (unsigned)(TOP + lines * LEGEND_ROW + 8);
  frame_t f = {.x0 = LEFT,
               .x1 = VERDICT_PLOT_WIDTH - RIGHT,
               .y0 = TOP,
               .y1 = height - BOTTOM,
               .t0 = p->from,
               .t1 = p->to > p->from ? p->to : p->from + 1,
               .v0 = lo - pad,
               .v1 = hi + pad};
  fmt_buf_printf(out,
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" "
                 "height=\"%u\" viewBox=\"0 0 %u %u\" "
                 "font-family=\"sans-serif\" font-size=\"11\">",
                 VERDICT_PLOT_WIDTH, height, VERDICT_PLOT_WIDTH, height);
  if (p->title != NULL) {
    fmt_buf_puts(out, "<title>");
    fmt_buf_xml_text(out, p->title);
    fmt_buf_puts(out, "</title>");
  }
  fmt_buf_puts(out, "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>");
  put_axes(out, &f, p->channel);
  if (put_keys(out, clip, &f) != 0) {
    free(values);
    return srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
  }
  fmt_buf_puts(out, "<g class=\"lines\" fill=\"none\" stroke-width=\"1.5\">");
  for (size_t l = 0; l < lines; l++) {
    const char *joint = sk->names[sk->from_caller[joints[l / comps]]];
    fmt_buf_puts(out, "<polyline data-joint=\"");
    fmt_buf_xml_text(out, joint);
    fmt_buf_printf(out, "\" data-component=\"%s\" stroke=\"%s\" points=\"",
                   comps == 1 ? "angle" : xyzw[l % comps],
                   palette[l % PALETTE]);
    bool any = false;
    for (uint32_t i = 0; i < n; i++) {
      double v = values[(size_t)i * lines + l];
      if (!isfinite(v)) continue; /* Left out of the line. */
      if (any) fmt_buf_putc(out, ' ');
      put_px(out, px_x(&f, p->from + (double)i / p->fps));
      fmt_buf_putc(out, ',');
      put_px(out, px_y(&f, v));
      any = true;
    }
    fmt_buf_puts(out, "\"/>");
  }
  fmt_buf_puts(out, "</g><g class=\"legend\" fill=\"#222\">");
  for (size_t l = 0; l < lines; l++) {
    const char *joint = sk->names[sk->from_caller[joints[l / comps]]];
    double y = TOP + l * LEGEND_ROW + 8;
    double x = VERDICT_PLOT_WIDTH - RIGHT + 16;
    fmt_buf_printf(out, "<g stroke=\"%s\" stroke-width=\"2\">",
                   palette[l % PALETTE]);
    put_line(out, x, y - 4, x + 18, y - 4);
    fmt_buf_puts(out, "</g><text x=\"");
    put_px(out, x + 24);
    fmt_buf_puts(out, "\" y=\"");
    put_px(out, y);
    fmt_buf_puts(out, "\">");
    fmt_buf_xml_text(out, joint);
    fmt_buf_printf(out, " %s</text>", comps == 1 ? "angle" : xyzw[l % comps]);
  }
  fmt_buf_puts(out, "</g></svg>");
  free(values);
  return 0;
}
