/* Tests for the MD5 importers: Bob imports with the README's counts; its
 * bind-pose vertices match positions computed independently from the
 * md5mesh weights (numpy/scipy); model-space joints survive the conversion
 * to local rest transforms; the md5anim becomes a 140-frame clip on Bob's
 * skeleton and is refused on a different hierarchy; the four crafted
 * invalid meshes and hand-made broken files fail at their line. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/bundle.h"
#include "import_test_util.h"

#define MESH "application/x-md5mesh"
#define ANIM "application/x-md5anim"

START_TEST(test_bob_counts) {
  /* README 3.1: 33 joints, 6 meshes, 875 vertices, 1,027 triangles. */
  fmt_bundle_t b;
  asset_decode("md5/bob/Bob.md5mesh", MESH, NULL, &b);
  ck_assert_uint_eq(b.skeleton_count, 1);
  ck_assert_uint_eq(b.skeletons[0]->joint_count, 33);
  ck_assert_uint_eq(b.mesh_count, 6);
  ck_assert_uint_eq(bundle_vertices(&b), 875);
  ck_assert_uint_eq(bundle_triangles(&b), 1027);
  ck_assert_uint_eq(b.clip_count, 0);
  ck_assert_str_eq(joint_name(b.skeletons[0], 0), "origin");
  ck_assert_str_eq(b.meshes[0].mesh->name, "guard1_body.png");
  /* Two meshes share a shader: the second name gets a suffix. */
  ck_assert_str_eq(b.meshes[5].mesh->name, "guard1_body.png.1");
  /* At most 4 weights per vertex in Bob: nothing dropped, no warning. */
  ck_assert_uint_eq(b.warnings_len, 0);
  /* st as the file gives them (Bob.md5mesh lines 47, 294, 2046) and the
   * shader as the material name. */
  const anim_mesh_t *m0 = b.meshes[0].mesh, *m1 = b.meshes[1].mesh;
  ck_assert_float_eq(m0->texcoords[0], 0.394531f);
  ck_assert_float_eq(m0->texcoords[1], 0.513672f);
  ck_assert_float_eq(m0->texcoords[2 * 247], 0.742188f);
  ck_assert_float_eq(m0->texcoords[2 * 247 + 1], 0.75f);
  ck_assert_float_eq(m1->texcoords[0], 0.455078f);
  ck_assert_float_eq(m1->texcoords[1], 0.386719f);
  ck_assert_str_eq(m0->material.name, "guard1_body.png");
  ck_assert_str_eq(m1->material.name, "guard1_face.png");
  ck_assert_str_eq(b.meshes[5].mesh->material.name, "guard1_body.png");
  ck_assert(!m0->material.has_texture);
  fmt_bundle_free(&b);
}
END_TEST

/* Printed by an independent numpy/scipy script that parses the md5mesh
 * with regular expressions and sums bias * (joint_pos + R(joint_q) *
 * weight_pos), with w = -sqrt(max(0, 1 - x^2 - y^2 - z^2)) and
 * scipy.spatial.transform.Rotation.from_quat([x, y, z, w]). */
static const struct {
  int mesh, vertex;
  float x, y, z;
} bob_ref[] = {
    {0, 0, 0.00002f, 7.60284f, 46.23835f},
    {0, 247, 5.64003f, -10.41049f, 29.23836f},
    {0, 493, 8.97237f, 2.57951f, 52.22659f},
    {1, 0, -0.71885f, -7.77049f, 54.93820f},
    {1, 55, -2.74987f, -6.78053f, 54.33822f},
    {1, 109, 2.46999f, -0.36050f, 58.03839f},
    {2, 0, -0.03116f, -4.33072f, 60.33822f},
    {2, 40, -3.05969f, -8.16065f, 55.93803f},
    {2, 79, -0.03100f, -7.91066f, 58.93804f},
    {3, 0, -39.96087f, -7.83235f, 42.32935f},
    {3, 9, -41.83775f, -3.30120f, 33.93992f},
    {3, 17, -37.30660f, -5.17807f, 33.93991f},
    {4, 0, -39.59413f, -2.68120f, 47.01059f},
    {4, 19, -42.03803f, -3.09843f, 42.31743f},
    {4, 37, -37.30660f, -5.17807f, 33.93991f},
    {5, 0, 11.40001f, -0.36047f, 33.67011f},
    {5, 67, 11.60002f, -9.36047f, 40.87012f},
    {5, 134, 10.80002f, -4.29048f, 30.97011f},
};

START_TEST(test_bob_bind_pose_vertices) {
  fmt_bundle_t b;
  asset_decode("md5/bob/Bob.md5mesh", MESH, NULL, &b);
  for (size_t i = 0; i < sizeof bob_ref / sizeof bob_ref[0]; i++) {
    const anim_mesh_t *m = b.meshes[bob_ref[i].mesh].mesh;
    const float *p = m->positions + 3 * bob_ref[i].vertex;
    ck_assert_float_eq_tol(p[0], bob_ref[i].x, 1e-4f);
    ck_assert_float_eq_tol(p[1], bob_ref[i].y, 1e-4f);
    ck_assert_float_eq_tol(p[2], bob_ref[i].z, 1e-4f);
  }
  fmt_bundle_free(&b);
}
END_TEST

START_TEST(test_bob_model_space_joints) {
  /* Composing the local rest transforms gives back the file's model-space
   * joints: "forearm.L" (parent upperarm.L, parent spine, ...) is at
   * ( -20.905890 4.101032 48.597330 ) in Bob.md5mesh. */
  fmt_bundle_t b;
  asset_decode("md5/bob/Bob.md5mesh", MESH, NULL, &b);
  const anim_skeleton_t *k = b.skeletons[0];
  anim_vec3_t *wp = malloc(k->joint_count * sizeof *wp);
  anim_quat_t *wr = malloc(k->joint_count * sizeof *wr);
  for (uint32_t j = 0; j < k->joint_count; j++) {
    int p = k->parents[j];
    anim_transform_t t = k->rest[j];
    wp[j] = p < 0
                ? t.translation
                : anim_vec3_add(wp[p], anim_quat_rotate(wr[p], t.translation));
    wr[j] = p < 0 ? t.rotation : anim_quat_mul(wr[p], t.rotation);
  }
  int32_t f = anim_skeleton_find(k, "forearm.L");
  ck_assert_int_ge(f, 0);
  ck_assert_float_eq_tol(wp[f].x, -20.905890f, 1e-4f);
  ck_assert_float_eq_tol(wp[f].y, 4.101032f, 1e-4f);
  ck_assert_float_eq_tol(wp[f].z, 48.597330f, 1e-4f);
  /* Its orientation: (x, y, z) = (-0.000001 -0.000001 -0.746270), w =
   * -sqrt(1 - 0.746270^2) = -0.665644; equal up to sign. */
  float s = wr[f].w < 0 ? 1.0f : -1.0f;
  ck_assert_float_eq_tol(s * wr[f].z, -0.746270f, 1e-4f);
  ck_assert_float_eq_tol(s * wr[f].w, -0.665644f, 1e-4f);
  free(wp);
  free(wr);
  fmt_bundle_free(&b);
}
END_TEST

START_TEST(test_bob_normals_and_winding) {
  /* Bob.md5mesh's first triangle is "tri 0 0 2 1" (clockwise in Doom 3);
   * it is stored counter-clockwise as 0 1 2. Normals are unit length and
   * point outwards: summed over each mesh, dot(normal, vertex - centroid)
   * is positive (an independent numpy check of cross(c - a, b - a) on the
   * file's winding gives the same sign). */
  fmt_bundle_t b;
  asset_decode("md5/bob/Bob.md5mesh", MESH, NULL, &b);
  const anim_mesh_t *m0 = b.meshes[0].mesh;
  ck_assert_uint_eq(m0->indices[0], 0);
  ck_assert_uint_eq(m0->indices[1], 1);
  ck_assert_uint_eq(m0->indices[2], 2);
  for (size_t i = 0; i < b.mesh_count; i++) {
    const anim_mesh_t *m = b.meshes[i].mesh;
    ck_assert_ptr_nonnull(m->normals);
    double cen[3] = {0, 0, 0}, score = 0;
    for (uint32_t v = 0; v < m->vertex_count; v++)
      for (int k = 0; k < 3; k++) cen[k] += m->positions[3 * v + k];
    for (int k = 0; k < 3; k++) cen[k] /= m->vertex_count;
    for (uint32_t v = 0; v < m->vertex_count; v++) {
      const float *n = m->normals + 3 * v;
      float len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
      ck_assert_float_eq_tol(len, 1, 1e-5f);
      for (int k = 0; k < 3; k++)
        score += n[k] * (m->positions[3 * v + k] - cen[k]);
    }
    ck_assert_msg(score > 0, "mesh %zu normals point inwards", i);
  }
  fmt_bundle_free(&b);
}
END_TEST

static void decode_bob(fmt_bundle_t *mesh) {
  asset_decode("md5/bob/Bob.md5mesh", MESH, NULL, mesh);
}

START_TEST(test_bob_anim) {
  /* README: 140 frames @ 24 fps, all flags 63: one translation and one
   * rotation track per joint, each with 140 keys; duration 139 / 24. */
  fmt_bundle_t mesh, b;
  decode_bob(&mesh);
  fmt_decode_options_t o;
  memset(&o, 0, sizeof o);
  o.skeleton = mesh.skeletons[0];
  asset_decode("md5/bob/Bob.md5anim", ANIM, &o, &b);
  ck_assert_uint_eq(b.skeleton_count, 0);
  ck_assert_uint_eq(b.clip_count, 1);
  ck_assert_uint_eq(b.clips[0].skeleton, FMT_EXTERNAL_SKELETON);
  const anim_clip_t *c = b.clips[0].clip;
  ck_assert_uint_eq(c->track_count, 66);
  for (uint32_t i = 0; i < c->track_count; i++)
    ck_assert_uint_eq(c->tracks[i].key_count, 140);
  ck_assert_float_eq_tol(c->duration, 139.0f / 24.0f, 1e-5f);
  /* Frame 0 of "origin" (its first 6 components): translation
   * (-0.000000 0.016430 -0.006044), rotation x, y, z = (-0.707107
   * -0.000242 -0.707107). */
  int32_t root = anim_skeleton_find(o.skeleton, "origin");
  for (uint32_t i = 0; i < c->track_count; i++) {
    const anim_track_t *t = &c->tracks[i];
    if (t->joint != (uint32_t)root) continue;
    if (t->path == ANIM_PATH_TRANSLATION) {
      ck_assert_float_eq_tol(t->values[1], 0.016430f, 1e-6f);
      ck_assert_float_eq_tol(t->values[2], -0.006044f, 1e-6f);
    } else {
      float s = t->values[3] <= 0 ? 1.0f : -1.0f;
      ck_assert_float_eq_tol(s * t->values[0], -0.707107f, 1e-6f);
      ck_assert_float_eq_tol(s * t->values[1], -0.000242f, 1e-6f);
    }
  }
  fmt_bundle_free(&b);
  fmt_bundle_free(&mesh);
}
END_TEST

/* Bob.md5anim with from replaced by to; returns the text. */
static char *anim_with(const char *from, const char *to, size_t *len) {
  size_t n;
  char *a = asset_read("md5/bob/Bob.md5anim", &n);
  a[n] = '\0';
  char *p = strstr(a, from);
  ck_assert_ptr_nonnull(p);
  char *s = malloc(n + strlen(to) + 1);
  size_t k = (size_t)(p - a);
  memcpy(s, a, k);
  strcpy(s + k, to);
  strcat(s, p + strlen(from));
  *len = strlen(s);
  free(a);
  return s;
}

START_TEST(test_anim_hierarchy_mismatch) {
  fmt_bundle_t mesh;
  decode_bob(&mesh);
  fmt_decode_options_t o;
  memset(&o, 0, sizeof o);
  o.skeleton = mesh.skeletons[0];
  size_t len;
  /* Line 11 is "sheath" 0 63 6: another name, then another parent. */
  char *s = anim_with("\"sheath\"\t0", "\"scabbard\"\t0", &len);
  ck_decode_fails(ANIM, s, len, &o, 400, "line 11");
  free(s);
  s = anim_with("\"sheath\"\t0", "\"sheath\"\t2", &len);
  ck_decode_fails(ANIM, s, len, &o, 400, "line 11");
  free(s);
  s = anim_with("numJoints 33", "numJoints 32", &len);
  ck_decode_fails(ANIM, s, len, &o, 400, "line 5");
  free(s);
  /* A frame with a bad number, and a cut file. */
  s = anim_with("frame 0 {\n\t-0.000000", "frame 0 {\n\t-0.0x", &len);
  ck_decode_fails(ANIM, s, len, &o, 400, "line 225");
  ck_decode_fails(ANIM, s, 50, &o, 400, "line 4");
  free(s);
  /* No skeleton given. */
  s = anim_with("MD5Version", "MD5Version", &len);
  ck_decode_fails(ANIM, s, len, NULL, 400, "skeleton");
  free(s);
  fmt_bundle_free(&mesh);
}
END_TEST

/* assimp's crafted files: each names its bad index on its line. */
static const struct {
  const char *file, *at;
} invalid[] = {
    {"md5/invalid/InvalidBoneIndex.md5mesh", "line 23"},
    {"md5/invalid/OverflowingTriangleIndex.md5mesh", "line 18"},
    {"md5/invalid/OverflowingVertexIndex.md5mesh", "line 15"},
    {"md5/invalid/OverflowingWeightIndex.md5mesh", "line 21"},
};

START_TEST(test_invalid_files) {
  size_t len;
  char *body = asset_read(invalid[_i].file, &len);
  ck_decode_fails(MESH, body, len, NULL, 400, invalid[_i].at);
  free(body);
}
END_TEST

/* Five joints with identity orientation ( 0 0 0 ) at x = 0..4 and one
 * vertex with five weights, all at weight position (0, 1, 0). */
static const char *five = "MD5Version 10\n"
                          "commandline \"\"\n"
                          "numJoints 5\n"
                          "numMeshes 1\n"
                          "joints {\n"
                          "\t\"a\"\t-1 ( 0 0 0 ) ( 0 0 0 )\n"
                          "\t\"b\"\t0 ( 1 0 0 ) ( 0 0 0 )\n"
                          "\t\"c\"\t0 ( 2 0 0 ) ( 0 0 0 )\n"
                          "\t\"d\"\t0 ( 3 0 0 ) ( 0 0 0 )\n"
                          "\t\"e\"\t0 ( 4 0 0 ) ( 0 0 0 )\n"
                          "}\n"
                          "mesh {\n"
                          "\tshader \"skin\"\n"
                          "\tnumverts 1\n"
                          "\tvert 0 ( 0 0 ) 0 5\n"
                          "\tnumtris 1\n"
                          "\ttri 0 0 0 0\n"
                          "\tnumweights 5\n"
                          "\tweight 0 0 0.1 ( 0 1 0 )\n"
                          "\tweight 1 1 0.3 ( 0 1 0 )\n"
                          "\tweight 2 2 0.2 ( 0 1 0 )\n"
                          "\tweight 3 3 0.25 ( 0 1 0 )\n"
                          "\tweight 4 4 0.15 ( 0 1 0 )\n"
                          "}\n";

START_TEST(test_five_weights) {
  fmt_bundle_t b;
  fmt_error_t e;
  ck_assert_int_eq(fmt_decode(MESH, five, strlen(five), NULL, &b, &e), 0);
  const anim_mesh_t *m = b.meshes[0].mesh;
  /* Bind position uses all five: x = .1*0 + .3*1 + .2*2 + .25*3 + .15*4
   * = 0 + .3 + .4 + .75 + .6 = 2.05; y = (.1+.3+.2+.25+.15) * 1 = 1. */
  ck_assert_float_eq_tol(m->positions[0], 2.05f, 1e-6f);
  ck_assert_float_eq_tol(m->positions[1], 1.0f, 1e-6f);
  /* Influences: the 4 largest (.3 b, .25 d, .2 c, .15 e), sum .9,
   * renormalized: 1/3, .25/.9, .2/.9, .15/.9; joint a dropped. */
  const anim_skeleton_t *k = b.skeletons[0];
  float wsum = 0, wb = 0;
  for (uint32_t i = 0; i < m->influences; i++) {
    uint32_t caller = k->to_caller[m->joints[i]];
    float w = m->weights[i];
    wsum += w;
    if (w > 0) ck_assert_uint_ne(caller, 0);
    if (caller == 1) wb = w;
  }
  ck_assert_float_eq_tol(wsum, 1, 1e-6f);
  ck_assert_float_eq_tol(wb, 0.3f / 0.9f, 1e-6f);
  ck_assert_uint_gt(b.warnings_len, 0);
  ck_assert_ptr_nonnull(strstr(b.warnings, "more than 4"));
  fmt_bundle_free(&b);
}
END_TEST

/* An md5anim for the five-joint mesh above: joint a animates Tx only
 * (flags 1, component 0 of each frame); b..e animate nothing and keep
 * their base frame. */
static const char *five_anim = "MD5Version 10\n"
                               "commandline \"\"\n"
                               "numFrames 2\n"
                               "numJoints 5\n"
                               "frameRate 10\n"
                               "numAnimatedComponents 1\n"
                               "hierarchy {\n"
                               "\t\"a\"\t-1 1 0\n"
                               "\t\"b\"\t0 0 1\n"
                               "\t\"c\"\t0 0 1\n"
                               "\t\"d\"\t0 0 1\n"
                               "\t\"e\"\t0 0 1\n"
                               "}\n"
                               "bounds {\n"
                               "\t( 0 0 0 ) ( 1 1 1 )\n"
                               "\t( 0 0 0 ) ( 1 1 1 )\n"
                               "}\n"
                               "baseframe {\n"
                               "\t( 0 2 3 ) ( 0 0 0 )\n"
                               "\t( 1 0 0 ) ( 0.6 0 0 )\n"
                               "\t( 2 0 0 ) ( 0 0 0 )\n"
                               "\t( 3 0 0 ) ( 0 0 0 )\n"
                               "\t( 4 0 0 ) ( 0 0 0 )\n"
                               "}\n"
                               "frame 0 {\n"
                               "\t5\n"
                               "}\n"
                               "frame 1 {\n"
                               "\t7\n"
                               "}\n";

START_TEST(test_partial_flags) {
  fmt_bundle_t mesh, b;
  fmt_error_t e;
  ck_assert_int_eq(fmt_decode(MESH, five, strlen(five), NULL, &mesh, &e), 0);
  fmt_decode_options_t o;
  memset(&o, 0, sizeof o);
  o.skeleton = mesh.skeletons[0];
  ck_assert_int_eq(fmt_decode(ANIM, five_anim, strlen(five_anim), &o, &b, &e),
                   0);
  const anim_clip_t *c = b.clips[0].clip;
  ck_assert_float_eq_tol(c->duration, 0.1f, 1e-6f);
  int32_t ja = anim_skeleton_find(o.skeleton, "a");
  int32_t jb = anim_skeleton_find(o.skeleton, "b");
  for (uint32_t i = 0; i < c->track_count; i++) {
    const anim_track_t *t = &c->tracks[i];
    if (t->joint == (uint32_t)ja && t->path == ANIM_PATH_TRANSLATION) {
      /* x from the frames (5, 7); y, z from the base frame (2, 3). */
      ck_assert_uint_eq(t->key_count, 2);
      ck_assert_float_eq(t->values[0], 5);
      ck_assert_float_eq(t->values[1], 2);
      ck_assert_float_eq(t->values[2], 3);
      ck_assert_float_eq(t->values[3], 7);
    }
    if (t->joint == (uint32_t)jb && t->path == ANIM_PATH_ROTATION) {
      /* Base frame (0.6, 0, 0): w = -sqrt(1 - 0.36) = -0.8, one key. */
      ck_assert_uint_eq(t->key_count, 1);
      float sg = t->values[3] < 0 ? 1.0f : -1.0f;
      ck_assert_float_eq_tol(sg * t->values[0], 0.6f, 1e-6f);
      ck_assert_float_eq_tol(sg * t->values[3], -0.8f, 1e-6f);
    }
  }
  fmt_bundle_free(&b);
  /* More components than numAnimatedComponents: line 8. */
  char bad[2048];
  snprintf(bad, sizeof bad, "%s", five_anim);
  memcpy(strstr(bad, "-1 1 0"), "-1 3 0", 6);
  ck_decode_fails(ANIM, bad, strlen(bad), &o, 400, "line 8");
  fmt_bundle_free(&mesh);
}
END_TEST

static const struct {
  const char *from, *to, *at;
} broken_mesh[] = {
    {"numJoints 5", "numJoints 6", "line 11"}, /* "}" where a name belongs */
    {"numJoints 5", "numJoints 99999999999", "line 3"},
    {"\"b\"\t0", "\"b\"\t7", "line 7"}, /* parent out of range */
    {"\"b\"\t0", "\"b\"\t1", "line 7"}, /* own parent */
    {"( 1 0 0 )", "( 1 0 )", "line 7"},
    {"0 5\n", "3 5\n", "line 15"}, /* weights past the end */
    {"tri 0 0 0 0", "tri 0 0 0 1", "line 17"},
    {"0.15 ( 0 1 0 )", "-0.15 ( 0 1 0 )", "line 23"},
    {"MD5Version 10", "MD5Version 11", "line 1"},
    {"numweights 5", "numweights 6", "line 24"},
};

START_TEST(test_broken_mesh) {
  const char *p = strstr(five, broken_mesh[_i].from);
  ck_assert_ptr_nonnull(p);
  char s[2048];
  snprintf(s, sizeof s, "%.*s%s%s", (int)(p - five), five, broken_mesh[_i].to,
           p + strlen(broken_mesh[_i].from));
  int status = strstr(broken_mesh[_i].to, "99999999999") ? 413 : 400;
  ck_decode_fails(MESH, s, strlen(s), NULL, status, broken_mesh[_i].at);
}
END_TEST

START_TEST(test_bob_truncated) {
  size_t len;
  char *body = asset_read("md5/bob/Bob.md5mesh", &len);
  fmt_bundle_t b;
  fmt_error_t e;
  ck_assert_int_eq(fmt_decode(MESH, body, len - 100, NULL, &b, &e), -1);
  ck_assert_int_eq(fmt_error_status(e.code), 400);
  ck_assert_int_eq(strncmp(e.at, "line ", 5), 0);
  free(body);
}
END_TEST

START_TEST(test_mutations) {
  fmt_bundle_t mesh;
  decode_bob(&mesh);
  fmt_decode_options_t o;
  memset(&o, 0, sizeof o);
  o.skeleton = mesh.skeletons[0];
  mutate_decode("md5/bob/Bob.md5mesh", MESH, NULL, 100);
  mutate_decode("md5/bob/Bob.md5anim", ANIM, &o, 100);
  fmt_bundle_free(&mesh);
}
END_TEST

Suite *md5_suite(void) {
  Suite *s = suite_create("md5");
  TCase *tc;
  if (shared_assets_present("md5: Bob and assimp's invalid meshes")) {
    tc = tcase_create("bob");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_bob_counts);
    tcase_add_test(tc, test_bob_bind_pose_vertices);
    tcase_add_test(tc, test_bob_model_space_joints);
    tcase_add_test(tc, test_bob_normals_and_winding);
    tcase_add_test(tc, test_bob_anim);
    tcase_add_test(tc, test_anim_hierarchy_mismatch);
    tcase_add_test(tc, test_bob_truncated);
    tcase_add_test(tc, test_mutations);
    tcase_add_loop_test(tc, test_invalid_files, 0,
                        (int)(sizeof invalid / sizeof invalid[0]));
    suite_add_tcase(s, tc);
  }
  tc = tcase_create("invalid");
  tcase_add_test(tc, test_five_weights);
  tcase_add_test(tc, test_partial_flags);
  tcase_add_loop_test(tc, test_broken_mesh, 0,
                      (int)(sizeof broken_mesh / sizeof broken_mesh[0]));
  suite_add_tcase(s, tc);
  return s;
}
