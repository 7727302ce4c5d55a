/* Tests for typos caught: every query parameter of every endpoint (an
 * independent list, kept by hand: a parameter an endpoint takes must stay
 * accepted) passes the check and a misspelt one answers unknown_parameter
 * at its name; unknown fields of the POST bodies answer unknown_field at
 * their place; and the same over HTTP through the in-memory transport. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_memory.h"
#include "server/request/requests.h"

/* Every parameter of every endpoint, as clients use them. */
static const struct {
  srv_endpoint ep;
  const char *params[14];
} every[] = {
    {SRV_EP_POSE_GET,
     {"skeleton", "clip", "t", "space", "wrap", "format", "from", "to", "fps",
      "joints", "view", "layout"}},
    {SRV_EP_POSE_POST, {NULL}},
    {SRV_EP_SKIN,
     {"mesh", "skeleton", "clip", "t", "wrap", "method", "normals", "format",
      "from", "to", "fps", "encoding"}},
    {SRV_EP_UPLOAD, {"skeleton", "name", "clip", "prefix", "replace"}},
    {SRV_EP_LIST, {"limit", "after"}},
    {SRV_EP_ASSET_GET, {NULL}},
    {SRV_EP_MESH_GET, {"format"}},
    {SRV_EP_MESH_IMAGE, {NULL}},
    {SRV_EP_ASSET_DELETE, {NULL}},
    {SRV_EP_SKELETON_DELETE, {"cascade"}},
    {SRV_EP_SKELETON_CHILDREN, {"limit", "after"}},
    {SRV_EP_SOLVE, {NULL}},
    {SRV_EP_STREAM, {"token"}},
    {SRV_EP_COMPARE, {NULL}},
    {SRV_EP_CLIP_CHECK,
     {"fps", "feet", "up", "floor", "contact_height", "skate_speed",
      "max_skate_ratio", "penetration", "pop", "stretch", "loop", "seam",
      "shell"}},
    {SRV_EP_CLIP_PLOT, {"joints", "channel", "from", "to", "fps"}},
    {SRV_EP_TEST, {"format"}},
    {SRV_EP_RETARGET, {NULL}},
};

START_TEST(test_every_parameter_is_known) {
  ck_assert_uint_eq(sizeof every / sizeof every[0], SRV_EP_COUNT_);
  for (size_t i = 0; i < sizeof every / sizeof every[0]; i++) {
    srv_kv_t kv[14];
    unsigned n = 0;
    for (; every[i].params[n] != NULL; n++)
      kv[n] = (srv_kv_t){.name = every[i].params[n], .value = "1"};
    srv_query_t q = {.params = kv, .count = n};
    srv_error_t e;
    ck_assert_msg(srv_query_check(&q, every[i].ep, &e) == 0,
                  "endpoint %zu refuses %s", i, e.at);
    /* The table holds exactly these. */
    const char *const *table = srv_endpoint_params(every[i].ep);
    unsigned m = 0;
    while (table[m] != NULL) m++;
    ck_assert_uint_eq(m, n);
    /* A misspelt one, after the good ones, is named. */
    kv[n] = (srv_kv_t){.name = "spcae", .value = "local"};
    q.count = n + 1;
    ck_assert_int_eq(srv_query_check(&q, every[i].ep, &e), -1);
    ck_assert_int_eq(e.code, SRV_ERR_UNKNOWN_PARAMETER);
    ck_assert_str_eq(e.at, "spcae");
    ck_assert_ptr_nonnull(strstr(e.message, "spcae"));
  }
}
END_TEST

START_TEST(test_parsers_check_parameters_first) {
  srv_kv_t kv[3] = {{.name = "clip", .value = "c"},
                    {.name = "spcae", .value = "local"},
                    {.name = "t", .value = "soon"}};
  srv_query_t q = {.params = kv, .count = 3, .max_frames = 10};
  srv_error_t e;
  srv_pose_query_t pq;
  ck_assert_int_eq(srv_pose_query_parse(&q, &pq, &e), -1);
  ck_assert_int_eq(e.code, SRV_ERR_UNKNOWN_PARAMETER);
  ck_assert_str_eq(e.at, "spcae");
  kv[0].name = "mesh";
  kv[1].name = "normal";
  srv_skin_query_t sq;
  ck_assert_int_eq(srv_skin_query_parse(&q, &sq, &e), -1);
  ck_assert_str_eq(e.at, "normal");
  srv_delete_query_t dq;
  kv[0] = (srv_kv_t){.name = "cascade", .value = "1"};
  q.count = 1;
  ck_assert_int_eq(srv_delete_query_parse(&q, true, &dq, &e), 0);
  ck_assert(dq.cascade);
  ck_assert_int_eq(srv_delete_query_parse(&q, false, &dq, &e), -1);
  ck_assert_int_eq(e.code, SRV_ERR_UNKNOWN_PARAMETER);
}
END_TEST

START_TEST(test_unknown_body_fields) {
  static const struct {
    const char *body;
    const char *at;
  } blend[] = {
      {"{\"skeleton\":\"s\",\"spcae\":\"local\",\"layers\":[{\"clip\":\"c\","
       "\"t\":0}]}",
       "spcae"},
      {"{\"skeleton\":\"s\",\"layers\":[{\"clip\":\"c\",\"t\":0},{\"clip\":"
       "\"c\",\"t\":0,\"wieght\":0.5}]}",
       "layers[1].wieght"},
      {"{\"skeleton\":\"s\",\"layers\":[{\"clip\":\"c\",\"t\":0,\"masc\":[]}"
       "]}",
       "layers[0].masc"},
  };
  for (size_t i = 0; i < sizeof blend / sizeof blend[0]; i++) {
    srv_blend_body_t b;
    srv_error_t e;
    ck_assert_int_eq(srv_blend_body_parse(blend[i].body, strlen(blend[i].body),
                                          NULL, &b, &e),
                     -1);
    ck_assert_int_eq(e.code, SRV_ERR_UNKNOWN_FIELD);
    ck_assert_str_eq(e.at, blend[i].at);
  }
  const char *solve = "{\"skeleton\":\"s\",\"frame\":[[0,0,0]]}";
  srv_solve_body_t sb;
  srv_error_t e;
  ck_assert_int_eq(srv_solve_body_parse(solve, strlen(solve), &sb, &e), -1);
  ck_assert_int_eq(e.code, SRV_ERR_UNKNOWN_FIELD);
  ck_assert_str_eq(e.at, "frame");
  /* Every known field passes. */
  const char *all = "{\"skeleton\":\"s\",\"space\":\"local\",\"format\":"
                    "\"json\",\"layers\":[{\"clip\":\"c\",\"t\":0,\"weight\":"
                    "1,\"mode\":\"additive\",\"wrap\":\"loop\",\"mask\":[]}]}";
  srv_blend_body_t b;
  ck_assert_int_eq(srv_blend_body_parse(all, strlen(all), NULL, &b, &e), 0);
  srv_blend_body_free(&b);
}
END_TEST

START_TEST(test_typos_over_http) {
  mem_server_start();
  static const struct {
    const char *method, *target, *body, *code, *at;
    int status;
  } cases[] = {
      {"GET", "/v1/pose?clip=wave&t=0&spcae=local", NULL, "unknown_parameter",
       "spcae", 400},
      {"HEAD", "/v1/pose?clip=wave&t=0&x=1", NULL, NULL, NULL, 400},
      {"GET", "/v1/skin?mesh=body&t=0&normal=1", NULL, "unknown_parameter",
       "normal", 400},
      {"GET", "/v1/assets?all=1", NULL, "unknown_parameter", "all", 400},
      {"GET", "/v1/clips/wave?format=bin", NULL, "unknown_parameter", "format",
       400},
      {"GET", "/v1/skeletons/demo-humanoid/clips?x", NULL, "unknown_parameter",
       "x", 400},
      {"DELETE", "/v1/clips/wave?cascade=1", NULL, "unknown_parameter",
       "cascade", 400},
      {"POST", "/v1/pose?format=bin",
       "{\"skeleton\":\"demo-humanoid\",\"layers\":[{\"clip\":\"wave\","
       "\"t\":0}]}",
       "unknown_parameter", "format", 400},
      {"POST", "/v1/pose",
       "{\"skeleton\":\"demo-humanoid\",\"layers\":[{\"clip\":\"wave\","
       "\"t\":0,\"wieght\":0.5}]}",
       "unknown_field", "layers[0].wieght", 400},
      {"POST", "/v1/solve", "{\"skeleton\":\"demo-humanoid\",\"fames\":[]}",
       "unknown_field", "fames", 400},
      {"POST", "/v1/assets?nmae=x", "{}", "unknown_parameter", "nmae", 400},
      {"GET", "/v1/stream?tokn=x", NULL, "unknown_parameter", "tokn", 400},
      /* Known parameters still work; the operational endpoints take any
       * query. */
      {"GET",
       "/v1/pose?skeleton=demo-humanoid&clip=wave&t=0&space=local&"
       "wrap=loop&format=json",
       NULL, NULL, NULL, 200},
      {"GET", "/v1/pose?clip=wave&from=0&to=0.1&fps=10", NULL, NULL, NULL, 200},
      {"GET",
       "/v1/skin?mesh=body&clip=wave&t=0&wrap=loop&method=dqs&"
       "normals=1&format=bin",
       NULL, NULL, NULL, 200},
      {"GET", "/v1/meshes/body?format=json", NULL, NULL, NULL, 200},
      {"GET", "/healthz?probe=1", NULL, NULL, NULL, 200},
      {"GET", "/v1/info?x", NULL, NULL, NULL, 200},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    api_expect(api_json(cases[i].method, cases[i].target, cases[i].body),
               cases[i].status, cases[i].code, cases[i].at, cases[i].target);
  mem_server_stop();
}
END_TEST

Suite *api_typos_suite(void) {
  Suite *s = suite_create("api_typos");
  TCase *tc = tcase_create("api_typos");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_every_parameter_is_known);
  tcase_add_test(tc, test_parsers_check_parameters_first);
  tcase_add_test(tc, test_unknown_body_fields);
  tcase_add_test(tc, test_typos_over_http);
  suite_add_tcase(s, tc);
  return s;
}
