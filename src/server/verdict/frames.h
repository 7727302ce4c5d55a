/* server/verdict: the errors of joints over the frames of a time grid,
 * the loop every comparison runs (POST /v1/compare, goldens): per frame
 * the caller fills both sides' model matrices, the shell error (shell.h)
 * of each joint is taken, and per joint its max (and first time), its RMS
 * over the frames and the failing counts make up the result. */
#ifndef ANIMD_SERVER_VERDICT_FRAMES_H
#define ANIMD_SERVER_VERDICT_FRAMES_H

#include <stdint.h>

#include "server/errors.h"
#include "server/verdict/compare.h"
#include "server/verdict/members.h"

/* Fills the model matrices of frame i (time t) of side a and side b (16
 * floats per joint each, the joints in the order of the names). 0, or -1
 * with err. */
typedef int (*verdict_frame_fill_fn)(void *ctx, uint32_t i, double t, float *a,
                                     float *b, srv_error_t *err);

/* The grid's thresholds and times into out's members. */
void verdict_result_grid(verdict_compare_result_t *out,
                         const verdict_grid_t *grid);

/* Compares frames frames of grid (times from + i/fps) of joints joints
 * named names (copied into out). 0 with *out (its grid members, joints,
 * max, failing and pass set; unmatched empty), or -1 with err (fill's, or
 * out_of_memory) and nothing in out. */
int verdict_frames_compare(const verdict_grid_t *grid, uint32_t frames,
                           uint32_t joints, const char *const *names,
                           verdict_frame_fill_fn fill, void *ctx,
                           verdict_compare_result_t *out, srv_error_t *err);

#endif
