/* Regression tests for importer inputs found by fuzzing: each case is an
 * upload that once was accepted with a name that is not valid UTF-8, so
 * its canonical JSON could not be decoded again and the stored asset was
 * skipped (lost) when the daemon restarted. Names are checked with
 * jansson's UTF-8 validation, and cut lengths are counted by hand: "é" is
 * the two bytes C3 A9. */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/bundle.h"
#include "import_test_util.h"

#define MESH "application/x-md5mesh"

static bool valid_utf8(const char *s) {
  json_t *j = json_string(s); /* NULL when s is not valid UTF-8. */
  json_decref(j);
  return j != NULL;
}

static void repeat(char *out, const char *unit, int n) {
  out[0] = '\0';
  for (int i = 0; i < n; i++) strcat(out, unit);
}

/* The fuzzer's input, reduced: joint 3's name holds the bytes 9B 96,
 * which start no UTF-8 sequence. */
START_TEST(test_md5_joint_name_not_utf8) {
  static const char body[] = "MD5Version 10\n"
                             "commandline \"\"\n"
                             "\n"
                             "numJoints 3\n"
                             "numMeshes 0\n"
                             "\n"
                             "joints {\n"
                             "\t\"root\"\t-1 ( 0 0 0 ) ( 0 0 0 )\n"
                             "\t\"spine\"\t0 ( 0 1 0 ) ( 0 0.3826833 0 )\n"
                             "\t\"h\x9b\x96"
                             "d\"\t1 ( 0 2 0 ) ( 0.5 0 0 )\n"
                             "}\n";
  ck_decode_fails(MESH, body, sizeof body - 1, NULL, 400, "line 10");
}
END_TEST

START_TEST(test_md5_shader_not_utf8) {
  static const char body[] = "MD5Version 10\n"
                             "commandline \"\"\n"
                             "numJoints 1\n"
                             "numMeshes 1\n"
                             "joints {\n"
                             "\t\"a\"\t-1 ( 0 0 0 ) ( 0 0 0 )\n"
                             "}\n"
                             "mesh {\n"
                             "\tshader \"sk\xc3\"\n"
                             "\tnumverts 0\n"
                             "\tnumtris 0\n"
                             "\tnumweights 0\n"
                             "}\n";
  ck_decode_fails(MESH, body, sizeof body - 1, NULL, 400, "line 9");
}
END_TEST

/* Two meshes share a 141-byte shader: "x" then 70 "é". Names keep at
 * most 100 bytes of the shader: byte 100 would split the 50th "é", so 49
 * remain (99 bytes); the second mesh adds ".1". Both once failed: the
 * second as a duplicate of the first, or cut inside a character. */
START_TEST(test_md5_long_shader_cut_between_characters) {
  char shader[256], body[2048];
  strcpy(shader, "x");
  for (int i = 0; i < 70; i++) strcat(shader, "\xc3\xa9");
  const char *mesh_fmt = "mesh {\n"
                         "\tshader \"%s\"\n"
                         "\tnumverts 1\n"
                         "\tvert 0 ( 0 0 ) 0 1\n"
                         "\tnumtris 0\n"
                         "\tnumweights 1\n"
                         "\tweight 0 0 1 ( 0 0 0 )\n"
                         "}\n";
  int n = snprintf(body, sizeof body,
                   "MD5Version 10\n"
                   "commandline \"\"\n"
                   "numJoints 1\n"
                   "numMeshes 2\n"
                   "joints {\n"
                   "\t\"a\"\t-1 ( 0 0 0 ) ( 0 0 0 )\n"
                   "}\n");
  n += snprintf(body + n, sizeof body - (size_t)n, mesh_fmt, shader);
  n += snprintf(body + n, sizeof body - (size_t)n, mesh_fmt, shader);
  fmt_bundle_t b;
  fmt_error_t e;
  memset(&e, 0, sizeof e);
  int rc = fmt_decode(MESH, body, (size_t)n, NULL, &b, &e);
  ck_assert_msg(rc == 0, "%s at %s: %s", fmt_error_name(e.code), e.at,
                e.message);
  ck_assert_uint_eq(b.mesh_count, 2);
  char want[256] = "x";
  for (int i = 0; i < 49; i++) strcat(want, "\xc3\xa9");
  ck_assert_str_eq(b.meshes[0].mesh->name, want);
  strcat(want, ".1");
  ck_assert_str_eq(b.meshes[1].mesh->name, want);
  ck_assert(valid_utf8(b.meshes[0].mesh->name));
  ck_assert(valid_utf8(b.meshes[1].mesh->name));
  fmt_bundle_free(&b);
}
END_TEST

START_TEST(test_bvh_joint_name_not_utf8) {
  static const char body[] = "HIERARCHY\n"
                             "ROOT hips\n"
                             "{\n"
                             "  OFFSET 0 0 0\n"
                             "  CHANNELS 3 Zrotation Xrotation Yrotation\n"
                             "  JOINT sp\xff"
                             "ine\n"
                             "  {\n"
                             "    OFFSET 0 1 0\n"
                             "    CHANNELS 3 Zrotation Xrotation Yrotation\n"
                             "  }\n"
                             "}\n"
                             "MOTION\n"
                             "Frames: 1\n"
                             "Frame Time: 0.5\n"
                             "0 0 0 0 0 0\n";
  ck_decode_fails("application/x-bvh", body, sizeof body - 1, NULL, 400,
                  "line 6");
}
END_TEST

/* A skinned glTF mesh named by 150 "é" (300 bytes): the mesh name is cut
 * to fit 255 bytes, which would split the 128th character, so it keeps
 * 127 characters (254 bytes). */
START_TEST(test_gltf_long_mesh_name_cut_between_characters) {
  static const char head[] =
      "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"j\"},"
      "{\"mesh\":0,\"skin\":0}],\"skins\":[{\"joints\":[0]}],"
      "\"meshes\":[{\"name\":\"";
  static const char tail[] =
      "\",\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":1,"
      "\"WEIGHTS_0\":2}}]}],\"accessors\":[{\"bufferView\":0,"
      "\"componentType\":5126,\"type\":\"VEC3\",\"count\":3,\"min\":[0,0,0],"
      "\"max\":[1,1,0]},{\"bufferView\":1,\"componentType\":5121,\"type\":"
      "\"VEC4\",\"count\":3},{\"bufferView\":2,\"componentType\":5126,"
      "\"type\":\"VEC4\",\"count\":3}],\"bufferViews\":[{\"buffer\":0,"
      "\"byteOffset\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,"
      "\"byteLength\":12},{\"buffer\":0,\"byteOffset\":48,\"byteLength\":"
      "48}],\"buffers\":[{\"byteLength\":96,\"uri\":\"data:application/"
      "octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAA"
      "AAAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAAAAAAAAAAAAIA/AAA"
      "AAAAAAAAAAAAA\"}]}";
  char name[512], body[2048], want[512];
  repeat(name, "\xc3\xa9", 150);
  int n = snprintf(body, sizeof body, "%s%s%s", head, name, tail);
  fmt_bundle_t b;
  fmt_error_t e;
  memset(&e, 0, sizeof e);
  int rc = fmt_decode("model/gltf+json", body, (size_t)n, NULL, &b, &e);
  ck_assert_msg(rc == 0, "%s at %s: %s", fmt_error_name(e.code), e.at,
                e.message);
  ck_assert_uint_eq(b.mesh_count, 1);
  repeat(want, "\xc3\xa9", 127);
  ck_assert_str_eq(b.meshes[0].mesh->name, want);
  ck_assert(valid_utf8(b.meshes[0].mesh->name));
  fmt_bundle_free(&b);
}
END_TEST

Suite *import_regressions_suite(void) {
  Suite *s = suite_create("import_regressions");
  TCase *tc = tcase_create("utf8_names");
  tcase_add_test(tc, test_md5_joint_name_not_utf8);
  tcase_add_test(tc, test_md5_shader_not_utf8);
  tcase_add_test(tc, test_md5_long_shader_cut_between_characters);
  tcase_add_test(tc, test_bvh_joint_name_not_utf8);
  tcase_add_test(tc, test_gltf_long_mesh_name_cut_between_characters);
  suite_add_tcase(s, tc);
  return s;
}
