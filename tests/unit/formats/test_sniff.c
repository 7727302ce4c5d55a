/* Tests for format detection by content (formats/sniff.h): each format by its
 * first bytes whatever the file is called, JSON told apart by "asset". */
#include <check.h>
#include <string.h>

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

Suite *formats_sniff_suite(void) {
  Suite *s = suite_create("formats_sniff");
  TCase *tc = tcase_create("formats_sniff");
  tcase_add_test(tc, test_sniff_formats);
  suite_add_tcase(s, tc);
  return s;
}
