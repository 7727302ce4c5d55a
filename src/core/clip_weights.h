/* animd core (private): a clip's morph weight tracks, checked and copied
 * by anim_clip_build (clip_weights.c). */
#ifndef ANIMD_CORE_CLIP_WEIGHTS_H
#define ANIMD_CORE_CLIP_WEIGHTS_H

#include "animd/clip.h"

/* Checks raw's weight tracks (field "weight_tracks"); raises *last to
 * their latest key time. */
anim_result anim__weight_tracks_check(const anim_raw_clip_t *raw, float *last,
                                      anim_build_error_t *err);

/* Copies raw's weight tracks into one block from alloc, set on c
 * (weight_tracks, _weights_block, _bytes grows). ANIM_ERR_OUT_OF_MEMORY. */
anim_result anim__weight_tracks_copy(const anim_raw_clip_t *raw,
                                     const anim_allocator_t *alloc,
                                     anim_clip_t *c, anim_build_error_t *err);

#endif
