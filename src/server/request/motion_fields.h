/* server/request: the request fields root_motion and blend_space, two rows
 * of the table of request fields (fields.h), registered with the table's
 * built-in rows.
 *
 * root_motion: {"joint", "translation": "xz", "rotation": "yaw",
 * "reference": "skeleton", "up": "y"} (a query's root_motion=JOINT: the
 * defaults), a local hook after sampling or blending; answers gain
 * "root": {"translation": [3], "rotation": [4]} (binary: 7 trailing
 * floats). blend_space: {"param", "clips": [{"clip", "at"}], "sync"} in a
 * POST /v1/pose body in place of "layers" (and in WebSocket play, set and
 * pose in place of "clip"), a source hook; answers gain
 * "weights": [{"clip", "weight"}] (binary: one trailing float per clip).
 * docs/api.md "Root motion" and "Blend spaces" give the rules. */
#ifndef ANIMD_SERVER_REQUEST_MOTION_FIELDS_H
#define ANIMD_SERVER_REQUEST_MOTION_FIELDS_H

#include <jansson.h>

#include "server/request/fields.h"

extern const srv_field_t srv_root_motion_row;
extern const srv_field_t srv_blend_space_row;

/* The clip names of a blend_space value (the JSON a body gave), in order,
 * checked as the row's parser checks them: count of them into names (at
 * most max), or -1 when blend_space is not a valid one (its parser
 * reports why). */
int srv_blend_space_clips(const json_t *blend_space, const char **names,
                          size_t max);

/* The clip names of f's blend_space as it gave them, in order, count of
 * them into *count; NULL when f gives none. */
const char *const *srv_blend_space_names(const srv_fields_t *f,
                                         uint32_t *count);

/* The duration a stream of f's blend_space loops over, its clips lasting
 * durations (as srv_blend_space_names lists them): with sync the weighted
 * duration sum(w_i * d_i) at its param, without sync the longest clip; 0
 * when f gives no blend_space. */
double srv_blend_space_period(const srv_fields_t *f, const float *durations);

#endif
