/* Tests for request fields declared once (request/fields.h): a field
 * added in one place, here a throwaway "rest_probe" that turns any pose
 * into the skeleton's rest pose, is parsed and honoured by GET /v1/pose,
 * POST /v1/pose, a WebSocket pose message and `animd eval` alike (its
 * answer equals the rest pose's, byte for byte), refused with each
 * syntax's error code when malformed, and unknown where no row takes it.
 * The table's own rows are the product's; this file adds its row at run
 * time so the product keeps the mechanism without the field. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../api/api_memory.h"
#include "transports_fixture.h"
#include "../ws/ws_test_fixtures.h"
#include "cli/eval.h"
#include "server/request/evaluate.h"
#include "server/request/fields.h"
#include "server/ws/stream.h"

static void rest_probe_apply(double value, srv_eval_job_t *job) {
  if (value == 0) return;
  job->clip = NULL;
  job->layers = NULL;
  job->layer_count = 0;
}

static void add_probe(void) {
  srv_field_t row = {.name = "rest_probe",
                     .type = SRV_FIELD_BOOL,
                     .takes = SRV_TAKES_POSE_QUERY | SRV_TAKES_SKIN_QUERY |
                              SRV_TAKES_POSE_BODY | SRV_TAKES_WS_STREAM |
                              SRV_TAKES_WS_POSE,
                     .apply = rest_probe_apply};
  if (srv_field_find("rest_probe", ~0u) == NULL)
    ck_assert_int_eq(srv_field_add(&row), 0);
  ck_assert_int_eq(srv_field_add(&row), -1); /* A name is taken once. */
}

START_TEST(test_one_field_on_every_transport) {
  add_probe();
  mem_server_start();
  mem_answer_t up = api_json("POST", "/v1/assets", ws_test_asset);
  ck_assert_msg(up.status == 201, "%d %s", up.status, up.body);
  mem_answer_free(&up);

  size_t rest_len, get_len, plain_len, post_len;
  char *rest =
      body_of(mem_get("/v1/pose?skeleton=line&t=0&format=bin"), &rest_len);
  ck_assert_uint_eq(rest_len, 2 * 16 * sizeof(float));
  char *plain =
      body_of(mem_get("/v1/pose?skeleton=line&clip=slide&t=0.5&format=bin"),
              &plain_len);
  char *get = body_of(mem_get("/v1/pose?skeleton=line&clip=slide&t=0.5&"
                              "format=bin&rest_probe=1"),
                      &get_len);
  /* Without the field joint a has moved to x = 0.5 (element 12). */
  float x;
  memcpy(&x, plain + 12 * sizeof(float), sizeof x);
  ck_assert_float_eq(x, 0.5f);
  assert_same(rest, rest_len, get, get_len, "GET");
  /* The field is part of the answer's ETag. */
  mem_answer_t e1 =
      mem_get("/v1/pose?skeleton=line&clip=slide&t=0.5&format=bin");
  mem_answer_t e2 = mem_get(
      "/v1/pose?skeleton=line&clip=slide&t=0.5&format=bin&rest_probe=1");
  const char *t1 = strstr(e1.head, "ETag: "), *t2 = strstr(e2.head, "ETag: ");
  ck_assert_ptr_nonnull(t1);
  ck_assert_ptr_nonnull(t2);
  ck_assert_int_ne(strncmp(t1, t2, 40), 0);
  mem_answer_free(&e1);
  mem_answer_free(&e2);
  char *post = body_of(
      api_json("POST", "/v1/pose",
               "{\"skeleton\":\"line\",\"format\":\"bin\",\"rest_probe\":true,"
               "\"layers\":[{\"clip\":\"slide\",\"t\":0.5}]}"),
      &post_len);
  assert_same(rest, rest_len, post, post_len, "POST");
  /* Each syntax's error for a malformed value, and no row for it in the
   * answers that take no such field. */
  api_expect(mem_get("/v1/pose?skeleton=line&t=0&rest_probe=maybe"), 400,
             "bad_parameter", "rest_probe", "GET bad");
  api_expect(api_json("POST", "/v1/pose",
                      "{\"skeleton\":\"line\",\"rest_probe\":1,"
                      "\"layers\":[{\"clip\":\"slide\",\"t\":0.5}]}"),
             400, "wrong_type", "rest_probe", "POST bad");
  api_expect(mem_get("/v1/meshes/pair?rest_probe=1"), 400, "unknown_parameter",
             "rest_probe", "mesh");
  mem_server_stop();

  /* WebSocket: the same field in a pose message. */
  uv_loop_t loop;
  ck_assert_int_eq(uv_loop_init(&loop), 0);
  store_t *st;
  store_options_t o = {0};
  fmt_error_t fe = {0};
  ck_assert_int_eq(store_open(&o, &st, &fe), 0);
  fmt_bundle_t bundle;
  ck_assert_int_eq(fmt_decode_native_json(ws_test_asset,
                                          sizeof ws_test_asset - 1, NULL,
                                          &bundle, &fe),
                   0);
  store_ingest_result_t res;
  ck_assert_int_eq(store_ingest(st, &bundle, NULL, &res, &fe), 0);
  store_ingest_result_free(&res);
  srv_ws_hub_t *hub = srv_ws_hub_new(&loop, st, NULL, NULL, NULL);
  ck_assert_ptr_nonnull(hub);
  static const srv_ws_transport_t tr = {ws_write, ws_queued, ws_close, NULL,
                                        NULL};
  ws_peer_t *peer = calloc(1, sizeof *peer);
  srv_ws_client_t *c = srv_ws_client_new(hub, &tr, peer);
  const char *msg = "{\"op\":\"pose\",\"skeleton\":\"line\",\"clip\":\"slide\","
                    "\"t\":0.5,\"format\":\"bin\",\"rest_probe\":true}";
  uint8_t frame[256];
  srv_ws_client_feed(c, frame, ws_test_client_frame(msg, frame));
  for (int i = 0; i < 100 && ws_binary(peer, &(size_t){0}) == NULL; i++)
    uv_run(&loop, UV_RUN_NOWAIT);
  size_t wlen = 0;
  const uint8_t *payload = ws_binary(peer, &wlen);
  ck_assert_ptr_nonnull(payload);
  ck_assert_uint_eq(wlen, 32 + rest_len); /* The 32-byte frame header. */
  assert_same(rest, rest_len, (const char *)payload + 32, wlen - 32,
              "WebSocket");
  srv_ws_client_free(c);
  free(peer);
  srv_ws_hub_free(hub);
  uv_run(&loop, UV_RUN_DEFAULT);
  ck_assert_int_eq(uv_loop_close(&loop), 0);
  store_close(st);

  /* animd eval: the field as an option. */
  char dir[] = "/tmp/animd-fields-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char path[64];
  snprintf(path, sizeof path, "%s/line.json", dir);
  FILE *f = fopen(path, "w");
  fputs(ws_test_asset, f);
  fclose(f);
  char *argv[] = {"eval",         path,   "--skeleton", "line",     "--clip",
                  "slide",        "--t",  "0.5",        "--format", "bin",
                  "--rest_probe", "true", NULL};
  char *cli = NULL;
  size_t cli_len = 0;
  FILE *out = open_memstream(&cli, &cli_len);
  ck_assert_int_eq(srv_eval_main(12, argv, out, stderr), 0);
  fclose(out);
  assert_same(rest, rest_len, cli, cli_len, "animd eval");
  free(cli);
  unlink(path);
  rmdir(dir);

  free(rest);
  free(plain);
  free(get);
  free(post);
}
END_TEST

/* ---- a structured field: "probe_lift": {"joint": J, "dy": number} -------
 * raises joint J by dy in its local translation at the model stage (its
 * descendants follow) and answers {"y": the joint's model y}. */

typedef struct lift_s {
  char joint[32];
  float dy;
  uint32_t index; /* Resolved. */
} lift_t;

static int lift_parse(const json_t *json, const char *at, void **data,
                      srv_error_t *err) {
  json_t *j = json_object_get(json, "joint"), *dy = json_object_get(json, "dy");
  if (!json_is_object(json))
    return srv_error_set(err, SRV_ERR_WRONG_TYPE, at, "an object");
  if (!json_is_string(j)) {
    char where[64];
    snprintf(where, sizeof where, "%s.joint", at);
    return srv_error_set(err, SRV_ERR_WRONG_TYPE, where, "a joint name");
  }
  lift_t *l = calloc(1, sizeof *l);
  snprintf(l->joint, sizeof l->joint, "%s", json_string_value(j));
  l->dy = json_is_number(dy) ? (float)json_number_value(dy) : 1.0f;
  *data = l;
  return 0;
}

static int lift_resolve(void *data, const anim_skeleton_t *sk, const char *at,
                        srv_error_t *err) {
  lift_t *l = data;
  int32_t j = anim_skeleton_find(sk, l->joint);
  if (j < 0) {
    char where[64];
    snprintf(where, sizeof where, "%s.joint", at);
    return srv_error_set(err, SRV_ERR_UNKNOWN_JOINT, where, "no joint '%s'",
                         l->joint);
  }
  l->index = (uint32_t)j;
  return 0;
}

static anim_result lift_model(const void *data, srv_field_stage_t *st) {
  const lift_t *l = data;
  st->pose.translation[l->index].y += l->dy;
  anim_result r = srv_field_stage_refresh(st, l->index);
  st->answer[0] = st->model[l->index].m[13];
  return r;
}

static size_t lift_floats(const void *data) { return 1; }

static void lift_json(fmt_buf_t *b, const void *data, const float *answer) {
  fmt_buf_puts(b, "{\"y\":");
  fmt_buf_float(b, answer[0]);
  fmt_buf_putc(b, '}');
}

static void add_lift(void) {
  srv_field_t row = {.name = "probe_lift",
                     .type = SRV_FIELD_VALUE,
                     .takes = SRV_TAKES_POSE_BODY | SRV_TAKES_WS_STREAM |
                              SRV_TAKES_WS_POSE,
                     .parse = lift_parse,
                     .resolve = lift_resolve,
                     .free_data = free,
                     .model = lift_model,
                     .answer_floats = lift_floats,
                     .answer_json = lift_json};
  if (srv_field_find("probe_lift", ~0u) == NULL)
    ck_assert_int_eq(srv_field_add(&row), 0);
}

START_TEST(test_structured_field) {
  add_lift();
  mem_server_start();
  mem_answer_t up = api_json("POST", "/v1/assets", ws_test_asset);
  ck_assert_msg(up.status == 201, "%d %s", up.status, up.body);
  mem_answer_free(&up);
  static const char body[] =
      "{\"skeleton\":\"line\",\"format\":\"bin\",\"probe_lift\":"
      "{\"joint\":\"a\",\"dy\":1},\"layers\":[{\"clip\":\"slide\",\"t\":0}]}";
  /* Binary: two mat4 then the answer's float; joint b (a's child) followed
   * a up: its model y is 2 + 1. */
  mem_answer_t a = api_json("POST", "/v1/pose", body);
  ck_assert_msg(a.status == 200, "%d %s", a.status, a.body);
  ck_assert_ptr_nonnull(strstr(a.head, "X-Animd-Answer: probe_lift=1"));
  ck_assert_uint_eq(a.body_len, (2 * 16 + 1) * sizeof(float));
  float f[33];
  memcpy(f, a.body, sizeof f);
  ck_assert_float_eq(f[16 + 13], 3.0f);
  ck_assert_float_eq(f[32], 1.0f);
  size_t post_len = a.body_len;
  char *post = malloc(post_len);
  memcpy(post, a.body, post_len);
  mem_answer_free(&a);
  /* JSON: the member after the pose's. */
  mem_answer_t j = api_json(
      "POST", "/v1/pose",
      "{\"skeleton\":\"line\",\"probe_lift\":{\"joint\":\"b\",\"dy\":0.5},"
      "\"layers\":[{\"clip\":\"slide\",\"t\":0}]}");
  ck_assert_msg(j.status == 200, "%d %s", j.status, j.body);
  ck_assert_ptr_nonnull(strstr(j.body, ",\"probe_lift\":{\"y\":2.5}}"));
  mem_answer_free(&j);
  /* Errors at the field's paths, from the parser and from the lookup. */
  api_expect(api_json("POST", "/v1/pose",
                      "{\"skeleton\":\"line\",\"probe_lift\":{\"joint\":1},"
                      "\"layers\":[{\"clip\":\"slide\",\"t\":0}]}"),
             400, "wrong_type", "probe_lift.joint", "parse");
  api_expect(api_json("POST", "/v1/pose",
                      "{\"skeleton\":\"line\",\"probe_lift\":{\"joint\":\"z\"},"
                      "\"layers\":[{\"clip\":\"slide\",\"t\":0}]}"),
             400, "unknown_joint", "probe_lift.joint", "resolve");
  mem_server_stop();

  /* animd eval --request: the same bytes. */
  char dir[] = "/tmp/animd-fields-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char path[64];
  snprintf(path, sizeof path, "%s/line.json", dir);
  FILE *fa = fopen(path, "w");
  fputs(ws_test_asset, fa);
  fclose(fa);
  char *argv[] = {"eval", path, "--request", (char *)body, NULL};
  char *cli = NULL;
  size_t cli_len = 0;
  FILE *out = open_memstream(&cli, &cli_len);
  ck_assert_int_eq(srv_eval_main(4, argv, out, stderr), 0);
  fclose(out);
  assert_same(post, post_len, cli, cli_len, "animd eval --request");
  free(cli);
  unlink(path);
  rmdir(dir);

  /* WebSocket pose: the flag in the header's layout word, the answer's
   * float after the payload. */
  uv_loop_t loop;
  ck_assert_int_eq(uv_loop_init(&loop), 0);
  store_t *st;
  store_options_t o = {0};
  fmt_error_t fe = {0};
  ck_assert_int_eq(store_open(&o, &st, &fe), 0);
  fmt_bundle_t bundle;
  ck_assert_int_eq(fmt_decode_native_json(ws_test_asset,
                                          sizeof ws_test_asset - 1, NULL,
                                          &bundle, &fe),
                   0);
  store_ingest_result_t res;
  ck_assert_int_eq(store_ingest(st, &bundle, NULL, &res, &fe), 0);
  store_ingest_result_free(&res);
  srv_ws_hub_t *hub = srv_ws_hub_new(&loop, st, NULL, NULL, NULL);
  static const srv_ws_transport_t tr = {ws_write, ws_queued, ws_close, NULL,
                                        NULL};
  ws_peer_t *peer = calloc(1, sizeof *peer);
  srv_ws_client_t *c = srv_ws_client_new(hub, &tr, peer);
  const char *msg = "{\"op\":\"pose\",\"skeleton\":\"line\",\"clip\":\"slide\","
                    "\"t\":0,\"format\":\"bin\",\"probe_lift\":"
                    "{\"joint\":\"a\",\"dy\":1}}";
  uint8_t frame[256];
  srv_ws_client_feed(c, frame, ws_test_client_frame(msg, frame));
  for (int i = 0; i < 100 && ws_binary(peer, &(size_t){0}) == NULL; i++)
    uv_run(&loop, UV_RUN_NOWAIT);
  size_t wlen = 0;
  const uint8_t *payload = ws_binary(peer, &wlen);
  ck_assert_ptr_nonnull(payload);
  ck_assert_uint_eq(wlen, 32 + post_len);
  ck_assert_uint_ne(payload[7] & 0x80, 0); /* The layout word's flag. */
  assert_same(post, post_len, (const char *)payload + 32, wlen - 32,
              "WebSocket");
  srv_ws_client_free(c);
  free(peer);
  srv_ws_hub_free(hub);
  uv_run(&loop, UV_RUN_DEFAULT);
  ck_assert_int_eq(uv_loop_close(&loop), 0);
  store_close(st);
  free(post);
}
END_TEST

START_TEST(test_structured_values) {
  add_lift();
  json_t *o = json_pack("{s:{s:s,s:f}}", "probe_lift", "joint", "a", "dy", 1.0);
  srv_fields_t a = {0}, b = {0}, c = {0};
  srv_error_t err;
  ck_assert_int_eq(srv_fields_from_json(o, SRV_TAKES_WS_STREAM, &a, &err), 0);
  ck_assert_int_eq(srv_fields_from_json(o, SRV_TAKES_WS_STREAM, &b, &err), 0);
  /* Equal by their canonical text, and copies share the value. */
  ck_assert(srv_fields_equal(&a, &b));
  srv_fields_copy(&c, &a);
  srv_fields_free(&a);
  ck_assert(srv_fields_equal(&c, &b));
  fmt_buf_t t = FMT_BUF_INIT;
  srv_fields_print(&t, &c);
  fmt_buf_putc(&t, '\0');
  ck_assert_str_eq(t.data, "probe_lift={\"dy\":1.0,\"joint\":\"a\"};");
  fmt_buf_free(&t);
  /* A set replaces the value. */
  json_object_set_new(o, "probe_lift", json_pack("{s:s}", "joint", "b"));
  srv_fields_t d = {0};
  ck_assert_int_eq(srv_fields_from_json(o, SRV_TAKES_WS_STREAM, &d, &err), 0);
  srv_fields_merge(&c, &d);
  ck_assert(!srv_fields_equal(&c, &b));
  ck_assert(srv_fields_equal(&c, &d));
  ck_assert_uint_eq(srv_fields_answer_floats(&c), 1);
  srv_fields_free(&b);
  srv_fields_free(&c);
  srv_fields_free(&d);
  json_decref(o);
}
END_TEST

/* A structured row a GET takes as text ("probe_name=a": a JSON string):
 * checked, resolved and part of the ETag like any other. */
static int name_parse(const json_t *json, const char *at, void **data,
                      srv_error_t *err) {
  if (!json_is_string(json))
    return srv_error_set(err, SRV_ERR_WRONG_TYPE, at, "a joint name");
  *data = strdup(json_string_value(json));
  return 0;
}

static int name_resolve(void *data, const anim_skeleton_t *sk, const char *at,
                        srv_error_t *err) {
  if (anim_skeleton_find(sk, data) < 0)
    return srv_error_set(err, SRV_ERR_UNKNOWN_JOINT, at, "no such joint");
  return 0;
}

START_TEST(test_structured_query) {
  srv_field_t row = {.name = "probe_name",
                     .type = SRV_FIELD_VALUE,
                     .takes = SRV_TAKES_POSE_QUERY,
                     .parse = name_parse,
                     .resolve = name_resolve,
                     .free_data = free};
  if (srv_field_find("probe_name", ~0u) == NULL)
    ck_assert_int_eq(srv_field_add(&row), 0);
  mem_server_start();
  mem_answer_t up = api_json("POST", "/v1/assets", ws_test_asset);
  ck_assert_msg(up.status == 201, "%d %s", up.status, up.body);
  mem_answer_free(&up);
  mem_answer_t a = mem_get("/v1/pose?skeleton=line&t=0&probe_name=a");
  mem_answer_t b = mem_get("/v1/pose?skeleton=line&t=0&probe_name=b");
  ck_assert_int_eq(a.status, 200);
  ck_assert_int_eq(b.status, 200);
  const char *ta = strstr(a.head, "ETag: "), *tb = strstr(b.head, "ETag: ");
  ck_assert_ptr_nonnull(ta);
  ck_assert_ptr_nonnull(tb);
  ck_assert_int_ne(strncmp(ta, tb, 40), 0);
  mem_answer_free(&a);
  mem_answer_free(&b);
  api_expect(mem_get("/v1/pose?skeleton=line&t=0&probe_name=zz"), 400,
             "unknown_joint", "probe_name", "resolve");
  mem_server_stop();
  srv_kv_t q[] = {{"probe_name", "a"}};
  srv_fields_t f = {0};
  srv_error_t err;
  ck_assert_int_eq(srv_fields_from_query(q, 1, SRV_TAKES_POSE_QUERY, &f, &err),
                   0);
  fmt_buf_t t = FMT_BUF_INIT;
  srv_fields_print(&t, &f);
  fmt_buf_putc(&t, '\0');
  ck_assert_ptr_nonnull(strstr(t.data, "probe_name=\"a\";"));
  fmt_buf_free(&t);
  srv_fields_free(&f);
}
END_TEST

START_TEST(test_table_rules) {
  srv_field_t row = {.name = "probe_scale",
                     .type = SRV_FIELD_NUMBER,
                     .takes = SRV_TAKES_POSE_QUERY | SRV_TAKES_WS_STREAM,
                     .lo = 0,
                     .hi = 2};
  ck_assert_int_eq(srv_field_add(&row), 0);
  ck_assert_ptr_nonnull(srv_field_find("probe_scale", SRV_TAKES_WS_STREAM));
  ck_assert_ptr_null(srv_field_find("probe_scale", SRV_TAKES_POSE_BODY));
  srv_kv_t q[] = {{"probe_scale", "1.5"}, {"t", "x"}};
  srv_fields_t a = {0}, b = {0};
  srv_error_t err;
  ck_assert_int_eq(srv_fields_from_query(q, 2, SRV_TAKES_POSE_QUERY, &a, &err),
                   0);
  ck_assert_uint_ne(a.present, 0);
  srv_kv_t bad[] = {{"probe_scale", "3"}};
  ck_assert_int_eq(
      srv_fields_from_query(bad, 1, SRV_TAKES_POSE_QUERY, &b, &err), -1);
  ck_assert_int_eq(err.code, SRV_ERR_BAD_PARAMETER);
  ck_assert_str_eq(err.at, "probe_scale");
  json_t *o = json_pack("{s:f}", "probe_scale", 1.5);
  ck_assert_int_eq(srv_fields_from_json(o, SRV_TAKES_WS_STREAM, &b, &err), 0);
  ck_assert(srv_fields_equal(&a, &b));
  json_object_set_new(o, "probe_scale", json_real(2.5));
  srv_fields_t c = {0};
  ck_assert_int_eq(srv_fields_from_json(o, SRV_TAKES_WS_STREAM, &c, &err), -1);
  ck_assert_int_eq(err.code, SRV_ERR_BAD_VALUE);
  json_object_set_new(o, "probe_scale", json_string("1"));
  ck_assert_int_eq(srv_fields_from_json(o, SRV_TAKES_WS_STREAM, &c, &err), -1);
  ck_assert_int_eq(err.code, SRV_ERR_WRONG_TYPE);
  json_decref(o);
  /* A set replaces what it gives and keeps the rest. */
  srv_fields_t none = {0};
  srv_fields_merge(&none, &a);
  ck_assert(srv_fields_equal(&none, &a));
  ck_assert(!srv_fields_equal(&none, &(srv_fields_t){0}));
}
END_TEST

Suite *request_fields_suite(void) {
  Suite *s = suite_create("request_fields");
  TCase *tc = tcase_create("fields");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_one_field_on_every_transport);
  tcase_add_test(tc, test_table_rules);
  tcase_add_test(tc, test_structured_field);
  tcase_add_test(tc, test_structured_values);
  tcase_add_test(tc, test_structured_query);
  suite_add_tcase(s, tc);
  return s;
}
