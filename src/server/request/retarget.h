/* server/request: a retarget request (POST /v1/retarget, `animd eval
 * --retarget`), one path for both: the body parsed, its names turned into
 * joint pairs against the looked-up skeletons (the plan), the bake
 * (animd/retarget.h) built into a clip, stored as an upload, and the
 * answer printed: the upload answer plus "retarget": {"mapped":
 * [[src, dst]...], "unmapped_source", "unmapped_target", "scale"}.
 *
 * Errors carry their spot: "clip", "to", "name", "fps", "root.source",
 * "root.target", "map" and "map.<source joint>" (unknown_joint for a
 * joint either skeleton lacks, bad_value for a target joint given twice).
 */
#ifndef ANIMD_SERVER_REQUEST_RETARGET_H
#define ANIMD_SERVER_REQUEST_RETARGET_H

#include <jansson.h>

#include "animd/animd.h"
#include "formats/buf.h"
#include "server/errors.h"
#include "store/store.h"

/* Keys per second when the body gives no "fps". */
#define SRV_RETARGET_FPS 30.0f
/* Most keys a bake may hold (frames times tracks): 413 too_many_keys at
 * "fps" beyond, before anything is allocated (about 64 MB of floats). */
#define SRV_RETARGET_MAX_KEYS ((size_t)4 * 1024 * 1024)

/* The body, parsed. Strings are owned. */
typedef struct srv_retarget_body_s {
  char *clip, *to; /* Names or ids. */
  char *name;      /* NULL: "<clip name>@<target skeleton name>". */
  float fps;
  json_t *map; /* The "map" object (a reference), or NULL for "auto". */
  char *root_source, *root_target; /* Both or neither. */
} srv_retarget_body_t;

/* Parses a JSON body: {"clip", "to", "map": {...} | "auto", "name", "fps",
 * "root": {"source", "target"}}. 0, or -1 with err (nothing held). */
int srv_retarget_body_parse(const json_t *root, srv_retarget_body_t *out,
                            srv_error_t *err);
void srv_retarget_body_free(srv_retarget_body_t *body);

/* The pairs and everything the bake needs. */
typedef struct srv_retarget_plan_s {
  const anim_skeleton_t *source, *target;
  const anim_clip_t *clip;
  anim_retarget_pair_t *pairs; /* Target storage order. */
  size_t pair_count;
  uint32_t root_pair;
  float fps;
  uint32_t frames;
  char *name; /* The new clip's name. */
} srv_retarget_plan_t;

/* Pairs body's map (or "auto") against the clip asset's skeleton and the
 * target skeleton asset. Frames beyond max_frames (0: no bound) are
 * too_many_frames at "fps", keys beyond SRV_RETARGET_MAX_KEYS
 * too_many_keys at "fps". 0, or -1 with err. */
int srv_retarget_plan(const srv_retarget_body_t *body,
                      const store_asset_t *clip, const store_asset_t *target,
                      unsigned max_frames, srv_retarget_plan_t *out,
                      srv_error_t *err);
void srv_retarget_plan_free(srv_retarget_plan_t *plan);

/* Bakes the plan into a clip for the target (malloc'ed; anim_clip_free)
 * and k. 0, or -1 with err. Any thread. */
int srv_retarget_bake(const srv_retarget_plan_t *plan, anim_clip_t **out,
                      float *scale, srv_error_t *err);

/* Bakes and stores the clip in st as an upload onto target (the asset of
 * plan->target), then prints the answer into answer (a trailing newline).
 * 0 with result filled (release with store_ingest_result_free), or -1
 * with err. Any thread. */
int srv_retarget_store(store_t *st, const srv_retarget_plan_t *plan,
                       store_asset_t *target, store_ingest_result_t *result,
                       fmt_buf_t *answer, srv_error_t *err);

#endif
