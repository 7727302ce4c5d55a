/* Tests for the request parsers (server/request/requests.h): every error path
 * of the query and body parsers with its code and "at", and the typed
 * requests they fill. No server: a query is a list of parameters, a body
 * is text. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/bundle.h"
#include "server/request/requests.h"

/* A query from "name=value&..." (no decoding needed here). */
typedef struct query_text_s {
  char buf[512];
  srv_kv_t kv[16];
  srv_query_t q;
} query_text_t;

static const srv_query_t *query(query_text_t *qt, const char *text) {
  snprintf(qt->buf, sizeof qt->buf, "%s", text);
  memset(&qt->q, 0, sizeof qt->q);
  qt->q.params = qt->kv;
  qt->q.max_frames = 1000;
  char *save = NULL;
  for (char *p = strtok_r(qt->buf, "&", &save); p && qt->q.count < 16;
       p = strtok_r(NULL, "&", &save)) {
    char *eq = strchr(p, '=');
    qt->kv[qt->q.count].name = p;
    qt->kv[qt->q.count].value = eq ? eq + 1 : "";
    if (eq) *eq = '\0';
    qt->q.count++;
  }
  return &qt->q;
}

typedef struct case_s {
  const char *input;
  srv_error_code code;
  const char *at;
} case_t;

static void check_error(int rc, const srv_error_t *e, const case_t *c) {
  ck_assert_msg(rc == -1, "%s: accepted", c->input);
  ck_assert_msg(e->code == c->code, "%s: code %s, want %s", c->input,
                srv_error_name(e->code), srv_error_name(c->code));
  ck_assert_msg(strcmp(e->at, c->at) == 0, "%s: at '%s', want '%s'", c->input,
                e->at, c->at);
  ck_assert_msg(e->message[0] != '\0', "%s: no message", c->input);
}

/* ---- GET /v1/pose
 * ------------------------------------------------------------ */

static const case_t pose_errors[] = {
    {"clip=c&t=0&space=world", SRV_ERR_BAD_PARAMETER, "space"},
    {"clip=c&t=0&wrap=bounce", SRV_ERR_BAD_PARAMETER, "wrap"},
    {"clip=c&t=0&format=xml", SRV_ERR_BAD_PARAMETER, "format"},
    {"clip=c&from=0&to=1", SRV_ERR_MISSING_PARAMETER, "fps"},
    {"clip=c&to=1&fps=2", SRV_ERR_MISSING_PARAMETER, "from"},
    {"clip=c&from=0&fps=2", SRV_ERR_MISSING_PARAMETER, "to"},
    {"clip=c&from=x&to=1&fps=2", SRV_ERR_BAD_PARAMETER, "from"},
    {"clip=c&from=0&to=1e300&fps=2", SRV_ERR_BAD_PARAMETER, "to"},
    {"clip=c&from=0&to=1&fps=inf", SRV_ERR_BAD_PARAMETER, "fps"},
    {"clip=c&from=0&to=1&fps=0", SRV_ERR_BAD_PARAMETER, "fps"},
    {"clip=c&from=0&to=1&fps=-3", SRV_ERR_BAD_PARAMETER, "fps"},
    {"clip=c&from=2&to=1&fps=10", SRV_ERR_BAD_PARAMETER, "to"},
    {"clip=c&from=0&to=100&fps=60", SRV_ERR_TOO_MANY_FRAMES, "fps"},
    {"clip=c", SRV_ERR_MISSING_PARAMETER, "t"},
    {"clip=c&t=abc", SRV_ERR_BAD_PARAMETER, "t"},
    {"clip=c&t=", SRV_ERR_BAD_PARAMETER, "t"},
    {"clip=c&t=nan", SRV_ERR_BAD_PARAMETER, "t"},
    {"clip=c&t=inf", SRV_ERR_BAD_PARAMETER, "t"},
    {"clip=c&t=1e300", SRV_ERR_BAD_PARAMETER, "t"},
    {"clip=c&t=4e38", SRV_ERR_BAD_PARAMETER, "t"},
    {"clip=c&t=1x", SRV_ERR_BAD_PARAMETER, "t"},
    {"t=0", SRV_ERR_MISSING_PARAMETER, "clip"},
    {"t=0&clip=&skeleton=", SRV_ERR_MISSING_PARAMETER, "clip"},
};

START_TEST(test_pose_query_errors) {
  for (size_t i = 0; i < sizeof pose_errors / sizeof pose_errors[0]; i++) {
    query_text_t qt;
    srv_pose_query_t q;
    srv_error_t e;
    check_error(srv_pose_query_parse(query(&qt, pose_errors[i].input), &q, &e),
                &e, &pose_errors[i]);
  }
}
END_TEST

START_TEST(test_pose_query) {
  query_text_t qt;
  srv_pose_query_t q;
  srv_error_t e;
  ck_assert_int_eq(srv_pose_query_parse(query(&qt, "clip=wave&t=0.5"), &q, &e),
                   0);
  ck_assert_str_eq(q.clip, "wave");
  ck_assert_ptr_null(q.skeleton);
  ck_assert_float_eq(q.t, 0.5f);
  ck_assert_int_eq(q.space, FMT_SPACE_MODEL);
  ck_assert_int_eq(q.wrap, ANIM_WRAP_CLAMP);
  ck_assert(!q.binary && !q.range.is_range);
  /* Accept asks for binary unless format says otherwise; the last of a
   * repeated parameter wins. */
  const srv_query_t *qq =
      query(&qt, "skeleton=rig&t=1&t=2&space=local&wrap=pingpong&wrap=loop");
  qt.q.accept = "text/plain, application/octet-stream";
  ck_assert_int_eq(srv_pose_query_parse(qq, &q, &e), 0);
  ck_assert_str_eq(q.skeleton, "rig");
  ck_assert_ptr_null(q.clip);
  ck_assert_float_eq(q.t, 2.0f);
  ck_assert_int_eq(q.space, FMT_SPACE_LOCAL);
  ck_assert_int_eq(q.wrap, ANIM_WRAP_LOOP);
  ck_assert(q.binary);
  qq = query(&qt, "clip=c&t=0&format=json");
  qt.q.accept = "application/octet-stream";
  ck_assert_int_eq(srv_pose_query_parse(qq, &q, &e), 0);
  ck_assert(!q.binary);
  /* A range needs no t: 0, 0.1, ..., 1 is 11 frames. */
  ck_assert_int_eq(
      srv_pose_query_parse(query(&qt, "clip=c&from=0&to=1&fps=10"), &q, &e), 0);
  ck_assert(q.range.is_range);
  ck_assert_uint_eq(q.range.frames, 11);
  ck_assert(q.range.from == 0 && q.range.to == 1 && q.range.fps == 10);
}
END_TEST

/* t is read as strtod reads it (the C library is the reference), to the
 * bit: plain decimals of every length and place of the point, signs,
 * leading and trailing zeros, and the texts only strtod reads. */
START_TEST(test_pose_query_numbers) {
  static const char *const fixed[] = {"0",
                                      "-0",
                                      "+0",
                                      "0.5",
                                      ".5",
                                      "5.",
                                      "-.25",
                                      "+1.75",
                                      "00012",
                                      "0.0001",
                                      "1.000",
                                      "3.14159265358979",
                                      "0.1",
                                      "0.2",
                                      "0.3",
                                      "123456789012345",
                                      "1234567890123456",
                                      "9007199254740993",
                                      "0.000000000000000000001",
                                      "0.0000000000000000000001",
                                      "0.00000000000000000000001",
                                      "1e3",
                                      "1E-3",
                                      "0x1p-2",
                                      "2.5e-07",
                                      "100000000000000000000000",
                                      "7.000000000000000000000000001",
                                      "-1234.5678"};
  char text[64];
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0] + 4000; i++) {
    if (i < sizeof fixed / sizeof fixed[0]) {
      snprintf(text, sizeof text, "%s", fixed[i]);
    } else {
      /* Digits with a point at every place, of 1 to 17 digits. */
      unsigned k = (unsigned)(i - sizeof fixed / sizeof fixed[0]);
      unsigned digits = 1 + k % 17, point = (k / 17) % (digits + 1);
      unsigned long long v = 0x9e3779b97f4a7c15ull * (k + 1);
      size_t n = 0;
      if (k % 3 == 0) text[n++] = '-';
      for (unsigned d = 0; d < digits; d++) {
        if (d == point) text[n++] = '.';
        text[n++] = (char)('0' + (v >> (4 * (d % 16))) % 10);
      }
      text[n] = '\0';
    }
    char in[96];
    snprintf(in, sizeof in, "clip=c&t=%s", text);
    query_text_t qt;
    srv_pose_query_t q;
    srv_error_t e;
    ck_assert_msg(srv_pose_query_parse(query(&qt, in), &q, &e) == 0, "%s",
                  text);
    double want = strtod(text, NULL);
    ck_assert_msg(memcmp(&q.t, &want, sizeof want) == 0,
                  "%s: %.17g, want %.17g", text, q.t, want);
    srv_fields_free(&q.fields);
  }
}
END_TEST

/* ---- GET /v1/skin
 * -------------------------------------------------------------- */

static const case_t skin_errors[] = {
    {"mesh=m&wrap=x", SRV_ERR_BAD_PARAMETER, "wrap"},
    {"mesh=m&method=xyz", SRV_ERR_BAD_PARAMETER, "method"},
    {"mesh=m&normals=2", SRV_ERR_BAD_PARAMETER, "normals"},
    {"mesh=m&format=txt", SRV_ERR_BAD_PARAMETER, "format"},
    {"mesh=m&from=0&fps=1", SRV_ERR_MISSING_PARAMETER, "to"},
    {"mesh=m&from=0&to=1&fps=1e9", SRV_ERR_TOO_MANY_FRAMES, "fps"},
    {"t=0", SRV_ERR_MISSING_PARAMETER, "mesh"},
    {"mesh=&t=0", SRV_ERR_MISSING_PARAMETER, "mesh"},
    {"mesh=m&clip=c", SRV_ERR_MISSING_PARAMETER, "t"},
    {"mesh=m&t=soon", SRV_ERR_BAD_PARAMETER, "t"},
    {"mesh=m&format=bin&encoding=q8", SRV_ERR_BAD_PARAMETER, "encoding"},
    /* q16 is binary only. */
    {"mesh=m&encoding=q16", SRV_ERR_BAD_PARAMETER, "encoding"},
    {"mesh=m&format=json&encoding=q16", SRV_ERR_BAD_PARAMETER, "encoding"},
};

START_TEST(test_skin_query_errors) {
  for (size_t i = 0; i < sizeof skin_errors / sizeof skin_errors[0]; i++) {
    query_text_t qt;
    srv_skin_query_t q;
    srv_error_t e;
    check_error(srv_skin_query_parse(query(&qt, skin_errors[i].input), &q, &e),
                &e, &skin_errors[i]);
  }
}
END_TEST

START_TEST(test_skin_query) {
  query_text_t qt;
  srv_skin_query_t q;
  srv_error_t e;
  /* Without a clip the rest pose needs no t. */
  ck_assert_int_eq(srv_skin_query_parse(query(&qt, "mesh=body"), &q, &e), 0);
  ck_assert_str_eq(q.mesh, "body");
  ck_assert_ptr_null(q.clip);
  ck_assert_int_eq(q.method, ANIM_SKIN_LBS);
  ck_assert_int_eq(q.normals, ANIM_NORMALS_NONE);
  ck_assert_int_eq(
      srv_skin_query_parse(query(&qt, "mesh=body&clip=wave&t=0.25&method=dqs&"
                                      "normals=invt&wrap=loop&format=bin"),
                           &q, &e),
      0);
  ck_assert_str_eq(q.clip, "wave");
  ck_assert_float_eq(q.t, 0.25f);
  ck_assert_int_eq(q.method, ANIM_SKIN_DQS);
  ck_assert_int_eq(q.normals, ANIM_NORMALS_INVERSE_TRANSPOSE);
  ck_assert_int_eq(q.wrap, ANIM_WRAP_LOOP);
  ck_assert(q.binary);
  ck_assert_int_eq(q.encoding, FMT_ENCODING_F32);
  ck_assert_int_eq(
      srv_skin_query_parse(
          query(&qt, "mesh=b&format=bin&encoding=q16&from=0&to=1&fps=2"), &q,
          &e),
      0);
  ck_assert_int_eq(q.encoding, FMT_ENCODING_Q16);
  ck_assert(q.binary && q.range.is_range);
  ck_assert_int_eq(
      srv_skin_query_parse(query(&qt, "mesh=b&encoding=f32"), &q, &e), 0);
  ck_assert_int_eq(q.encoding, FMT_ENCODING_F32);
  ck_assert_int_eq(srv_skin_query_parse(
                       query(&qt, "mesh=b&clip=c&from=0&to=0&fps=1"), &q, &e),
                   0);
  ck_assert_uint_eq(q.range.frames, 1);
}
END_TEST

/* ---- POST /v1/pose
 * ------------------------------------------------------------- */

static const case_t blend_errors[] = {
    {"{", SRV_ERR_BAD_JSON, "line 1, column 1"},
    {"{\"skeleton\":\"s\",\"skeleton\":\"t\"}", SRV_ERR_BAD_JSON,
     "line 1, column 26"},
    {"[1]", SRV_ERR_WRONG_TYPE, ""},
    {"{\"layers\":[]}", SRV_ERR_MISSING_FIELD, "skeleton"},
    {"{\"skeleton\":7}", SRV_ERR_WRONG_TYPE, "skeleton"},
    {"{\"skeleton\":\"s\",\"space\":\"world\"}", SRV_ERR_BAD_VALUE, "space"},
    {"{\"skeleton\":\"s\",\"space\":1}", SRV_ERR_BAD_VALUE, "space"},
    {"{\"skeleton\":\"s\",\"format\":\"xml\"}", SRV_ERR_BAD_VALUE, "format"},
    {"{\"skeleton\":\"s\"}", SRV_ERR_MISSING_FIELD, "layers"},
    {"{\"skeleton\":\"s\",\"layers\":[]}", SRV_ERR_WRONG_TYPE, "layers"},
    {"{\"skeleton\":\"s\",\"layers\":{}}", SRV_ERR_WRONG_TYPE, "layers"},
    {"{\"skeleton\":\"s\",\"layers\":[3]}", SRV_ERR_WRONG_TYPE, "layers[0]"},
    {"{\"skeleton\":\"s\",\"layers\":[{\"t\":0}]}", SRV_ERR_MISSING_FIELD,
     "layers[0].clip"},
    {"{\"skeleton\":\"s\",\"layers\":[{\"clip\":1,\"t\":0}]}",
     SRV_ERR_WRONG_TYPE, "layers[0].clip"},
    {"{\"skeleton\":\"s\",\"layers\":[{\"clip\":\"c\"}]}",
     SRV_ERR_MISSING_FIELD, "layers[0].t"},
    {"{\"skeleton\":\"s\",\"layers\":[{\"clip\":\"c\",\"t\":\"0\"}]}",
     SRV_ERR_WRONG_TYPE, "layers[0].t"},
    {"{\"skeleton\":\"s\",\"layers\":[{\"clip\":\"c\",\"t\":0,"
     "\"weight\":-1}]}",
     SRV_ERR_BAD_VALUE, "layers[0].weight"},
    {"{\"skeleton\":\"s\",\"layers\":[{\"clip\":\"c\",\"t\":0,"
     "\"weight\":true}]}",
     SRV_ERR_BAD_VALUE, "layers[0].weight"},
    {"{\"skeleton\":\"s\",\"layers\":[{\"clip\":\"c\",\"t\":0,"
     "\"mode\":\"mix\"}]}",
     SRV_ERR_BAD_VALUE, "layers[0].mode"},
    {"{\"skeleton\":\"s\",\"layers\":[{\"clip\":\"c\",\"t\":0},"
     "{\"clip\":\"c\",\"t\":0,\"wrap\":\"bounce\"}]}",
     SRV_ERR_BAD_VALUE, "layers[1].wrap"},
    {"{\"skeleton\":\"s\",\"layers\":[{\"clip\":\"c\",\"t\":0,"
     "\"mask\":\"hips\"}]}",
     SRV_ERR_WRONG_TYPE, "layers[0].mask"},
    {"{\"skeleton\":\"s\",\"layers\":[{\"clip\":\"c\",\"t\":0,"
     "\"mask\":[\"a\",2]}]}",
     SRV_ERR_UNKNOWN_JOINT, "layers[0].mask[1]"},
};

START_TEST(test_blend_body_errors) {
  for (size_t i = 0; i < sizeof blend_errors / sizeof blend_errors[0]; i++) {
    srv_blend_body_t b;
    srv_error_t e;
    const char *in = blend_errors[i].input;
    check_error(srv_blend_body_parse(in, strlen(in), NULL, &b, &e), &e,
                &blend_errors[i]);
  }
  /* 65 layers. */
  char big[2048] = "{\"skeleton\":\"s\",\"layers\":[";
  for (int i = 0; i < 65; i++)
    strcat(big, i ? ",{\"clip\":\"c\",\"t\":0}" : "{\"clip\":\"c\",\"t\":0}");
  strcat(big, "]}");
  srv_blend_body_t b;
  srv_error_t e;
  case_t c = {"65 layers", SRV_ERR_WRONG_TYPE, "layers"};
  check_error(srv_blend_body_parse(big, strlen(big), NULL, &b, &e), &e, &c);
}
END_TEST

START_TEST(test_blend_body) {
  const char *in =
      "{\"skeleton\":\"rig\",\"space\":\"local\",\"layers\":["
      "{\"clip\":\"idle\",\"t\":1.5},"
      "{\"clip\":\"wave\",\"t\":-2,\"weight\":0.3,\"mode\":\"additive\","
      "\"wrap\":\"loop\",\"mask\":[\"a\"]}]}";
  srv_blend_body_t b;
  srv_error_t e;
  ck_assert_int_eq(
      srv_blend_body_parse(in, strlen(in), "application/octet-stream", &b, &e),
      0);
  ck_assert_str_eq(b.skeleton, "rig");
  ck_assert_int_eq(b.space, FMT_SPACE_LOCAL);
  ck_assert(b.binary);
  ck_assert_uint_eq(b.layer_count, 2);
  ck_assert_str_eq(b.layers[0].clip, "idle");
  ck_assert_float_eq(b.layers[0].t, 1.5f);
  ck_assert_float_eq(b.layers[0].weight, 1.0f);
  ck_assert(!b.layers[0].additive);
  ck_assert_int_eq(b.layers[0].wrap, ANIM_WRAP_CLAMP);
  ck_assert_ptr_null(b.layers[0].mask);
  ck_assert_float_eq(b.layers[1].t, -2.0f);
  ck_assert_float_eq_tol(b.layers[1].weight, 0.3f, 1e-7f);
  ck_assert(b.layers[1].additive);
  ck_assert_int_eq(b.layers[1].wrap, ANIM_WRAP_LOOP);
  ck_assert_ptr_nonnull(b.layers[1].mask);
  srv_blend_body_free(&b);
  in = "{\"skeleton\":\"rig\",\"format\":\"json\",\"layers\":[{\"clip\":\"c\","
       "\"t\":0}]}";
  ck_assert_int_eq(
      srv_blend_body_parse(in, strlen(in), "application/octet-stream", &b, &e),
      0);
  ck_assert(!b.binary);
  ck_assert_int_eq(b.space, FMT_SPACE_MODEL);
  srv_blend_body_free(&b);
}
END_TEST

static const char rig[] =
    "{\"skeleton\":{\"name\":\"rig\",\"joints\":["
    "{\"name\":\"a\",\"parent\":-1},{\"name\":\"b\",\"parent\":0},"
    "{\"name\":\"c\",\"parent\":1}]}}";

static anim_skeleton_t *load_rig(fmt_bundle_t *bundle) {
  fmt_error_t err = {0};
  ck_assert_int_eq(
      fmt_decode_native_json(rig, sizeof rig - 1, NULL, bundle, &err), 0);
  return bundle->skeletons[0];
}

START_TEST(test_blend_mask) {
  fmt_bundle_t bundle;
  const anim_skeleton_t *sk = load_rig(&bundle);
  json_t *mask = json_pack("[s,s]", "c", "a");
  float w[3] = {9, 9, 9};
  srv_error_t e;
  ck_assert_int_eq(srv_blend_mask_parse(mask, sk, 0, NULL, w, &e), 0);
  ck_assert_float_eq(w[anim_skeleton_find(sk, "a")], 1);
  ck_assert_float_eq(w[anim_skeleton_find(sk, "b")], 0);
  ck_assert_float_eq(w[anim_skeleton_find(sk, "c")], 1);
  json_decref(mask);
  mask = json_pack("[s,s]", "a", "tail");
  case_t c = {"mask [a, tail]", SRV_ERR_UNKNOWN_JOINT, "layers[2].mask[1]"};
  check_error(srv_blend_mask_parse(mask, sk, 2, NULL, w, &e), &e, &c);
  json_decref(mask);
  fmt_bundle_free(&bundle);
}
END_TEST

/* A pose body held within another request's body: the same parser, its
 * errors under the holder's spot, and without need_t a layer takes no
 * "t". */
START_TEST(test_blend_body_within) {
  json_t *o = json_pack("{s:s,s:[{s:s,s:f,s:s}]}", "skeleton", "rig", "layers",
                        "clip", "walk", "weight", 0.5, "wrap", "loop");
  srv_blend_body_t b;
  srv_error_t e;
  ck_assert_int_eq(srv_blend_body_parse_json(o, "a", false, &b, &e), 0);
  ck_assert_str_eq(b.skeleton, "rig");
  ck_assert_uint_eq(b.layer_count, 1);
  ck_assert_str_eq(b.layers[0].clip, "walk");
  ck_assert_float_eq(b.layers[0].weight, 0.5f);
  ck_assert(b.layers[0].wrap_given);
  ck_assert(!b.binary);
  srv_blend_body_free(&b);
  /* need_t: t is required. */
  case_t c = {"no t", SRV_ERR_MISSING_FIELD, "cases[1].compare.b.layers[0].t"};
  check_error(srv_blend_body_parse_json(o, "cases[1].compare.b", true, &b, &e),
              &e, &c);
  json_object_set_new(json_array_get(json_object_get(o, "layers"), 0), "t",
                      json_real(1));
  case_t t = {"t", SRV_ERR_UNKNOWN_FIELD, "a.layers[0].t"};
  check_error(srv_blend_body_parse_json(o, "a", false, &b, &e), &e, &t);
  json_object_del(o, "skeleton");
  case_t k = {"no skeleton", SRV_ERR_MISSING_FIELD, "skeleton"};
  check_error(srv_blend_body_parse_json(o, "", false, &b, &e), &e, &k);
  json_decref(o);
  json_t *arr = json_array();
  case_t w = {"not an object", SRV_ERR_WRONG_TYPE, "b"};
  check_error(srv_blend_body_parse_json(arr, "b", false, &b, &e), &e, &w);
  json_decref(arr);
}
END_TEST

/* ---- POST /v1/solve
 * ------------------------------------------------------------ */

static const case_t solve_body_errors[] = {
    {"{\"a\":1,\n]", SRV_ERR_BAD_JSON, "line 2, column 1"},
    {"[]", SRV_ERR_MISSING_FIELD, "skeleton"},
    {"{\"frames\":[]}", SRV_ERR_MISSING_FIELD, "skeleton"},
    {"{\"skeleton\":[1]}", SRV_ERR_WRONG_TYPE, "skeleton"},
};

/* For a skeleton of 2 joints. */
static const case_t solve_frame_errors[] = {
    {"{\"skeleton\":\"s\"}", SRV_ERR_MISSING_FIELD, "frames"},
    {"{\"skeleton\":\"s\",\"frames\":[]}", SRV_ERR_WRONG_TYPE, "frames"},
    {"{\"skeleton\":\"s\",\"frames\":{}}", SRV_ERR_WRONG_TYPE, "frames"},
    {"{\"skeleton\":\"s\",\"frames\":[[0,0,0,0,0,0],7]}", SRV_ERR_WRONG_TYPE,
     "frames[1]"},
    {"{\"skeleton\":\"s\",\"frames\":[[0,0,0]]}", SRV_ERR_VALUE_COUNT,
     "frames[0]"},
    {"{\"skeleton\":\"s\",\"frames\":[[]]}", SRV_ERR_VALUE_COUNT, "frames[0]"},
    {"{\"skeleton\":\"s\",\"frames\":[[[0,0,0]]]}", SRV_ERR_VALUE_COUNT,
     "frames[0]"},
    {"{\"skeleton\":\"s\",\"frames\":[[[0,0,0],[0,0]]]}", SRV_ERR_VALUE_COUNT,
     "frames[0][1]"},
    {"{\"skeleton\":\"s\",\"frames\":[[[0,0,0],5]]}", SRV_ERR_VALUE_COUNT,
     "frames[0][1]"},
    {"{\"skeleton\":\"s\",\"frames\":[[[0,0,0],[0,0,\"x\"]]]}",
     SRV_ERR_NOT_FINITE, "frames[0][1][2]"},
    {"{\"skeleton\":\"s\",\"frames\":[[0,0,\"x\",0,0,0]]}", SRV_ERR_NOT_FINITE,
     "frames[0][2]"},
    {"{\"skeleton\":\"s\",\"frames\":[[0,0,0,0,0,1e39]]}", SRV_ERR_NOT_FINITE,
     "frames[0][5]"},
};

START_TEST(test_solve_body_errors) {
  for (size_t i = 0; i < sizeof solve_body_errors / sizeof solve_body_errors[0];
       i++) {
    srv_solve_body_t b;
    srv_error_t e;
    const char *in = solve_body_errors[i].input;
    check_error(srv_solve_body_parse(in, strlen(in), &b, &e), &e,
                &solve_body_errors[i]);
  }
  for (size_t i = 0;
       i < sizeof solve_frame_errors / sizeof solve_frame_errors[0]; i++) {
    srv_solve_body_t b;
    srv_error_t e;
    const char *in = solve_frame_errors[i].input;
    ck_assert_int_eq(srv_solve_body_parse(in, strlen(in), &b, &e), 0);
    float *p = (float *)1;
    size_t frames = 9;
    check_error(srv_solve_positions_parse(&b, 2, &p, &frames, &e), &e,
                &solve_frame_errors[i]);
    ck_assert_ptr_null(p);
    ck_assert_uint_eq(frames, 0);
    srv_solve_body_free(&b);
  }
  /* More positions than the limit, before any is read. */
  const char *in = "{\"skeleton\":\"s\",\"frames\":[[],[]]}";
  srv_solve_body_t b;
  srv_error_t e;
  float *p;
  size_t frames;
  ck_assert_int_eq(srv_solve_body_parse(in, strlen(in), &b, &e), 0);
  case_t c = {"too many positions", SRV_ERR_TOO_LARGE, "frames"};
  check_error(
      srv_solve_positions_parse(&b, SRV_SOLVE_MAX_FLOATS / 4, &p, &frames, &e),
      &e, &c);
  srv_solve_body_free(&b);
}
END_TEST

START_TEST(test_solve_body) {
  const char *in = "{\"skeleton\":\"rig\",\"frames\":[[1,2,3,4,5,6],"
                   "[[7,8,9],[10,11,12.5]]]}";
  srv_solve_body_t b;
  srv_error_t e;
  ck_assert_int_eq(srv_solve_body_parse(in, strlen(in), &b, &e), 0);
  ck_assert_str_eq(b.skeleton, "rig");
  float *p;
  size_t frames;
  ck_assert_int_eq(srv_solve_positions_parse(&b, 2, &p, &frames, &e), 0);
  ck_assert_uint_eq(frames, 2);
  for (int i = 0; i < 11; i++) ck_assert_float_eq(p[i], (float)(i + 1));
  ck_assert_float_eq(p[11], 12.5f);
  free(p);
  srv_solve_body_free(&b);
}
END_TEST

Suite *server_api_requests_suite(void) {
  Suite *s = suite_create("server_api_requests");
  TCase *tc = tcase_create("parse");
  tcase_add_test(tc, test_pose_query_errors);
  tcase_add_test(tc, test_pose_query);
  tcase_add_test(tc, test_pose_query_numbers);
  tcase_add_test(tc, test_skin_query_errors);
  tcase_add_test(tc, test_skin_query);
  tcase_add_test(tc, test_blend_body_errors);
  tcase_add_test(tc, test_blend_body);
  tcase_add_test(tc, test_blend_mask);
  tcase_add_test(tc, test_blend_body_within);
  tcase_add_test(tc, test_solve_body_errors);
  tcase_add_test(tc, test_solve_body);
  suite_add_tcase(s, tc);
  return s;
}
