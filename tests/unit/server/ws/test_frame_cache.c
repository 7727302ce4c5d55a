/* Tests for the stream loops' shared frame cache (ws/frame_cache.h): its
 * memory stays within its byte budget however many distinct frames are
 * asked for, and idle entries give back their buffers and the assets they hold
 * (the asset's reference count returns to what the store alone holds), and
 * delta frames cached beside a frame are found by exactly their key, count
 * in the budget and go with their frame. */
#include <check.h>
#include <stdatomic.h>
#include <string.h>

#include <uv.h>

#include "formats/vocab.h"
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

/* Delta frames beside a mesh frame: found by their exact key only, the
 * least recently used of SRV_WS_DELTA_SLOTS replaced, counted in the
 * bytes, and gone (UV_ENOENT for a put) once their frame leaves. */
START_TEST(test_delta_frames_beside_their_frame) {
  store_t *st = open_store();
  store_asset_t *sk = store_lookup(st, STORE_SKELETON, "line", NULL);
  store_asset_t *clip = store_lookup(st, STORE_CLIP, "slide", sk);
  store_asset_t *mesh = store_lookup(st, STORE_MESH, "pair", NULL);
  ck_assert_ptr_nonnull(mesh);
  srv_ws_eval_t *e = srv_ws_eval_new(2, 1u << 20, NULL, NULL);
  ck_assert_ptr_nonnull(e);
  srv_ws_eval_key_t key = {.skeleton = sk,
                           .clip = clip,
                           .mesh = mesh,
                           .t = 0.5f,
                           .wrap = ANIM_WRAP_CLAMP,
                           .encoding = FMT_ENCODING_Q16};
  srv_ws_frame_data_t fd;
  ck_assert_int_eq(srv_ws_eval_get(e, &key, &fd), 0);
  ck_assert_uint_ne(fd.serial, 0);
  ck_assert_ptr_nonnull(fd.q16_blob);
  ck_assert_ptr_eq(fd.q16, fd.q16_blob->data);
  uint64_t serial = fd.serial;
  size_t base = srv_ws_eval_bytes(e);
  srv_ws_delta_key_t dk[SRV_WS_DELTA_SLOTS + 1];
  srv_ws_blob_t *b[SRV_WS_DELTA_SLOTS + 1];
  for (unsigned i = 0; i <= SRV_WS_DELTA_SLOTS; i++) {
    dk[i] = (srv_ws_delta_key_t){.a = i, .b = 0, .parents = 7, .seq = i};
    b[i] = srv_ws_blob_new(8);
    ck_assert_ptr_nonnull(b[i]);
    memset(b[i]->data, (int)i, 8);
  }
  size_t len = 0;
  ck_assert_ptr_null(srv_ws_eval_delta_find(e, serial, &dk[0], &len));
  ck_assert_int_eq(srv_ws_eval_delta_put(e, serial, &dk[0], b[0], 8), 0);
  ck_assert_uint_eq(b[0]->refs, 2);
  ck_assert_uint_eq(srv_ws_eval_bytes(e), base + 8);
  ck_assert_ptr_eq(srv_ws_eval_delta_find(e, serial, &dk[0], &len), b[0]);
  ck_assert_uint_eq(len, 8);
  /* Any field of the key differing: not found. */
  srv_ws_delta_key_t other = dk[0];
  other.seq = 9;
  ck_assert_ptr_null(srv_ws_eval_delta_find(e, serial, &other, &len));
  other = dk[0];
  other.parents = 8;
  ck_assert_ptr_null(srv_ws_eval_delta_find(e, serial, &other, &len));
  other = dk[0];
  other.b = 3;
  ck_assert_ptr_null(srv_ws_eval_delta_find(e, serial, &other, &len));
  ck_assert_ptr_null(srv_ws_eval_delta_find(e, serial + 1, &dk[0], &len));
  /* The slots fill; dk[0] used last, so dk[1] is replaced. */
  for (unsigned i = 1; i < SRV_WS_DELTA_SLOTS; i++)
    ck_assert_int_eq(srv_ws_eval_delta_put(e, serial, &dk[i], b[i], 8), 0);
  ck_assert_ptr_eq(srv_ws_eval_delta_find(e, serial, &dk[0], &len), b[0]);
  ck_assert_int_eq(srv_ws_eval_delta_put(e, serial, &dk[SRV_WS_DELTA_SLOTS],
                                         b[SRV_WS_DELTA_SLOTS], 8),
                   0);
  ck_assert_ptr_null(srv_ws_eval_delta_find(e, serial, &dk[1], &len));
  ck_assert_uint_eq(b[1]->refs, 1);
  ck_assert_ptr_eq(srv_ws_eval_delta_find(e, serial, &dk[0], &len), b[0]);
  ck_assert_uint_eq(srv_ws_eval_bytes(e), base + 8 * SRV_WS_DELTA_SLOTS);
  /* Two other frames take both entries: the deltas go with the frame. */
  for (int i = 0; i < 2; i++) {
    srv_ws_eval_key_t k = key;
    k.t = 0.25f * (float)i;
    srv_ws_frame_data_t f2;
    ck_assert_int_eq(srv_ws_eval_get(e, &k, &f2), 0);
    ck_assert_uint_gt(f2.serial, serial);
  }
  ck_assert_ptr_null(srv_ws_eval_delta_find(e, serial, &dk[0], &len));
  ck_assert_int_eq(srv_ws_eval_delta_put(e, serial, &dk[1], b[1], 8),
                   UV_ENOENT);
  for (unsigned i = 0; i <= SRV_WS_DELTA_SLOTS; i++) {
    ck_assert_uint_eq(b[i]->refs, 1);
    srv_ws_blob_unref(b[i]);
  }
  /* The same time again: a new frame, a new serial, no delta frames. */
  ck_assert_int_eq(srv_ws_eval_get(e, &key, &fd), 0);
  ck_assert_uint_gt(fd.serial, serial);
  ck_assert_ptr_null(srv_ws_eval_delta_find(e, fd.serial, &dk[0], &len));
  srv_ws_eval_free(e);
  store_asset_release(mesh);
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
  tcase_add_test(tc, test_delta_frames_beside_their_frame);
  suite_add_tcase(s, tc);
  return s;
}
