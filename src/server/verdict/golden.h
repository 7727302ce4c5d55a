/* server/verdict: a clip compared with its golden, the recorded bytes of
 * a format=bin&space=model range answer (GET /v1/pose?from&to&fps or
 * `animd eval ... --from A --to B --fps F --format bin --space model`),
 * with the shell metric (shell.h), for a test suite's "golden" cases.
 *
 * A golden case: {"skeleton"?, "clip", "wrap"?, "from", "to", "fps",
 * "shell", "tolerance", "file" | "base64"}, the grid and thresholds with
 * compare's defaults (from 0, to the clip's duration, fps 30, shell 0.03,
 * tolerance 0.0001). The golden carries no names: its joints are matched
 * by position with the clip skeleton's joint order (the order the answer
 * was written in), so a golden recorded with `joints=` does not fit; a
 * golden of another frame count or joint count fails with a message (the
 * result's problem), not an error. a = the golden, b = the clip. */
#ifndef ANIMD_SERVER_VERDICT_GOLDEN_H
#define ANIMD_SERVER_VERDICT_GOLDEN_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "animd/animd.h"
#include "server/errors.h"
#include "server/request/target.h"
#include "server/verdict/compare.h"
#include "store/store.h"

typedef struct verdict_golden_s {
  verdict_grid_t grid; /* grid.to: as defaulted, once resolved. */
  /* private */
  json_t *_root;
  char _prefix[96];
  const char *_skeleton, *_clip;
  unsigned char *_bytes; /* The golden, decoded. */
  size_t _len;
  store_asset_t *_skel_asset, *_clip_asset;
  bool _resolved;
} verdict_golden_t;

/* Parses a golden case (obj; at_prefix as for verdict_compare_parse).
 * With suite_dir (the CLI), "file" is read relative to it; over HTTP
 * (suite_dir NULL) only "base64" is taken ("file": 400 bad_value).
 * 0, or -1 with err (bad_base64 at "base64", not_found at "file" for a
 * file that cannot be read). */
int verdict_golden_parse(const json_t *obj, const char *at_prefix,
                         const char *suite_dir, verdict_golden_t *out,
                         srv_error_t *err);
int verdict_golden_resolve(store_t *st, verdict_golden_t *g, srv_error_t *err,
                           srv_lookup_miss_t *miss);
unsigned long verdict_golden_cost(const verdict_golden_t *g);
/* Compares (any thread, after resolve): 0 with *out (pass false and
 * out->problem set when the golden does not fit the grid or the
 * skeleton), or -1 with err (too_many_frames, out_of_memory). */
int verdict_golden_run(const verdict_golden_t *g, unsigned max_frames,
                       verdict_compare_result_t *out, srv_error_t *err);
/* Side 0: the golden's frame nearest t (-1 when it does not fit the
 * skeleton); side 1: the clip at t. Model space, all joints, caller
 * order, 16 * joint_count floats of *skeleton_out. 0 or -1. */
int verdict_golden_pose_at(const verdict_golden_t *g, int side, double t,
                           float *model, const anim_skeleton_t **skeleton_out);
void verdict_golden_free(verdict_golden_t *g);

#endif
