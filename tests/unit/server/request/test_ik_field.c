/* Tests for the "ik" request field (request/ik_field.h) over every
 * transport: POST /v1/pose (JSON and binary, with X-Animd-Answer), a
 * WebSocket pose message (the flag in the binary header), `animd eval
 * --request` (the same bytes as POST) and a compare source; its typed
 * errors with their `at`; and that weight 0 leaves the pose as it was. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "../api/api_memory.h"
#include "cli/eval.h"

/* An arm: s -> m -> e -> tip along x, one unit each (tip half), and a
 * still clip. */
static const char arm_asset[] =
    "{\"skeleton\":{\"name\":\"arm\",\"joints\":["
    "{\"name\":\"s\",\"parent\":-1,\"translation\":[0,0,0]},"
    "{\"name\":\"m\",\"parent\":0,\"translation\":[1,0,0]},"
    "{\"name\":\"e\",\"parent\":1,\"translation\":[1,0,0]},"
    "{\"name\":\"tip\",\"parent\":2,\"translation\":[0.5,0,0]}]},"
    "\"clips\":[{\"name\":\"still\",\"tracks\":[{\"joint\":\"s\","
    "\"path\":\"translation\",\"interpolation\":\"LINEAR\","
    "\"times\":[0,1],\"values\":[0,0,0,0,0,0]}]}]}";

#define LAYERS "\"layers\":[{\"clip\":\"still\",\"t\":0}]"

static const char reach_body[] =
    "{\"skeleton\":\"arm\",\"format\":\"bin\"," LAYERS ",\"ik\":["
    "{\"type\":\"two_bone\",\"start\":\"s\",\"mid\":\"m\",\"end\":\"e\","
    "\"target\":[1,1,0.5]},"
    "{\"type\":\"aim\",\"joint\":\"e\",\"target\":[3,2,1]}]}";

static void upload(void) {
  mem_server_start();
  mem_answer_t up = api_json("POST", "/v1/assets", arm_asset);
  ck_assert_msg(up.status == 201, "%d %s", up.status, up.body);
  mem_answer_free(&up);
}

START_TEST(test_post_json_and_binary) {
  upload();
  /* JSON: reached, errors below 1e-4, the end joint on the target. */
  const char *json =
      "{\"skeleton\":\"arm\"," LAYERS ",\"ik\":["
      "{\"type\":\"two_bone\",\"start\":\"s\",\"mid\":\"m\",\"end\":\"e\","
      "\"target\":[1,1,0.5],\"pole\":[0,2,0],\"mid_axis\":[0,0,3]},"
      "{\"type\":\"aim\",\"joint\":\"e\",\"target\":[3,2,1]},"
      "{\"type\":\"two_bone\",\"start\":\"s\",\"mid\":\"m\",\"end\":\"e\","
      "\"target\":[9,0,0]}]}";
  mem_answer_t a = api_json("POST", "/v1/pose", json);
  ck_assert_msg(a.status == 200, "%d %s", a.status, a.body);
  json_t *root = json_loads(a.body, 0, NULL);
  ck_assert_ptr_nonnull(root);
  json_t *ik = json_object_get(root, "ik");
  ck_assert_uint_eq(json_array_size(ik), 3);
  for (size_t i = 0; i < 2; i++) {
    json_t *e = json_array_get(ik, i);
    ck_assert(json_is_true(json_object_get(e, "reached")));
    ck_assert_double_lt(json_number_value(json_object_get(e, "error")), 1e-4);
  }
  /* The third is out of reach: the chain straight toward it, 7 short. */
  json_t *far = json_array_get(ik, 2);
  ck_assert(json_is_false(json_object_get(far, "reached")));
  ck_assert_double_eq_tol(json_number_value(json_object_get(far, "error")), 7,
                          1e-4);
  json_decref(root);
  mem_answer_free(&a);

  /* Binary: 4 mat4 then 2 floats per entry, named by X-Animd-Answer. */
  mem_answer_t b = api_json("POST", "/v1/pose", reach_body);
  ck_assert_msg(b.status == 200, "%d %s", b.status, b.body);
  ck_assert_ptr_nonnull(strstr(b.head, "X-Animd-Answer: ik=4\r\n"));
  ck_assert_uint_eq(b.body_len, (4 * 16 + 4) * sizeof(float));
  float f[68];
  memcpy(f, b.body, sizeof f);
  /* The end joint (index 2) on the target; its child followed it. */
  ck_assert_float_eq_tol(f[2 * 16 + 12], 1, 1e-4f);
  ck_assert_float_eq_tol(f[2 * 16 + 13], 1, 1e-4f);
  ck_assert_float_eq_tol(f[2 * 16 + 14], 0.5f, 1e-4f);
  ck_assert_float_eq(f[64], 1);
  ck_assert_float_lt(f[65], 1e-4f);
  ck_assert_float_eq(f[66], 1);
  ck_assert_float_lt(f[67], 1e-5f);
  /* The tip, half a unit along e's forward (x), points at the aim
   * target from e. */
  float d[3] = {3 - f[44], 2 - f[45], 1 - f[46]};
  float tip[3] = {f[60] - f[44], f[61] - f[45], f[62] - f[46]};
  float dl = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  for (int k = 0; k < 3; k++)
    ck_assert_float_eq_tol(tip[k], 0.5f * d[k] / dl, 1e-5f);
  size_t post_len = b.body_len;
  char *post = malloc(post_len);
  memcpy(post, b.body, post_len);
  mem_answer_free(&b);

  /* weight 0: the pose as without "ik" (and reached false). */
  mem_answer_t plain =
      api_json("POST", "/v1/pose",
               "{\"skeleton\":\"arm\",\"format\":\"bin\"," LAYERS "}");
  mem_answer_t zero = api_json(
      "POST", "/v1/pose",
      "{\"skeleton\":\"arm\",\"format\":\"bin\"," LAYERS ",\"ik\":["
      "{\"type\":\"two_bone\",\"start\":\"s\",\"mid\":\"m\",\"end\":\"e\","
      "\"target\":[1,1,0],\"weight\":0}]}");
  ck_assert_uint_eq(zero.body_len, plain.body_len + 2 * sizeof(float));
  ck_assert_int_eq(memcmp(zero.body, plain.body, plain.body_len), 0);
  mem_answer_free(&plain);
  mem_answer_free(&zero);

  /* A compare source takes it: the arm with IK against itself without. */
  mem_answer_t c = api_json(
      "POST", "/v1/compare",
      "{\"a\":{\"skeleton\":\"arm\",\"layers\":[{\"clip\":\"still\"}],\"ik\":[{"
      "\"type\":\"aim\","
      "\"joint\":\"s\",\"target\":[0,5,0]}]},\"b\":{\"skeleton\":\"arm\","
      "\"clip\":\"still\"},\"from\":0,\"to\":0,\"fps\":1}");
  ck_assert_msg(c.status == 200, "%d %s", c.status, c.body);
  ck_assert_ptr_nonnull(strstr(c.body, "\"pass\":false"));
  mem_answer_free(&c);
  mem_server_stop();

  /* animd eval --request: the same bytes, from a file. */
  char dir[] = "/tmp/animd-ik-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char path[64], req[64];
  snprintf(path, sizeof path, "%s/arm.json", dir);
  snprintf(req, sizeof req, "%s/req.json", dir);
  FILE *fa = fopen(path, "w");
  fputs(arm_asset, fa);
  fclose(fa);
  fa = fopen(req, "w");
  fputs(reach_body, fa);
  fclose(fa);
  char *argv[] = {"eval", path, "--request", req, NULL};
  char *cli = NULL;
  size_t cli_len = 0;
  FILE *out = open_memstream(&cli, &cli_len);
  ck_assert_int_eq(srv_eval_main(4, argv, out, stderr), 0);
  fclose(out);
  ck_assert_uint_eq(cli_len, post_len);
  ck_assert_int_eq(memcmp(cli, post, post_len), 0);
  free(cli);
  unlink(path);
  unlink(req);
  rmdir(dir);
  free(post);
}
END_TEST

START_TEST(test_errors_at_their_spot) {
  upload();
  static const struct {
    const char *ik, *code, *at;
  } cases[] = {
      {"[{\"type\":\"aim\",\"joint\":\"s\",\"target\":[0,1,0]},"
       "{\"type\":\"two_bone\",\"start\":\"s\",\"mid\":\"m\",\"end\":\"x\","
       "\"target\":[1,1,0]}]",
       "unknown_joint", "ik[1].end"},
      {"[{\"type\":\"aim\",\"joint\":\"s\",\"target\":[0,1,0]},"
       "{\"type\":\"two_bone\",\"start\":\"s\",\"mid\":\"tip\",\"end\":\"e\","
       "\"target\":[1,1,0]}]",
       "bad_value", "ik[1].mid"},
      {"[{\"type\":\"two_bone\",\"start\":\"m\",\"mid\":\"s\",\"end\":\"e\","
       "\"target\":[1,1,0]}]",
       "bad_value", "ik[0].mid"},
      {"[{\"type\":\"aim\",\"joint\":\"s\",\"target\":[0,1,0],"
       "\"forward\":[0,0,0]}]",
       "bad_value", "ik[0].forward"},
      {"[{\"type\":\"aim\",\"joint\":\"s\"}]", "missing_field", "ik[0].target"},
      {"[{\"type\":\"aim\",\"joint\":\"s\",\"target\":[0,1]}]", "wrong_type",
       "ik[0].target"},
      {"[{\"type\":\"aim\",\"joint\":\"s\",\"target\":[0,1,0],\"mid\":\"m\"}]",
       "unknown_field", "ik[0].mid"},
      {"[{\"type\":\"spline\"}]", "bad_value", "ik[0].type"},
      {"[{\"type\":\"two_bone\",\"start\":\"s\",\"mid\":\"m\",\"end\":\"e\","
       "\"target\":[1,1,0],\"soften\":2}]",
       "bad_value", "ik[0].soften"},
      {"{}", "wrong_type", "ik"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char body[512];
    snprintf(body, sizeof body, "{\"skeleton\":\"arm\"," LAYERS ",\"ik\":%s}",
             cases[i].ik);
    api_expect(api_json("POST", "/v1/pose", body), 400, cases[i].code,
               cases[i].at, cases[i].ik);
  }
  /* Under a compare source's prefix. */
  api_expect(
      api_json("POST", "/v1/compare",
               "{\"a\":{\"skeleton\":\"arm\",\"layers\":[{\"clip\":\"still\"}]"
               ",\"ik\":[{\"type\":\"aim\",\"joint\":\"q\","
               "\"target\":[0,1,0]}]},\"b\":{\"skeleton\":\"arm\","
               "\"clip\":\"still\"},\"from\":0,\"to\":0,\"fps\":1}"),
      400, "unknown_joint", "a.ik[0].joint", "compare");
  /* Not on GET. */
  api_expect(mem_get("/v1/pose?skeleton=arm&t=0&ik=1"), 400,
             "unknown_parameter", "ik", "GET");
  mem_server_stop();
}
END_TEST

Suite *request_ik_field_suite(void) {
  Suite *s = suite_create("request_ik_field");
  TCase *tc = tcase_create("ik");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_post_json_and_binary);
  tcase_add_test(tc, test_errors_at_their_spot);
  suite_add_tcase(s, tc);
  return s;
}
