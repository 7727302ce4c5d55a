/* Tests for the glTF importer's morph targets: a hand-built document with
 * one skinned mesh of three vertices and two POSITION targets, the mesh's
 * default weights, and "weights" channels with CUBICSPLINE (per key
 * a1 a2 v1 v2 b1 b2) and LINEAR samplers; the clip's weight tracks keep
 * that layout, sample to hand-computed values, and a weights output of
 * the wrong size is refused at its sampler. */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animd/morph.h"
#include "formats/bundle.h"

#define GLTF "model/gltf+json"
#define BUF_LEN 240

static const float times[2] = {0, 1};
static const float positions[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
static const float target0[9] = {0, 0, 1, 0, 0, 1, 0, 0, 1};
static const float target1[9] = {1, 0, 0, 0, 2, 0, 0, 0, 3};
/* Per key: in-tangents a1 a2, values v1 v2, out-tangents b1 b2. The 9s
 * are tangents the segment [0, 1] never reads. */
static const float cubic[12] = {9, 9, 0, 1, 2, 0, 0, 4, 1, 0, 9, 9};
static const float linear[4] = {0, 1, 1, 0};

static void make_buffer(uint8_t *b, size_t cubic_count) {
  memset(b, 0, BUF_LEN);
  const uint8_t joints[12] = {0};
  const float w[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
  memcpy(b + 0, times, 8);
  memcpy(b + 8, positions, 36);
  memcpy(b + 44, joints, 12);
  memcpy(b + 56, w, 48);
  memcpy(b + 104, target0, 36);
  memcpy(b + 140, target1, 36);
  memcpy(b + 176, cubic, 4 * cubic_count);
  memcpy(b + 224, linear, 16);
}

static const char *doc_json =
    "{\"asset\":{\"version\":\"2.0\"},"
    "\"nodes\":[{\"name\":\"root\"},"
    " {\"name\":\"face\",\"mesh\":0,\"skin\":0}],"
    "\"skins\":[{\"joints\":[0]}],"
    "\"meshes\":[{\"name\":\"face\",\"weights\":[0.5,0.25],"
    " \"primitives\":[{\"attributes\":"
    " {\"POSITION\":1,\"JOINTS_0\":2,\"WEIGHTS_0\":3},"
    " \"targets\":[{\"POSITION\":4},{\"POSITION\":5}]}]}],"
    "\"animations\":["
    " {\"name\":\"cubic\",\"channels\":[{\"sampler\":0,"
    "  \"target\":{\"node\":1,\"path\":\"weights\"}}],"
    "  \"samplers\":[{\"input\":0,\"output\":6,"
    "  \"interpolation\":\"CUBICSPLINE\"}]},"
    " {\"name\":\"linear\",\"channels\":[{\"sampler\":0,"
    "  \"target\":{\"node\":1,\"path\":\"weights\"}}],"
    "  \"samplers\":[{\"input\":0,\"output\":7}]}],"
    "\"buffers\":[{\"byteLength\":240}],"
    "\"bufferViews\":["
    " {\"buffer\":0,\"byteOffset\":0,\"byteLength\":8},"
    " {\"buffer\":0,\"byteOffset\":8,\"byteLength\":36},"
    " {\"buffer\":0,\"byteOffset\":44,\"byteLength\":12},"
    " {\"buffer\":0,\"byteOffset\":56,\"byteLength\":48},"
    " {\"buffer\":0,\"byteOffset\":104,\"byteLength\":36},"
    " {\"buffer\":0,\"byteOffset\":140,\"byteLength\":36},"
    " {\"buffer\":0,\"byteOffset\":176,\"byteLength\":48},"
    " {\"buffer\":0,\"byteOffset\":224,\"byteLength\":16}],"
    "\"accessors\":["
    " {\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"}"
    ","
    " {\"bufferView\":1,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
    " {\"bufferView\":2,\"componentType\":5121,\"count\":3,\"type\":\"VEC4\"},"
    " {\"bufferView\":3,\"componentType\":5126,\"count\":3,\"type\":\"VEC4\"},"
    " {\"bufferView\":4,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
    " {\"bufferView\":5,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
    " {\"bufferView\":6,\"componentType\":5126,\"count\":12,"
    "  \"type\":\"SCALAR\"},"
    " {\"bufferView\":7,\"componentType\":5126,\"count\":4,\"type\":\"SCALAR\"}"
    "]}";

/* Decodes the document with the cubic output holding cubic_count floats;
 * the decoder's status. */
static int decode(size_t cubic_count, fmt_bundle_t *b, fmt_error_t *e) {
  uint8_t buf[BUF_LEN];
  make_buffer(buf, cubic_count < 12 ? cubic_count : 12);
  json_error_t je;
  json_t *d = json_loads(doc_json, 0, &je);
  ck_assert_msg(d != NULL, "doc: %s", je.text);
  json_object_set_new(json_array_get(json_object_get(d, "accessors"), 6),
                      "count", json_integer((json_int_t)cubic_count));
  unsigned char b64[BUF_LEN * 2];
  int n = EVP_EncodeBlock(b64, buf, BUF_LEN);
  char uri[BUF_LEN * 2 + 64];
  snprintf(uri, sizeof uri, "data:application/octet-stream;base64,%.*s", n,
           (const char *)b64);
  json_object_set_new(json_array_get(json_object_get(d, "buffers"), 0), "uri",
                      json_string(uri));
  char *s = json_dumps(d, JSON_COMPACT);
  memset(e, 0, sizeof *e);
  int rc = fmt_decode(GLTF, s, strlen(s), NULL, b, e);
  free(s);
  json_decref(d);
  return rc;
}

static const anim_clip_t *clip_named(const fmt_bundle_t *b, const char *n) {
  for (size_t i = 0; i < b->clip_count; i++)
    if (strcmp(b->clips[i].clip->name, n) == 0) return b->clips[i].clip;
  ck_abort_msg("no clip %s", n);
  return NULL;
}

START_TEST(test_mesh_targets) {
  fmt_bundle_t b;
  fmt_error_t e;
  ck_assert_msg(decode(12, &b, &e) == 0, "%s", e.message);
  ck_assert_uint_eq(b.mesh_count, 1);
  const anim_mesh_t *m = b.meshes[0].mesh;
  ck_assert_uint_eq(m->target_count, 2);
  ck_assert_ptr_null(m->target_normals);
  ck_assert_mem_eq(m->target_positions, target0, sizeof target0);
  ck_assert_mem_eq(m->target_positions + 9, target1, sizeof target1);
  ck_assert_float_eq(m->default_weights[0], 0.5f);
  ck_assert_float_eq(m->default_weights[1], 0.25f);
  fmt_bundle_free(&b);
}
END_TEST

START_TEST(test_cubic_layout) {
  fmt_bundle_t b;
  fmt_error_t e;
  ck_assert_msg(decode(12, &b, &e) == 0, "%s", e.message);
  const anim_clip_t *c = clip_named(&b, "cubic");
  ck_assert_uint_eq(c->track_count, 0);
  ck_assert_uint_eq(c->weight_track_count, 1);
  const anim_weight_track_t *w = anim_clip_weight_track(c, "face");
  ck_assert_ptr_nonnull(w);
  ck_assert_uint_eq(w->interpolation, ANIM_INTERP_CUBICSPLINE);
  ck_assert_uint_eq(w->target_count, 2);
  ck_assert_uint_eq(w->key_count, 2);
  ck_assert_mem_eq(w->values, cubic, sizeof cubic);
  float out[2];
  /* Keys: v at the ends. */
  anim_weight_track_sample(w, 0.f, out);
  ck_assert_float_eq(out[0], 0.f);
  ck_assert_float_eq(out[1], 1.f);
  anim_weight_track_sample(w, 1.f, out);
  ck_assert_float_eq(out[0], 1.f);
  ck_assert_float_eq(out[1], 0.f);
  /* u = 0.5, dt = 1: 0.5 v0 + 0.125 b0 + 0.5 v1 - 0.125 a1. */
  anim_weight_track_sample(w, 0.5f, out);
  ck_assert_float_eq_tol(out[0], 0.5f * 0 + 0.125f * 2 + 0.5f * 1, 1e-6f);
  ck_assert_float_eq_tol(out[1], 0.5f * 1 + 0.5f * 0 - 0.125f * 4, 1e-6f);
  /* u = 0.25: h00 = 27/32, h10 = 9/64, h01 = 5/32, h11 = -3/64. */
  anim_weight_track_sample(w, 0.25f, out);
  ck_assert_float_eq_tol(out[0], 9.f / 64 * 2 + 5.f / 32, 1e-6f);
  ck_assert_float_eq_tol(out[1], 27.f / 32 - 3.f / 64 * 4, 1e-6f);
  fmt_bundle_free(&b);
}
END_TEST

START_TEST(test_linear_channel) {
  fmt_bundle_t b;
  fmt_error_t e;
  ck_assert_msg(decode(12, &b, &e) == 0, "%s", e.message);
  const anim_weight_track_t *w =
      anim_clip_weight_track(clip_named(&b, "linear"), "face");
  ck_assert_ptr_nonnull(w);
  ck_assert_uint_eq(w->interpolation, ANIM_INTERP_LINEAR);
  float out[2];
  anim_weight_track_sample(w, 0.25f, out);
  ck_assert_float_eq_tol(out[0], 0.25f, 1e-7f);
  ck_assert_float_eq_tol(out[1], 0.75f, 1e-7f);
  anim_weight_track_sample(w, 7.f, out); /* After the last key. */
  ck_assert_float_eq(out[0], 1.f);
  ck_assert_float_eq(out[1], 0.f);
  fmt_bundle_free(&b);
}
END_TEST

START_TEST(test_wrong_weight_count) {
  fmt_bundle_t b;
  fmt_error_t e;
  /* 2 keys x 2 targets x 3 = 12 floats; 8 is a LINEAR-sized output. */
  ck_assert_int_ne(decode(8, &b, &e), 0);
  ck_assert_str_eq(e.at, "animations[0].samplers[0].output");
}
END_TEST

Suite *gltf_morph_suite(void);
Suite *gltf_morph_suite(void) {
  Suite *s = suite_create("gltf_morph");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_mesh_targets);
  tcase_add_test(tc, test_cubic_layout);
  tcase_add_test(tc, test_linear_channel);
  tcase_add_test(tc, test_wrong_weight_count);
  suite_add_tcase(s, tc);
  return s;
}
