/* Tests for clip events over HTTP, against a real server through the
 * in-memory transport: GET /v1/clips/{id} shows them; a JSON range of
 * GET /v1/pose and GET /v1/skin lists on each frame the events its
 * interval crosses (animd/events.h), only when there are some, on the
 * first line of a frame of several meshes; a binary range carries none
 * (its bytes are those of the same clip without events). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "api_memory.h"

/* A one-joint rig, two meshes, and a 1 s clip "steps" with events at 0,
 * 0.25 and 1 (%s: the events member, or nothing). */
static const char rig[] =
    "{\"skeleton\":{\"name\":\"evrig\",\"joints\":[{\"name\":\"root\","
    "\"parent\":-1}]},\"clips\":[{\"name\":\"%s\",\"duration\":1,"
    "\"tracks\":[{\"joint\":\"root\",\"path\":\"translation\",\"times\":[0,1],"
    "\"values\":[0,0,0,1,0,0]}]%s}],\"meshes\":[{\"name\":\"a\","
    "\"positions\":[0,0,0],\"joints\":[0,0,0,0],\"weights\":[1,0,0,0]},"
    "{\"name\":\"b\",\"positions\":[0,1,0],\"joints\":[0,0,0,0],"
    "\"weights\":[1,0,0,0]}]}";
static const char events[] =
    ",\"events\":[{\"t\":1,\"name\":\"end\"},{\"t\":0,\"name\":\"start\"},"
    "{\"t\":0.25,\"name\":\"step\"}]";

static void upload(const char *clip, const char *ev) {
  char body[2048];
  snprintf(body, sizeof body, rig, clip, ev);
  mem_answer_t a = api_json("POST", "/v1/assets", body);
  ck_assert_msg(a.status == 201 || a.status == 200, "%d %s", a.status, a.body);
  mem_answer_free(&a);
}

/* The "events" of each JSON line of body, as "frame:names;" text. */
static void events_of_lines(const char *body, char *out, size_t size) {
  out[0] = '\0';
  for (const char *l = body; l != NULL && *l; l = strchr(l, '\n')) {
    if (*l == '\n') l++;
    if (*l == '\0') break;
    const char *end = strchr(l, '\n');
    const char *ev = strstr(l, "\"events\":[");
    if (ev == NULL || (end != NULL && ev > end)) continue;
    const char *f = strstr(l, "\"frame\":");
    ck_assert_ptr_nonnull(f);
    char item[160];
    snprintf(item, sizeof item, "%d:", atoi(f + 8));
    strncat(out, item, size - strlen(out) - 1);
    for (const char *n = strstr(ev, "\"name\":\"");
         n != NULL && (end == NULL || n < end);
         n = strstr(n + 1, "\"name\":\"")) {
      const char *q = strchr(n + 8, '"');
      snprintf(item, sizeof item, "%.*s,", (int)(q - n - 8), n + 8);
      strncat(out, item, size - strlen(out) - 1);
    }
    strncat(out, ";", size - strlen(out) - 1);
  }
}

START_TEST(test_ranges_list_events) {
  mem_server_start();
  upload("steps", events);
  upload("plain", "");
  char got[1024];
  /* The describe answer shows the events, sorted by t. */
  mem_answer_t a = mem_get("/v1/clips/steps");
  ck_assert_int_eq(a.status, 200);
  ck_assert_msg(strstr(a.body, "\"events\":[{\"t\":0,\"name\":\"start\"},"
                               "{\"t\":0.25,\"name\":\"step\"},"
                               "{\"t\":1,\"name\":\"end\"}]") != NULL,
                "%s", a.body);
  mem_answer_free(&a);
  /* Pose range, loop: frame 0 at its own time, then (t_prev, t]. */
  a = mem_get("/v1/pose?clip=steps&from=0&to=2&fps=4&wrap=loop");
  ck_assert_int_eq(a.status, 200);
  events_of_lines(a.body, got, sizeof got);
  ck_assert_str_eq(got, "0:start,;1:step,;4:end,start,;5:step,;8:end,start,;");
  mem_answer_free(&a);
  /* Clamp: each once; pingpong: going and coming back. */
  a = mem_get("/v1/pose?clip=steps&from=0.1&to=3&fps=2");
  events_of_lines(a.body, got, sizeof got);
  ck_assert_str_eq(got, "1:step,;2:end,;");
  mem_answer_free(&a);
  a = mem_get("/v1/pose?clip=steps&from=0&to=2&fps=4&wrap=pingpong");
  events_of_lines(a.body, got, sizeof got);
  ck_assert_str_eq(got, "0:start,;1:step,;4:end,;7:step,;8:start,;");
  mem_answer_free(&a);
  /* Skin range of two meshes: on the frame's first line only. */
  a = mem_get("/v1/skin?skeleton=evrig&clip=steps&from=0&to=0.5&fps=4");
  ck_assert_int_eq(a.status, 200);
  events_of_lines(a.body, got, sizeof got);
  ck_assert_str_eq(got, "0:start,;1:step,;");
  mem_answer_free(&a);
  a = mem_get("/v1/skin?mesh=a&clip=steps&from=0.2&to=0.3&fps=20");
  events_of_lines(a.body, got, sizeof got);
  ck_assert_str_eq(got, "1:step,;");
  mem_answer_free(&a);
  /* No events: no member. */
  a = mem_get("/v1/pose?clip=plain&from=0&to=1&fps=4&wrap=loop");
  ck_assert_ptr_null(strstr(a.body, "events"));
  mem_answer_free(&a);
  /* Binary ranges carry none: the bytes of the clip without events. */
  mem_answer_t b1 =
      mem_get("/v1/pose?clip=steps&from=0&to=2&fps=4&wrap=loop&format=bin");
  mem_answer_t b2 =
      mem_get("/v1/pose?clip=plain&from=0&to=2&fps=4&wrap=loop&format=bin");
  ck_assert_int_eq(b1.status, 200);
  ck_assert_uint_eq(b1.body_len, b2.body_len);
  ck_assert_int_eq(memcmp(b1.body, b2.body, b1.body_len), 0);
  mem_answer_free(&b1);
  mem_answer_free(&b2);
  mem_server_stop();
}
END_TEST

Suite *api_clip_events_suite(void);
Suite *api_clip_events_suite(void) {
  Suite *s = suite_create("api_clip_events");
  TCase *tc = tcase_create("api_clip_events");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_ranges_list_events);
  suite_add_tcase(s, tc);
  return s;
}
