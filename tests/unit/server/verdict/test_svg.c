/* Tests for skeleton pictures (server/verdict/svg.h, pose_svg.h): the
 * projected coordinates of a three-joint skeleton in each view, computed
 * by hand; one line per parented joint named by data-joint; names escaped;
 * highlighted joints; grid cells; overlay opacities; and format=svg over
 * HTTP (in the in-memory server), refused beyond max_frames_svg with its
 * "at", and byte for byte the same from `animd eval --format svg`. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../api/api_memory.h"
#include "../ws/ws_test_fixtures.h"
#include "cli/eval.h"
#include "server/verdict/svg.h"
#include "server/ws/proto.h"

/* Three joints, stored r, a (child of r), b (child of a), given to callers
 * in the order b, r, a so the caller/storage maps are exercised. Model
 * positions: r (0, 0, 0), a (0, 2, 0), b (1, 2, -1). */
static char name_r[] = "r", name_a[] = "a", name_b[] = "b";
static char *names3[] = {name_r, name_a, name_b};
static int16_t parents3[] = {-1, 0, 1};
static uint32_t to_caller3[] = {1, 2, 0};   /* storage -> caller */
static uint32_t from_caller3[] = {2, 0, 1}; /* caller -> storage */
static char skel_name[] = "tri";

static anim_skeleton_t tri(void) {
  anim_skeleton_t sk = {0};
  sk.name = skel_name;
  sk.joint_count = 3;
  sk.parents = parents3;
  sk.names = names3;
  sk.to_caller = to_caller3;
  sk.from_caller = from_caller3;
  return sk;
}

/* Identity matrices translated to the positions, in caller order. */
static void tri_model(float *m, float dx) {
  static const float pos[3][3] = {{1, 2, -1}, {0, 0, 0}, {0, 2, 0}};
  memset(m, 0, 48 * sizeof *m);
  for (int j = 0; j < 3; j++) {
    float *c = m + 16 * j;
    c[0] = c[5] = c[10] = c[15] = 1;
    c[12] = pos[j][0] + dx;
    c[13] = pos[j][1];
    c[14] = pos[j][2];
  }
}

static size_t count_of(const char *s, const char *what) {
  size_t n = 0;
  for (const char *p = strstr(s, what); p != NULL; p = strstr(p + 1, what)) n++;
  return n;
}

/* The picture of poses as a NUL-terminated string (free it). */
static char *draw(const verdict_svg_pose_t *poses, size_t count,
                  const verdict_svg_desc_t *d) {
  fmt_buf_t b = FMT_BUF_INIT;
  verdict_svg_draw(&b, poses, count, d);
  ck_assert(!b.failed);
  fmt_buf_cstr(&b);
  return b.data;
}

START_TEST(test_views_project_by_hand) {
  anim_skeleton_t sk = tri();
  float m[48];
  tri_model(m, 0);
  verdict_svg_pose_t pose = {.skeleton = &sk, .model = m, .opacity = 1};
  /* 100 x 100 with a 5-pixel margin: 90 pixels for the drawing. */
  static const struct {
    verdict_view view;
    const char *a, *b;
  } cases[] = {
      /* front (x, y): extent 1 x 2, scale 45, centre (0.5, 1). */
      {VERDICT_VIEW_FRONT,
       "<line data-joint=\"a\" x1=\"27.50\" y1=\"95.00\" x2=\"27.50\" "
       "y2=\"5.00\"/>",
       "<line data-joint=\"b\" x1=\"27.50\" y1=\"5.00\" x2=\"72.50\" "
       "y2=\"5.00\"/>"},
      /* side (z, y): extent 1 x 2, scale 45, centre (-0.5, 1). */
      {VERDICT_VIEW_SIDE,
       "<line data-joint=\"a\" x1=\"72.50\" y1=\"95.00\" x2=\"72.50\" "
       "y2=\"5.00\"/>",
       "<line data-joint=\"b\" x1=\"72.50\" y1=\"5.00\" x2=\"27.50\" "
       "y2=\"5.00\"/>"},
      /* top (x, -z): extent 1 x 1, scale 90, centre (0.5, 0.5). */
      {VERDICT_VIEW_TOP,
       "<line data-joint=\"a\" x1=\"5.00\" y1=\"95.00\" x2=\"5.00\" "
       "y2=\"95.00\"/>",
       "<line data-joint=\"b\" x1=\"5.00\" y1=\"95.00\" x2=\"95.00\" "
       "y2=\"5.00\"/>"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    fmt_buf_t b = FMT_BUF_INIT;
    verdict_svg_overlay(&b, &pose, 1, cases[i].view, 100, 100);
    const char *s = fmt_buf_cstr(&b);
    ck_assert_ptr_nonnull(s);
    ck_assert_msg(strstr(s, cases[i].a) != NULL, "view %zu: %s", i, s);
    ck_assert_msg(strstr(s, cases[i].b) != NULL, "view %zu: %s", i, s);
    /* One line per joint with a parent, in caller order (b before a). */
    ck_assert_uint_eq(count_of(s, "<line "), 2);
    ck_assert_ptr_null(strstr(s, "data-joint=\"r\""));
    ck_assert(strstr(s, cases[i].b) < strstr(s, cases[i].a));
    ck_assert(strncmp(s,
                      "<svg xmlns=\"http://www.w3.org/2000/svg\" "
                      "width=\"100\" height=\"100\" viewBox=\"0 0 100 100\">",
                      86) == 0);
    ck_assert_ptr_nonnull(strstr(s, "<title>tri ("));
    ck_assert_str_eq(s + b.len - 7, "</svg>\n");
    /* The same poses, the same bytes. */
    fmt_buf_t again = FMT_BUF_INIT;
    verdict_svg_overlay(&again, &pose, 1, cases[i].view, 100, 100);
    ck_assert_uint_eq(again.len, b.len);
    ck_assert_int_eq(memcmp(again.data, b.data, b.len), 0);
    fmt_buf_free(&again);
    fmt_buf_free(&b);
  }
}
END_TEST

START_TEST(test_names_are_escaped) {
  anim_skeleton_t sk = tri();
  char odd[] = "<a&\"b>";
  char odd_skel[] = "x & 'y'";
  char *names[] = {name_r, odd, name_b};
  sk.names = names;
  sk.name = odd_skel;
  float m[48];
  tri_model(m, 0);
  verdict_svg_pose_t pose = {.skeleton = &sk, .model = m, .opacity = 1};
  char *s = draw(&pose, 1, NULL);
  ck_assert_ptr_nonnull(strstr(s, "data-joint=\"&lt;a&amp;&quot;b&gt;\""));
  ck_assert_ptr_nonnull(strstr(s, "<title>x &amp; &apos;y&apos; (front"));
  ck_assert_ptr_null(strstr(s, "<a&"));
  /* Every & starts an entity. */
  for (const char *p = strchr(s, '&'); p != NULL; p = strchr(p + 1, '&'))
    ck_assert_msg(strncmp(p, "&amp;", 5) == 0 || strncmp(p, "&lt;", 4) == 0 ||
                      strncmp(p, "&gt;", 4) == 0 ||
                      strncmp(p, "&quot;", 6) == 0 ||
                      strncmp(p, "&apos;", 6) == 0,
                  "%.10s", p);
  /* A given title is escaped too. */
  free(s);
  verdict_svg_desc_t d = {.title = "1 < 2"};
  s = draw(&pose, 1, &d);
  ck_assert_ptr_nonnull(strstr(s, "<title>1 &lt; 2</title>"));
  free(s);
}
END_TEST

START_TEST(test_highlighted_joints) {
  anim_skeleton_t sk = tri();
  float m[48];
  tri_model(m, 0);
  uint32_t hl[] = {0, 1}; /* b (a line) and r (a root: a dot only). */
  verdict_svg_pose_t pose = {.skeleton = &sk,
                             .model = m,
                             .opacity = 1,
                             .highlight = hl,
                             .highlight_count = 2};
  verdict_svg_desc_t d = {.width = 100, .height = 100};
  char *s = draw(&pose, 1, &d);
  ck_assert_ptr_nonnull(strstr(
      s,
      "<line data-joint=\"b\" x1=\"27.50\" y1=\"5.00\" x2=\"72.50\" "
      "y2=\"5.00\" class=\"highlight\" stroke=\"" VERDICT_SVG_HIGHLIGHT "\""));
  ck_assert_ptr_nonnull(
      strstr(s, "<line data-joint=\"a\" x1=\"27.50\" y1=\"95.00\" "
                "x2=\"27.50\" y2=\"5.00\"/>"));
  ck_assert_ptr_nonnull(
      strstr(s, "<circle data-highlight=\"b\" cx=\"72.50\" cy=\"5.00\""));
  ck_assert_ptr_nonnull(
      strstr(s, "<circle data-highlight=\"r\" cx=\"27.50\" cy=\"95.00\""));
  ck_assert_uint_eq(count_of(s, "class=\"highlight\""), 1);
  ck_assert_uint_eq(count_of(s, "<line "), 2);
  free(s);
}
END_TEST

START_TEST(test_grid_cells) {
  anim_skeleton_t sk = tri();
  float m[5][48];
  verdict_svg_pose_t poses[5];
  double times[5];
  for (int i = 0; i < 5; i++) {
    tri_model(m[i], (float)i);
    poses[i] =
        (verdict_svg_pose_t){.skeleton = &sk, .model = m[i], .opacity = 1};
    times[i] = 0.25 * i;
  }
  verdict_svg_desc_t d = {.layout = VERDICT_LAYOUT_GRID,
                          .width = 100,
                          .height = 80,
                          .times = times};
  char *s = draw(poses, 5, &d);
  /* ceil(sqrt(5)) = 3 columns, 2 rows of 100 x 80 cells. */
  ck_assert_ptr_nonnull(strstr(s, "width=\"300\" height=\"160\""));
  ck_assert_uint_eq(count_of(s, "<g data-frame="), 5);
  ck_assert_uint_eq(count_of(s, "<line "), 10);
  ck_assert_ptr_nonnull(
      strstr(s, "<g data-frame=\"4\" transform=\"translate(100 80)\">"));
  ck_assert_ptr_nonnull(strstr(s, ">t=0.75</text>"));
  /* One fit for every cell: x spans 0..5 and y 0..2 in 92 x 72 pixels
   * (margin 4), scale min(92 / 5, 72 / 2) = 18.4, so a moves across. */
  ck_assert_ptr_nonnull(strstr(s, "<line data-joint=\"a\" x1=\"4.00\" "
                                  "y1=\"58.40\" x2=\"4.00\" y2=\"21.60\"/>"));
  ck_assert_ptr_nonnull(strstr(s, "<line data-joint=\"a\" x1=\"77.60\" "
                                  "y1=\"58.40\" x2=\"77.60\" y2=\"21.60\"/>"));
  free(s);
  d.columns = 5;
  s = draw(poses, 5, &d);
  ck_assert_ptr_nonnull(strstr(s, "width=\"500\" height=\"80\""));
  free(s);
}
END_TEST

START_TEST(test_overlay_fades_older_frames) {
  ck_assert_double_eq(verdict_svg_fade(0, 1), 1.0);
  ck_assert_double_eq_tol(verdict_svg_fade(0, 3), 0.2, 1e-12);
  ck_assert_double_eq_tol(verdict_svg_fade(1, 3), 0.6, 1e-12);
  ck_assert_double_eq_tol(verdict_svg_fade(2, 3), 1.0, 1e-12);
  anim_skeleton_t sk = tri();
  float m[3][48];
  verdict_svg_pose_t poses[3];
  for (int i = 0; i < 3; i++) {
    tri_model(m[i], (float)i);
    poses[i] = (verdict_svg_pose_t){
        .skeleton = &sk, .model = m[i], .opacity = verdict_svg_fade(i, 3)};
  }
  verdict_svg_desc_t d = {0}; /* Overlay by default. */
  char *s = draw(poses, 3, &d);
  const char *p0 =
      strstr(s, "<g data-pose=\"0\" stroke=\"" VERDICT_SVG_COLOR
                "\" stroke-opacity=\"0.20\" fill-opacity=\"0.20\"");
  const char *p1 = strstr(s, "<g data-pose=\"1\" stroke=\"" VERDICT_SVG_COLOR
                             "\" stroke-opacity=\"0.60\"");
  const char *p2 = strstr(s, "<g data-pose=\"2\" stroke=\"" VERDICT_SVG_COLOR
                             "\" stroke-opacity=\"1.00\"");
  ck_assert_msg(p0 && p1 && p2 && p0 < p1 && p1 < p2, "%s", s);
  ck_assert_uint_eq(count_of(s, "<line "), 6);
  ck_assert_ptr_nonnull(strstr(s, "width=\"480\" height=\"480\""));
  free(s);
}
END_TEST

START_TEST(test_degenerate_poses_stay_finite) {
  anim_skeleton_t sk = tri();
  float m[48];
  tri_model(m, 0);
  for (int j = 0; j < 3; j++)
    m[16 * j + 12] = m[16 * j + 13] = m[16 * j + 14] = 0;
  verdict_svg_pose_t pose = {.skeleton = &sk, .model = m, .opacity = 1};
  char *s = draw(&pose, 1, NULL);
  ck_assert_ptr_null(strstr(s, "nan"));
  ck_assert_ptr_null(strstr(s, "inf"));
  ck_assert_msg(strstr(s, "x1=\"240.00\" y1=\"240.00\"") != NULL, "%s", s);
  free(s);
}
END_TEST

/* ---- over HTTP and `animd eval` --------------------------------------- */

static char *body_of(mem_answer_t a, size_t *len, const char *type) {
  ck_assert_msg(a.status == 200, "status %d: %s", a.status, a.body);
  if (type != NULL) ck_assert_msg(strstr(a.head, type) != NULL, "%s", a.head);
  *len = a.body_len;
  char *b = malloc(a.body_len + 1);
  memcpy(b, a.body, a.body_len + 1);
  mem_answer_free(&a);
  return b;
}

/* `animd eval line.json ARGS... --format svg`'s output (free it). */
static char *eval_svg(const char *path, const char *const *args, size_t n,
                      size_t *len) {
  char *argv[24] = {"eval", (char *)path};
  int argc = 2;
  for (size_t i = 0; i < n; i++) argv[argc++] = (char *)args[i];
  argv[argc++] = "--format";
  argv[argc++] = "svg";
  char *out_text = NULL;
  FILE *out = open_memstream(&out_text, len);
  ck_assert_int_eq(srv_eval_main(argc, argv, out, stderr), 0);
  fclose(out);
  return out_text;
}

START_TEST(test_format_svg_over_http_and_eval) {
  srv_config_t cfg;
  srv_config_defaults(&cfg);
  cfg.max_frames_svg = 4;
  mem_server_start_cfg(&cfg);
  mem_answer_t up = api_json("POST", "/v1/assets", ws_test_asset);
  ck_assert_msg(up.status == 201, "%d %s", up.status, up.body);
  mem_answer_free(&up);
  const char *type = "Content-Type: image/svg+xml";

  size_t one_len, range_len, post_len;
  char *one = body_of(mem_get("/v1/pose?skeleton=line&clip=slide&t=0.5&"
                              "format=svg&joints=b&view=side"),
                      &one_len, type);
  ck_assert_uint_eq(count_of(one, "<line data-joint=\"b\""), 1);
  ck_assert_uint_eq(count_of(one, "class=\"highlight\""), 1);
  ck_assert_ptr_nonnull(strstr(one, "<title>line/slide at t=0.5, side view"));
  /* The picture has an ETag that a revalidation answers with 304. */
  mem_answer_t e = mem_get(
      "/v1/pose?skeleton=line&clip=slide&t=0.5&format=svg&joints=b&view=side");
  const char *tag = strstr(e.head, "ETag: ");
  ck_assert_ptr_nonnull(tag);
  char etag[64] = "";
  sscanf(tag + 6, "%63s", etag);
  mem_answer_free(&e);
  char req[512];
  snprintf(req, sizeof req,
           "GET /v1/pose?skeleton=line&clip=slide&t=0.5&format=svg&joints=b&"
           "view=side HTTP/1.1\r\nHost: x\r\nIf-None-Match: %s\r\n\r\n",
           etag);
  srv_http_memory_t *m = mem_client();
  mem_answer_t nm = mem_request(m, req);
  ck_assert_int_eq(nm.status, 304);
  mem_answer_free(&nm);
  srv_http_memory_free(m);
  /* HEAD: the headers alone. */
  mem_answer_t h = api_json(
      "HEAD", "/v1/pose?skeleton=line&clip=slide&t=0.5&format=svg", NULL);
  ck_assert_int_eq(h.status, 200);
  ck_assert_ptr_nonnull(strstr(h.head, type));
  ck_assert_uint_eq(h.body_len, 0);
  mem_answer_free(&h);

  /* A range of 4 frames (max_frames_svg here) as a grid; 5 are refused. */
  char *range = body_of(mem_get("/v1/pose?skeleton=line&clip=slide&from=0&"
                                "to=1&fps=3&format=svg"),
                        &range_len, type);
  ck_assert_uint_eq(count_of(range, "<g data-frame="), 4);
  ck_assert_uint_eq(count_of(range, "<line "), 4);
  api_expect(mem_get("/v1/pose?skeleton=line&clip=slide&from=0&to=1&fps=4&"
                     "format=svg"),
             400, "too_many_frames", "fps", "over max_frames_svg");
  /* The same range as JSON is not limited by it. */
  api_expect(mem_get("/v1/pose?skeleton=line&clip=slide&from=0&to=1&fps=4"),
             200, NULL, NULL, "json range");
  mem_answer_t ov = mem_get("/v1/pose?skeleton=line&clip=slide&from=0&to=1&"
                            "fps=3&format=svg&layout=overlay");
  ck_assert_int_eq(ov.status, 200);
  ck_assert_uint_eq(count_of(ov.body, "<g data-pose="), 4);
  ck_assert_ptr_nonnull(strstr(ov.body, "stroke-opacity=\"0.20\""));
  ck_assert_ptr_null(strstr(ov.body, "data-frame"));
  mem_answer_free(&ov);

  char *post = body_of(
      api_json("POST", "/v1/pose",
               "{\"skeleton\":\"line\",\"format\":\"svg\",\"view\":\"top\","
               "\"layers\":[{\"clip\":\"slide\",\"t\":0.5}]}"),
      &post_len, type);
  ck_assert_uint_eq(count_of(post, "<line data-joint=\"b\""), 1);

  /* Refusals: the picture words without format=svg, svg where no pose. */
  api_expect(mem_get("/v1/pose?skeleton=line&t=0&view=side"), 400,
             "bad_parameter", "view", "view without svg");
  api_expect(mem_get("/v1/pose?skeleton=line&t=0&format=svg&view=back"), 400,
             "bad_parameter", "view", "unknown view");
  api_expect(mem_get("/v1/skin?mesh=pair&format=svg"), 400, "bad_parameter",
             "format", "skin svg");
  api_expect(mem_get("/v1/meshes/pair?format=svg"), 400, "bad_parameter",
             "format", "mesh svg");
  api_expect(api_json("POST", "/v1/pose",
                      "{\"skeleton\":\"line\",\"layout\":\"grid\","
                      "\"layers\":[{\"clip\":\"slide\",\"t\":0.5}]}"),
             400, "bad_value", "layout", "POST layout without svg");
  mem_server_stop();

  /* animd eval prints the same bytes. */
  char dir[] = "/tmp/animd-svg-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char path[64];
  snprintf(path, sizeof path, "%s/line.json", dir);
  FILE *f = fopen(path, "w");
  fputs(ws_test_asset, f);
  fclose(f);
  size_t cli_len;
  const char *a1[] = {"--skeleton", "line",     "--clip", "slide",  "--t",
                      "0.5",        "--joints", "b",      "--view", "side"};
  char *cli = eval_svg(path, a1, 10, &cli_len);
  ck_assert_uint_eq(cli_len, one_len);
  ck_assert_int_eq(memcmp(cli, one, one_len), 0);
  free(cli);
  const char *a2[] = {"--skeleton", "line", "--clip", "slide", "--from",
                      "0",          "--to", "1",      "--fps", "3"};
  cli = eval_svg(path, a2, 10, &cli_len);
  ck_assert_uint_eq(cli_len, range_len);
  ck_assert_int_eq(memcmp(cli, range, range_len), 0);
  free(cli);
  unlink(path);
  rmdir(dir);
  free(one);
  free(range);
  free(post);
}
END_TEST

START_TEST(test_streams_refuse_svg) {
  srv_ws_cmd_t cmd;
  srv_ws_error_t err;
  static const char *const msgs[] = {
      "{\"op\":\"pose\",\"skeleton\":\"line\",\"t\":0,\"format\":\"svg\"}",
      "{\"op\":\"play\",\"id\":\"s\",\"clip\":\"slide\","
      "\"format\":\"svg\"}"};
  for (size_t i = 0; i < 2; i++) {
    ck_assert_int_eq(srv_ws_cmd_parse(msgs[i], strlen(msgs[i]), &cmd, &err),
                     -1);
    ck_assert_str_eq(err.code, "bad_value");
    ck_assert_str_eq(err.at, "format");
    ck_assert_ptr_nonnull(strstr(err.message, "svg"));
  }
}
END_TEST

Suite *verdict_svg_suite(void) {
  Suite *s = suite_create("verdict_svg");
  TCase *tc = tcase_create("svg");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_views_project_by_hand);
  tcase_add_test(tc, test_names_are_escaped);
  tcase_add_test(tc, test_highlighted_joints);
  tcase_add_test(tc, test_grid_cells);
  tcase_add_test(tc, test_overlay_fades_older_frames);
  tcase_add_test(tc, test_degenerate_poses_stay_finite);
  tcase_add_test(tc, test_format_svg_over_http_and_eval);
  tcase_add_test(tc, test_streams_refuse_svg);
  suite_add_tcase(s, tc);
  return s;
}
