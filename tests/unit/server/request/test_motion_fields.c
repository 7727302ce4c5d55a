/* Tests for the request fields root_motion and blend_space
 * (request/motion_fields.h) over GET and POST /v1/pose, a WebSocket pose
 * message and `animd eval`, on a synthetic walk (the hips move 1.5 along x
 * per 1 s loop, bobbing in y) and run (1.5 per 0.5 s): three and a half
 * loops answer "root" 5.25 exactly with the hips in place; every
 * transport gives the same bytes; a blend space's pose equals the layers
 * blend of its clips at its weights and synchronized times bit for bit;
 * bad input gets typed errors at their place. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../api/api_memory.h"
#include "transports_fixture.h"
#include "../ws/ws_test_fixtures.h"
#include "cli/eval.h"
#include "server/ws/stream.h"

static const char walker[] =
    "{\"skeleton\":{\"name\":\"walker\",\"joints\":["
    "{\"name\":\"hips\",\"parent\":-1,\"translation\":[0,1,0],"
    "\"rotation\":[0,0,0,1],\"scale\":[1,1,1]},"
    "{\"name\":\"leg\",\"parent\":0,\"translation\":[0,-0.5,0],"
    "\"rotation\":[0,0,0,1],\"scale\":[1,1,1]}]},"
    "\"clips\":[{\"name\":\"walk\",\"tracks\":[{\"joint\":\"hips\","
    "\"path\":\"translation\",\"interpolation\":\"LINEAR\","
    "\"times\":[0,0.5,1],\"values\":[0,1,0,0.75,1.1,0,1.5,1,0]},"
    "{\"joint\":\"leg\",\"path\":\"rotation\",\"interpolation\":\"LINEAR\","
    "\"times\":[0,1],\"values\":[0,0,0,1,0,0,0.38268343,0.9238795]}]},"
    "{\"name\":\"run\",\"tracks\":[{\"joint\":\"hips\","
    "\"path\":\"translation\",\"interpolation\":\"LINEAR\","
    "\"times\":[0,0.25,0.5],\"values\":[0,1,0,0.75,1.2,0,1.5,1,0]},"
    "{\"joint\":\"leg\",\"path\":\"rotation\",\"interpolation\":\"LINEAR\","
    "\"times\":[0,0.5],\"values\":[0,0,0,1,0.38268343,0,0,0.9238795]}]}]}";

static float float_at(const char *b, size_t i) {
  float x;
  memcpy(&x, b + i * sizeof x, sizeof x);
  return x;
}

static void upload(void) {
  mem_answer_t up = api_json("POST", "/v1/assets", walker);
  ck_assert_msg(up.status == 201, "%d %s", up.status, up.body);
  mem_answer_free(&up);
}

/* The output of `animd eval` with argv (argc of them) on the walker. */
static char *eval_cli(char **argv, int argc, size_t *len) {
  char dir[] = "/tmp/animd-motion-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char path[64];
  snprintf(path, sizeof path, "%s/walker.json", dir);
  FILE *f = fopen(path, "w");
  fputs(walker, f);
  fclose(f);
  argv[1] = path;
  char *cli = NULL;
  FILE *out = open_memstream(&cli, len);
  ck_assert_int_eq(srv_eval_main(argc, argv, out, stderr), 0);
  fclose(out);
  unlink(path);
  rmdir(dir);
  return cli;
}

/* ---- WebSocket: a client of a hub on a store holding the walker ---------- */

static void on_keep(uv_timer_t *t) { (void)t; }

/* The first binary frame answering one WebSocket message (msg: a pose, or
 * a play) on the walker. */
static char *ws_pose(const char *msg, size_t *len) {
  uv_loop_t loop;
  ck_assert_int_eq(uv_loop_init(&loop), 0);
  store_t *st;
  store_options_t o = {0};
  fmt_error_t fe = {0};
  ck_assert_int_eq(store_open(&o, &st, &fe), 0);
  fmt_bundle_t bundle;
  ck_assert_int_eq(
      fmt_decode_native_json(walker, sizeof walker - 1, NULL, &bundle, &fe), 0);
  store_ingest_result_t res;
  ck_assert_int_eq(store_ingest(st, &bundle, NULL, &res, &fe), 0);
  store_ingest_result_free(&res);
  srv_ws_hub_t *hub = srv_ws_hub_new(&loop, st, NULL, NULL, NULL);
  ck_assert_ptr_nonnull(hub);
  static const srv_ws_transport_t tr = {ws_write, ws_queued, ws_close, NULL,
                                        NULL};
  ws_peer_t *peer = calloc(1, sizeof *peer);
  srv_ws_client_t *c = srv_ws_client_new(hub, &tr, peer);
  uint8_t frame[512];
  srv_ws_client_feed(c, frame, ws_test_client_frame(msg, frame));
  /* A stream's first frame waits for the loop's timer: a timer keeps the
   * loop alive meanwhile, at most 3 s. */
  uv_timer_t keep;
  uv_timer_init(&loop, &keep);
  uv_timer_start(&keep, on_keep, 10, 10);
  uint64_t end = uv_hrtime() + 3000000000ull;
  while (ws_binary(peer, &(size_t){0}) == NULL && uv_hrtime() < end)
    uv_run(&loop, UV_RUN_ONCE);
  uv_close((uv_handle_t *)&keep, NULL);
  const uint8_t *payload = ws_binary(peer, len);
  ck_assert_msg(payload != NULL, "no binary frame: %.*s", (int)peer->len,
                (const char *)peer->bytes);
  char *copy = malloc(*len);
  memcpy(copy, payload, *len);
  srv_ws_client_free(c);
  free(peer);
  srv_ws_hub_free(hub);
  uv_run(&loop, UV_RUN_DEFAULT);
  ck_assert_int_eq(uv_loop_close(&loop), 0);
  store_close(st);
  return copy;
}

#define GET_LOOP                                                               \
  "/v1/pose?skeleton=walker&clip=walk&t=3.5&wrap=loop&space=local&"            \
  "root_motion=hips"

/* Three and a half loops: the root has walked 5.25, the hips stay at x 0
 * with their bob (y 1.1 at half a loop); GET, POST, the CLI agree. */
START_TEST(test_root_motion_transports) {
  mem_server_start();
  upload();
  size_t n, post_len, json_len;
  char *bin = body_of(mem_get(GET_LOOP "&format=bin"), &n);
  ck_assert_uint_eq(n, (2 * 10 + 7) * sizeof(float));
  ck_assert_float_eq(float_at(bin, 0), 0.f);    /* hips x */
  ck_assert_float_eq(float_at(bin, 1), 1.1f);   /* hips y: the bob stays */
  ck_assert_float_eq(float_at(bin, 20), 5.25f); /* root translation */
  ck_assert_float_eq(float_at(bin, 21), 0.f);
  ck_assert_float_eq(float_at(bin, 22), 0.f);
  ck_assert_float_eq(float_at(bin, 26), 1.f); /* rotation w */
  char *json = body_of(mem_get(GET_LOOP), &json_len);
  ck_assert_msg(
      strstr(json, "\"root\":{\"translation\":[5.25,0,0],\"rotation\":[0,0,0,"
                   "1]}") != NULL,
      "%s", json);
  /* The same in a POST body, as an object with the defaults spelled. */
  char *post = body_of(
      api_json(
          "POST", "/v1/pose",
          "{\"skeleton\":\"walker\",\"format\":\"bin\",\"space\":\"local\","
          "\"root_motion\":{\"joint\":\"hips\",\"translation\":\"xz\","
          "\"rotation\":\"yaw\",\"reference\":\"skeleton\"},"
          "\"layers\":[{\"clip\":\"walk\",\"t\":3.5,\"wrap\":\"loop\"}]}"),
      &post_len);
  /* A one-layer blend normalizes its rotations: equal within 1e-6. */
  ck_assert_uint_eq(post_len, n);
  for (size_t i = 0; i < n / 4; i++)
    ck_assert_float_eq_tol(float_at(post, i), float_at(bin, i), 1e-6f);
  /* A range over three loops: the root walks a stride per second. */
  size_t range_len;
  char *range = body_of(mem_get("/v1/pose?skeleton=walker&clip=walk&from=0&"
                                "to=3&fps=1&wrap=loop&root_motion=hips"),
                        &range_len);
  const char *want[4] = {"[0,0,0]", "[1.5,0,0]", "[3,0,0]", "[4.5,0,0]"};
  const char *at = range;
  for (int i = 0; i < 4; i++) {
    char member[64];
    snprintf(member, sizeof member, "\"root\":{\"translation\":%s", want[i]);
    at = strstr(at, member);
    ck_assert_msg(at != NULL, "frame %d: no %s in %s", i, member, range);
  }
  free(range);
  /* Pingpong walks back: 1.5 s is half way back. */
  size_t pp_len;
  char *pp = body_of(mem_get("/v1/pose?skeleton=walker&clip=walk&t=1.5&"
                             "wrap=pingpong&root_motion=hips&format=bin"),
                     &pp_len);
  ck_assert_float_eq(float_at(pp, pp_len / 4 - 7), 0.75f);
  /* Bad input, typed and placed. */
  api_expect(mem_get("/v1/pose?skeleton=walker&clip=walk&t=0&root_motion=x"),
             400, "unknown_joint", "root_motion.joint", "unknown joint");
  api_expect(api_json("POST", "/v1/pose",
                      "{\"skeleton\":\"walker\",\"root_motion\":{\"joint\":"
                      "\"hips\",\"rotation\":\"roll\"},\"layers\":[{\"clip\":"
                      "\"walk\",\"t\":0}]}"),
             400, "bad_value", "root_motion.rotation", "bad rotation");
  api_expect(api_json("POST", "/v1/pose",
                      "{\"skeleton\":\"walker\",\"root_motion\":{\"joint\":"
                      "\"hips\",\"translation\":\"xx\"},\"layers\":[{\"clip\":"
                      "\"walk\",\"t\":0}]}"),
             400, "bad_value", "root_motion.translation", "bad translation");
  mem_server_stop();

  /* A WebSocket pose message: the 32-byte frame header, then the same. */
  size_t ws_len;
  char *ws = ws_pose("{\"op\":\"pose\",\"skeleton\":\"walker\",\"clip\":"
                     "\"walk\",\"t\":3.5,\"wrap\":\"loop\",\"space\":"
                     "\"local\",\"format\":\"bin\",\"root_motion\":\"hips\"}",
                     &ws_len);
  ck_assert_uint_ge(ws_len, 32);
  assert_same(bin, n, ws + 32, ws_len - 32, "WebSocket");
  free(ws);
  /* A stream (play loops) from t0 3.5: its first frame is evaluated at
   * the stream's time, so its root has walked three and a half loops. */
  ws = ws_pose("{\"op\":\"play\",\"id\":\"w\",\"skeleton\":\"walker\",\"clip\":"
               "\"walk\",\"t0\":3.5,\"fps\":10,\"space\":\"local\","
               "\"format\":\"bin\",\"root_motion\":\"hips\"}",
               &ws_len);
  ck_assert_uint_eq(ws_len, 32 + n);
  ck_assert_float_eq(float_at(ws + 32, 20), 5.25f);
  ck_assert_float_eq(float_at(ws + 32, 0), 0.f);
  free(ws);

  char *argv[] = {"eval",    NULL,    "--skeleton", "walker", "--clip",
                  "walk",    "--t",   "3.5",        "--wrap", "loop",
                  "--space", "local", "--format",   "bin",    "--root_motion",
                  "hips",    NULL};
  size_t cli_len;
  char *cli = eval_cli(argv, 16, &cli_len);
  assert_same(bin, n, cli, cli_len, "animd eval");
  free(cli);
  free(bin);
  free(json);
  free(post);
  free(pp);
}
END_TEST

/* A 1D blend space at 0.25 between walk (0) and run (1): weights 0.75 and
 * 0.25, phase t / (0.75 * 1 + 0.25 * 0.5) = 0.4 / 0.875; the pose equals
 * the layers blend at those weights and times bit for bit, and animd eval
 * --request prints the same bytes. */
START_TEST(test_blend_space_is_layers) {
  mem_server_start();
  upload();
  const char *space =
      "{\"skeleton\":\"walker\",\"format\":\"bin\",\"t\":0.4,\"wrap\":\"loop\","
      "\"blend_space\":{\"param\":[0.25],\"clips\":[{\"clip\":\"walk\","
      "\"at\":[0]},{\"clip\":\"run\",\"at\":[1]}]}}";
  size_t n, ln, jn;
  char *bs = body_of(api_json("POST", "/v1/pose", space), &n);
  double phi = 0.4 / 0.875;
  char layers[512];
  snprintf(layers, sizeof layers,
           "{\"skeleton\":\"walker\",\"format\":\"bin\",\"layers\":["
           "{\"clip\":\"walk\",\"t\":%.17g,\"weight\":0.75,\"wrap\":\"loop\"},"
           "{\"clip\":\"run\",\"t\":%.17g,\"weight\":0.25,\"wrap\":\"loop\"}]}",
           phi, phi * 0.5);
  char *ly = body_of(api_json("POST", "/v1/pose", layers), &ln);
  ck_assert_uint_eq(n, ln + 2 * sizeof(float)); /* + the two weights */
  assert_same(bs, ln, ly, ln, "blend space vs layers");
  ck_assert_float_eq(float_at(bs, ln / 4), 0.75f);
  ck_assert_float_eq(float_at(bs, ln / 4 + 1), 0.25f);
  char json_body[512];
  snprintf(json_body, sizeof json_body, "%s", space);
  char *fmt = strstr(json_body, "\"format\":\"bin\",");
  memmove(fmt, fmt + 15, strlen(fmt + 15) + 1);
  char *js = body_of(api_json("POST", "/v1/pose", json_body), &jn);
  ck_assert_msg(strstr(js, "\"weights\":[{\"clip\":\"walk\",\"weight\":0.75},"
                           "{\"clip\":\"run\",\"weight\":0.25}]") != NULL,
                "%s", js);
  /* Without sync every clip plays at t. */
  size_t un, uln;
  char *unsynced = body_of(
      api_json(
          "POST", "/v1/pose",
          "{\"skeleton\":\"walker\",\"format\":\"bin\",\"t\":0.3,"
          "\"blend_space\":{\"param\":[0.25],\"sync\":false,\"clips\":["
          "{\"clip\":\"walk\",\"at\":[0]},{\"clip\":\"run\",\"at\":[1]}]}}"),
      &un);
  char *ul = body_of(
      api_json("POST", "/v1/pose",
               "{\"skeleton\":\"walker\",\"format\":\"bin\",\"layers\":["
               "{\"clip\":\"walk\",\"t\":0.3,\"weight\":0.75},"
               "{\"clip\":\"run\",\"t\":0.3,\"weight\":0.25}]}"),
      &uln);
  assert_same(unsynced, uln, ul, uln, "unsynchronized");
  /* Bad input. */
  api_expect(
      api_json("POST", "/v1/pose",
               "{\"skeleton\":\"walker\",\"t\":0,\"blend_space\":{"
               "\"param\":[0,0],\"clips\":[{\"clip\":\"walk\",\"at\":["
               "0,0]},{\"clip\":\"run\",\"at\":[1,1]},{\"clip\":\"walk\","
               "\"at\":[2,2]}]}}"),
      400, "bad_value", "blend_space.clips", "collinear");
  api_expect(api_json("POST", "/v1/pose",
                      "{\"skeleton\":\"walker\",\"t\":0,\"blend_space\":{"
                      "\"param\":[0],\"clips\":[{\"clip\":\"walk\",\"at\":["
                      "0,0]}]}}"),
             400, "value_count", "blend_space.clips[0].at", "2D point in 1D");
  api_expect(api_json("POST", "/v1/pose",
                      "{\"skeleton\":\"walker\",\"blend_space\":{"
                      "\"param\":[0],\"clips\":[{\"clip\":\"walk\",\"at\":["
                      "0]}]}}"),
             400, "missing_field", "t", "no time");
  api_expect(api_json("POST", "/v1/pose",
                      "{\"skeleton\":\"walker\",\"t\":0,\"blend_space\":{"
                      "\"param\":[0],\"clips\":[{\"clip\":\"nope\",\"at\":["
                      "0]}]}}"),
             404, "not_found", "layers[0].clip", "unknown clip");
  mem_server_stop();

  char *argv[] = {"eval", NULL, "--request", (char *)space, NULL};
  size_t cli_len;
  char *cli = eval_cli(argv, 4, &cli_len);
  assert_same(bs, n, cli, cli_len, "animd eval --request");
  free(cli);
  free(bs);
  free(ly);
  free(js);
  free(unsynced);
  free(ul);
}
END_TEST

/* Root motion in a blend: each layer's motion, blended (here both walk
 * the same 1.5 per loop, so 2 loops of the synchronized blend give 3). */
START_TEST(test_root_motion_in_blend_space) {
  mem_server_start();
  upload();
  size_t n;
  /* D = 0.5 * 1 + 0.5 * 0.5 = 0.75: t = 1.5 is two loops of each clip. */
  char *b = body_of(
      api_json("POST", "/v1/pose",
               "{\"skeleton\":\"walker\",\"format\":\"bin\",\"t\":1.5,"
               "\"wrap\":\"loop\",\"root_motion\":\"hips\",\"blend_space\":{"
               "\"param\":[0.5],\"clips\":[{\"clip\":\"walk\",\"at\":[0]},"
               "{\"clip\":\"run\",\"at\":[1]}]}}"),
      &n);
  size_t k = n / 4;
  /* Floats: 2 joints x 16, then root (7), then weights (2). */
  ck_assert_uint_eq(k, 32 + 7 + 2);
  ck_assert_float_eq_tol(float_at(b, 32), 3.f, 1e-6f);
  ck_assert_float_eq(float_at(b, 12), 0.f); /* hips model x: in place */
  free(b);
  mem_server_stop();
}
END_TEST

Suite *motion_fields_suite(void) {
  Suite *s = suite_create("motion_fields");
  TCase *tc = tcase_create("transports");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_root_motion_transports);
  tcase_add_test(tc, test_blend_space_is_layers);
  tcase_add_test(tc, test_root_motion_in_blend_space);
  suite_add_tcase(s, tc);
  return s;
}
