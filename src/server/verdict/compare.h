/* server/verdict: two pose sources compared over a time grid with the
 * shell metric (shell.h), the work of POST /v1/compare and of a test
 * suite's "compare" cases.
 *
 * A source is {"skeleton"?, "clip", "wrap"?} (the skeleton optional when
 * the clip names it; the clip optional for the rest pose) or a POST
 * /v1/pose body without "t" (its layers blended at every grid time),
 * parsed by the pose body's own parser (request/requests.h). Frames at
 * from + i/fps, i = 0 .. floor((to - from)*fps) (the range rule); joints
 * matched by name, in a's joint order; model-space matrices from the one
 * pipeline (request/evaluate.h).
 *
 * Key design choice: parse, resolve and run are separate steps with the
 * request path's threads in mind: parse and resolve never answer (a
 * fleet's miss comes back in a srv_lookup_miss_t), run touches only the
 * resolved assets and its own memory, so it runs on the pool. */
#ifndef ANIMD_SERVER_VERDICT_COMPARE_H
#define ANIMD_SERVER_VERDICT_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "animd/animd.h"
#include "formats/buf.h"
#include "server/errors.h"
#include "server/request/blend.h"
#include "server/request/requests.h"
#include "server/request/target.h"
#include "server/verdict/members.h"
#include "store/store.h"

/* One side of a comparison. */
typedef struct verdict_source_s {
  /* private */
  bool _layered;         /* A pose body: _body; else _skeleton and _clip. */
  const char *_skeleton; /* Borrowed from the parsed JSON. */
  const char *_clip;
  bool _wrap_given;
  anim_wrap _wrap;
  srv_fields_t _fields;
  srv_blend_body_t _body;
  /* Resolved. */
  store_asset_t *_skel_asset, *_clip_asset;
  srv_blend_t _blend;
  double _duration; /* Of the clip, or the longest layer's; 0: rest. */
} verdict_source_t;

/* A parsed compare body and, once resolved, its assets. Zero it or parse
 * into it; free with verdict_compare_free. */
typedef struct verdict_compare_s {
  verdict_grid_t grid; /* grid.to: as defaulted, once resolved. */
  /* private */
  json_t *_root; /* The body, retained: the sources borrow from it. */
  char _prefix[96];
  const json_t *_joints; /* The "joints" array, or NULL. */
  verdict_source_t _src[2];
  /* Resolved: the matched joints as caller-order indices of each side, in
   * a's order, and the names of either side that have no match. */
  uint32_t *_pick[2];
  uint32_t _pick_count;
  const char **_unmatched[2];
  size_t _unmatched_count[2];
  bool _resolved;
} verdict_compare_t;

/* One compared joint. */
typedef struct verdict_joint_error_s {
  char *joint;      /* Its name. */
  double max_error; /* Model units. */
  double t;         /* The first grid time of max_error. */
  double rms_error; /* Over every frame. */
} verdict_joint_error_t;

/* What a comparison found. Empty (zeroed) until run. */
typedef struct verdict_compare_result_s {
  bool pass;             /* max_error <= tolerance, and no problem. */
  double max_error;      /* Over every joint and frame (0: none). */
  double max_t;          /* Its time. */
  const char *max_joint; /* Its joint's name (NULL: no joint compared). */
  double tolerance, shell, from, to, fps;
  uint32_t frames;
  verdict_joint_error_t *joints; /* By max_error descending. */
  size_t joint_count;
  uint32_t failing_frames; /* Frames with any joint over tolerance. */
  size_t failing_joints;   /* Joints whose max is over it. */
  char **unmatched[2];     /* Names of a (0), b (1) with no match. */
  size_t unmatched_count[2];
  /* Set when the sources could not be compared at all (a golden of
   * another shape): pass is false and this says why. */
  char problem[256];
} verdict_compare_result_t;

/* Parses a compare body (the JSON object obj; at_prefix "" for POST
 * /v1/compare, "cases[2].compare" inside a suite, so an error's at reads
 * "cases[2].compare.a.layers[0].clip"). obj is retained. 0, or -1 with
 * err (and nothing to free). */
int verdict_compare_parse(const json_t *obj, const char *at_prefix,
                          verdict_compare_t *out, srv_error_t *err);
/* Resolves every name it holds in st (retains the assets), matches the
 * joints and settles the grid. 0, or -1 with err (and miss for a fleet
 * fetch). The names of a layer's mask, which can be thousands, are read
 * with the work: an unknown one is run's error. */
int verdict_compare_resolve(store_t *st, verdict_compare_t *c, srv_error_t *err,
                            srv_lookup_miss_t *miss);
/* Its evaluation cost in schedule units (for srv__task_run), once
 * resolved. */
unsigned long verdict_compare_cost(const verdict_compare_t *c);
/* Frames of its grid (once resolved), which may exceed max_frames. */
double verdict_compare_frames(const verdict_compare_t *c);
/* Runs it (any thread, after resolve): 0 with *out, or -1 with err
 * (too_many_frames at "fps" over max_frames, unknown_joint at
 * "a.layers[i].mask[k]", out_of_memory, bad_blend). */
int verdict_compare_run(const verdict_compare_t *c, unsigned max_frames,
                        verdict_compare_result_t *out, srv_error_t *err);
/* The answer of POST /v1/compare, no trailing newline. */
void verdict_compare_result_json(fmt_buf_t *b,
                                 const verdict_compare_result_t *r);
/* One line for a failing suite case, e.g. "max error 0.0031 > 0.0001 at
 * RightHand, t=0.5333 s". */
void verdict_compare_result_message(const verdict_compare_result_t *r,
                                    char *buf, size_t cap);
/* For the HTML report's picture: side 0 (a) or 1 (b) evaluated at time t
 * in model space, all joints, caller order, into model (16 * joint_count
 * floats of *skeleton_out). 0 or -1. */
int verdict_compare_pose_at(const verdict_compare_t *c, int side, double t,
                            float *model, const anim_skeleton_t **skeleton_out);
void verdict_compare_result_free(verdict_compare_result_t *r);
void verdict_compare_free(verdict_compare_t *c);

/* ---- for goldens (golden.h) ---------------------------------------------
 */

/* The pose a source or golden names: skeleton and clip (either may be
 * NULL, not both) through the API's one lookup (request/target.h), errors
 * at "<at>.skeleton", "<at>.clip". 0 with both retained (*clip_out NULL:
 * the rest pose), or -1 with err (and miss). */
int verdict_pose_resolve(store_t *st, const char *skeleton, const char *clip,
                         const char *at, store_asset_t **skeleton_out,
                         store_asset_t **clip_out, srv_error_t *err,
                         srv_lookup_miss_t *miss);

/* The grid's frame count by the range rule. */
double verdict_grid_frames(double from, double to, double fps);

#endif
