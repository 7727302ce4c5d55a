/* formats: the heap bytes a built skeleton, clip or mesh holds, known from
 * its raw form before it is built.
 *
 * The store counts these bytes against its memory limit, and the decoders
 * charge them to fmt_decode_options_t.max_bytes before each build, so an
 * upload that cannot fit is refused before its objects take the memory.
 * Each core object is one block (animd/skeleton.h, clip.h, skinning.h);
 * the counts follow the core's layout of that block (every array rounded
 * up to its alignment, a clip's table of the joint paths no track animates
 * included) plus the allocator's per-block overhead, and a test checks
 * them against the bytes a counting allocator sees the builders take. The
 * raw and the built form of one object give the same count. */
#ifndef ANIMD_FORMATS_ASSET_BYTES_H
#define ANIMD_FORMATS_ASSET_BYTES_H

#include "animd/animd.h"

/* What malloc spends per block besides the bytes asked for (glibc: one
 * size word, rounded to 16 bytes). */
#define FMT_BLOCK_OVERHEAD 16u

size_t fmt_raw_skeleton_bytes(const anim_raw_skeleton_t *raw);
size_t fmt_skeleton_bytes(const anim_skeleton_t *skeleton);
/* skeleton: the one the clip is built for (its joint count sizes the table
 * of unanimated joint paths). */
size_t fmt_raw_clip_bytes(const anim_raw_clip_t *raw,
                          const anim_skeleton_t *skeleton);
size_t fmt_clip_bytes(const anim_clip_t *clip);
size_t fmt_raw_mesh_bytes(const anim_raw_mesh_t *raw);
size_t fmt_mesh_bytes(const anim_mesh_t *mesh);

#endif
