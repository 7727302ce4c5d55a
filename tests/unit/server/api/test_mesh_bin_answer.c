/* Tests for GET /v1/meshes/{id}?format=bin through the in-memory
 * transport: the block's header and streams equal the JSON describe answer
 * of the same mesh (positions, normals, joints, weights, indices), the
 * ETag differs from the JSON one and answers 304, and a bad format is 400. */
#include <check.h>
#include <jansson.h>
#include <string.h>

#include "../../formats/mesh_bin_read.h"
#include "../http/http_memory_fixture.h"

/* The value of header name in an answer's head ("" when absent). */
static const char *header(const mem_answer_t *a, const char *name, char *out,
                          size_t cap) {
  char key[64];
  snprintf(key, sizeof key, "\r\n%s: ", name);
  const char *p = strstr(a->head, key);
  out[0] = '\0';
  if (p == NULL) return out;
  p += strlen(key);
  size_t n = strcspn(p, "\r");
  if (n >= cap) n = cap - 1;
  memcpy(out, p, n);
  out[n] = '\0';
  return out;
}

START_TEST(test_bin_equals_json) {
  mem_server_start();
  mem_answer_t j = mem_get("/v1/meshes/body");
  ck_assert_int_eq(j.status, 200);
  json_error_t err;
  json_t *root = json_loads(j.body, 0, &err);
  ck_assert_ptr_nonnull(root);
  mem_answer_t b = mem_get("/v1/meshes/body?format=bin");
  ck_assert_int_eq(b.status, 200);
  char h[128];
  ck_assert_str_eq(header(&b, "Content-Type", h, sizeof h),
                   "application/octet-stream");
  ck_assert_str_eq(header(&b, "X-Animd-Layout", h, sizeof h), "mesh");
  ck_assert_str_eq(header(&b, "X-Animd-Vertices", h, sizeof h), "512");
  const char *d = b.body;
  ck_assert_int_eq(memcmp(d, "AMSH", 4), 0);
  ck_assert_uint_eq(u32_at(d, 56), b.body_len);
  uint32_t v = u32_at(d, 16), k = u32_at(d, 24), ni = u32_at(d, 20);
  ck_assert_uint_eq(v, 512);
  ck_assert_uint_eq(u32_at(d, 28), 17);
  json_t *pos = json_object_get(root, "positions");
  json_t *nrm = json_object_get(root, "normals");
  json_t *jnt = json_object_get(root, "joints");
  json_t *wgt = json_object_get(root, "weights");
  json_t *idx = json_object_get(root, "indices");
  ck_assert_uint_eq(json_integer_value(json_object_get(root, "influences")), k);
  ck_assert_uint_eq(json_array_size(pos), 3 * v);
  ck_assert_uint_eq(json_array_size(idx), ni);
  size_t at_p = u32_at(d, 36), at_n = u32_at(d, 40), at_j = u32_at(d, 48);
  size_t at_w = u32_at(d, 52), at_i = u32_at(d, 32);
  for (size_t i = 0; i < 3 * v; i++) {
    ck_assert_float_eq(f32_at(d, at_p + 4 * i),
                       (float)json_number_value(json_array_get(pos, i)));
    ck_assert_float_eq(f32_at(d, at_n + 4 * i),
                       (float)json_number_value(json_array_get(nrm, i)));
  }
  for (size_t i = 0; i < k * v; i++) {
    ck_assert_uint_eq(u16_at(d, at_j + 2 * i),
                      json_integer_value(json_array_get(jnt, i)));
    ck_assert_float_eq(f32_at(d, at_w + 4 * i),
                       (float)json_number_value(json_array_get(wgt, i)));
  }
  for (size_t i = 0; i < ni; i++)
    ck_assert_uint_eq(u32_at(d, at_i + 4 * i),
                      json_integer_value(json_array_get(idx, i)));
  char etag_j[64], etag_b[64];
  header(&j, "ETag", etag_j, sizeof etag_j);
  header(&b, "ETag", etag_b, sizeof etag_b);
  ck_assert_str_ne(etag_j, etag_b);
  json_decref(root);
  mem_answer_free(&j);
  mem_answer_free(&b);

  char req[256];
  snprintf(req, sizeof req,
           "GET /v1/meshes/body HTTP/1.1\r\nHost: h\r\n"
           "Accept: application/octet-stream\r\nIf-None-Match: %s\r\n\r\n",
           etag_b);
  srv_http_memory_t *m = mem_client();
  mem_answer_t nm = mem_request(m, req);
  srv_http_memory_free(m);
  ck_assert_int_eq(nm.status, 304);
  mem_answer_free(&nm);

  mem_answer_t bad = mem_get("/v1/meshes/body?format=xml");
  ck_assert_int_eq(bad.status, 400);
  mem_answer_free(&bad);
  mem_server_stop();
}
END_TEST

Suite *api_mesh_bin_suite(void) {
  Suite *s = suite_create("api_mesh_bin");
  TCase *tc = tcase_create("answer");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_bin_equals_json);
  suite_add_tcase(s, tc);
  return s;
}
