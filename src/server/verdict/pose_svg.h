/* server: format=svg answers: a pose request evaluated (one pose, or
 * every frame of a range) in model space and drawn as a picture
 * (svg.h). GET and POST /v1/pose and `animd eval --format svg` answer
 * through here, so they print the same bytes. Any thread. */
#ifndef ANIMD_SERVER_VERDICT_POSE_SVG_H
#define ANIMD_SERVER_VERDICT_POSE_SVG_H

#include <stdint.h>

#include "formats/buf.h"
#include "server/request/frame_answer.h"
#include "server/request/requests.h"

/* What to draw. */
typedef struct verdict_pose_picture_s {
  /* The pose: its space, joints, mesh and out are ignored (all joints are
   * evaluated in model space). */
  const srv_eval_job_t *job;
  const srv_frame_names_t *names; /* For the <title>. */
  const srv_range_query_t *range; /* NULL or not a range: one pose. */
  srv_picture_query_t picture;    /* view and layout. */
  const uint32_t *highlight;      /* Caller-order joints, or NULL. */
  uint32_t highlight_count;
} verdict_pose_picture_t;

/* Appends the picture to b: one pose as a 480 x 480 picture; a range as a
 * grid of 240 x 240 cells labelled with their times, or overlaid in one
 * 480 x 480 picture with the older frames lighter (verdict_svg_fade).
 * ANIM_OK, ANIM_ERR_OUT_OF_MEMORY, or the pipeline's result. */
anim_result verdict_pose_svg(fmt_buf_t *b, const verdict_pose_picture_t *p,
                             srv_eval_scratch_t *s);

/* The Content-Type of the pictures. */
#define VERDICT_SVG_TYPE "image/svg+xml"

#endif
