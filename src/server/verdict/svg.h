/* server: skeleton pictures as SVG (no dependencies): poses drawn as one
 * <line> per parented joint, projected orthographically by a view and
 * fitted to the picture, overlaid in one picture or laid out in a grid of
 * cells. format=svg on GET and POST /v1/pose, `animd eval --format svg`
 * and the HTML test report all draw through here, so the same poses give
 * the same bytes. Pure printing: any thread, no allocation but b's. */
#ifndef ANIMD_SERVER_VERDICT_SVG_H
#define ANIMD_SERVER_VERDICT_SVG_H

#include <stddef.h>
#include <stdint.h>

#include "animd/animd.h"
#include "formats/buf.h"

/* How model space is projected: front = x right, y up (the default);
 * side = z right, y up; top = x right, -z up. Numbered as the words of
 * FMT_VOCAB_VIEW (formats/vocab.h). */
typedef enum verdict_view {
  VERDICT_VIEW_FRONT = 0,
  VERDICT_VIEW_SIDE,
  VERDICT_VIEW_TOP
} verdict_view;

/* How several poses share a picture: drawn over each other (older, i.e.
 * earlier, poses lighter when drawn with verdict_svg_fade), or one cell
 * each in a grid. */
typedef enum verdict_layout {
  VERDICT_LAYOUT_OVERLAY = 0,
  VERDICT_LAYOUT_GRID
} verdict_layout;

/* One pose to draw: its skeleton and its model-space matrices, 16 floats
 * per joint in the skeleton's CALLER order (exactly what srv_eval_run
 * writes for space = model, all joints), a CSS colour and an opacity;
 * highlight lists caller-order joints drawn highlighted (NULL: none). */
typedef struct verdict_svg_pose_s {
  const anim_skeleton_t *skeleton;
  const float *model;
  const char *color; /* e.g. "#1f77b4" */
  double opacity;    /* 0..1 */
  const uint32_t *highlight;
  uint32_t highlight_count;
} verdict_svg_pose_t;

/* One self-contained <svg> element (no XML declaration, so it can be
 * inlined in HTML) of width x height pixels: every pose drawn over the
 * others, all fitted together (one scale for both axes, model up drawn
 * up), one <line data-joint="NAME"> per joint that has a parent. */
void verdict_svg_overlay(fmt_buf_t *b, const verdict_svg_pose_t *poses,
                         size_t count, verdict_view view, unsigned width,
                         unsigned height);

/* A picture in full. Zero means default for every member (and a NULL
 * desc all defaults). */
typedef struct verdict_svg_desc_s {
  verdict_view view;
  verdict_layout layout;
  /* The picture (overlay) or one cell (grid), pixels; 0: 480 x 480
   * (overlay), 240 x 240 (grid). */
  unsigned width, height;
  unsigned columns;    /* Grid: cells per row; 0: ceil(sqrt(count)). */
  const char *title;   /* <title> text (escaped); NULL: the skeleton's
                          name and the view. */
  const double *times; /* Grid: a "t=..." label per cell (4 significant
                          digits); NULL: none. */
} verdict_svg_desc_t;

/* The picture of poses[0..count) as desc says: overlay as
 * verdict_svg_overlay; grid: cell i (row-major) shows pose i alone, every
 * cell drawn at one scale and offset fitted to all the poses together (so
 * motion across cells shows), each a <g data-frame="i">. */
void verdict_svg_draw(fmt_buf_t *b, const verdict_svg_pose_t *poses,
                      size_t count, const verdict_svg_desc_t *desc);

/* The opacity of pose i of n overlaid frames, the oldest (i = 0) lightest:
 * 0.2 + 0.8 * i / (n - 1), and 1 for n = 1. */
double verdict_svg_fade(size_t i, size_t n);

/* The colour poses are drawn in by default, and highlighted joints. */
#define VERDICT_SVG_COLOR "#1f77b4"
#define VERDICT_SVG_HIGHLIGHT "#d62728"

#endif
