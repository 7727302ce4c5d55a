/* Tests for the canonical native JSON encodings and content ids: decode,
 * encode, decode again gives the same built objects bit for bit; the
 * canonical text of a tiny skeleton is written out by hand and its id was
 * computed independently (sha256sum / Python hashlib over that text). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/native_json.h"

/* The expected canonical text of TINY_INPUT and its SHA-256 (sha256sum). */
#define TINY_CANONICAL                                                         \
  "{\"skeleton\":{\"name\":\"t\",\"joints\":[{\"name\":\"root\",\"parent\":"   \
  "-1,\"translation\":[0,1,0],\"rotation\":[0,0,0,1],\"scale\":[1,1,1]},"      \
  "{\"name\":\"tip\",\"parent\":0,\"translation\":[0.5,0,0],\"rotation\":"     \
  "[0,0,0,1],\"scale\":[1,1,1]}],\"inverseBindMatrices\":[1,0,0,0,0,1,0,0,"    \
  "0,0,1,0,0,-1,0,1,1,0,0,0,0,1,0,0,0,0,1,0,-0.5,-1,0,1]}}"
#define TINY_ID                                                                \
  "c438b08ea5e81456b61530e0762c4a0c8ad9b0eab8ccc2b0e2189631b63a525b"
/* The same skeleton written differently: member order, spacing, 1.0 for 1,
 * defaults left out. */
#define TINY_INPUT                                                             \
  "{ \"skeleton\": { \"joints\": [ {\"parent\": -1, \"name\": \"root\", "      \
  "\"translation\": [0.0, 1.0, 0e0]},\n {\"scale\":[1,1,1], \"name\":"         \
  "\"tip\", \"parent\": 0, \"translation\": [5e-1, 0, 0]} ], "                 \
  "\"name\": \"t\" } }"

static const char *const FAKE_SKELETON_ID =
    "00000000000000000000000000000000000000000000000000000000000000aa";

static char *read_text(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "cannot open %s (run from the repository root)",
                path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *data = malloc((size_t)n + 1);
  ck_assert_uint_eq(fread(data, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  data[n] = '\0';
  *len = (size_t)n;
  return data;
}

static void decode_ok(const char *text, size_t len,
                      const fmt_decode_options_t *opts, fmt_bundle_t *b) {
  fmt_error_t err = {0};
  int rc = fmt_decode_native_json(text, len, opts, b, &err);
  ck_assert_msg(rc == 0, "decode failed: %s at %s: %s",
                fmt_error_name(err.code), err.at, err.message);
}

static const anim_skeleton_t *resolve_fixed(const char *id, void *user) {
  return strcmp(id, FAKE_SKELETON_ID) == 0 ? user : NULL;
}

#define SAME_BYTES(a, b, n) ck_assert_int_eq(memcmp((a), (b), (n)), 0)

static void same_skeleton(const anim_skeleton_t *a, const anim_skeleton_t *b) {
  uint32_t n = a->joint_count;
  ck_assert_uint_eq(n, b->joint_count);
  ck_assert_str_eq(a->name, b->name);
  SAME_BYTES(a->parents, b->parents, n * sizeof *a->parents);
  SAME_BYTES(a->rest, b->rest, n * sizeof *a->rest);
  SAME_BYTES(a->orient, b->orient, n * sizeof *a->orient);
  SAME_BYTES(a->inverse_bind, b->inverse_bind, n * sizeof *a->inverse_bind);
  SAME_BYTES(a->to_caller, b->to_caller, n * sizeof *a->to_caller);
  SAME_BYTES(a->from_caller, b->from_caller, n * sizeof *a->from_caller);
  ck_assert_int_eq(a->has_orient, b->has_orient);
  for (uint32_t i = 0; i < n; i++) ck_assert_str_eq(a->names[i], b->names[i]);
}

static void same_clip(const anim_clip_t *a, const anim_clip_t *b) {
  ck_assert_str_eq(a->name, b->name);
  ck_assert_int_eq(memcmp(&a->duration, &b->duration, 4), 0);
  ck_assert_uint_eq(a->track_count, b->track_count);
  for (uint32_t i = 0; i < a->track_count; i++) {
    const anim_track_t *x = &a->tracks[i], *y = &b->tracks[i];
    ck_assert_uint_eq(x->joint, y->joint);
    ck_assert_uint_eq(x->path, y->path);
    ck_assert_uint_eq(x->interpolation, y->interpolation);
    ck_assert_uint_eq(x->key_count, y->key_count);
    ck_assert_uint_eq(x->fixed_rate, y->fixed_rate);
    size_t per =
        x->components * (x->interpolation == ANIM_INTERP_CUBICSPLINE ? 3u : 1u);
    SAME_BYTES(x->times, y->times, x->key_count * 4);
    SAME_BYTES(x->values, y->values, x->key_count * per * 4);
    if (x->bezier) SAME_BYTES(x->bezier, y->bezier, x->key_count * 16);
  }
}

static void same_mesh(const anim_mesh_t *a, const anim_mesh_t *b) {
  size_t v = a->vertex_count, k = a->influences;
  ck_assert_uint_eq(v, b->vertex_count);
  ck_assert_uint_eq(k, b->influences);
  ck_assert_str_eq(a->name, b->name);
  SAME_BYTES(a->positions, b->positions, v * 12);
  ck_assert_int_eq(a->normals == NULL, b->normals == NULL);
  if (a->normals) SAME_BYTES(a->normals, b->normals, v * 12);
  SAME_BYTES(a->joints, b->joints, v * k * 2);
  SAME_BYTES(a->weights, b->weights, v * k * 4);
  ck_assert_uint_eq(a->index_count, b->index_count);
  if (a->index_count) SAME_BYTES(a->indices, b->indices, a->index_count * 4);
  ck_assert_int_eq(a->texcoords == NULL, b->texcoords == NULL);
  if (a->texcoords) SAME_BYTES(a->texcoords, b->texcoords, v * 8);
  const anim_mesh_material_t *x = &a->material, *y = &b->material;
  ck_assert_int_eq(x->name == NULL, y->name == NULL);
  if (x->name) ck_assert_str_eq(x->name, y->name);
  ck_assert_int_eq(x->has_texture, y->has_texture);
  ck_assert_uint_eq(x->texture, y->texture);
  ck_assert_int_eq(x->image_uri == NULL, y->image_uri == NULL);
  if (x->image_uri) ck_assert_str_eq(x->image_uri, y->image_uri);
  ck_assert_uint_eq(x->image_size, y->image_size);
  if (x->image_size) {
    ck_assert_str_eq(x->image_type, y->image_type);
    SAME_BYTES(x->image, y->image, x->image_size);
  }
}

/* Encodes every asset of b, decodes each text again and compares. */
static void round_trip_bundle(fmt_bundle_t *b) {
  for (size_t i = 0; i < b->skeleton_count; i++) {
    fmt_buf_t t1 = FMT_BUF_INIT, t2 = FMT_BUF_INIT;
    ck_assert_int_eq(fmt_encode_skeleton(&t1, b->skeletons[i]), 0);
    fmt_bundle_t again;
    decode_ok(t1.data, t1.len, NULL, &again);
    ck_assert_uint_eq(again.skeleton_count, 1);
    same_skeleton(b->skeletons[i], again.skeletons[0]);
    ck_assert_int_eq(fmt_encode_skeleton(&t2, again.skeletons[0]), 0);
    ck_assert_uint_eq(t1.len, t2.len);
    SAME_BYTES(t1.data, t2.data, t1.len);
    fmt_bundle_free(&again);
    fmt_buf_free(&t1);
    fmt_buf_free(&t2);
  }
  for (size_t i = 0; i < b->clip_count + b->mesh_count; i++) {
    bool clip = i < b->clip_count;
    size_t m = clip ? i : i - b->clip_count;
    uint32_t k = clip ? b->clips[m].skeleton : b->meshes[m].skeleton;
    const anim_skeleton_t *s = b->skeletons[k];
    fmt_decode_options_t opts = {.resolve = resolve_fixed,
                                 .resolve_user_data = (void *)s};
    fmt_buf_t t1 = FMT_BUF_INIT, t2 = FMT_BUF_INIT;
    if (clip)
      ck_assert_int_eq(
          fmt_encode_clip(&t1, b->clips[m].clip, s, FAKE_SKELETON_ID), 0);
    else
      ck_assert_int_eq(
          fmt_encode_mesh(&t1, b->meshes[m].mesh, s, FAKE_SKELETON_ID), 0);
    fmt_bundle_t again;
    decode_ok(t1.data, t1.len, &opts, &again);
    if (clip) {
      ck_assert_uint_eq(again.clip_count, 1);
      ck_assert_uint_eq(again.clips[0].skeleton, FMT_EXTERNAL_SKELETON);
      same_clip(b->clips[m].clip, again.clips[0].clip);
      fmt_encode_clip(&t2, again.clips[0].clip, s, FAKE_SKELETON_ID);
    } else {
      ck_assert_uint_eq(again.mesh_count, 1);
      same_mesh(b->meshes[m].mesh, again.meshes[0].mesh);
      fmt_encode_mesh(&t2, again.meshes[0].mesh, s, FAKE_SKELETON_ID);
    }
    ck_assert_uint_eq(t1.len, t2.len);
    SAME_BYTES(t1.data, t2.data, t1.len);
    fmt_bundle_free(&again);
    fmt_buf_free(&t1);
    fmt_buf_free(&t2);
  }
}

START_TEST(test_demo_round_trip) {
  size_t len;
  char *text = read_text("config/demo.json", &len);
  fmt_bundle_t b;
  decode_ok(text, len, NULL, &b);
  ck_assert_uint_eq(b.skeleton_count, 1);
  ck_assert_uint_eq(b.clip_count, 2);
  ck_assert_uint_eq(b.mesh_count, 1);
  round_trip_bundle(&b);
  fmt_bundle_free(&b);
  free(text);
}
END_TEST

/* Every interpolation, orient, explicit inverse bind matrices, awkward
 * floats, 8 influences, several roots and a joint order that is not
 * parents-first. (Rotations here are exactly unit in float: the
 * builders renormalize them, which is not always a fixed point
 * for a quaternion that is unit only to rounding.) */
START_TEST(test_every_feature_round_trip) {
  static const char text[] =
      "{\"skeleton\":{\"name\":\"f\",\"joints\":["
      "{\"name\":\"c\",\"parent\":2,\"translation\":[0.1,0.2,0.3],"
      "\"rotation\":[0,1,0,0],\"orient\":[0.5,-0.5,0.5,0.5]},"
      "{\"name\":\"r2\",\"parent\":-1,\"scale\":[2,1e-3,3.4e38]},"
      "{\"name\":\"r\",\"parent\":-1,\"translation\":[1e-30,-7,3.14159265]}],"
      "\"inverseBindMatrices\":[1,0,0,0,0,1,0,0,0,0,1,0,0.25,0,0,1,"
      "1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1, 2,0,0,0,0,2,0,0,0,0,2,0,0,0,0,1]},"
      "\"clips\":[{\"name\":\"all\",\"duration\":5,\"tracks\":["
      "{\"joint\":\"c\",\"path\":\"rotation\",\"interpolation\":\"SQUAD\","
      "\"times\":[0,1,2],\"values\":[0,0,0,1,0.5,0.5,0.5,0.5,"
      "0,1,0,0]},"
      "{\"joint\":1,\"path\":\"translation\",\"interpolation\":\"BEZIER\","
      "\"times\":[0,0.1,0.2],\"values\":[0,0,0,1,1,1,2,2,2],"
      "\"bezier\":[0.25,0.1,0.25,1,0,0,1,1,0.42,0,0.58,1]},"
      "{\"joint\":\"r2\",\"path\":\"scale\",\"interpolation\":\"STEP\","
      "\"times\":[0.5],\"values\":[1,2,3]},"
      "{\"joint\":\"r\",\"path\":\"rotation\",\"interpolation\":"
      "\"CUBICSPLINE\",\"times\":[0,1],\"values\":[0,0,0,0,0,0,0,1,0.1,0,0,0,"
      "0,0,0,0,0.5,0.5,-0.5,0.5,0,0,0,0]},"
      "{\"joint\":\"r\",\"path\":\"translation\",\"times\":[0,0.033333335,"
      "0.06666667,0.1],\"values\":[0,0,0,1,0,0,2,0,0,3,0,0]}]}],"
      "\"meshes\":[{\"name\":\"m\",\"influences\":8,"
      "\"positions\":[0,0,0,1,2,3],"
      "\"joints\":[0,1,2,0,0,0,0,0, 2,1,0,0,0,0,0,0],"
      "\"weights\":[0.5,0.25,0.25,0,0,0,0,0, 0.125,0.125,0.75,0,0,0,0,0],"
      "\"indices\":[0,1,1],\"texcoords\":[0.5,0.25,1,-2],"
      "\"material\":{\"name\":\"skin\",\"texture\":3,"
      "\"image\":{\"mimeType\":\"image/png\",\"data\":\"iVBORw==\"}}},"
      "{\"name\":\"n\",\"positions\":[0,0,0],\"joints\":[0],"
      "\"weights\":[1],\"influences\":1,"
      "\"material\":{\"image\":{\"uri\":\"a b.png\"}}}]}";
  fmt_bundle_t b;
  decode_ok(text, sizeof text - 1, NULL, &b);
  ck_assert_uint_eq(b.clips[0].clip->track_count, 5);
  const anim_mesh_t *m = b.meshes[0].mesh;
  ck_assert_float_eq(m->texcoords[3], -2);
  ck_assert_uint_eq(m->material.image_size, 4);
  ck_assert_mem_eq(m->material.image, "\x89PNG", 4);
  ck_assert_str_eq(b.meshes[1].mesh->material.image_uri, "a b.png");
  /* The describe answer gives the image's size and route, not its data. */
  fmt_buf_t d = FMT_BUF_INIT;
  ck_assert_int_eq(fmt_describe_mesh(&d, FAKE_SKELETON_ID, m, b.skeletons[0],
                                     FAKE_SKELETON_ID),
                   0);
  ck_assert_ptr_nonnull(
      strstr(fmt_buf_cstr(&d), ",\"texcoords\":[0.5,0.25,1,-2],\"joints\":"));
  ck_assert_ptr_nonnull(strstr(fmt_buf_cstr(&d),
                               "\"material\":{\"name\":\"skin\",\"texture\":3,"
                               "\"image\":{\"mimeType\":\"image/png\","
                               "\"bytes\":4,\"href\":\"/v1/meshes/"));
  fmt_buf_free(&d);
  round_trip_bundle(&b);
  fmt_bundle_free(&b);
}
END_TEST

/* Morph targets and weight tracks survive decode, encode, decode: the
 * store keeps assets as this text. */
START_TEST(test_morph_round_trip) {
  static const char body[] =
      "{\"skeleton\":{\"name\":\"m\",\"joints\":[{\"name\":\"r\","
      "\"parent\":-1}]},"
      "\"meshes\":[{\"name\":\"face\",\"positions\":[0,0,0,1,0,0,0,1,0],"
      "\"normals\":[0,0,1,0,0,1,0,0,1],\"influences\":1,"
      "\"joints\":[0,0,0],\"weights\":[1,1,1],"
      "\"targets\":[{\"positions\":[0,1,0,0,1,0,0,1,0],"
      "\"normals\":[1,0,0,1,0,0,1,0,0]},"
      "{\"positions\":[0,0,2,0,0,2,0,0,2],"
      "\"normals\":[0,0,0,0,0,0,0,0,0]}],\"target_weights\":[0.5,0]}],"
      "\"clips\":[{\"name\":\"talk\",\"tracks\":[],\"weights\":["
      "{\"mesh\":\"face\",\"interpolation\":\"CUBICSPLINE\","
      "\"times\":[0,1],\"values\":[9,9,0,1,2,0,0,4,1,0,9,9]}]}]}";
  fmt_bundle_t b;
  decode_ok(body, sizeof body - 1, NULL, &b);
  const anim_mesh_t *m = b.meshes[0].mesh;
  ck_assert_uint_eq(m->target_count, 2);
  ck_assert_ptr_nonnull(m->target_normals);
  ck_assert_float_eq(m->target_positions[10], 0.f);
  ck_assert_float_eq(m->target_positions[11], 2.f);
  ck_assert_float_eq(m->default_weights[0], 0.5f);
  const anim_clip_t *c = b.clips[0].clip;
  ck_assert_uint_eq(c->weight_track_count, 1);
  ck_assert_uint_eq(c->weight_tracks[0].target_count, 2);
  ck_assert_uint_eq(c->weight_tracks[0].interpolation, ANIM_INTERP_CUBICSPLINE);
  ck_assert_float_eq(c->duration, 1.f);
  round_trip_bundle(&b);
  fmt_bundle_free(&b);
}
END_TEST

START_TEST(test_tiny_canonical_text_and_id) {
  fmt_bundle_t b;
  decode_ok(TINY_INPUT, strlen(TINY_INPUT), NULL, &b);
  fmt_buf_t t = FMT_BUF_INIT;
  ck_assert_int_eq(fmt_encode_skeleton(&t, b.skeletons[0]), 0);
  ck_assert_str_eq(fmt_buf_cstr(&t), TINY_CANONICAL);
  char id[FMT_ID_LEN + 1];
  ck_assert_int_eq(fmt_content_id(t.data, t.len, id), 0);
  ck_assert_str_eq(id, TINY_ID);
  ck_assert(fmt_is_content_id(id));
  ck_assert(!fmt_is_content_id("C438b08e"));
  /* The describe answer: the inner object with the id first. */
  fmt_buf_reset(&t);
  ck_assert_int_eq(fmt_describe_skeleton(&t, id, b.skeletons[0]), 0);
  ck_assert_str_eq(fmt_buf_cstr(&t),
                   "{\"id\":\"" TINY_ID "\",\"name\":\"t\",\"joints\":[{"
                   "\"name\":\"root\",\"parent\":-1,\"translation\":[0,1,0],"
                   "\"rotation\":[0,0,0,1],\"scale\":[1,1,1]},{\"name\":"
                   "\"tip\",\"parent\":0,\"translation\":[0.5,0,0],"
                   "\"rotation\":[0,0,0,1],\"scale\":[1,1,1]}],"
                   "\"inverseBindMatrices\":[1,0,0,0,0,1,0,0,0,0,1,0,0,-1,0,"
                   "1,1,0,0,0,0,1,0,0,0,0,1,0,-0.5,-1,0,1]}");
  fmt_buf_free(&t);
  fmt_bundle_free(&b);
}
END_TEST

static void id_of_clip(const char *clip_json, const anim_skeleton_t *s,
                       const char *skeleton_id, char id[FMT_ID_LEN + 1]) {
  char text[1024];
  snprintf(text, sizeof text, "{\"clips\":[%s]}", clip_json);
  fmt_decode_options_t opts = {.skeleton = s};
  fmt_bundle_t b;
  decode_ok(text, strlen(text), &opts, &b);
  fmt_buf_t t = FMT_BUF_INIT;
  ck_assert_int_eq(fmt_encode_clip(&t, b.clips[0].clip, s, skeleton_id), 0);
  ck_assert_int_eq(fmt_content_id(t.data, t.len, id), 0);
  fmt_buf_free(&t);
  fmt_bundle_free(&b);
}

START_TEST(test_ids_equal_for_equal_content) {
  fmt_bundle_t b;
  decode_ok(TINY_INPUT, strlen(TINY_INPUT), NULL, &b);
  const anim_skeleton_t *s = b.skeletons[0];
  char a[65], c[65], d[65], e[65];
  id_of_clip("{\"name\":\"x\",\"tracks\":[{\"joint\":\"tip\",\"path\":"
             "\"translation\",\"times\":[0,1],\"values\":[0,0,0,1,0,0]}]}",
             s, TINY_ID, a);
  /* Joint by index, LINEAR spelled out, 1.0 for 1: the same clip. */
  id_of_clip("{\"tracks\":[{\"path\":\"translation\",\"joint\":1,"
             "\"interpolation\":\"LINEAR\",\"times\":[0.0,1.0],\"values\":"
             "[0,0,0,1.0,0,0]}],\"name\":\"x\",\"duration\":1}",
             s, TINY_ID, c);
  ck_assert_str_eq(a, c);
  /* Another value: another id. */
  id_of_clip("{\"name\":\"x\",\"tracks\":[{\"joint\":\"tip\",\"path\":"
             "\"translation\",\"times\":[0,1],\"values\":[0,0,0,2,0,0]}]}",
             s, TINY_ID, d);
  ck_assert_str_ne(a, d);
  /* The same clip on another skeleton id: another id. */
  id_of_clip("{\"name\":\"x\",\"tracks\":[{\"joint\":\"tip\",\"path\":"
             "\"translation\",\"times\":[0,1],\"values\":[0,0,0,1,0,0]}]}",
             s, FAKE_SKELETON_ID, e);
  ck_assert_str_ne(a, e);
  fmt_bundle_free(&b);
}
END_TEST

Suite *native_encode_suite(void) {
  Suite *s = suite_create("native_encode");
  TCase *tc = tcase_create("native_encode");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_demo_round_trip);
  tcase_add_test(tc, test_every_feature_round_trip);
  tcase_add_test(tc, test_morph_round_trip);
  tcase_add_test(tc, test_tiny_canonical_text_and_id);
  tcase_add_test(tc, test_ids_equal_for_equal_content);
  suite_add_tcase(s, tc);
  return s;
}
