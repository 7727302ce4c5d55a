/* Tests for format detection by content (formats/sniff.h): each format by
 * its first bytes whatever the file is called, JSON told apart by "asset";
 * and the hint of a decode whose bytes say another Content-Type. */
#include <check.h>
#include <string.h>

#include "formats/bundle.h"
#include "formats/sniff.h"

START_TEST(test_sniff_formats) {
  static const struct {
    const char *text;
    size_t len; /* 0: strlen */
    const char *type;
  } cases[] = {
      {"glTF\x02\0\0\0", 8, "model/gltf-binary"},
      {"HIERARCHY\nROOT hips\n", 0, "application/x-bvh"},
      {"\xEF\xBB\xBF  HIERARCHY\r\n", 0, "application/x-bvh"},
      {"MD5Version 10\ncommandline \"\"\nnumJoints 1\nnumMeshes 1\n", 0,
       "application/x-md5mesh"},
      {"MD5Version 10\nnumFrames 2\nnumJoints 1\n", 0, "application/x-md5anim"},
      {"MD5Version 10\n", 0, NULL},
      {" {\"asset\":{\"version\":\"2.0\"},\"nodes\":[]}", 0, "model/gltf+json"},
      {"{\"skeleton\":{\"name\":\"a\",\"joints\":[]}}", 0, "application/json"},
      {"{\"skeleton\":", 0, "application/json"},
      {"PK\3\4", 4, NULL},
      {"", 0, NULL},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    size_t len = cases[i].len ? cases[i].len : strlen(cases[i].text);
    const char *got = fmt_sniff_type(cases[i].text, len);
    if (cases[i].type == NULL)
      ck_assert_msg(got == NULL, "case %zu: %s", i, got);
    else
      ck_assert_msg(got != NULL && strcmp(got, cases[i].type) == 0,
                    "case %zu: %s", i, got ? got : "NULL");
  }
}
END_TEST

/* A failed decode whose bytes say another type than the Content-Type:
 * the hint names the type and the Content-Type to send, in err->hint and
 * at the end of the message; bytes of the type sent get none. */
START_TEST(test_decode_hints) {
  static const struct {
    const char *ctype, *body;
    size_t len;
    const char *hint;
  } cases[] = {
      {"model/gltf+json", "glTF\x02\0\0\0\x0c\0\0\0", 12,
       "the body looks like binary glTF (.glb): send it with Content-Type: "
       "model/gltf-binary"},
      {"model/gltf-binary", "{\"skeleton\": {}}", 0,
       "the body looks like JSON: send it with Content-Type: "
       "application/json"},
      {"application/json", "HIERARCHY\nROOT hips\n", 0,
       "the body looks like BVH: send it with Content-Type: "
       "application/x-bvh"},
      {"application/x-bvh", "MD5Version 10\nnumJoints 1\nnumMeshes 1\n", 0,
       "the body looks like an MD5 mesh (.md5mesh): send it with "
       "Content-Type: application/x-md5mesh"},
      {"application/json", "{\"asset\": {\"version\": \"2.0\"}, \"x\": 1}", 0,
       "the body looks like glTF JSON (.gltf): send it with Content-Type: "
       "model/gltf+json"},
      {"application/json; charset=utf-8", "{\"skeleton\": 3}", 0, ""},
      {"application/x-bvh", "HIERARCHY\nROOT\n", 0, ""},
      {"text/plain", "nothing at all", 0, ""},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    fmt_bundle_t b;
    fmt_error_t err;
    size_t len = cases[i].len ? cases[i].len : strlen(cases[i].body);
    ck_assert_int_eq(
        fmt_decode(cases[i].ctype, cases[i].body, len, NULL, &b, &err), -1);
    ck_assert_msg(strcmp(err.hint, cases[i].hint) == 0, "%zu: hint '%s'", i,
                  err.hint);
    size_t n = strlen(err.message), h = strlen(cases[i].hint);
    if (h > 0)
      ck_assert_msg(n > h + 2 &&
                        strcmp(err.message + n - h, cases[i].hint) == 0,
                    "%zu: message '%s'", i, err.message);
  }
}
END_TEST

Suite *formats_sniff_suite(void) {
  Suite *s = suite_create("formats_sniff");
  TCase *tc = tcase_create("formats_sniff");
  tcase_add_test(tc, test_sniff_formats);
  tcase_add_test(tc, test_decode_hints);
  suite_add_tcase(s, tc);
  return s;
}
