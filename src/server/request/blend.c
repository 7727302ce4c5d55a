/* server/request: a blend body's names resolved (blend.h). */
#include "server/request/blend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int srv_blend_clip_lookup(store_t *st, const char *at, const char *name,
                          store_asset_t *skeleton, store_asset_t **out,
                          srv_error_t *err, srv_lookup_miss_t *miss) {
  *out = NULL;
  if (srv_lookup(st, STORE_CLIP, at, name, skeleton, out, err, miss) != 0)
    return -1;
  if ((*out)->skeleton_asset != skeleton) {
    if (miss != NULL) miss->missed = false;
    return srv_error_set(err, SRV_ERR_NOT_FOUND, at,
                         "no clip '%s' on that skeleton", name);
  }
  return 0;
}

int srv_blend_resolve(store_t *st, const srv_blend_body_t *body,
                      const char *at_prefix, srv_blend_t *out, srv_error_t *err,
                      srv_lookup_miss_t *miss) {
  memset(out, 0, sizeof *out);
  const char *pre = at_prefix != NULL ? at_prefix : "";
  const char *dot = pre[0] != '\0' ? "." : "";
  char at[160];
  snprintf(at, sizeof at, "%s%sskeleton", pre, dot);
  if (srv_lookup(st, STORE_SKELETON, at, body->skeleton, NULL, &out->skeleton,
                 err, miss) != 0)
    return -1;
  for (size_t i = 0; i < body->layer_count; i++) {
    const srv_blend_layer_body_t *l = &body->layers[i];
    snprintf(at, sizeof at, "%s%slayers[%zu].clip", pre, dot, i);
    int r = srv_blend_clip_lookup(st, at, l->clip, out->skeleton,
                                  &out->clips[i], err, miss);
    if (out->clips[i] != NULL) out->layer_count = i + 1;
    if (r != 0) return -1;
    out->layers[i] = (srv_eval_layer_t){.clip = out->clips[i]->clip,
                                        .t = l->t,
                                        .wrap = l->wrap,
                                        .weight = l->weight,
                                        .additive = l->additive};
  }
  return 0;
}

int srv_blend_masks(srv_blend_t *b, const srv_blend_body_t *body,
                    const char *at_prefix, srv_error_t *err) {
  const anim_skeleton_t *sk = b->skeleton->skeleton;
  size_t n = sk->joint_count;
  if (srv_fields_resolve(&body->fields, sk, at_prefix, err) != 0) return -1;
  bool masked = false;
  for (size_t i = 0; i < b->layer_count; i++)
    masked |= body->layers[i].mask != NULL;
  if (!masked) return 0;
  free(b->masks);
  b->masks = calloc(b->layer_count * n + 1, sizeof(float));
  if (b->masks == NULL)
    return srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
  for (size_t i = 0; i < b->layer_count; i++) {
    if (body->layers[i].mask == NULL) continue;
    float *w = b->masks + i * n;
    if (srv_blend_mask_parse(body->layers[i].mask, sk, i, at_prefix, w, err) !=
        0)
      return -1;
    b->layers[i].mask = w;
  }
  return 0;
}

void srv_blend_release(srv_blend_t *b) {
  for (size_t i = 0; i < b->layer_count; i++) store_asset_release(b->clips[i]);
  store_asset_release(b->skeleton);
  free(b->masks);
  memset(b, 0, sizeof *b);
}
