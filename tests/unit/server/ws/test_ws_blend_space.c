/* Tests for blend spaces in WebSocket streams (docs/api.md "Blend
 * spaces"): a stream of a 1D blend space of a synthetic walk (1 s) and
 * run (0.5 s) answers, frame for frame, the bytes POST /v1/pose answers
 * for the same blend space at the frame's time (its clock looping over
 * the weighted duration), a set moving param changes the weights from
 * the next frame, and bad blend spaces get typed errors with the stream
 * playing on. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../api/api_memory.h"
#include "server/ws/stream.h"
#include "ws_test_fixtures.h"

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

#define CLIPS                                                                  \
  "\"clips\":[{\"clip\":\"walk\",\"at\":[0]},{\"clip\":\"run\",\"at\":[1]}]"

/* ---- a client of a hub on a store holding the walker --------------------- */

typedef struct peer_s {
  uint8_t bytes[1 << 18];
  size_t len;
} peer_t;

static int p_write(void *ctx, const uint8_t *data, size_t len) {
  peer_t *p = ctx;
  ck_assert_uint_le(p->len + len, sizeof p->bytes);
  memcpy(p->bytes + p->len, data, len);
  p->len += len;
  return 0;
}
static size_t p_queued(void *ctx) { return 0; }
static void p_close(void *ctx) {}

static const srv_ws_transport_t transport = {p_write, p_queued, p_close, NULL,
                                             NULL};

/* The n-th (0-based) server frame of opcode op at or after byte from:
 * its payload and length, or NULL. */
static const uint8_t *frame_of(const peer_t *p, size_t from, uint8_t op, int n,
                               size_t *len) {
  size_t k = from;
  while (k + 2 <= p->len) {
    uint8_t o = p->bytes[k] & 0x0f;
    size_t m = p->bytes[k + 1] & 0x7f, hdr = 2;
    if (m == 126) {
      m = (size_t)p->bytes[k + 2] << 8 | p->bytes[k + 3];
      hdr = 4;
    }
    if (k + hdr + m > p->len) return NULL;
    if (o == op && n-- == 0) {
      *len = m;
      return p->bytes + k + hdr;
    }
    k += hdr + m;
  }
  return NULL;
}

typedef struct ws_s {
  uv_loop_t loop;
  uv_timer_t keep;
  store_t *st;
  srv_ws_hub_t *hub;
  srv_ws_client_t *c;
  peer_t *peer;
} ws_t;

static void on_keep(uv_timer_t *t) { (void)t; }

static void ws_open(ws_t *w) {
  ck_assert_int_eq(uv_loop_init(&w->loop), 0);
  store_options_t o = {0};
  fmt_error_t fe = {0};
  ck_assert_int_eq(store_open(&o, &w->st, &fe), 0);
  fmt_bundle_t bundle;
  ck_assert_int_eq(
      fmt_decode_native_json(walker, sizeof walker - 1, NULL, &bundle, &fe), 0);
  store_ingest_result_t res;
  ck_assert_int_eq(store_ingest(w->st, &bundle, NULL, &res, &fe), 0);
  store_ingest_result_free(&res);
  w->hub = srv_ws_hub_new(&w->loop, w->st, NULL, NULL, NULL);
  ck_assert_ptr_nonnull(w->hub);
  w->peer = calloc(1, sizeof *w->peer);
  w->c = srv_ws_client_new(w->hub, &transport, w->peer);
  uv_timer_init(&w->loop, &w->keep);
  uv_timer_start(&w->keep, on_keep, 5, 5);
}

static void ws_send(ws_t *w, const char *msg) {
  uint8_t frame[1024];
  srv_ws_client_feed(w->c, frame, ws_test_client_frame(msg, frame));
}

/* Runs the loop until the peer holds n binary frames from byte from (at
 * most 3 s). */
static void ws_wait(ws_t *w, size_t from, int n) {
  uint64_t end = uv_hrtime() + 3000000000ull;
  size_t len;
  while (frame_of(w->peer, from, 2, n - 1, &len) == NULL && uv_hrtime() < end)
    uv_run(&w->loop, UV_RUN_ONCE);
  ck_assert_msg(frame_of(w->peer, from, 2, n - 1, &len) != NULL,
                "no binary frame %d: %.*s", n, (int)w->peer->len,
                (const char *)w->peer->bytes);
}

static void ws_close_all(ws_t *w) {
  uv_close((uv_handle_t *)&w->keep, NULL);
  srv_ws_client_free(w->c);
  free(w->peer);
  srv_ws_hub_free(w->hub);
  uv_run(&w->loop, UV_RUN_DEFAULT);
  ck_assert_int_eq(uv_loop_close(&w->loop), 0);
  store_close(w->st);
}

static double frame_t(const uint8_t *f) {
  double t;
  memcpy(&t, f + 16, sizeof t);
  return t;
}

static float float_at(const uint8_t *b, size_t i) {
  float x;
  memcpy(&x, b + 4 * i, sizeof x);
  return x;
}

/* POST /v1/pose's binary answer for the blend space at param p, time t. */
static mem_answer_t post_pose(double p, double t) {
  char body[512];
  snprintf(body, sizeof body,
           "{\"skeleton\":\"walker\",\"format\":\"bin\",\"space\":\"model\","
           "\"wrap\":\"loop\",\"t\":%.17g,\"blend_space\":{\"param\":[%.17g],"
           "%s}}",
           t, p, CLIPS);
  mem_answer_t a = api_json("POST", "/v1/pose", body);
  ck_assert_msg(a.status == 200, "%d %s", a.status, a.body);
  return a;
}

/* A frame (header, floats, weights) equals POST /v1/pose's answer at
 * param p and the frame's time, byte for byte. */
static void assert_as_post(const uint8_t *f, size_t len, double p) {
  mem_answer_t a = post_pose(p, frame_t(f));
  uint32_t layout;
  memcpy(&layout, f + 4, 4);
  ck_assert_uint_ne(layout & 0x80000000u, 0); /* The weights follow. */
  ck_assert_uint_eq(len, 32 + a.body_len);
  ck_assert_int_eq(memcmp(f + 32, a.body, a.body_len), 0);
  mem_answer_free(&a);
}

START_TEST(test_stream_answers_as_post) {
  mem_server_start();
  mem_answer_t up = api_json("POST", "/v1/assets", walker);
  ck_assert_int_eq(up.status, 201);
  mem_answer_free(&up);
  ws_t w;
  ws_open(&w);
  /* Param 0.25: weights 0.75 and 0.25, the weighted duration 0.875 s; a
   * start at 1.2 s plays 0.325 s into the loop. */
  ws_send(
      &w,
      "{\"op\":\"play\",\"id\":1,\"skeleton\":\"walker\",\"format\":"
      "\"bin\",\"t0\":1.2,\"fps\":50,\"blend_space\":{\"param\":[0.25]," CLIPS
      "}}");
  size_t ack_len;
  const uint8_t *ack = frame_of(w.peer, 0, 1, 0, &ack_len);
  ck_assert_ptr_nonnull(ack);
  ck_assert_msg(memmem(ack, ack_len, "\"duration\":0.875", 16) != NULL, "%.*s",
                (int)ack_len, (const char *)ack);
  ws_wait(&w, 0, 3);
  size_t len;
  const uint8_t *f = frame_of(w.peer, 0, 2, 0, &len);
  ck_assert_double_eq_tol(frame_t(f), 0.325, 1e-6);
  for (int i = 0; i < 3; i++) {
    f = frame_of(w.peer, 0, 2, i, &len);
    assert_as_post(f, len, 0.25);
    ck_assert_float_eq(float_at(f, (len - 8) / 4), 0.75f);
    ck_assert_float_eq(float_at(f, (len - 4) / 4), 0.25f);
  }
  /* A set moving param: every frame after it has the new weights. */
  size_t mark = w.peer->len;
  ws_send(&w, "{\"op\":\"set\",\"id\":1,\"blend_space\":{\"param\":[0.5]," CLIPS
              "}}");
  ck_assert_ptr_nonnull(frame_of(w.peer, mark, 1, 0, &ack_len));
  ws_wait(&w, mark, 2);
  for (int i = 0; i < 2; i++) {
    f = frame_of(w.peer, mark, 2, i, &len);
    ck_assert_float_eq(float_at(f, (len - 8) / 4), 0.5f);
    ck_assert_float_eq(float_at(f, (len - 4) / 4), 0.5f);
    assert_as_post(f, len, 0.5);
  }
  /* A refused set (an unknown clip, collinear points are 2D only) changes
   * nothing: the stream plays on with its weights. */
  mark = w.peer->len;
  ws_send(&w, "{\"op\":\"set\",\"id\":1,\"blend_space\":{\"param\":[0.9],"
              "\"clips\":[{\"clip\":\"walk\",\"at\":[0]},{\"clip\":\"jog\","
              "\"at\":[1]}]}}");
  const uint8_t *e = frame_of(w.peer, mark, 1, 0, &len);
  ck_assert_ptr_nonnull(e);
  ck_assert_msg(
      memmem(e, len, "\"code\":\"not_found\"", 18) != NULL &&
          memmem(e, len, "\"at\":\"blend_space.clips[1].clip\"", 32) != NULL,
      "%.*s", (int)len, (const char *)e);
  ws_send(&w, "{\"op\":\"set\",\"id\":1,\"blend_space\":{\"param\":[0.5,0.5],"
              "\"clips\":[{\"clip\":\"walk\",\"at\":[0,0]},{\"clip\":\"run\","
              "\"at\":[1,1]},{\"clip\":\"walk\",\"at\":[2,2]}]}}");
  e = frame_of(w.peer, mark, 1, 1, &len);
  ck_assert_ptr_nonnull(e);
  ck_assert_msg(memmem(e, len, "\"code\":\"bad_value\"", 18) != NULL &&
                    memmem(e, len, "\"at\":\"blend_space.clips\"", 24) != NULL,
                "%.*s", (int)len, (const char *)e);
  ws_wait(&w, mark, 2);
  f = frame_of(w.peer, mark, 2, 1, &len);
  ck_assert_float_eq(float_at(f, (len - 4) / 4), 0.5f);
  /* A one-shot pose of a blend space: POST's bytes at its t. */
  mark = w.peer->len;
  ws_send(&w,
          "{\"op\":\"pose\",\"skeleton\":\"walker\",\"format\":\"bin\","
          "\"t\":0.3,\"wrap\":\"loop\",\"blend_space\":{\"param\":[0.8]," CLIPS
          "}}");
  f = NULL;
  for (int i = 0; (f = frame_of(w.peer, mark, 2, i, &len)) != NULL; i++)
    if (f[0] == 0xff && f[1] == 0xff && f[2] == 0xff && f[3] == 0xff) break;
  ck_assert_ptr_nonnull(f);
  ck_assert_double_eq_tol(frame_t(f), 0.3, 1e-6);
  assert_as_post(f, len, 0.8);
  ws_close_all(&w);
  mem_server_stop();
}
END_TEST

START_TEST(test_play_errors) {
  ws_t w;
  ws_open(&w);
  ws_send(&w, "{\"op\":\"play\",\"id\":1,\"skeleton\":\"walker\",\"clip\":"
              "\"walk\",\"blend_space\":{\"param\":[0]," CLIPS "}}");
  ws_send(&w, "{\"op\":\"play\",\"id\":2,\"skeleton\":\"walker\","
              "\"blend_space\":{\"param\":[0],\"clips\":[{\"clip\":\"walk\","
              "\"at\":[0]},{\"clip\":\"nope\",\"at\":[1]}]}}");
  ws_send(&w, "{\"op\":\"play\",\"id\":3,\"skeleton\":\"walker\",\"clip\":"
              "\"walk\"}");
  ws_send(&w, "{\"op\":\"set\",\"id\":3,\"blend_space\":{\"param\":[0]," CLIPS
              "}}");
  static const char *const want[][2] = {
      {"unknown_field", "\"at\":\"clip\""},
      {"not_found", "\"at\":\"blend_space.clips[1].clip\""},
      {NULL, "\"op\":\"play\""},
      {"bad_value", "\"at\":\"blend_space\""}};
  for (int i = 0; i < 4; i++) {
    size_t len;
    const uint8_t *m = frame_of(w.peer, 0, 1, i, &len);
    ck_assert_ptr_nonnull(m);
    if (want[i][0] != NULL)
      ck_assert_msg(memmem(m, len, want[i][0], strlen(want[i][0])) != NULL,
                    "%d: %.*s", i, (int)len, (const char *)m);
    ck_assert_msg(memmem(m, len, want[i][1], strlen(want[i][1])) != NULL,
                  "%d: %.*s", i, (int)len, (const char *)m);
  }
  ws_close_all(&w);
}
END_TEST

Suite *ws_blend_space_suite(void) {
  Suite *s = suite_create("ws_blend_space");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_stream_answers_as_post);
  tcase_add_test(tc, test_play_errors);
  suite_add_tcase(s, tc);
  return s;
}
