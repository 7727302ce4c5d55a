/* Tests for the native JSON decoder: a matrix of bad inputs, each with the
 * exact status, code and path (`at`) expected, and good inputs checked
 * against the values written in them. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/native_json.h"

/* A two-joint skeleton that the clip and mesh cases build on. */
#define SK                                                                     \
  "\"skeleton\":{\"name\":\"rig\",\"joints\":[{\"name\":\"a\",\"parent\":-1}," \
  "{\"name\":\"b\",\"parent\":0,\"translation\":[0,1,0]}]}"
#define TRACK(body)                                                            \
  "{" SK ",\"clips\":[{\"name\":\"c\",\"tracks\":[" body "]}]}"
#define LT "\"joint\":\"b\",\"path\":\"translation\""

/* Limits are set by name in the few cases that need them. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

typedef struct bad_case_s {
  const char *json;
  int status;
  const char *code;
  const char *at;
  size_t max_joints, max_keys, max_vertices;
} bad_case_t;

static const bad_case_t bad_cases[] = {
    /* Syntax: jansson reports the column of the last character it read. */
    {"{", 400, "bad_json", "line 1, column 1"},
    {"{\"skeleton\":{}\n,}", 400, "bad_json", "line 2, column 2"},
    {"{\"a\":1,\"a\":2}", 400, "bad_json", "line 1, column 10"},
    {"{\"skeleton\":{\"joints\":[{\"name\":\"a\",\"parent\":-1,"
     "\"translation\":[NaN,0,0]}]}}",
     400, "bad_json", "line 1, column 65"},
    {"{\"skeleton\":{\"joints\":[{\"name\":\"a\",\"parent\":-1,"
     "\"translation\":[1e400,0,0]}]}}",
     400, "bad_json", "line 1, column 67"},
    /* The document. */
    {"[]", 400, "wrong_type", ""},
    {"{}", 400, "empty_upload", ""},
    {"{\"skeletton\":{}}", 400, "unknown_field", "skeletton"},
    {"{\"skeleton\":[]}", 400, "wrong_type", "skeleton"},
    {"{" SK ",\"skeletons\":[]}", 400, "unknown_field", "skeletons"},
    {"{\"clips\":{}}", 400, "wrong_type", "clips"},
    /* Skeletons. */
    {"{\"skeleton\":{\"name\":\"x\"}}", 400, "missing_field",
     "skeleton.joints"},
    {"{\"skeleton\":{\"joints\":[]}}", 400, "value_count", "skeleton.joints"},
    {"{\"skeleton\":{\"joints\":[1]}}", 400, "wrong_type",
     "skeleton.joints[0]"},
    {"{\"skeleton\":{\"joints\":[{\"parent\":-1}]}}", 400, "missing_field",
     "skeleton.joints[0].name"},
    {"{\"skeleton\":{\"joints\":[{\"name\":\"\",\"parent\":-1}]}}", 400,
     "name_empty", "skeleton.joints[0].name"},
    {"{\"skeleton\":{\"joints\":[{\"name\":7,\"parent\":-1}]}}", 400,
     "wrong_type", "skeleton.joints[0].name"},
    {"{\"skeleton\":{\"joints\":[{\"name\":\"a\",\"parent\":-1},"
     "{\"name\":\"b\"}]}}",
     400, "missing_field", "skeleton.joints[1].parent"},
    {"{\"skeleton\":{\"joints\":[{\"name\":\"a\",\"parent\":-1},"
     "{\"name\":\"b\",\"parent\":2}]}}",
     400, "parent_range", "skeleton.joints[1].parent"},
    {"{\"skeleton\":{\"joints\":[{\"name\":\"a\",\"parent\":-2}]}}", 400,
     "parent_range", "skeleton.joints[0].parent"},
    {"{\"skeleton\":{\"joints\":[{\"name\":\"a\",\"parent\":-1},"
     "{\"name\":\"b\",\"parent\":0.5}]}}",
     400, "wrong_type", "skeleton.joints[1].parent"},
    {"{\"skeleton\":{\"joints\":[{\"name\":\"a\",\"parent\":-1},"
     "{\"name\":\"b\",\"parent\":1}]}}",
     400, "cycle", "skeleton.joints[1].parent"},
    {"{\"skeleton\":{\"joints\":[{\"name\":\"a\",\"parent\":-1},"
     "{\"name\":\"b\",\"parent\":2},{\"name\":\"c\",\"parent\":1}]}}",
     400, "cycle", "skeleton.joints[1].parent"},
    {"{\"skeleton\":{\"joints\":[{\"name\":\"a\",\"parent\":-1},"
     "{\"name\":\"a\",\"parent\":0}]}}",
     400, "name_duplicate", "skeleton.joints[1].name"},
    {"{\"skeleton\":{\"joints\":[{\"name\":\"a\",\"parent\":-1,"
     "\"translation\":[1,2]}]}}",
     400, "value_count", "skeleton.joints[0].translation"},
    {"{\"skeleton\":{\"joints\":[{\"name\":\"a\",\"parent\":-1,"
     "\"translation\":[1,\"2\",3]}]}}",
     400, "wrong_type", "skeleton.joints[0].translation[1]"},
    {"{\"skeleton\":{\"joints\":[{\"name\":\"a\",\"parent\":-1,"
     "\"translation\":[1,2,1e39]}]}}",
     400, "number_range", "skeleton.joints[0].translation[2]"},
    {"{\"skeleton\":{\"joints\":[{\"name\":\"a\",\"parent\":-1,"
     "\"rotation\":[0,0,0,0]}]}}",
     400, "zero_quaternion", "skeleton.joints[0].rotation"},
    {"{\"skeleton\":{\"joints\":[{\"name\":\"a\",\"parent\":-1,"
     "\"sclae\":[1,1,1]}]}}",
     400, "unknown_field", "skeleton.joints[0].sclae"},
    {"{\"skeleton\":{\"joints\":[{\"name\":\"a\",\"parent\":-1}],"
     "\"inverseBindMatrices\":[1,0,0]}}",
     400, "value_count", "skeleton.inverseBindMatrices"},
    {"{\"skeleton\":{\"joints\":[{\"name\":\"a\",\"parent\":-1},"
     "{\"name\":\"b\",\"parent\":0}]}}",
     413, "too_many_joints", "skeleton.joints", .max_joints = 1},
    /* Clips and tracks. */
    {"{" SK ",\"clips\":[{\"name\":\"c\"}]}", 400, "missing_field",
     "clips[0].tracks"},
    {TRACK("{\"joint\":\"z\",\"path\":\"translation\",\"times\":[0],"
           "\"values\":[0,0,0]}"),
     400, "unknown_joint", "clips[0].tracks[0].joint"},
    {TRACK("{\"joint\":9,\"path\":\"translation\",\"times\":[0],"
           "\"values\":[0,0,0]}"),
     400, "joint_range", "clips[0].tracks[0].joint"},
    {TRACK("{\"joint\":true,\"path\":\"translation\",\"times\":[0],"
           "\"values\":[0,0,0]}"),
     400, "wrong_type", "clips[0].tracks[0].joint"},
    {TRACK("{\"joint\":\"b\",\"path\":\"position\",\"times\":[0],"
           "\"values\":[0,0,0]}"),
     400, "bad_value", "clips[0].tracks[0].path"},
    {TRACK("{" LT ",\"interpolation\":\"linear\",\"times\":[0],"
           "\"values\":[0,0,0]}"),
     400, "bad_value", "clips[0].tracks[0].interpolation"},
    {TRACK("{" LT ",\"times\":[],\"values\":[]}"), 400, "no_keys",
     "clips[0].tracks[0].times"},
    {TRACK("{" LT ",\"times\":[0,1,1],\"values\":[0,0,0,0,0,0,0,0,0]}"), 400,
     "times_order", "clips[0].tracks[0].times[2]"},
    {TRACK("{" LT ",\"times\":[0,0.5,0.25,1],\"values\":[0,0,0,0,0,0,0,0,0,"
           "0,0,0]}"),
     400, "times_order", "clips[0].tracks[0].times[2]"},
    {TRACK("{" LT ",\"times\":[-1,0],\"values\":[0,0,0,0,0,0]}"), 400,
     "time_negative", "clips[0].tracks[0].times[0]"},
    {TRACK("{" LT ",\"times\":[0,1],\"values\":[0,0,0,0,0]}"), 400,
     "value_count", "clips[0].tracks[0].values"},
    {TRACK("{" LT ",\"interpolation\":\"CUBICSPLINE\",\"times\":[0,1],"
           "\"values\":[0,0,0,0,0,0]}"),
     400, "value_count", "clips[0].tracks[0].values"},
    {TRACK("{" LT ",\"times\":[0,1],\"values\":[0,0,0,0,null,0]}"), 400,
     "wrong_type", "clips[0].tracks[0].values[4]"},
    {TRACK("{" LT ",\"interpolation\":\"BEZIER\",\"times\":[0,1],"
           "\"values\":[0,0,0,0,0,0]}"),
     400, "missing_field", "clips[0].tracks[0].bezier"},
    {TRACK("{" LT ",\"interpolation\":\"BEZIER\",\"times\":[0,1],"
           "\"values\":[0,0,0,0,0,0],\"bezier\":[0,0,1.5,1,0,0,1,1]}"),
     400, "bezier_range", "clips[0].tracks[0].bezier[2]"},
    {TRACK("{" LT ",\"times\":[0],\"values\":[0,0,0],\"bezier\":[0,0,1,1]}"),
     400, "unknown_field", "clips[0].tracks[0].bezier"},
    {TRACK("{\"joint\":\"b\",\"path\":\"rotation\",\"times\":[0,1],"
           "\"values\":[0,0,0,1,0,0,0,0]}"),
     400, "zero_quaternion", "clips[0].tracks[0].values[4]"},
    {TRACK("{" LT ",\"times\":[0],\"values\":[0,0,0]},"
           "{\"joint\":1,\"path\":\"translation\",\"times\":[0],"
           "\"values\":[1,1,1]}"),
     400, "duplicate_track", "clips[0].tracks[1].path"},
    {TRACK("{" LT ",\"times\":[0,1,2],\"values\":[0,0,0,0,0,0,0,0,0]}"), 413,
     "too_many_keys", "clips[0].tracks[0].times", .max_keys = 2},
    {"{" SK ",\"clips\":[{\"name\":\"c\",\"skeleton\":\"other\","
     "\"tracks\":[]}]}",
     400, "unknown_skeleton", "clips[0].skeleton"},
    {"{\"clips\":[{\"name\":\"c\",\"tracks\":[]}]}", 400, "missing_field",
     "clips[0].skeleton"},
    {"{" SK ",\"clips\":[{\"name\":\"c\",\"duration\":-1,\"tracks\":[]}]}", 400,
     "bad_value", "clips[0].duration"},
    /* Meshes. */
    {"{" SK ",\"meshes\":[{\"positions\":[0,0,0,1],\"joints\":[0,0,0,0],"
     "\"weights\":[1,0,0,0]}]}",
     400, "value_count", "meshes[0].positions"},
    {"{" SK ",\"meshes\":[{\"positions\":[0,0,0],\"joints\":[0,0,0],"
     "\"weights\":[1,0,0,0]}]}",
     400, "value_count", "meshes[0].joints"},
    {"{" SK ",\"meshes\":[{\"positions\":[0,0,0],\"normals\":[0,1],"
     "\"joints\":[0,0,0,0],\"weights\":[1,0,0,0]}]}",
     400, "value_count", "meshes[0].normals"},
    {"{" SK ",\"meshes\":[{\"positions\":[0,0,0,0,0,0],"
     "\"joints\":[0,0,0,0,0,2,0,0],\"weights\":[1,0,0,0,1,0,0,0]}]}",
     400, "joint_range", "meshes[0].joints[5]"},
    {"{" SK ",\"meshes\":[{\"positions\":[0,0,0],\"influences\":9,"
     "\"joints\":[0],\"weights\":[1]}]}",
     400, "influences", "meshes[0].influences"},
    {"{" SK ",\"meshes\":[{\"positions\":[0,0,0],\"influences\":1,"
     "\"joints\":[0],\"weights\":[0]}]}",
     400, "weight", "meshes[0].weights[0]"},
    {"{" SK ",\"meshes\":[{\"positions\":[0,0,0,1,1,1,2,2,2],"
     "\"joints\":[0,0,0,0,0,0,0,0,0,0,0,0],"
     "\"weights\":[1,0,0,0,1,0,0,0,1,0,0,0],\"indices\":[0,1,3]}]}",
     400, "index_range", "meshes[0].indices[2]"},
    {"{" SK ",\"meshes\":[{\"positions\":[0,0,0,1,1,1],"
     "\"joints\":[0,0,0,0,0,0,0,0],\"weights\":[1,0,0,0,1,0,0,0]}]}",
     413, "too_many_vertices", "meshes[0].positions", .max_vertices = 1},
    {"{" SK ",\"meshes\":[{\"positions\":[0,0,0],\"joints\":[0,0,0,0],"
     "\"weights\":[1,0,0,0],\"vertices\":2}]}",
     400, "value_count", "meshes[0].vertices"},
};

START_TEST(test_bad_input_matrix) {
  const bad_case_t *c = &bad_cases[_i];
  fmt_decode_options_t opts = {.max_joints = c->max_joints,
                               .max_keys = c->max_keys,
                               .max_vertices = c->max_vertices};
  fmt_bundle_t b;
  fmt_error_t err;
  memset(&err, 0, sizeof err);
  int rc = fmt_decode_native_json(c->json, strlen(c->json), &opts, &b, &err);
  ck_assert_msg(rc == -1, "case %d decoded: %s", _i, c->json);
  ck_assert_msg(fmt_error_status(err.code) == c->status &&
                    strcmp(fmt_error_name(err.code), c->code) == 0 &&
                    strcmp(err.at, c->at) == 0,
                "case %d: got %d %s at \"%s\" (%s); expected %d %s at \"%s\"",
                _i, fmt_error_status(err.code), fmt_error_name(err.code),
                err.at, err.message, c->status, c->code, c->at);
  ck_assert(err.message[0] != '\0');
  /* The bundle is left empty. */
  ck_assert_uint_eq(b.skeleton_count + b.clip_count + b.mesh_count, 0);
  ck_assert_ptr_null(b.skeletons);
}
END_TEST

/* A mesh of 11 vertices whose weight number 41 (vertex 10, influence 1) is
 * negative: the path names that exact number. */
START_TEST(test_weight_path_counts_influences) {
  char text[2048] = "{" SK ",\"meshes\":[{\"positions\":[";
  for (int v = 0; v < 11; v++) strcat(text, v ? ",0,0,0" : "0,0,0");
  strcat(text, "],\"joints\":[");
  for (int i = 0; i < 44; i++) strcat(text, i ? ",1" : "1");
  strcat(text, "],\"weights\":[");
  for (int i = 0; i < 44; i++)
    strcat(text, i == 41 ? ",-0.5" : i ? ",0.5" : "0.5");
  strcat(text, "]}]}");
  fmt_bundle_t b;
  fmt_error_t err = {0};
  ck_assert_int_eq(fmt_decode_native_json(text, strlen(text), NULL, &b, &err),
                   -1);
  ck_assert_int_eq(fmt_error_status(err.code), 400);
  ck_assert_str_eq(fmt_error_name(err.code), "weight");
  ck_assert_str_eq(err.at, "meshes[0].weights[41]");
}
END_TEST

START_TEST(test_good_upload_values) {
  static const char text[] =
      "{\"skeleton\":{\"name\":\"rig\",\"joints\":[{\"name\":\"b\","
      "\"parent\":1,\"translation\":[0,2,0]},{\"name\":\"a\",\"parent\":-1,"
      "\"rotation\":[0,0,1,0],\"scale\":[2,2,2]}]},"
      "\"clips\":[{\"name\":\"walk\",\"duration\":3,\"tracks\":[{\"joint\":"
      "\"b\",\"path\":\"translation\",\"interpolation\":\"STEP\",\"times\":"
      "[0,1],\"values\":[1,2,3,4,5,6]}]}],"
      "\"meshes\":[{\"name\":\"m\",\"positions\":[1,2,3],\"normals\":[0,1,0],"
      "\"joints\":[0,1,0,0],\"weights\":[1,3,0,0],\"indices\":[0,0,0]}]}";
  fmt_bundle_t b;
  fmt_error_t err = {0};
  int rc = fmt_decode_native_json(text, sizeof text - 1, NULL, &b, &err);
  ck_assert_msg(rc == 0, "%s at %s: %s", fmt_error_name(err.code), err.at,
                err.message);
  ck_assert_uint_eq(b.skeleton_count, 1);
  const anim_skeleton_t *s = b.skeletons[0];
  ck_assert_str_eq(s->name, "rig");
  ck_assert_uint_eq(s->joint_count, 2);
  /* Caller order b, a; storage order puts the parent a first. */
  uint32_t sb = s->from_caller[0], sa = s->from_caller[1];
  ck_assert_str_eq(s->names[sb], "b");
  ck_assert_str_eq(s->names[sa], "a");
  ck_assert_int_eq(s->parents[sb], (int16_t)sa);
  ck_assert_int_eq(s->parents[sa], -1);
  ck_assert(s->rest[sb].translation.y == 2.0f);
  ck_assert(s->rest[sa].rotation.z == 1.0f && s->rest[sa].rotation.w == 0);
  ck_assert(s->rest[sa].scale.x == 2.0f);
  ck_assert(s->rest[sb].scale.z == 1.0f); /* Default. */
  ck_assert(s->rest[sb].rotation.w == 1.0f);
  ck_assert_uint_eq(b.clip_count, 1);
  const anim_clip_t *c = b.clips[0].clip;
  ck_assert_uint_eq(b.clips[0].skeleton, 0);
  ck_assert_str_eq(c->name, "walk");
  ck_assert(c->duration == 3.0f);
  ck_assert_uint_eq(c->track_count, 1);
  ck_assert_uint_eq(c->tracks[0].joint, sb);
  ck_assert_uint_eq(c->tracks[0].interpolation, ANIM_INTERP_STEP);
  ck_assert(c->tracks[0].values[5] == 6.0f);
  ck_assert_uint_eq(b.mesh_count, 1);
  const anim_mesh_t *m = b.meshes[0].mesh;
  ck_assert_uint_eq(m->vertex_count, 1);
  ck_assert_uint_eq(m->index_count, 3);
  /* Weights 1 and 3 renormalized to 0.25 and 0.75, joints mapped to
   * storage order (slots may be reordered: look them up). */
  float wa = 0, wb = 0;
  for (int i = 0; i < 4; i++) {
    if (m->weights[i] == 0) continue;
    if (m->joints[i] == sb) wb += m->weights[i];
    if (m->joints[i] == sa) wa += m->weights[i];
  }
  ck_assert_float_eq_tol(wb, 0.25f, 1e-7f);
  ck_assert_float_eq_tol(wa, 0.75f, 1e-7f);
  fmt_bundle_free(&b);
}
END_TEST

static const anim_skeleton_t *resolve_by_name(const char *name, void *user) {
  const anim_skeleton_t *s = user;
  return strcmp(name, "stored") == 0 ? s : NULL;
}

/* Clips and meshes for a stored skeleton named in the upload, and a
 * refusal when the upload names two different stored skeletons. */
START_TEST(test_external_skeleton) {
  static const char sk[] = "{" SK "}";
  fmt_bundle_t base;
  fmt_error_t err = {0};
  ck_assert_int_eq(fmt_decode_native_json(sk, sizeof sk - 1, NULL, &base, &err),
                   0);
  fmt_decode_options_t opts = {.resolve = resolve_by_name,
                               .resolve_user_data = base.skeletons[0]};
  static const char up[] =
      "{\"clips\":[{\"skeleton\":\"stored\",\"tracks\":[{\"joint\":\"b\","
      "\"path\":\"scale\",\"times\":[0],\"values\":[1,1,1]}]}],"
      "\"meshes\":[{\"skeleton\":\"stored\",\"positions\":[0,0,0],"
      "\"joints\":[1,0,0,0],\"weights\":[1,0,0,0]}]}";
  fmt_bundle_t b;
  ck_assert_int_eq(fmt_decode_native_json(up, sizeof up - 1, &opts, &b, &err),
                   0);
  ck_assert_uint_eq(b.clips[0].skeleton, FMT_EXTERNAL_SKELETON);
  ck_assert_uint_eq(b.meshes[0].skeleton, FMT_EXTERNAL_SKELETON);
  fmt_bundle_free(&b);
  /* opts.skeleton (a ?skeleton= request) binds clips without a name. */
  fmt_decode_options_t opts2 = {.skeleton = base.skeletons[0]};
  static const char up2[] = "{\"clips\":[{\"tracks\":[]}]}";
  ck_assert_int_eq(
      fmt_decode_native_json(up2, sizeof up2 - 1, &opts2, &b, &err), 0);
  ck_assert_uint_eq(b.clips[0].skeleton, FMT_EXTERNAL_SKELETON);
  fmt_bundle_free(&b);
  fmt_bundle_free(&base);
}
END_TEST

Suite *native_json_suite(void) {
  Suite *s = suite_create("native_json");
  TCase *tc = tcase_create("native_json");
  tcase_set_timeout(tc, 30);
  tcase_add_loop_test(tc, test_bad_input_matrix, 0,
                      (int)(sizeof bad_cases / sizeof bad_cases[0]));
  tcase_add_test(tc, test_weight_path_counts_influences);
  tcase_add_test(tc, test_good_upload_values);
  tcase_add_test(tc, test_external_skeleton);
  suite_add_tcase(s, tc);
  return s;
}
