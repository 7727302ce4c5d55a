/* formats: the heap bytes of built skeletons, clips and meshes, from counts
 * that their raw and built forms both give (asset_bytes.h). */
#include "formats/asset_bytes.h"

#include <string.h>

static size_t align_to(size_t n, size_t a) { return (n + a - 1) & ~(a - 1); }

/* ---- skeletons ----------------------------------------------------------- */

/* n joints; text: the bytes of every joint name and the skeleton's name,
 * each with its NUL. */
static size_t skeleton_block(size_t n, size_t text) {
  size_t off = align_to(sizeof(anim_skeleton_t), 16);
  off = align_to(off + n * sizeof(anim_mat4_t), 16);      /* inverse bind */
  off = align_to(off + n * sizeof(anim_transform_t), 16); /* rest */
  off = align_to(off + n * sizeof(anim_quat_t), 16);      /* orient */
  off = align_to(off + n * sizeof(char *), 16);           /* names */
  /* to_caller, from_caller and the name index. */
  off = align_to(off + 3 * n * sizeof(uint32_t), 16);
  off = align_to(off + n * sizeof(int16_t), 16); /* parents */
  return off + text + FMT_BLOCK_OVERHEAD;
}

size_t fmt_raw_skeleton_bytes(const anim_raw_skeleton_t *raw) {
  size_t text = 1 + (raw->name ? strlen(raw->name) : 0);
  for (size_t i = 0; i < raw->joint_count; i++)
    text += strlen(raw->joints[i].name ? raw->joints[i].name : "") + 1;
  return skeleton_block(raw->joint_count, text);
}

size_t fmt_skeleton_bytes(const anim_skeleton_t *s) {
  size_t text = strlen(s->name) + 1;
  for (uint32_t i = 0; i < s->joint_count; i++) text += strlen(s->names[i]) + 1;
  return skeleton_block(s->joint_count, text);
}

/* ---- clips --------------------------------------------------------------- */

typedef struct clip_counts_s {
  size_t floats;   /* Times, values and Bezier controls of every track. */
  size_t controls; /* SQUAD control quaternions. */
} clip_counts_t;

static void count_track(clip_counts_t *c, size_t keys, size_t values,
                        anim_path path, anim_interp interp) {
  c->floats += keys + values;
  if (interp == ANIM_INTERP_BEZIER) c->floats += 4 * keys;
  if (interp == ANIM_INTERP_SQUAD && path == ANIM_PATH_ROTATION && keys > 1)
    c->controls += 3 * (keys - 1);
}

static size_t clip_block(size_t joints, size_t tracks, const clip_counts_t *c,
                         size_t name_len) {
  /* One entry per joint path no track animates. */
  size_t missing = 3 * joints > tracks ? 3 * joints - tracks : 0;
  size_t off = align_to(sizeof(anim_clip_t), 16);
  off = align_to(off + tracks * sizeof(anim_track_t), 16);
  off = align_to(off + missing * sizeof(uint32_t), 16);
  off = align_to(off + c->controls * sizeof(anim_quat_t), 16);
  /* Four zero floats follow the keys (see the clip builder). */
  return off + (c->floats + 4) * sizeof(float) + name_len + 1 +
         FMT_BLOCK_OVERHEAD;
}

/* At most what the core adds for the key grid of LINEAR tracks that share
 * their key times (include/animd/clip.h): per path, every such track's
 * values again, padded to blocks of 16 joints, plus the grid's index and
 * alignment. An upper bound: the grid holds only the tracks that share
 * the representative's times. */
static size_t grid_bound(const anim_raw_clip_t *raw) {
  size_t extra = 0;
  for (int path = 0; path < 3; path++) {
    size_t n = 0, keys = 0;
    for (size_t i = 0; i < raw->track_count; i++) {
      const anim_raw_track_t *t = &raw->tracks[i];
      if ((int)t->path != path || t->interpolation != ANIM_INTERP_LINEAR)
        continue;
      n++;
      if (t->key_count > keys) keys = t->key_count;
    }
    if (n == 0) continue;
    size_t comps = path == ANIM_PATH_ROTATION ? 4 : 3;
    size_t blocks = (n + 15) / 16;
    extra += keys * blocks * 16 * comps * sizeof(float) +
             blocks * 2 * sizeof(uint32_t) + n * sizeof(uint32_t) + 256;
  }
  return extra;
}

size_t fmt_raw_clip_bytes(const anim_raw_clip_t *raw,
                          const anim_skeleton_t *skeleton) {
  clip_counts_t c = {0, 0};
  for (size_t i = 0; i < raw->track_count; i++) {
    const anim_raw_track_t *t = &raw->tracks[i];
    count_track(&c, t->key_count, t->value_count, t->path, t->interpolation);
  }
  /* Sections aligned to at most 64 bytes: up to 48 bytes more each than
   * clip_block counts. */
  /* The events and their names, after the clip's name. */
  size_t events = 16 + raw->event_count * sizeof(anim_event_t);
  for (size_t i = 0; raw->events != NULL && i < raw->event_count; i++)
    events += (raw->events[i].name ? strlen(raw->events[i].name) : 0) + 1;
  /* Weight tracks: their own block (core/clip_weights.c). */
  size_t weights =
      raw->weight_track_count > 0
          ? FMT_BLOCK_OVERHEAD + 16 +
                raw->weight_track_count * (sizeof(anim_weight_track_t) + 32)
          : 0;
  for (size_t i = 0; i < raw->weight_track_count; i++) {
    const anim_raw_weight_track_t *w = &raw->weight_tracks[i];
    weights +=
        strlen(w->mesh) + (w->key_count + w->value_count) * sizeof(float);
  }
  return clip_block(skeleton->joint_count, raw->track_count, &c,
                    raw->name ? strlen(raw->name) : 0) +
         events + grid_bound(raw) + 5 * 48 + weights;
}

size_t fmt_clip_bytes(const anim_clip_t *clip) {
  /* The clip is one allocation; the core knows its size. */
  return anim_clip_memory(clip) + FMT_BLOCK_OVERHEAD;
}

/* ---- meshes -------------------------------------------------------------- */

/* The mesh builder aligns every stream, and the block, to 64 bytes. */
#define MESH_ALIGN 64u

/* Bytes of a material string with its NUL (0 for none). */
static size_t text_size(const char *s) { return s ? strlen(s) + 1 : 0; }

/* The material's strings and image bytes, after the texture coordinates. */
static size_t material_bytes(const anim_mesh_material_t *m) {
  return text_size(m->name) + text_size(m->image_uri) +
         text_size(m->image_type) + m->image_size;
}

static size_t mesh_block(size_t n, size_t influences, bool normals,
                         size_t name_len, size_t indices, bool texcoords,
                         size_t material, size_t targets, bool target_normals) {
  size_t slots = influences <= 4 ? 4 : 8;
  size_t off = align_to(sizeof(anim_mesh_t), MESH_ALIGN);
  off = align_to(off + name_len + 1, MESH_ALIGN);
  off = align_to(off + n * 3 * sizeof(float), MESH_ALIGN);
  off = align_to(off + (normals ? n * 3 * sizeof(float) : 0), MESH_ALIGN);
  off = align_to(off + n * slots * sizeof(float), MESH_ALIGN);
  off = align_to(off + n * slots * sizeof(uint16_t), MESH_ALIGN);
  off += indices * sizeof(uint32_t);
  if (texcoords) off = align_to(off, MESH_ALIGN) + n * 2 * sizeof(float);
  off += material;
  if (targets > 0)
    off = align_to(off, MESH_ALIGN) +
          targets * (n * 3 * sizeof(float) * (target_normals ? 2 : 1) +
                     sizeof(float));
  return off + MESH_ALIGN - 1 + FMT_BLOCK_OVERHEAD;
}

size_t fmt_raw_mesh_bytes(const anim_raw_mesh_t *raw) {
  return mesh_block(raw->vertex_count, raw->influences ? raw->influences : 4,
                    raw->normals != NULL, raw->name ? strlen(raw->name) : 0,
                    raw->index_count, raw->texcoords != NULL,
                    material_bytes(&raw->material), raw->target_count,
                    raw->target_normals != NULL);
}

size_t fmt_mesh_bytes(const anim_mesh_t *m) {
  return mesh_block(m->vertex_count, m->influences, m->normals != NULL,
                    m->name ? strlen(m->name) : 0, m->index_count,
                    m->texcoords != NULL, material_bytes(&m->material),
                    m->target_count, m->target_normals != NULL);
}
