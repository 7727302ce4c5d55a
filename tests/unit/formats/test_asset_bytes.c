/* Tests for formats/asset_bytes.h: the bytes counted for a skeleton, clip
 * or mesh equal what the core builders keep allocated, as a counting
 * allocator (the core's allocator hook) sees it, plus the per-block
 * overhead; the raw form and the built form give the same count. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/asset_bytes.h"

typedef struct counter_s {
  size_t live;
} counter_t;

typedef struct header_s {
  size_t size;
  size_t pad; /* Keeps the block 16-byte aligned. */
} header_t;

static void *count_alloc(size_t size, void *user) {
  header_t *h = malloc(sizeof *h + size);
  if (h == NULL) return NULL;
  h->size = size;
  ((counter_t *)user)->live += size;
  return h + 1;
}

static void count_free(void *p, void *user) {
  header_t *h = (header_t *)p - 1;
  ((counter_t *)user)->live -= h->size;
  free(h);
}

static anim_skeleton_t *chain(size_t n, counter_t *c) {
  anim_raw_joint_t *j = calloc(n, sizeof *j);
  char(*names)[32] = calloc(n, sizeof *names);
  for (size_t i = 0; i < n; i++) {
    snprintf(names[i], sizeof names[i], "joint_%zu", i);
    j[i].name = names[i];
    j[i].parent = (int32_t)i - 1;
    j[i].rest = anim_transform_identity();
  }
  anim_raw_skeleton_t raw = {.name = "chain", .joints = j, .joint_count = n};
  anim_allocator_t a = {count_alloc, count_free, c};
  anim_skeleton_t *s = NULL;
  ck_assert_int_eq(anim_skeleton_build(&raw, &a, &s, NULL), ANIM_OK);
  ck_assert_uint_eq(fmt_raw_skeleton_bytes(&raw), c->live + FMT_BLOCK_OVERHEAD);
  ck_assert_uint_eq(fmt_skeleton_bytes(s), c->live + FMT_BLOCK_OVERHEAD);
  free(j);
  free(names);
  return s;
}

START_TEST(skeleton_bytes_match_the_builder) {
  static const size_t sizes[] = {1, 2, 17, 300, ANIM_MAX_JOINTS};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    counter_t c = {0};
    anim_skeleton_t *s = chain(sizes[i], &c);
    anim_skeleton_free(s);
    ck_assert_uint_eq(c.live, 0);
  }
}
END_TEST

/* One clip of every interpolation and path, and a clip with no track on
 * the largest skeleton: its table of unanimated paths, 12 bytes a joint,
 * is what an empty clip costs. */
START_TEST(clip_bytes_match_the_builder) {
  counter_t bc = {0}, sc = {0};
  anim_skeleton_t *big = chain(ANIM_MAX_JOINTS, &bc);
  anim_skeleton_t *s = chain(6, &sc);
  float times[5] = {0, 0.25f, 0.5f, 1, 2};
  float values[5 * 3 * 4];
  for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
    values[i] = (i % 4 == 3) ? 1.f : 0.f;
  float bezier[5 * 4];
  for (size_t i = 0; i < 20; i++) bezier[i] = 0.5f;
  anim_raw_track_t tr[] = {
      {0, ANIM_PATH_ROTATION, ANIM_INTERP_LINEAR, times, 5, values, 20, NULL},
      {1, ANIM_PATH_TRANSLATION, ANIM_INTERP_STEP, times, 3, values, 9, NULL},
      {2, ANIM_PATH_ROTATION, ANIM_INTERP_CUBICSPLINE, times, 5, values, 60,
       NULL},
      {3, ANIM_PATH_SCALE, ANIM_INTERP_BEZIER, times, 5, values, 15, bezier},
      {4, ANIM_PATH_ROTATION, ANIM_INTERP_SQUAD, times, 5, values, 20, NULL},
      {5, ANIM_PATH_TRANSLATION, ANIM_INTERP_SQUAD, times, 4, values, 12, NULL},
  };
  anim_raw_clip_t raws[] = {
      {.name = "all", .tracks = tr, .track_count = 6},
      {.name = "", .tracks = tr, .track_count = 1},
      {.name = "empty", .tracks = NULL, .track_count = 0, .duration = 1},
  };
  for (size_t i = 0; i < 4; i++) {
    const anim_raw_clip_t *raw = &raws[i < 3 ? i : 2];
    const anim_skeleton_t *on = i < 3 ? s : big;
    counter_t c = {0};
    anim_allocator_t a = {count_alloc, count_free, &c};
    anim_clip_t *clip = NULL;
    ck_assert_int_eq(anim_clip_build(raw, on, &a, &clip, NULL), ANIM_OK);
    /* Before building, an upper bound (the key grid is not known yet);
     * after, the exact bytes. */
    ck_assert_uint_ge(fmt_raw_clip_bytes(raw, on), c.live + FMT_BLOCK_OVERHEAD);
    ck_assert_uint_le(fmt_raw_clip_bytes(raw, on),
                      2 * (c.live + FMT_BLOCK_OVERHEAD) + 4096);
    ck_assert_uint_eq(fmt_clip_bytes(clip), c.live + FMT_BLOCK_OVERHEAD);
    if (on == big)
      ck_assert_uint_ge(fmt_clip_bytes(clip), 12u * ANIM_MAX_JOINTS);
    anim_clip_free(clip);
    ck_assert_uint_eq(c.live, 0);
  }
  anim_skeleton_free(s);
  anim_skeleton_free(big);
}
END_TEST

START_TEST(mesh_bytes_match_the_builder) {
  counter_t sc = {0};
  anim_skeleton_t *s = chain(3, &sc);
  enum { V = 7 };
  float pos[3 * V], nrm[3 * V], uv[2 * V], w[8 * V];
  static const unsigned char png[5] = {0x89, 'P', 'N', 'G', 0};
  for (size_t i = 0; i < 2 * V; i++) uv[i] = (float)i / 16.0f;
  uint32_t joints[8 * V], idx[6] = {0, 1, 2, 2, 3, 4};
  for (size_t i = 0; i < 3 * V; i++) pos[i] = nrm[i] = (float)(i % 3 == 1);
  for (size_t i = 0; i < 8 * V; i++) {
    w[i] = 1;
    joints[i] = (uint32_t)(i % 3);
  }
  static const uint32_t influences[] = {0, 1, 3, 4, 6, 8};
  for (size_t k = 0; k < sizeof influences / sizeof influences[0]; k++) {
    anim_raw_mesh_t raw = {.name = k % 2 ? "body" : NULL,
                           .vertex_count = V,
                           .positions = pos,
                           .normals = k % 2 ? nrm : NULL,
                           .influences = influences[k],
                           .joints = joints,
                           .weights = w,
                           .indices = k % 3 ? idx : NULL,
                           .index_count = k % 3 ? 6 : 0,
                           .texcoords = k % 2 ? NULL : uv};
    /* Materials: none, a shader name, an external URI, embedded bytes. */
    if (k % 4 == 1) raw.material.name = "models/bob/skin";
    if (k % 4 == 2)
      raw.material = (anim_mesh_material_t){
          .has_texture = true, .texture = 2, .image_uri = "bob.png"};
    if (k % 4 == 3)
      raw.material = (anim_mesh_material_t){.name = "skin",
                                            .has_texture = true,
                                            .image_type = "image/png",
                                            .image = png,
                                            .image_size = sizeof png};
    counter_t c = {0};
    anim_allocator_t a = {count_alloc, count_free, &c};
    anim_mesh_t *m = NULL;
    ck_assert_int_eq(anim_mesh_build(&raw, s, &a, &m, NULL), ANIM_OK);
    ck_assert_uint_eq(fmt_raw_mesh_bytes(&raw), c.live + FMT_BLOCK_OVERHEAD);
    ck_assert_uint_eq(fmt_mesh_bytes(m), c.live + FMT_BLOCK_OVERHEAD);
    if (raw.texcoords)
      ck_assert_mem_eq(m->texcoords, uv, sizeof uv);
    else
      ck_assert_ptr_null(m->texcoords);
    if (k % 4 == 3) ck_assert_mem_eq(m->material.image, png, sizeof png);
    anim_mesh_free(m);
    ck_assert_uint_eq(c.live, 0);
  }
  anim_skeleton_free(s);
}
END_TEST

Suite *asset_bytes_suite(void) {
  Suite *s = suite_create("asset_bytes");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, skeleton_bytes_match_the_builder);
  tcase_add_test(tc, clip_bytes_match_the_builder);
  tcase_add_test(tc, mesh_bytes_match_the_builder);
  suite_add_tcase(s, tc);
  return s;
}
