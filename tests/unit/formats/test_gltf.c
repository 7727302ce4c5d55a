/* Tests for the glTF 2.0 importer: every shared sample file imports with the
 * counts its README states, a small hand-made document checks folding,
 * accessor decoding (byteStride, normalized, sparse) and one failure per
 * kind of broken input, each with its status and glTF path. Expected
 * numbers are computed by hand in the comments. */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/bundle.h"
#include "import_test_util.h"

#define GLB "model/gltf-binary"
#define GLTF "model/gltf+json"
#define EPS 1e-5f

/* ---- shared sample files ------------------------------------------------- */

typedef struct expect_s {
  const char *file;
  size_t skeletons, joints0, clips, meshes, vertices, triangles;
  const char *clip0;
  size_t tracks0, keys0;
  int normals; /* 1 if meshes carry normals, 0 if not, -1 no mesh */
} expect_t;

/* From assets/README.md section 1. */
static const expect_t files[] = {
    {"gltf/khronos/SimpleSkin.gltf", 1, 2, 1, 1, 10, 8, "animation_0", 1, 12,
     0},
    {"gltf/khronos/RiggedSimple.glb", 1, 2, 1, 1, 160, 188, "animation_0", 3,
     50, 1},
    {"gltf/khronos/RiggedFigure.glb", 1, 19, 1, 1, 370, 256, "animation_0", 57,
     2, 1},
    {"gltf/khronos/CesiumMan.glb", 1, 19, 1, 1, 3273, 4672, "animation_0", 57,
     48, 1},
    {"gltf/khronos/Fox.glb", 1, 24, 3, 1, 1728, 0, "Survey", 21, 83, 0},
    {"gltf/khronos/InterpolationTest.glb", 1, 12, 9, 0, 0, 0, "Step Scale", 1,
     5, -1},
    /* 84 skins; the first hangs off nothing, so it keeps its 10 joints. */
    {"gltf/khronos/RecursiveSkeletons.glb", 84, 10, 84, 84, 84 * 40, 84 * 76,
     "Track0", 10, 3, 0},
    {"gltf/khronos/BoxAnimated.glb", 1, 4, 1, 0, 0, 0, "animation_0", 2, 4, -1},
    {"gltf/khronos/AnimatedTriangle.gltf", 1, 1, 1, 0, 0, 0, "animation_0", 1,
     5, -1},
    /* 14 skinned mesh nodes; 3 of them have 2 or 3 primitives: 19 meshes. */
    {"gltf/extra/robot_quaternius.glb", 1, 43, 14, 19, 7218, 3238,
     "Robot_Dance", 129, 81, 1},
    {"gltf/extra/girl.glb", 1, 23, 2, 2, 496, 561, "IdleTrack", 69, 40, 1},
    {"gltf/extra/RiggedSimple_blender_reexport.glb", 1, 4, 1, 1, 960, 892,
     "Anim_0_Armature", 12, 0, 1},
};

/* The largest key count of a clip's tracks. */
static uint32_t max_keys(const anim_clip_t *c) {
  uint32_t k = 0;
  for (uint32_t i = 0; i < c->track_count; i++)
    if (c->tracks[i].key_count > k) k = c->tracks[i].key_count;
  return k;
}

START_TEST(test_sample_counts) {
  const expect_t *e = &files[_i];
  const char *ext = strrchr(e->file, '.');
  fmt_bundle_t b;
  asset_decode(e->file, strcmp(ext, ".glb") == 0 ? GLB : GLTF, NULL, &b);
  ck_assert_uint_eq(b.skeleton_count, e->skeletons);
  ck_assert_uint_eq(b.skeletons[0]->joint_count, e->joints0);
  ck_assert_uint_eq(b.clip_count, e->clips);
  ck_assert_uint_eq(b.mesh_count, e->meshes);
  ck_assert_uint_eq(bundle_vertices(&b), e->vertices);
  if (strstr(e->file, "Fox") == NULL)
    ck_assert_uint_eq(bundle_triangles(&b), e->triangles);
  ck_assert_str_eq(b.clips[0].clip->name, e->clip0);
  ck_assert_uint_eq(b.clips[0].clip->track_count, e->tracks0);
  if (e->keys0) ck_assert_uint_eq(max_keys(b.clips[0].clip), e->keys0);
  for (size_t i = 0; i < b.mesh_count; i++) {
    /* Normals always: the file's, or computed (with a warning). */
    ck_assert_ptr_nonnull(b.meshes[i].mesh->normals);
    ck_assert_uint_lt(b.meshes[i].skeleton, b.skeleton_count);
  }
  if (e->meshes > 0)
    ck_assert_int_eq(b.warnings_len > 0 &&
                         strstr(b.warnings, "area-weighted") != NULL,
                     e->normals == 0);
  for (size_t i = 0; i < b.clip_count; i++)
    ck_assert_uint_lt(b.clips[i].skeleton, b.skeleton_count);
  fmt_bundle_free(&b);
}
END_TEST

START_TEST(test_cesium_man_texture) {
  /* CesiumMan: TEXCOORD_0 (float) and a JPEG base-color image in a
   * bufferView of the GLB (material 0, texture 0). */
  fmt_bundle_t b;
  asset_decode("gltf/khronos/CesiumMan.glb", GLB, NULL, &b);
  const anim_mesh_t *m = b.meshes[0].mesh;
  ck_assert_ptr_nonnull(m->texcoords);
  for (uint32_t i = 0; i < 2 * m->vertex_count; i++)
    ck_assert(m->texcoords[i] >= -0.01f && m->texcoords[i] <= 1.01f);
  ck_assert(m->material.has_texture);
  ck_assert_uint_eq(m->material.texture, 0);
  ck_assert_str_eq(m->material.image_type, "image/jpeg");
  ck_assert_uint_gt(m->material.image_size, 1000);
  const unsigned char *jpg = m->material.image;
  ck_assert_uint_eq(jpg[0], 0xFF); /* JPEG SOI marker FF D8. */
  ck_assert_uint_eq(jpg[1], 0xD8);
  ck_assert_ptr_null(m->material.image_uri);
  fmt_bundle_free(&b);
}
END_TEST

START_TEST(test_fox_clips) {
  /* README: Survey 83 keys (0-3.417 s), Walk 18 (0-0.708 s), Run 25
   * (0-1.158 s); 21 channels each. Fox is not indexed (1728 = 576 * 3). */
  static const struct {
    const char *name;
    uint32_t keys;
    float end;
  } c[] = {{"Survey", 83, 3.4166667f},
           {"Walk", 18, 0.7083333f},
           {"Run", 25, 1.1583333f}};
  fmt_bundle_t b;
  asset_decode("gltf/khronos/Fox.glb", GLB, NULL, &b);
  ck_assert_uint_eq(b.clip_count, 3);
  for (size_t i = 0; i < 3; i++) {
    ck_assert_str_eq(b.clips[i].clip->name, c[i].name);
    ck_assert_uint_eq(b.clips[i].clip->track_count, 21);
    ck_assert_uint_eq(max_keys(b.clips[i].clip), c[i].keys);
    ck_assert_float_eq_tol(b.clips[i].clip->duration, c[i].end, 1e-3f);
  }
  ck_assert_ptr_null(b.meshes[0].mesh->indices);
  fmt_bundle_free(&b);
}
END_TEST

START_TEST(test_interpolation_test_clips) {
  static const char *const names[9] = {
      "Step Scale",           "Linear Scale",
      "CubicSpline Scale",    "Step Rotation",
      "CubicSpline Rotation", "Linear Rotation",
      "Step Translation",     "CubicSpline Translation",
      "Linear Translation"};
  static const uint8_t interp[9] = {
      ANIM_INTERP_STEP, ANIM_INTERP_LINEAR,      ANIM_INTERP_CUBICSPLINE,
      ANIM_INTERP_STEP, ANIM_INTERP_CUBICSPLINE, ANIM_INTERP_LINEAR,
      ANIM_INTERP_STEP, ANIM_INTERP_CUBICSPLINE, ANIM_INTERP_LINEAR};
  fmt_bundle_t b;
  asset_decode("gltf/khronos/InterpolationTest.glb", GLB, NULL, &b);
  ck_assert_uint_eq(b.clip_count, 9);
  for (size_t i = 0; i < 9; i++) {
    const anim_clip_t *c = b.clips[i].clip;
    ck_assert_str_eq(c->name, names[i]);
    ck_assert_uint_eq(c->track_count, 1);
    ck_assert_uint_eq(c->tracks[0].key_count, 5);
    ck_assert_uint_eq(c->tracks[0].interpolation, interp[i]);
  }
  /* Node names become joint names; the skeleton mirrors the node list. */
  ck_assert_str_eq(joint_name(b.skeletons[0], 0), "Cube");
  ck_assert_str_eq(joint_name(b.skeletons[0], 11), "Plane");
  fmt_bundle_free(&b);
}
END_TEST

START_TEST(test_recursive_skeletons) {
  fmt_bundle_t b;
  asset_decode("gltf/khronos/RecursiveSkeletons.glb", GLB, NULL, &b);
  ck_assert_uint_eq(b.skeleton_count, 84);
  /* Skeletons that hang off another skeleton's (animated) joints keep
   * those ancestors as extra joints after their own 10; exactly 4 skins
   * have parentless roots (README: 4 separate skeleton roots). */
  size_t alone = 0;
  for (size_t s = 0; s < 84; s++) {
    const anim_skeleton_t *k = b.skeletons[s];
    ck_assert_uint_ge(k->joint_count, 10);
    ck_assert_uint_eq(k->joint_count % 10, 0);
    if (k->joint_count == 10) alone++;
    ck_assert_uint_eq(b.clips[s].skeleton, s);
    ck_assert_uint_eq(b.clips[s].clip->track_count, k->joint_count);
    ck_assert_uint_eq(b.meshes[s].skeleton, s);
    ck_assert_uint_eq(b.meshes[s].mesh->vertex_count, 40);
  }
  ck_assert_uint_eq(alone, 4);
  fmt_bundle_free(&b);
}
END_TEST

START_TEST(test_girl_five_roots) {
  /* The 5 root joints meet only at the non-joint node Armature, which has
   * a static translation: it is folded in, so 5 roots remain. */
  fmt_bundle_t b;
  asset_decode("gltf/extra/girl.glb", GLB, NULL, &b);
  const anim_skeleton_t *k = b.skeletons[0];
  size_t roots = 0;
  for (uint32_t i = 0; i < k->joint_count; i++)
    if (joint_parent(k, i) < 0) roots++;
  ck_assert_uint_eq(roots, 5);
  fmt_bundle_free(&b);
}
END_TEST

/* ---- InterpolationTest: sampled node values by hand from the spec ----
 *
 * Key times (float32 in the file): scale clips t = 1/24, 10/24, 21/24,
 * 30/24, 40/24 = 0.0416667, 0.4166667, 0.875, 1.25, 1.6666667; rotation
 * clips 0, 0.4166667, 0.875, 1.25, 1.7083334; Step Translation 0,
 * 0.4583333, 0.8333333, 1.2916666, 1.7083334; the other translations 0,
 * 0.4166667, 0.8333333, 1.25, 1.6666667. Values (CUBICSPLINE: the middle
 * of each in-tangent, value, out-tangent triple):
 *   scale 1, .5, 1, .5, 1 (cubic tangents all 0);
 *   rotation about z by 0, -45, -90, -135, -180 degrees:
 *     (0,0,-sin(a/2),cos(a/2)) = (0,0,0,1), (0,0,-.382683,.92388),
 *     (0,0,-.707107,.707107), (0,0,-.92388,.382683), (0,0,-1,0);
 *   Step Translation y 6.665226, 10, 6, 10, 6;
 *   CubicSpline Translation (3.30518, y) with y 6.640117, 10, 6, 10, 6 and
 *   zero tangents; Linear Translation (-3.297581, y), y 6.621015, 10, 6, 10,
 *   6.
 * Hermite basis at s: h00 = 2s^3-3s^2+1, h10 = s^3-2s^2+s, h01 = -2s^3+3s^2,
 * h11 = s^3-s^2; p = h00 v_k + h10 d b_k + h01 v_k+1 + h11 d a_k+1 with d the
 * key interval, b the out-tangent and a the in-tangent (glTF 2.0 Appendix C).
 * s = 0.5: h00 = h01 = 0.5, h10 = 0.125, h11 = -0.125.
 * s = 0.25: h00 = 0.84375, h01 = 0.15625. */
typedef struct interp_case_s {
  const char *clip;
  uint32_t node;
  float t;
  int path;
  float v[4];
} interp_case_t;

#define MID_SCALE 0.6458333f /* (0.4166667 + 0.875) / 2 */
#define MID_TRANS 0.625f     /* (0.4166667 + 0.8333333) / 2 */
static const interp_case_t interp_cases[] = {
    /* Step Scale: the key at or before t. */
    {"Step Scale", 0, 0.4166666567f, ANIM_PATH_SCALE, {0.5f, 0.5f, 0.5f}},
    {"Step Scale", 0, MID_SCALE, ANIM_PATH_SCALE, {0.5f, 0.5f, 0.5f}},
    {"Step Scale", 0, 1.0f, ANIM_PATH_SCALE, {1, 1, 1}},
    /* Linear Scale: lerp(.5, 1, .5) = .75; at s = .25: .5 + .25 * .5 =
     * .625 (t = 0.4166667 + 0.25 * 0.4583333 = 0.53125). */
    {"Linear Scale", 3, 0.875f, ANIM_PATH_SCALE, {1, 1, 1}},
    {"Linear Scale", 3, MID_SCALE, ANIM_PATH_SCALE, {0.75f, 0.75f, 0.75f}},
    {"Linear Scale", 3, 0.53125f, ANIM_PATH_SCALE, {0.625f, 0.625f, 0.625f}},
    /* CubicSpline Scale, zero tangents: .5 * .5 + .5 * 1 = .75; at s = .25:
     * .84375 * .5 + .15625 * 1 = .578125. */
    {"CubicSpline Scale", 4, 1.25f, ANIM_PATH_SCALE, {0.5f, 0.5f, 0.5f}},
    {"CubicSpline Scale", 4, MID_SCALE, ANIM_PATH_SCALE, {0.75f, 0.75f, 0.75f}},
    {"CubicSpline Scale",
     4,
     0.53125f,
     ANIM_PATH_SCALE,
     {0.578125f, 0.578125f, 0.578125f}},
    /* Step Rotation between keys 1 and 2: key 1. */
    {"Step Rotation",
     5,
     MID_SCALE,
     ANIM_PATH_ROTATION,
     {0, 0, -0.382683f, 0.92388f}},
    {"Step Rotation",
     5,
     1.25f,
     ANIM_PATH_ROTATION,
     {0, 0, -0.92388f, 0.382683f}},
    /* Linear Rotation: slerp of -45 and -90 degrees at .5 is -67.5 degrees:
     * (0, 0, -sin(33.75 deg), cos(33.75 deg)) = (0, 0, -.5555702, .8314696). */
    {"Linear Rotation",
     7,
     MID_SCALE,
     ANIM_PATH_ROTATION,
     {0, 0, -0.5555702f, 0.8314696f}},
    {"Linear Rotation",
     7,
     0.875f,
     ANIM_PATH_ROTATION,
     {0, 0, -0.707107f, 0.707107f}},
    /* CubicSpline Rotation, segment 1-2, d = 0.4583333, s = .5:
     *   v1 = (0,0,-.382683,.92388), b1 = (0,0,-.047891,.998853),
     *   a2 = (0,0,-.035464,.999371), v2 = (0,0,-.707107,.707107);
     *   z = .5(-.382683) + .125(.4583333)(-.047891) + .5(-.707107)
     *       - .125(.4583333)(-.035464)
     *     = -.1913415 - .0027437 - .3535535 + .0020318 = -.5456070
     *   w = .5(.92388) + .125(.4583333)(.998853) + .5(.707107)
     *       - .125(.4583333)(.999371)
     *     = .46194 + .0572260 + .3535535 - .0572557 = .8154638
     *   normalized: |p| = sqrt(.5456070^2 + .8154638^2) = .9811566,
     *   (0, 0, -.5560855, .8311251). */
    {"CubicSpline Rotation",
     6,
     MID_SCALE,
     ANIM_PATH_ROTATION,
     {0, 0, -0.5560855f, 0.8311251f}},
    {"CubicSpline Rotation",
     6,
     0.4166666567f,
     ANIM_PATH_ROTATION,
     {0, 0, -0.382683f, 0.92388f}},
    /* Step Translation at .6458333 (keys .4583333 and .8333333): key 1. */
    {"Step Translation", 8, MID_SCALE, ANIM_PATH_TRANSLATION, {0, 10, 0}},
    {"Step Translation", 8, 0.8333333f, ANIM_PATH_TRANSLATION, {0, 6, 0}},
    /* CubicSpline Translation, zero tangents, y: .5(10) + .5(6) = 8; s = .25:
     * .84375(10) + .15625(6) = 9.375 at t = .4166667 + .25(.4166667) =
     * .5208333. */
    {"CubicSpline Translation",
     9,
     MID_TRANS,
     ANIM_PATH_TRANSLATION,
     {3.30518f, 8, 0}},
    {"CubicSpline Translation",
     9,
     0.5208333f,
     ANIM_PATH_TRANSLATION,
     {3.30518f, 9.375f, 0}},
    /* Linear Translation: y = (10 + 6) / 2 = 8. */
    {"Linear Translation",
     10,
     MID_TRANS,
     ANIM_PATH_TRANSLATION,
     {-3.297581f, 8, 0}},
    {"Linear Translation",
     10,
     1.25f,
     ANIM_PATH_TRANSLATION,
     {-3.297581f, 10, 0}},
};

START_TEST(test_interpolation_values) {
  const interp_case_t *k = &interp_cases[_i];
  fmt_bundle_t b;
  asset_decode("gltf/khronos/InterpolationTest.glb", GLB, NULL, &b);
  const anim_skeleton_t *sk = b.skeletons[0];
  const anim_clip_t *clip = NULL;
  for (size_t i = 0; i < b.clip_count; i++)
    if (strcmp(b.clips[i].clip->name, k->clip) == 0) clip = b.clips[i].clip;
  ck_assert_ptr_nonnull(clip);
  uint32_t n = sk->joint_count;
  anim_vec3_t *tr = malloc(n * sizeof *tr), *sc = malloc(n * sizeof *sc);
  anim_quat_t *rot = malloc(n * sizeof *rot);
  anim_sampling_job_t job = {
      .skeleton = sk, .clip = clip, .time = k->t, .output = {tr, rot, sc, n}};
  ck_assert_int_eq(anim_sampling_job_run(&job), ANIM_OK);
  uint32_t j = sk->from_caller[k->node];
  const float tol = 2e-5f;
  if (k->path == ANIM_PATH_ROTATION) {
    float s = rot[j].w * k->v[3] + rot[j].z * k->v[2] < 0 ? -1.0f : 1.0f;
    ck_assert_float_eq_tol(s * rot[j].x, k->v[0], tol);
    ck_assert_float_eq_tol(s * rot[j].y, k->v[1], tol);
    ck_assert_float_eq_tol(s * rot[j].z, k->v[2], tol);
    ck_assert_float_eq_tol(s * rot[j].w, k->v[3], tol);
  } else {
    anim_vec3_t v = k->path == ANIM_PATH_SCALE ? sc[j] : tr[j];
    ck_assert_float_eq_tol(v.x, k->v[0], tol);
    ck_assert_float_eq_tol(v.y, k->v[1], tol);
    ck_assert_float_eq_tol(v.z, k->v[2], tol);
  }
  free(tr);
  free(sc);
  free(rot);
  fmt_bundle_free(&b);
}
END_TEST

/* ---- a small hand-made document ------------------------------------------ */

/* Buffer layout (little-endian):
 *   0  times     f32[2]      {0, 1}                         view 0
 *   8  rotations f32 vec4[2] {0,0,0,1}, {0,0,s,s}, s=1/sqrt2 view 1
 *  40  positions f32 vec3[3] (0,0,0) (1,0,0) (0,1,0)         view 2
 *  76  joints    u8 vec4[3]  [0,1,0,0] [1,0,0,0] [0,0,0,0]   view 3
 *  88  weights   f32 vec4[3] [.5,.5,0,0] [1,0,0,0] [1,0,0,0] view 4
 * 136  indices   u16[3]      0 1 2 (+2 pad)                  view 5
 * 144  sparse index u8 [1] (+3 pad)                          view 6
 * 148  sparse value f32 vec4 (0, s, 0, s)                    view 7
 * 164  i16 vec4[2], stride 12: (0,0,0,32767) (0,0,23170,23170) view 8
 * 188  unorm8 weights vec4[3]: [255,0,0,0] [128,127,0,0] [0,255,0,0] view 9
 * 200  cubic f32 vec3[6]: in (1,0,0) v (0,0,0) out (0,1,0),
 *                         in (0,0,1) v (0,0,1) out (0,0,0)       view 10 */
#define BUF_LEN 272
#define S2 0.70710677f

static void put_f(uint8_t *b, size_t off, const float *v, size_t n) {
  memcpy(b + off, v, n * sizeof(float));
}

static void make_buffer(uint8_t *b) {
  memset(b, 0, BUF_LEN);
  const float times[2] = {0, 1};
  const float rot[8] = {0, 0, 0, 1, 0, 0, S2, S2};
  const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  const uint8_t joints[12] = {0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
  const float w[12] = {.5f, .5f, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
  const uint16_t idx[3] = {0, 1, 2};
  const float sv[4] = {0, S2, 0, S2};
  const int16_t q16a[4] = {0, 0, 0, 32767}, q16b[4] = {0, 0, 23170, 23170};
  put_f(b, 0, times, 2);
  put_f(b, 8, rot, 8);
  put_f(b, 40, pos, 9);
  memcpy(b + 76, joints, 12);
  put_f(b, 88, w, 12);
  memcpy(b + 136, idx, 6);
  b[144] = 1;
  put_f(b, 148, sv, 4);
  memcpy(b + 164, q16a, 8);
  memcpy(b + 176, q16b, 8);
  const uint8_t w8[12] = {255, 0, 0, 0, 128, 127, 0, 0, 0, 255, 0, 0};
  memcpy(b + 188, w8, 12);
  const float cub[18] = {1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0};
  put_f(b, 200, cub, 18);
}

static const char *base_json =
    "{\"asset\":{\"version\":\"2.0\"},"
    "\"scene\":0,\"scenes\":[{\"nodes\":[0,3]}],"
    "\"nodes\":["
    " {\"name\":\"Armature\",\"translation\":[0,0,1],"
    "  \"rotation\":[0.70710677,0,0,0.70710677],\"children\":[1]},"
    " {\"name\":\"root\",\"translation\":[0,1,0],\"children\":[2]},"
    " {\"name\":\"tip\",\"translation\":[0,2,0]},"
    " {\"name\":\"body\",\"mesh\":0,\"skin\":0}],"
    "\"skins\":[{\"joints\":[1,2]}],"
    "\"meshes\":[{\"name\":\"body\",\"primitives\":[{\"attributes\":"
    " {\"POSITION\":2,\"JOINTS_0\":3,\"WEIGHTS_0\":4},\"indices\":5}]}],"
    "\"animations\":[{\"name\":\"turn\",\"channels\":[{\"sampler\":0,"
    " \"target\":{\"node\":2,\"path\":\"rotation\"}}],"
    " \"samplers\":[{\"input\":0,\"output\":1}]}],"
    "\"buffers\":[{\"byteLength\":272}],"
    "\"bufferViews\":["
    " {\"buffer\":0,\"byteOffset\":0,\"byteLength\":8},"
    " {\"buffer\":0,\"byteOffset\":8,\"byteLength\":32},"
    " {\"buffer\":0,\"byteOffset\":40,\"byteLength\":36},"
    " {\"buffer\":0,\"byteOffset\":76,\"byteLength\":12},"
    " {\"buffer\":0,\"byteOffset\":88,\"byteLength\":48},"
    " {\"buffer\":0,\"byteOffset\":136,\"byteLength\":6},"
    " {\"buffer\":0,\"byteOffset\":144,\"byteLength\":1},"
    " {\"buffer\":0,\"byteOffset\":148,\"byteLength\":16},"
    " {\"buffer\":0,\"byteOffset\":164,\"byteLength\":24,\"byteStride\":12},"
    " {\"buffer\":0,\"byteOffset\":188,\"byteLength\":12},"
    " {\"buffer\":0,\"byteOffset\":200,\"byteLength\":72}],"
    "\"accessors\":["
    " {\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"}"
    ","
    " {\"bufferView\":1,\"componentType\":5126,\"count\":2,\"type\":\"VEC4\"},"
    " {\"bufferView\":2,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
    " {\"bufferView\":3,\"componentType\":5121,\"count\":3,\"type\":\"VEC4\"},"
    " {\"bufferView\":4,\"componentType\":5126,\"count\":3,\"type\":\"VEC4\"},"
    " {\"bufferView\":5,\"componentType\":5123,\"count\":3,\"type\":\"SCALAR\"}"
    "]"
    "}";

static json_t *doc_new(void) {
  json_error_t je;
  json_t *d = json_loads(base_json, 0, &je);
  ck_assert_msg(d != NULL, "base json: %s", je.text);
  return d;
}

/* Embeds buf as a base64 data: URI into buffers[0] and returns the text. */
static char *doc_text(json_t *d, const uint8_t *buf) {
  unsigned char b64[BUF_LEN * 2];
  int n = EVP_EncodeBlock(b64, buf, BUF_LEN);
  ck_assert_int_gt(n, 0);
  char *uri = malloc((size_t)n + 64);
  snprintf(uri, (size_t)n + 64, "data:application/octet-stream;base64,%s",
           (const char *)b64);
  json_t *b0 = json_array_get(json_object_get(d, "buffers"), 0);
  if (json_object_get(b0, "uri") == NULL)
    json_object_set_new(b0, "uri", json_string(uri));
  free(uri);
  char *s = json_dumps(d, JSON_COMPACT);
  ck_assert_ptr_nonnull(s);
  return s;
}

/* A GLB of d (buffers[0] without uri) and buf; *len set. */
static uint8_t *doc_glb(json_t *d, const uint8_t *buf, size_t *len) {
  char *js = json_dumps(d, JSON_COMPACT);
  size_t jl = strlen(js), jp = (jl + 3) & ~(size_t)3;
  size_t bp = (BUF_LEN + 3) & ~(size_t)3;
  *len = 12 + 8 + jp + 8 + bp;
  uint8_t *g = calloc(1, *len);
  uint32_t h[5] = {0x46546C67u, 2, (uint32_t)*len, (uint32_t)jp, 0x4E4F534Au};
  memcpy(g, h, 20);
  memcpy(g + 20, js, jl);
  memset(g + 20 + jl, ' ', jp - jl);
  uint32_t bh[2] = {(uint32_t)bp, 0x004E4942u};
  memcpy(g + 20 + jp, bh, 8);
  memcpy(g + 28 + jp, buf, BUF_LEN);
  free(js);
  return g;
}

static void decode_doc(json_t *d, const uint8_t *buf, fmt_bundle_t *b) {
  char *s = doc_text(d, buf);
  fmt_error_t e;
  memset(&e, 0, sizeof e);
  int rc = fmt_decode(GLTF, s, strlen(s), NULL, b, &e);
  ck_assert_msg(rc == 0, "%s at %s: %s", fmt_error_name(e.code), e.at,
                e.message);
  free(s);
}

static void doc_fails(json_t *d, const uint8_t *buf, int status,
                      const char *at) {
  char *s = doc_text(d, buf);
  ck_decode_fails(GLTF, s, strlen(s), NULL, status, at);
  free(s);
}

/* Finds the rest transform of caller joint i. */
static anim_transform_t rest_of(const anim_skeleton_t *k, uint32_t i) {
  return k->rest[k->from_caller[i]];
}

START_TEST(test_doc_fold_armature) {
  uint8_t buf[BUF_LEN];
  make_buffer(buf);
  json_t *d = doc_new();
  fmt_bundle_t b;
  decode_doc(d, buf, &b);
  ck_assert_uint_eq(b.skeleton_count, 1);
  const anim_skeleton_t *k = b.skeletons[0];
  ck_assert_uint_eq(k->joint_count, 2);
  ck_assert_str_eq(joint_name(k, 0), "root");
  ck_assert_str_eq(joint_name(k, 1), "tip");
  ck_assert_int_eq(joint_parent(k, 0), -1);
  ck_assert_int_eq(joint_parent(k, 1), 0);
  /* Armature = T(0,0,1) Rx(90 deg) is folded into root:
   * t = (0,0,1) + Rx(90)(0,1,0) = (0,0,1) + (0,0,1) = (0,0,2),
   * r = Rx(90) = (s,0,0,s). */
  anim_transform_t r = rest_of(k, 0);
  ck_assert_float_eq_tol(r.translation.x, 0, EPS);
  ck_assert_float_eq_tol(r.translation.y, 0, EPS);
  ck_assert_float_eq_tol(r.translation.z, 2, EPS);
  ck_assert_float_eq_tol(fabsf(r.rotation.x), S2, EPS);
  ck_assert_float_eq_tol(fabsf(r.rotation.w), S2, EPS);
  ck_assert_float_eq_tol(rest_of(k, 1).translation.y, 2, EPS);
  /* No inverseBindMatrices: identity. */
  for (int i = 0; i < 16; i++)
    ck_assert_float_eq(k->inverse_bind[0].m[i], (i % 5 == 0) ? 1.0f : 0.0f);
  /* The clip and the mesh. */
  ck_assert_uint_eq(b.clip_count, 1);
  ck_assert_str_eq(b.clips[0].clip->name, "turn");
  ck_assert_float_eq_tol(b.clips[0].clip->duration, 1, EPS);
  ck_assert_uint_eq(b.mesh_count, 1);
  const anim_mesh_t *m = b.meshes[0].mesh;
  ck_assert_str_eq(m->name, "body");
  ck_assert_uint_eq(m->vertex_count, 3);
  ck_assert_uint_eq(m->index_count, 3);
  ck_assert_float_eq_tol(m->positions[3], 1, EPS);
  /* Vertex 0: joints 0 and 1 at 0.5 each (slots may be reordered). */
  float half = 0, wsum = 0;
  for (uint32_t i = 0; i < m->influences; i++) {
    wsum += m->weights[i];
    if (m->weights[i] > 0.25f) half += m->weights[i] == 0.5f;
  }
  ck_assert_float_eq_tol(wsum, 1, EPS);
  ck_assert_float_eq(half, 2);
  fmt_bundle_free(&b);
  json_decref(d);
}
END_TEST

START_TEST(test_doc_animated_ancestor_kept) {
  /* A translation channel on Armature: it moves the skeleton, so it is
   * kept as a third joint (after the skin's two), root's parent. */
  uint8_t buf[BUF_LEN];
  make_buffer(buf);
  json_t *d = doc_new();
  json_t *an = json_array_get(json_object_get(d, "animations"), 0);
  json_array_append_new(json_object_get(an, "channels"),
                        json_pack("{s:i,s:{s:i,s:s}}", "sampler", 1, "target",
                                  "node", 0, "path", "translation"));
  json_array_append_new(json_object_get(an, "samplers"),
                        json_pack("{s:i,s:i}", "input", 0, "output", 2));
  /* Output: accessor 2 has 3 VEC3 for 2 times: make it 2 by a new one. */
  json_array_append_new(json_object_get(d, "accessors"),
                        json_pack("{s:i,s:i,s:i,s:s}", "bufferView", 2,
                                  "componentType", 5126, "count", 2, "type",
                                  "VEC3"));
  json_object_set_new(json_array_get(json_object_get(an, "samplers"), 1),
                      "output", json_integer(6));
  fmt_bundle_t b;
  decode_doc(d, buf, &b);
  const anim_skeleton_t *k = b.skeletons[0];
  ck_assert_uint_eq(k->joint_count, 3);
  ck_assert_str_eq(joint_name(k, 2), "Armature");
  ck_assert_int_eq(joint_parent(k, 0), 2);
  ck_assert_int_eq(joint_parent(k, 2), -1);
  ck_assert_float_eq_tol(rest_of(k, 0).translation.y, 1, EPS);
  ck_assert_uint_eq(b.clips[0].clip->track_count, 2);
  fmt_bundle_free(&b);
  json_decref(d);
}
END_TEST

/* The rotation track's key 1 after decoding. */
static anim_quat_t key1(const fmt_bundle_t *b) {
  const anim_track_t *t = &b->clips[0].clip->tracks[0];
  ck_assert_uint_eq(t->path, ANIM_PATH_ROTATION);
  return anim_quat(t->values[4], t->values[5], t->values[6], t->values[7]);
}

START_TEST(test_doc_normalized_stride) {
  /* A translation channel on "root" read from view 8 as normalized i16
   * VEC3 with byteStride 12: key 0 = (0, 0, 0), key 1 = (0, 0, 23170/32767)
   * = (0, 0, 0.7071139). The folded Armature T(0,0,1) Rx(90) maps them to
   * (0,0,1) + Rx(90)(0,0,z) = (0, -z, 1): (0, 0, 1) and (0, -0.7071139, 1). */
  uint8_t buf[BUF_LEN];
  make_buffer(buf);
  json_t *d = doc_new();
  json_t *an = json_array_get(json_object_get(d, "animations"), 0);
  json_array_append_new(json_object_get(an, "channels"),
                        json_pack("{s:i,s:{s:i,s:s}}", "sampler", 1, "target",
                                  "node", 1, "path", "translation"));
  json_array_append_new(json_object_get(an, "samplers"),
                        json_pack("{s:i,s:i}", "input", 0, "output", 6));
  json_array_append_new(json_object_get(d, "accessors"),
                        json_pack("{s:i,s:i,s:b,s:i,s:s}", "bufferView", 8,
                                  "componentType", 5122, "normalized", 1,
                                  "count", 2, "type", "VEC3"));
  fmt_bundle_t b;
  decode_doc(d, buf, &b);
  const anim_clip_t *c = b.clips[0].clip;
  ck_assert_uint_eq(c->track_count, 2);
  const anim_track_t *t = &c->tracks[0];
  if (t->path != ANIM_PATH_TRANSLATION) t = &c->tracks[1];
  ck_assert_uint_eq(t->path, ANIM_PATH_TRANSLATION);
  ck_assert_float_eq_tol(t->values[0], 0, 1e-6f);
  ck_assert_float_eq_tol(t->values[1], 0, 1e-6f);
  ck_assert_float_eq_tol(t->values[2], 1, 1e-6f);
  ck_assert_float_eq_tol(t->values[3], 0, 1e-6f);
  ck_assert_float_eq_tol(t->values[4], -23170.0f / 32767.0f, 1e-6f);
  ck_assert_float_eq_tol(t->values[5], 1, 1e-6f);
  fmt_bundle_free(&b);
  json_decref(d);
}
END_TEST

START_TEST(test_doc_sparse) {
  /* Sparse substitution of element 1 by (0, s, 0, s). */
  uint8_t buf[BUF_LEN];
  make_buffer(buf);
  json_t *d = doc_new();
  json_object_set_new(json_array_get(json_object_get(d, "accessors"), 1),
                      "sparse",
                      json_pack("{s:i,s:{s:i,s:i},s:{s:i}}", "count", 1,
                                "indices", "bufferView", 6, "componentType",
                                5121, "values", "bufferView", 7));
  fmt_bundle_t b;
  decode_doc(d, buf, &b);
  anim_quat_t q = key1(&b);
  ck_assert_float_eq_tol(q.y, S2, EPS);
  ck_assert_float_eq_tol(q.z, 0, EPS);
  fmt_bundle_free(&b);
  json_decref(d);
}
END_TEST

START_TEST(test_doc_computed_normals) {
  /* No NORMAL: the one triangle (0,0,0) (1,0,0) (0,1,0) has the face
   * normal (1,0,0) x (0,1,0) = (0,0,1), so every vertex gets (0,0,1). */
  uint8_t buf[BUF_LEN];
  make_buffer(buf);
  json_t *d = doc_new();
  fmt_bundle_t b;
  decode_doc(d, buf, &b);
  const anim_mesh_t *m = b.meshes[0].mesh;
  ck_assert_ptr_nonnull(m->normals);
  for (int v = 0; v < 3; v++) {
    ck_assert_float_eq(m->normals[3 * v], 0);
    ck_assert_float_eq(m->normals[3 * v + 1], 0);
    ck_assert_float_eq(m->normals[3 * v + 2], 1);
  }
  ck_assert_ptr_nonnull(strstr(b.warnings, "area-weighted"));
  ck_assert_ptr_null(m->texcoords);
  ck_assert(!m->material.has_texture);
  fmt_bundle_free(&b);
  json_decref(d);
}
END_TEST

/* Sets TEXCOORD_0 of the document's primitive to a new accessor. */
static void set_texcoords(json_t *d, int view, int ctype, bool normalized) {
  json_t *acc = json_object_get(d, "accessors");
  json_array_append_new(acc,
                        json_pack("{s:i,s:i,s:b,s:i,s:s}", "bufferView", view,
                                  "componentType", ctype, "normalized",
                                  normalized, "count", 3, "type", "VEC2"));
  json_t *at = json_object_get(
      json_array_get(
          json_object_get(json_array_get(json_object_get(d, "meshes"), 0),
                          "primitives"),
          0),
      "attributes");
  json_object_set_new(at, "TEXCOORD_0",
                      json_integer((json_int_t)json_array_size(acc) - 1));
}

START_TEST(test_doc_texcoords) {
  /* The glTF 2.0 spec allows TEXCOORD_n as float, normalized unsigned
   * byte (c / 255) and normalized unsigned short (c / 65535). */
  uint8_t buf[BUF_LEN];
  make_buffer(buf);
  /* Float: view 2 (positions 0 0 0 1 0 0 0 1 0) read as 3 VEC2. */
  json_t *d = doc_new();
  set_texcoords(d, 2, 5126, false);
  fmt_bundle_t b;
  decode_doc(d, buf, &b);
  static const float f[6] = {0, 0, 0, 1, 0, 0};
  ck_assert_mem_eq(b.meshes[0].mesh->texcoords, f, sizeof f);
  fmt_bundle_free(&b);
  json_decref(d);
  /* Unsigned byte: view 9 bytes 255 0 0 0 128 127. */
  d = doc_new();
  set_texcoords(d, 9, 5121, true);
  decode_doc(d, buf, &b);
  const float *uv = b.meshes[0].mesh->texcoords;
  ck_assert_float_eq(uv[0], 1);
  ck_assert_float_eq(uv[1], 0);
  ck_assert_float_eq(uv[4], (float)(128.0 / 255.0));
  ck_assert_float_eq(uv[5], (float)(127.0 / 255.0));
  fmt_bundle_free(&b);
  json_decref(d);
  /* Unsigned short: view 4 (weights .5 .5 0 as f32: bytes 00 00 00 3f)
   * read as u16 pairs (0, 0x3f00). */
  d = doc_new();
  set_texcoords(d, 4, 5123, true);
  decode_doc(d, buf, &b);
  uv = b.meshes[0].mesh->texcoords;
  ck_assert_float_eq(uv[0], 0);
  ck_assert_float_eq(uv[1], (float)(16128.0 / 65535.0));
  ck_assert_float_eq(uv[4], 0);
  ck_assert_float_eq(uv[5], 0);
  fmt_bundle_free(&b);
  /* Integer texture coordinates must be normalized; other types refused. */
  json_object_set_new(json_array_get(json_object_get(d, "accessors"), 6),
                      "normalized", json_false());
  doc_fails(d, buf, 400, "meshes[0].primitives[0].attributes.TEXCOORD_0");
  json_decref(d);
  d = doc_new();
  set_texcoords(d, 8, 5122, true);
  doc_fails(d, buf, 400, "meshes[0].primitives[0].attributes.TEXCOORD_0");
  json_decref(d);
}
END_TEST

/* Gives the primitive material 0 with a base-color texture 0 whose
 * source is image. */
static void set_material(json_t *d, json_t *image) {
  json_object_set_new(d, "images", json_pack("[o]", image));
  json_object_set_new(d, "textures", json_pack("[{s:i}]", "source", 0));
  json_object_set_new(d, "materials",
                      json_pack("[{s:s,s:{s:{s:i}}}]", "name", "skin",
                                "pbrMetallicRoughness", "baseColorTexture",
                                "index", 0));
  json_object_set_new(
      json_array_get(
          json_object_get(json_array_get(json_object_get(d, "meshes"), 0),
                          "primitives"),
          0),
      "material", json_integer(0));
}

START_TEST(test_doc_material) {
  uint8_t buf[BUF_LEN];
  make_buffer(buf);
  fmt_bundle_t b;
  /* An external URI is kept as a reference. */
  json_t *d = doc_new();
  set_material(d, json_pack("{s:s}", "uri", "textures/skin.png"));
  decode_doc(d, buf, &b);
  const anim_mesh_material_t *m = &b.meshes[0].mesh->material;
  ck_assert_str_eq(m->name, "skin");
  ck_assert(m->has_texture);
  ck_assert_uint_eq(m->texture, 0);
  ck_assert_str_eq(m->image_uri, "textures/skin.png");
  ck_assert_ptr_null(m->image);
  fmt_bundle_free(&b);
  json_decref(d);
  /* A data: URI: "iVBORw==" is the base64 of the 5 bytes 89 50 4E 47. */
  d = doc_new();
  set_material(d, json_pack("{s:s}", "uri", "data:image/png;base64,iVBORw=="));
  decode_doc(d, buf, &b);
  m = &b.meshes[0].mesh->material;
  ck_assert_str_eq(m->image_type, "image/png");
  ck_assert_uint_eq(m->image_size, 4);
  ck_assert_mem_eq(m->image, "\x89PNG", 4);
  fmt_bundle_free(&b);
  json_decref(d);
  /* A bufferView image (view 6, one byte 01) in a GLB. */
  d = doc_new();
  set_material(
      d, json_pack("{s:i,s:s}", "bufferView", 6, "mimeType", "image/jpeg"));
  size_t len;
  uint8_t *g = doc_glb(d, buf, &len);
  fmt_error_t e;
  ck_assert_int_eq(fmt_decode(GLB, g, len, NULL, &b, &e), 0);
  m = &b.meshes[0].mesh->material;
  ck_assert_str_eq(m->image_type, "image/jpeg");
  ck_assert_uint_eq(m->image_size, 1);
  ck_assert_uint_eq(((const uint8_t *)m->image)[0], 1);
  fmt_bundle_free(&b);
  free(g);
  json_decref(d);
  /* An image type a browser could run as a page is left out, warned. */
  d = doc_new();
  set_material(d, json_pack("{s:s}", "uri", "data:text/html;base64,PGI+"));
  decode_doc(d, buf, &b);
  m = &b.meshes[0].mesh->material;
  ck_assert_ptr_null(m->image);
  ck_assert_ptr_null(m->image_type);
  ck_assert(m->has_texture);
  ck_assert_ptr_nonnull(strstr(b.warnings, "no texture image"));
  fmt_bundle_free(&b);
  json_decref(d);
}
END_TEST

START_TEST(test_doc_eight_influences) {
  /* JOINTS_1/WEIGHTS_1 repeat the first set: 8 influences, vertex 0 has
   * four 0.5 weights renormalized to 0.25 each. */
  uint8_t buf[BUF_LEN];
  make_buffer(buf);
  json_t *d = doc_new();
  json_t *at = json_object_get(
      json_array_get(
          json_object_get(json_array_get(json_object_get(d, "meshes"), 0),
                          "primitives"),
          0),
      "attributes");
  json_object_set_new(at, "JOINTS_1", json_integer(3));
  json_object_set_new(at, "WEIGHTS_1", json_integer(4));
  fmt_bundle_t b;
  decode_doc(d, buf, &b);
  const anim_mesh_t *m = b.meshes[0].mesh;
  ck_assert_uint_eq(m->influences, 8);
  float sum = 0;
  int quarters = 0;
  for (uint32_t i = 0; i < 8; i++) {
    sum += m->weights[i];
    quarters += fabsf(m->weights[i] - 0.25f) < 1e-6f;
  }
  ck_assert_float_eq_tol(sum, 1, EPS);
  ck_assert_int_eq(quarters, 4);
  fmt_bundle_free(&b);
  json_decref(d);
}
END_TEST

START_TEST(test_doc_unorm8_weights) {
  /* WEIGHTS_0 as normalized u8: vertex 1 has 128/255 and 127/255 (sum 1),
   * i.e. 0.5019608 and 0.4980392 on joints 1 and 0. */
  uint8_t buf[BUF_LEN];
  make_buffer(buf);
  json_t *d = doc_new();
  json_array_set_new(json_object_get(d, "accessors"), 4,
                     json_pack("{s:i,s:i,s:b,s:i,s:s}", "bufferView", 9,
                               "componentType", 5121, "normalized", 1, "count",
                               3, "type", "VEC4"));
  fmt_bundle_t b;
  decode_doc(d, buf, &b);
  const anim_mesh_t *m = b.meshes[0].mesh;
  const anim_skeleton_t *k = b.skeletons[0];
  float w[2] = {0, 0};
  for (uint32_t i = 0; i < m->influences; i++) {
    uint32_t j = k->to_caller[m->joints[m->influences + i]];
    if (j < 2) w[j] += m->weights[m->influences + i];
  }
  ck_assert_float_eq_tol(w[1], 128.0f / 255.0f, 1e-6f);
  ck_assert_float_eq_tol(w[0], 127.0f / 255.0f, 1e-6f);
  fmt_bundle_free(&b);
  /* Integer weights that are not normalized are refused. */
  json_object_set_new(json_array_get(json_object_get(d, "accessors"), 4),
                      "normalized", json_false());
  doc_fails(d, buf, 400, "meshes[0].primitives[0].attributes.WEIGHTS_0");
  json_decref(d);
}
END_TEST

START_TEST(test_doc_extras_events) {
  /* An animation's extras.events, in the native shape, become the clip's
   * events (sorted by t); other extras are ignored. */
  uint8_t buf[BUF_LEN];
  make_buffer(buf);
  json_t *d = doc_new();
  json_t *an = json_array_get(json_object_get(d, "animations"), 0);
  json_object_set_new(an, "extras",
                      json_pack("{s:s,s:[{s:f,s:s},{s:i,s:s}]}", "author", "x",
                                "events", "t", 0.5, "name", "hit", "t", 0,
                                "name", "wind-up"));
  fmt_bundle_t b;
  decode_doc(d, buf, &b);
  const anim_clip_t *c = b.clips[0].clip;
  ck_assert_uint_eq(c->event_count, 2);
  ck_assert_str_eq(c->events[0].name, "wind-up");
  ck_assert_float_eq(c->events[0].t, 0.f);
  ck_assert_str_eq(c->events[1].name, "hit");
  ck_assert_float_eq(c->events[1].t, 0.5f);
  fmt_bundle_free(&b);
  /* extras that are not an object, or carry no events: none. */
  json_object_set_new(an, "extras", json_string("note"));
  decode_doc(d, buf, &b);
  ck_assert_uint_eq(b.clips[0].clip->event_count, 0);
  fmt_bundle_free(&b);
  /* Malformed or invalid events are named by their path. */
  json_object_set_new(
      an, "extras",
      json_pack("{s:[{s:f,s:s}]}", "events", "t", 1.5, "name", "late"));
  doc_fails(d, buf, 400, "animations[0].extras.events[0].t");
  json_object_set_new(
      an, "extras",
      json_pack("{s:[{s:f,s:s}]}", "events", "t", 0.5, "name", ""));
  doc_fails(d, buf, 400, "animations[0].extras.events[0].name");
  json_object_set_new(an, "extras",
                      json_pack("{s:[{s:f}]}", "events", "t", 0.5));
  doc_fails(d, buf, 400, "animations[0].extras.events[0].name");
  json_object_set_new(an, "extras", json_pack("{s:i}", "events", 3));
  doc_fails(d, buf, 400, "animations[0].extras.events");
  json_decref(d);
}
END_TEST

START_TEST(test_doc_cubic_fold) {
  /* A CUBICSPLINE translation on "root" (times 0, 1; d = 1) under the
   * folded Armature F = T(0,0,1) Rx(90), Rx(90)(x,y,z) = (x,-z,y).
   * Unfolded at s = .5: p = .5 v0 + .125 d b0 + .5 v1 - .125 d a1
   *   = .5(0,0,0) + .125(0,1,0) + .5(0,0,1) - .125(0,0,1) = (0,.125,.375);
   * in scene space F p = (0,0,1) + (0,-.375,.125) = (0,-.375,1.125).
   * Folding values as F v and tangents as Rx(90) t must give the same. */
  uint8_t buf[BUF_LEN];
  make_buffer(buf);
  json_t *d = doc_new();
  json_t *an = json_array_get(json_object_get(d, "animations"), 0);
  json_array_append_new(json_object_get(an, "channels"),
                        json_pack("{s:i,s:{s:i,s:s}}", "sampler", 1, "target",
                                  "node", 1, "path", "translation"));
  json_array_append_new(json_object_get(an, "samplers"),
                        json_pack("{s:i,s:i,s:s}", "input", 0, "output", 6,
                                  "interpolation", "CUBICSPLINE"));
  json_array_append_new(json_object_get(d, "accessors"),
                        json_pack("{s:i,s:i,s:i,s:s}", "bufferView", 10,
                                  "componentType", 5126, "count", 6, "type",
                                  "VEC3"));
  fmt_bundle_t b;
  decode_doc(d, buf, &b);
  const anim_skeleton_t *k = b.skeletons[0];
  uint32_t n = k->joint_count;
  anim_vec3_t tr[2], sc[2];
  anim_quat_t rot[2];
  anim_sampling_job_t job = {.skeleton = k,
                             .clip = b.clips[0].clip,
                             .time = 0.5f,
                             .output = {tr, rot, sc, n}};
  ck_assert_int_eq(anim_sampling_job_run(&job), ANIM_OK);
  anim_vec3_t p = tr[k->from_caller[0]];
  ck_assert_float_eq_tol(p.x, 0, 1e-6f);
  ck_assert_float_eq_tol(p.y, -0.375f, 1e-6f);
  ck_assert_float_eq_tol(p.z, 1.125f, 1e-6f);
  fmt_bundle_free(&b);
  json_decref(d);
}
END_TEST

START_TEST(test_doc_glb_roundtrip) {
  uint8_t buf[BUF_LEN];
  make_buffer(buf);
  json_t *d = doc_new();
  size_t len;
  uint8_t *g = doc_glb(d, buf, &len);
  fmt_bundle_t b;
  fmt_error_t e;
  ck_assert_int_eq(fmt_decode(GLB, g, len, NULL, &b, &e), 0);
  ck_assert_uint_eq(b.mesh_count, 1);
  fmt_bundle_free(&b);
  /* Truncated: the header's length no longer matches. */
  ck_decode_fails(GLB, g, len - 10, NULL, 400, "glb.length");
  ck_decode_fails(GLB, g, 7, NULL, 400, "glb");
  /* A JSON chunk length beyond the file. */
  uint32_t big = 0x7fffffff;
  memcpy(g + 12, &big, 4);
  ck_decode_fails(GLB, g, len, NULL, 400, "glb.chunks[0].chunkLength");
  free(g);
  /* A BIN chunk shorter than buffers[0].byteLength. */
  json_object_set_new(json_array_get(json_object_get(d, "buffers"), 0),
                      "byteLength", json_integer(400));
  g = doc_glb(d, buf, &len);
  ck_decode_fails(GLB, g, len, NULL, 400, "buffers[0].byteLength");
  free(g);
  json_decref(d);
}
END_TEST

/* One broken variant of the document per case. */
typedef void (*mutate_fn)(json_t *d, uint8_t *buf);

static json_t *acc(json_t *d, size_t i) {
  return json_array_get(json_object_get(d, "accessors"), i);
}

static void m_out_of_bounds(json_t *d, uint8_t *buf) {
  json_object_set_new(acc(d, 2), "count", json_integer(4)); /* 48 > 36 */
}
static void m_offset_out(json_t *d, uint8_t *buf) {
  json_object_set_new(acc(d, 2), "byteOffset", json_integer(40));
}
static void m_view_out(json_t *d, uint8_t *buf) {
  json_object_set_new(json_array_get(json_object_get(d, "bufferViews"), 4),
                      "byteLength", json_integer(1000));
}
static void m_counts_disagree(json_t *d, uint8_t *buf) {
  /* 3 rotations for 2 key times. */
  json_object_set_new(acc(d, 1), "count", json_integer(1));
}
static void m_bad_component(json_t *d, uint8_t *buf) {
  json_object_set_new(acc(d, 1), "componentType", json_integer(5124));
}
static void m_joint_float(json_t *d, uint8_t *buf) {
  json_object_set_new(acc(d, 3), "componentType", json_integer(5126));
}
static void m_nan(json_t *d, uint8_t *buf) {
  const float nan = NAN;
  memcpy(buf + 8 + 4 * 5, &nan, 4);
}
static void m_times_order(json_t *d, uint8_t *buf) {
  const float t = 0;
  memcpy(buf + 4, &t, 4);
}
static void m_cycle(json_t *d, uint8_t *buf) {
  json_object_set_new(json_array_get(json_object_get(d, "nodes"), 2),
                      "children", json_pack("[i]", 1));
  /* Node 1 now also has node 0 as parent through 0's children: remove it
   * there so the only problem is the 1 -> 2 -> 1 loop. */
  json_object_set_new(json_array_get(json_object_get(d, "nodes"), 0),
                      "children", json_array());
}
static void m_two_parents(json_t *d, uint8_t *buf) {
  /* Node 2 under node 1 and under node 3: a node in two skins' trees with
   * conflicting parents. */
  json_object_set_new(json_array_get(json_object_get(d, "nodes"), 3),
                      "children", json_pack("[i]", 2));
}
static void m_required_ext(json_t *d, uint8_t *buf) {
  json_object_set_new(d, "extensionsRequired",
                      json_pack("[s]", "KHR_draco_mesh_compression"));
}
static void m_external_uri(json_t *d, uint8_t *buf) {
  json_object_set_new(json_array_get(json_object_get(d, "buffers"), 0), "uri",
                      json_string("../../etc/passwd"));
}
static void m_skin_joint_range(json_t *d, uint8_t *buf) {
  json_object_set_new(json_array_get(json_object_get(d, "skins"), 0), "joints",
                      json_pack("[i,i]", 1, 99));
}
static void m_vertex_joint_range(json_t *d, uint8_t *buf) {
  buf[76 + 1] = 7; /* Vertex 0, second influence (weight 0.5). */
}
static void m_sampler_index(json_t *d, uint8_t *buf) {
  json_t *an = json_array_get(json_object_get(d, "animations"), 0);
  json_object_set_new(json_array_get(json_object_get(an, "samplers"), 0),
                      "output", json_integer(42));
}
static void m_index_range(json_t *d, uint8_t *buf) {
  const uint16_t big = 3;
  memcpy(buf + 136 + 4, &big, 2);
}
static void m_stride(json_t *d, uint8_t *buf) {
  json_object_set_new(json_array_get(json_object_get(d, "bufferViews"), 1),
                      "byteStride", json_integer(2));
}
static void m_normal_count(json_t *d, uint8_t *buf) {
  json_t *at = json_object_get(
      json_array_get(
          json_object_get(json_array_get(json_object_get(d, "meshes"), 0),
                          "primitives"),
          0),
      "attributes");
  json_object_set_new(at, "NORMAL", json_integer(6));
  json_array_append_new(json_object_get(d, "accessors"),
                        json_pack("{s:i,s:i,s:i,s:s}", "bufferView", 2,
                                  "componentType", 5126, "count", 2, "type",
                                  "VEC3"));
}
static void m_duplicate_channel(json_t *d, uint8_t *buf) {
  json_t *an = json_array_get(json_object_get(d, "animations"), 0);
  json_array_append_new(json_object_get(an, "channels"),
                        json_pack("{s:i,s:{s:i,s:s}}", "sampler", 0, "target",
                                  "node", 2, "path", "rotation"));
}
static void m_bad_base64(json_t *d, uint8_t *buf) {
  json_object_set_new(json_array_get(json_object_get(d, "buffers"), 0), "uri",
                      json_string("data:application/octet-stream;base64,A$=="));
}

static const struct {
  mutate_fn fn;
  int status;
  const char *at;
} broken[] = {
    {m_out_of_bounds, 400, "accessors[2].count"},
    {m_offset_out, 400, "accessors[2].byteOffset"},
    {m_view_out, 400, "bufferViews[4].byteLength"},
    {m_counts_disagree, 400, "animations[0].samplers[0].output"},
    {m_bad_component, 400, "accessors[1].componentType"},
    {m_joint_float, 400, "meshes[0].primitives[0].attributes.JOINTS_0"},
    {m_nan, 400, "animations[0].samplers[0].output"},
    {m_times_order, 400, "animations[0].samplers[0].input"},
    {m_cycle, 400, "nodes[1].children"},
    {m_two_parents, 400, "nodes[3].children[0]"},
    {m_required_ext, 400, "extensionsRequired[0]"},
    {m_external_uri, 400, "buffers[0].uri"},
    {m_skin_joint_range, 400, "skins[0].joints[1]"},
    {m_vertex_joint_range, 400, "meshes[0].primitives[0].attributes.JOINTS_0"},
    {m_sampler_index, 400, "animations[0].samplers[0].output"},
    {m_index_range, 400, "meshes[0].primitives[0].indices"},
    {m_stride, 400, "bufferViews[1].byteStride"},
    {m_normal_count, 400, "meshes[0].primitives[0].attributes.NORMAL"},
    {m_bad_base64, 400, "buffers[0].uri"},
    {m_duplicate_channel, 400, "animations[0].channels[1]"},
};

START_TEST(test_doc_broken) {
  uint8_t buf[BUF_LEN];
  make_buffer(buf);
  json_t *d = doc_new();
  broken[_i].fn(d, buf);
  doc_fails(d, buf, broken[_i].status, broken[_i].at);
  json_decref(d);
}
END_TEST

START_TEST(test_not_json) {
  const char *s = "{\"asset\": {\"version\": \"2.0\"},\n \"nodes\": [ }";
  ck_decode_fails(GLTF, s, strlen(s), NULL, 400, "line 2, column 13");
  const char *v1 = "{\"asset\":{\"version\":\"1.0\"}}";
  ck_decode_fails(GLTF, v1, strlen(v1), NULL, 400, "asset.version");
  ck_decode_fails(GLB, "glTF", 4, NULL, 400, "glb");
}
END_TEST

START_TEST(test_fox_truncated) {
  size_t len;
  char *body = asset_read("gltf/khronos/Fox.glb", &len);
  ck_decode_fails(GLB, body, len / 2, NULL, 400, "glb.length");
  /* Fix the header length to the cut size: now a chunk runs past it. */
  uint32_t half = (uint32_t)(len / 2);
  memcpy(body + 8, &half, 4);
  ck_decode_fails(GLB, body, half, NULL, 400, "glb.chunks[1].chunkLength");
  free(body);
}
END_TEST

START_TEST(test_mutations) {
  mutate_decode("gltf/khronos/SimpleSkin.gltf", GLTF, NULL, 300);
  mutate_decode("gltf/khronos/RiggedSimple.glb", GLB, NULL, 300);
  mutate_decode("gltf/khronos/InterpolationTest.glb", GLB, NULL, 100);
}
END_TEST

Suite *gltf_suite(void) {
  Suite *s = suite_create("gltf");
  TCase *tc;
  if (shared_assets_present("gltf: the Khronos and extra sample files")) {
    tc = tcase_create("samples");
    tcase_set_timeout(tc, 30);
    tcase_add_loop_test(tc, test_sample_counts, 0,
                        (int)(sizeof files / sizeof files[0]));
    tcase_add_test(tc, test_fox_clips);
    tcase_add_test(tc, test_cesium_man_texture);
    tcase_add_test(tc, test_interpolation_test_clips);
    tcase_add_loop_test(tc, test_interpolation_values, 0,
                        (int)(sizeof interp_cases / sizeof interp_cases[0]));
    tcase_add_test(tc, test_recursive_skeletons);
    tcase_add_test(tc, test_girl_five_roots);
    tcase_add_test(tc, test_fox_truncated);
    tcase_add_test(tc, test_mutations);
    suite_add_tcase(s, tc);
  }
  tc = tcase_create("document");
  tcase_add_test(tc, test_doc_fold_armature);
  tcase_add_test(tc, test_doc_animated_ancestor_kept);
  tcase_add_test(tc, test_doc_normalized_stride);
  tcase_add_test(tc, test_doc_sparse);
  tcase_add_test(tc, test_doc_glb_roundtrip);
  tcase_add_test(tc, test_doc_eight_influences);
  tcase_add_test(tc, test_doc_computed_normals);
  tcase_add_test(tc, test_doc_texcoords);
  tcase_add_test(tc, test_doc_material);
  tcase_add_test(tc, test_doc_unorm8_weights);
  tcase_add_test(tc, test_doc_cubic_fold);
  tcase_add_test(tc, test_doc_extras_events);
  tcase_add_loop_test(tc, test_doc_broken, 0,
                      (int)(sizeof broken / sizeof broken[0]));
  tcase_add_test(tc, test_not_json);
  suite_add_tcase(s, tc);
  return s;
}
