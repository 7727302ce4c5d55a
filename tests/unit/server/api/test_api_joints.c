/* Tests for joints=a,b on GET /v1/pose: one pose and ranges, JSON and
 * binary, answer the listed joints in the order listed with exactly the
 * numbers the full answer has for them (the demo's caller order: hips is
 * joint 0, hand_r joint 12), and a name the skeleton does not have answers
 * 400 unknown_joint at joints[i]. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "api_memory.h"

enum { HIPS = 0, HAND_R = 12, JOINTS = 17 };

START_TEST(test_joints_subset_one_pose) {
  mem_server_start();
  mem_answer_t full = mem_get("/v1/pose?clip=wave&t=0.5&format=bin");
  ck_assert_int_eq(full.status, 200);
  ck_assert_uint_eq(full.body_len, JOINTS * 16 * 4);
  mem_answer_t sub =
      mem_get("/v1/pose?clip=wave&t=0.5&format=bin&joints=hand_r,hips,hand_r");
  ck_assert_int_eq(sub.status, 200);
  ck_assert_uint_eq(sub.body_len, 3 * 16 * 4);
  ck_assert_ptr_nonnull(strstr(sub.head, "X-Animd-Joints: 3\r\n"));
  const int order[3] = {HAND_R, HIPS, HAND_R};
  for (int i = 0; i < 3; i++)
    ck_assert(memcmp(sub.body + i * 64, full.body + order[i] * 64, 64) == 0);
  mem_answer_free(&sub);
  mem_answer_free(&full);
  /* JSON and local space: the same floats, "joints" counts those sent. */
  full = mem_get("/v1/pose?clip=wave&t=0.5&space=local&format=bin");
  sub = mem_get("/v1/pose?clip=wave&t=0.5&space=local&format=bin&"
                "joints=hand_r");
  ck_assert(memcmp(sub.body, full.body + HAND_R * 40, 40) == 0);
  mem_answer_free(&sub);
  mem_answer_free(&full);
  sub = mem_get("/v1/pose?clip=wave&t=0.5&joints=hips,hand_r");
  ck_assert_int_eq(sub.status, 200);
  ck_assert_ptr_nonnull(strstr(sub.body, "\"joints\":2,"));
  mem_answer_free(&sub);
  /* The ETag tells the lists apart. */
  mem_answer_t a = mem_get("/v1/pose?clip=wave&t=0.5&joints=hips");
  mem_answer_t b = mem_get("/v1/pose?clip=wave&t=0.5&joints=hand_r");
  const char *ea = strstr(a.head, "ETag: "), *eb = strstr(b.head, "ETag: ");
  ck_assert(ea && eb && strncmp(ea, eb, 40) != 0);
  mem_answer_free(&a);
  mem_answer_free(&b);
  mem_server_stop();
}
END_TEST

START_TEST(test_joints_subset_range) {
  mem_server_start();
  mem_answer_t full =
      mem_get("/v1/pose?clip=wave&from=0&to=0.5&fps=10&format=bin");
  mem_answer_t sub = mem_get("/v1/pose?clip=wave&from=0&to=0.5&fps=10&"
                             "format=bin&joints=hand_r,hips");
  ck_assert_int_eq(sub.status, 200);
  ck_assert_ptr_nonnull(strstr(sub.head, "X-Animd-Joints: 2\r\n"));
  size_t fstride = 16 + JOINTS * 64, sstride = 16 + 2 * 64;
  ck_assert_uint_eq(full.body_len, 6 * fstride);
  ck_assert_uint_eq(sub.body_len, 6 * sstride);
  for (size_t f = 0; f < 6; f++) {
    const char *fs = full.body + f * fstride, *ss = sub.body + f * sstride;
    uint32_t count;
    memcpy(&count, ss + 4, 4);
    ck_assert_uint_eq(count, 32);
    ck_assert(memcmp(ss + 8, fs + 8, 8) == 0); /* The clip time. */
    ck_assert(memcmp(ss + 16, fs + 16 + HAND_R * 64, 64) == 0);
    ck_assert(memcmp(ss + 16 + 64, fs + 16 + HIPS * 64, 64) == 0);
  }
  mem_answer_free(&sub);
  mem_answer_free(&full);
  sub = mem_get("/v1/pose?clip=wave&from=0&to=0.5&fps=10&joints=hips");
  ck_assert_int_eq(sub.status, 200);
  int lines = 0;
  for (const char *p = sub.body; (p = strstr(p, "\"joints\":1,")); p++) lines++;
  ck_assert_int_eq(lines, 6);
  mem_answer_free(&sub);
  mem_server_stop();
}
END_TEST

START_TEST(test_joints_errors) {
  mem_server_start();
  api_expect(mem_get("/v1/pose?clip=wave&t=0&joints=hips,tail"), 400,
             "unknown_joint", "joints[1]", "unknown");
  api_expect(mem_get("/v1/pose?clip=wave&t=0&joints=hips,,head"), 400,
             "unknown_joint", "joints[1]", "empty name");
  api_expect(mem_get("/v1/pose?clip=wave&from=0&to=1&fps=2&joints=x"), 400,
             "unknown_joint", "joints[0]", "range");
  api_expect(mem_get("/v1/pose?clip=wave&t=0&joints="), 400, "bad_parameter",
             "joints", "empty list");
  mem_server_stop();
}
END_TEST

Suite *api_joints_suite(void) {
  Suite *s = suite_create("api_joints");
  TCase *tc = tcase_create("api_joints");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_joints_subset_one_pose);
  tcase_add_test(tc, test_joints_subset_range);
  tcase_add_test(tc, test_joints_errors);
  suite_add_tcase(s, tc);
  return s;
}
