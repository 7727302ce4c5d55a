/* Tests for the stream loops' shared frame cache (ws/frame_cache.h): its
 * memory stays within its byte budget however many distinct frames are
 * asked for, and idle entries give back their buffers and the assets they hold
 * (the asset's reference count returns to what the store alone holds). */
#include <check.h>
#include <stdatomic.h>
#include <string.h>

#include <uv.h>

#include "server/ws/frame_cache.h"
#include "ws_test_fixtures.h"

static store_t *open_store(void) {
  store_options_t o = {0};
  fmt_error_t err = {0};
  store_t *st;
  ck_assert_int_eq(store_open(&o, &st, &err), 0);
  fmt_bundle_t b;
  ck_assert_int_eq(fmt_decode_native_json(
                       ws_test_asset, sizeof ws_test_asset - 1, NULL, &b, &err),
                   0);
  store_ingest_result_t res;
  ck_assert_int_eq(store_ingest(st, &b, NULL, &res, &err), 0);
  store_ingest_result_free(&res);
  fmt_bundle_free(&b);
  return st;
}

static unsigned refs(store_asset_t *a) {
  return (unsigned)atomic_load(&a->_refs);
}

START_TEST(test_bytes_bounded_and_assets_released) {
  store_t *st = open_store();
  store_asset_t *sk = store_lookup(st, STORE_SKELETON, "line", NULL);
  store_asset_t *clip = store_lookup(st, STORE_CLIP, "slide", sk);
  ck_assert_ptr_nonnull(sk);
  ck_assert_ptr_nonnull(clip);
  unsigned clip_refs = refs(clip);
  /* A pose of the 2-joint skeleton in model space: 32 floats, 128 bytes.
   * A budget of 4 such frames. */
  srv_ws_eval_t *e = srv_ws_eval_new(64, 4 * 128, NULL, NULL);
  ck_assert_ptr_nonnull(e);
  for (int i = 0; i < 50; i++) {
    srv_ws_eval_key_t key = {.skeleton = sk,
                             .clip = clip,
                             .t = (float)i / 50.0f,
                             .wrap = ANIM_WRAP_CLAMP,
                             .space = FMT_SPACE_MODEL};
    srv_ws_frame_data_t fd;
    ck_assert_int_eq(srv_ws_eval_get(e, &key, &fd), 0);
    ck_assert_uint_eq(fd.count, 32);
    /* x of the second joint's translation is t (closed form). */
    ck_assert_float_eq_tol(fd.floats[16 + 12], (float)i / 50.0f, 1e-6f);
    ck_assert_uint_le(srv_ws_eval_bytes(e), 4 * 128);
  }
  ck_assert_uint_gt(refs(clip), clip_refs);
  /* Nothing asked for since: every entry lets go. */
  srv_ws_eval_trim(e, 0);
  ck_assert_uint_eq(srv_ws_eval_bytes(e), 0);
  ck_assert_uint_eq(refs(clip), clip_refs);
  srv_ws_eval_free(e);
  store_asset_release(clip);
  store_asset_release(sk);
  store_close(st);
}
END_TEST

/* Two subscribers of the same state get one payload buffer; a buffer a
 * queued frame still holds keeps its bytes when the cache moves on and
 * reuses the entry, and is the holder's alone then. */
START_TEST(test_payload_shared_and_kept_while_held) {
  store_t *st = open_store();
  store_asset_t *sk = store_lookup(st, STORE_SKELETON, "line", NULL);
  store_asset_t *clip = store_lookup(st, STORE_CLIP, "slide", sk);
  srv_ws_eval_t *e = srv_ws_eval_new(2, 1u << 20, NULL, NULL);
  ck_assert_ptr_nonnull(e);
  srv_ws_eval_key_t key = {.skeleton = sk,
                           .clip = clip,
                           .t = 0.25f,
                           .wrap = ANIM_WRAP_CLAMP,
                           .space = FMT_SPACE_MODEL};
  srv_ws_frame_data_t a, b;
  ck_assert_int_eq(srv_ws_eval_get(e, &key, &a), 0);
  ck_assert_ptr_nonnull(a.payload);
  ck_assert_uint_eq(a.payload_len, 4 * 32);
  srv_ws_blob_t *held = srv_ws_blob_ref(a.payload);
  ck_assert_int_eq(srv_ws_eval_get(e, &key, &b), 0);
  ck_assert_ptr_eq(b.payload, held); /* One buffer for both. */
  srv_ws_blob_t *second = srv_ws_blob_ref(b.payload);
  ck_assert_uint_eq(held->refs, 3);
  /* The payload is the floats, little-endian (x of joint 1 is t). */
  float x;
  memcpy(&x, held->data + 4 * (16 + 12), 4);
  ck_assert_float_eq_tol(x, 0.25f, 1e-6f);
  /* Other times push the frame out of the two entries. */
  for (int i = 0; i < 4; i++) {
    srv_ws_eval_key_t k = key;
    k.t = 0.5f + 0.1f * (float)i;
    srv_ws_frame_data_t fd;
    ck_assert_int_eq(srv_ws_eval_get(e, &k, &fd), 0);
    ck_assert_ptr_ne(fd.payload, held);
  }
  ck_assert_uint_eq(held->refs, 2);
  memcpy(&x, held->data + 4 * (16 + 12), 4);
  ck_assert_float_eq_tol(x, 0.25f, 1e-6f);
  srv_ws_blob_unref(second);
  srv_ws_blob_unref(held); /* The last: freed (ASan checks). */
  srv_ws_eval_free(e);
  store_asset_release(clip);
  store_asset_release(sk);
  store_close(st);
}
END_TEST

Suite *ws_frame_cache_suite(void) {
  Suite *s = suite_create("ws_frame_cache");
  TCase *tc = tcase_create("memory");
  tcase_add_test(tc, test_bytes_bounded_and_assets_released);
  tcase_add_test(tc, test_payload_shared_and_kept_while_held);
  suite_add_tcase(s, tc);
  return s;
}
