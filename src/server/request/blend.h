/* server/request: the names of a blend body (POST /v1/pose, and a compare
 * source that is a pose body) resolved against the store: its skeleton,
 * each layer's clip (on that skeleton) and each layer's mask as per-joint
 * weights, ready for the pipeline's layers (evaluate.h).
 *
 * Key design choice: two steps, because they run on different threads in
 * the server. The lookups (srv_blend_resolve) run where the store is read
 * and a fleet's miss can be fetched (the loop thread); the masks
 * (srv_blend_masks), which can name thousands of joints, run with the
 * work (the pool). Neither answers anything. */
#ifndef ANIMD_SERVER_REQUEST_BLEND_H
#define ANIMD_SERVER_REQUEST_BLEND_H

#include <stddef.h>

#include "server/errors.h"
#include "server/request/evaluate.h"
#include "server/request/requests.h"
#include "server/request/target.h"
#include "store/store.h"

/* A blend body's assets: retained, released with srv_blend_release. */
typedef struct srv_blend_s {
  store_asset_t *skeleton;
  store_asset_t *clips[SRV_BLEND_MAX_LAYERS];
  /* The pipeline's layers: clip, t (the body's), wrap, weight, additive,
   * and mask once srv_blend_masks ran. */
  srv_eval_layer_t layers[SRV_BLEND_MAX_LAYERS];
  size_t layer_count; /* Layers resolved (all of the body's on success). */
  float *masks;       /* layer_count * joints weights, or NULL. */
} srv_blend_t;

/* Looks up body's skeleton (at "skeleton") and its layers' clips on it
 * (at "layers[i].clip"), each at prefixed with at_prefix as in
 * srv_blend_body_parse_json. 0, or -1 with err: not_found (miss filled
 * for a name a shared store might hold; a clip of another skeleton is
 * not_found with no miss) or ambiguous; what was resolved before the
 * fault stays in out for srv_blend_release. */
int srv_blend_resolve(store_t *st, const srv_blend_body_t *body,
                      const char *at_prefix, srv_blend_t *out, srv_error_t *err,
                      srv_lookup_miss_t *miss);

/* The clip name (at "at") on skeleton, retained into *out: 0, or -1 with
 * err as srv_blend_resolve's (*out, when not NULL, is retained even then:
 * a clip of another skeleton). */
int srv_blend_clip_lookup(store_t *st, const char *at, const char *name,
                          store_asset_t *skeleton, store_asset_t **out,
                          srv_error_t *err, srv_lookup_miss_t *miss);

/* The layers' masks as per-joint weights of the skeleton, set on
 * out->layers, and the body's fields resolved for it (fields.h). 0, or -1
 * with err: unknown_joint at "<at_prefix>.layers[i].mask[k]" or at the
 * field's path, or out_of_memory. */
int srv_blend_masks(srv_blend_t *b, const srv_blend_body_t *body,
                    const char *at_prefix, srv_error_t *err);

void srv_blend_release(srv_blend_t *b);

#endif
