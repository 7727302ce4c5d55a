/* Tests for the gzip coder itself (server/http/gzip.h): Accept-Encoding
 * and content types beyond the common cases, a deflate stream whose every
 * chunk decodes as soon as it arrives (sync flush), the gzip header and
 * trailer (CRC-32 and length of everything fed), an empty member, output
 * appended to what the buffer holds, a large input, and a buffer that has
 * failed. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "server/http/gzip.h"

START_TEST(test_accepted_more) {
  static const struct {
    const char *ae;
    bool yes;
  } t[] = {
      {"gzip;q=0.001", true},
      {"Gzip;Q=0.5", true},
      {"  gzip  ", true},
      {",,gzip", true},
      {"x-gzip;q=0", false},
      {"gzip ; q=0", false},
      {"gzip;level=1;q=0", false},
      {"gzip;level=1", true},
      {"*;q=0.5, gzip;q=0", false},
      {"gzip;q=0, x-gzip", false},
      {"deflate;q=1, *;q=0.2", true},
      {"*;q=0, *;q=1", true},
      {"identity;q=1", false},
      {"gzi", false},
      {"gzip2", false},
      {";q=1", false},
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    ck_assert_msg(srv_gzip_accepted(t[i].ae) == t[i].yes, "'%s'", t[i].ae);
  static const struct {
    const char *ct;
    bool yes;
  } types[] = {
      {"APPLICATION/JSON", true},
      {"application/json;", true},
      {"application/x-ndjson;charset=utf-8", true},
      {"application/json ", false},
      {"text/json", false},
      {"application/", false},
      {"", false},
      {"text/plain", false},
      {"application/x-ndjsonl", false},
  };
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
    ck_assert_msg(srv_gzip_type(types[i].ct) == types[i].yes, "'%s'",
                  types[i].ct);
}
END_TEST

/* Inflates in into out with Z_SYNC_FLUSH, the stream kept across calls;
 * returns the bytes produced. */
static size_t inflate_some(z_stream *zs, const void *in, size_t len, char *out,
                           size_t cap, int *rc) {
  zs->next_in = (Bytef *)(uintptr_t)in;
  zs->avail_in = (uInt)len;
  zs->next_out = (Bytef *)out;
  zs->avail_out = (uInt)cap;
  *rc = inflate(zs, Z_SYNC_FLUSH);
  ck_assert_uint_eq(zs->avail_in, 0);
  return cap - zs->avail_out;
}

START_TEST(test_each_chunk_decodes_at_once) {
  srv_gzip_t *z = srv_gzip_new();
  ck_assert_ptr_nonnull(z);
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  ck_assert_int_eq(inflateInit2(&zs, 15 + 16), Z_OK);
  const char *chunks[] = {"[{\"t\":0,\"q\":[0,0,0,1]},",
                          "{\"t\":0.5,\"q\":[0,0,0,1]},", "",
                          "{\"t\":1,\"q\":[0,0,0,1]}]"};
  char out[256];
  size_t total_in = 0;
  uLong crc = crc32(0, Z_NULL, 0);
  fmt_buf_t b = FMT_BUF_INIT;
  for (size_t i = 0; i < 4; i++) {
    size_t n = strlen(chunks[i]);
    fmt_buf_reset(&b);
    ck_assert_int_eq(srv_gzip_deflate(z, chunks[i], n, false, &b), 0);
    if (i == 0) {
      /* The gzip header: magic, deflate. */
      ck_assert_uint_ge(b.len, 10);
      ck_assert_int_eq((unsigned char)b.data[0], 0x1f);
      ck_assert_int_eq((unsigned char)b.data[1], 0x8b);
      ck_assert_int_eq((unsigned char)b.data[2], 8);
    }
    if (n == 0) {
      /* Nothing new after a flush: nothing to send. */
      ck_assert_uint_eq(b.len, 0);
      continue;
    }
    /* A sync flush ends in an empty stored block. */
    ck_assert_uint_ge(b.len, 4);
    ck_assert(memcmp(b.data + b.len - 4, "\x00\x00\xff\xff", 4) == 0);
    int rc;
    size_t got = inflate_some(&zs, b.data, b.len, out, sizeof out, &rc);
    ck_assert_int_eq(rc, Z_OK);
    ck_assert_uint_eq(got, n);
    ck_assert(memcmp(out, chunks[i], n) == 0);
    total_in += n;
    crc = crc32(crc, (const Bytef *)chunks[i], (uInt)n);
  }
  /* The end: the trailer holds the CRC-32 and the length. */
  fmt_buf_reset(&b);
  ck_assert_int_eq(srv_gzip_deflate(z, "", 0, true, &b), 0);
  ck_assert_uint_ge(b.len, 8);
  const unsigned char *t = (const unsigned char *)b.data + b.len - 8;
  uint32_t got_crc = (uint32_t)t[0] | (uint32_t)t[1] << 8 |
                     (uint32_t)t[2] << 16 | (uint32_t)t[3] << 24;
  uint32_t got_len = (uint32_t)t[4] | (uint32_t)t[5] << 8 |
                     (uint32_t)t[6] << 16 | (uint32_t)t[7] << 24;
  ck_assert_uint_eq(got_crc, (uint32_t)crc);
  ck_assert_uint_eq(got_len, (uint32_t)total_in);
  int rc;
  ck_assert_uint_eq(inflate_some(&zs, b.data, b.len, out, sizeof out, &rc), 0);
  ck_assert_int_eq(rc, Z_STREAM_END);
  inflateEnd(&zs);
  fmt_buf_free(&b);
  srv_gzip_free(z);
  srv_gzip_free(NULL);
}
END_TEST

START_TEST(test_empty_member_and_append) {
  srv_gzip_t *z = srv_gzip_new();
  fmt_buf_t b = FMT_BUF_INIT;
  fmt_buf_append(&b, "HEAD", 4);
  ck_assert_int_eq(srv_gzip_deflate(z, NULL, 0, true, &b), 0);
  /* What was there stays; a member of nothing follows. */
  ck_assert(memcmp(b.data, "HEAD", 4) == 0);
  ck_assert_uint_ge(b.len, 4 + 18);
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  ck_assert_int_eq(inflateInit2(&zs, 15 + 16), Z_OK);
  char out[16];
  zs.next_in = (Bytef *)b.data + 4;
  zs.avail_in = (uInt)(b.len - 4);
  zs.next_out = (Bytef *)out;
  zs.avail_out = sizeof out;
  ck_assert_int_eq(inflate(&zs, Z_FINISH), Z_STREAM_END);
  ck_assert_uint_eq(zs.total_out, 0);
  ck_assert_uint_eq(zs.avail_in, 0);
  inflateEnd(&zs);
  /* The trailer of nothing: CRC 0, length 0. */
  ck_assert(memcmp(b.data + b.len - 8, "\0\0\0\0\0\0\0\0", 8) == 0);
  fmt_buf_free(&b);
  srv_gzip_free(z);
}
END_TEST

START_TEST(test_large_input) {
  size_t n = 3u << 20;
  char *in = malloc(n);
  uint32_t x = 12345;
  for (size_t i = 0; i < n; i++) {
    /* Text-like: a few symbols, some repetition. */
    x = x * 1103515245u + 12345u;
    in[i] = "0123456789.,-[]"[(x >> 16) % 15];
  }
  srv_gzip_t *z = srv_gzip_new();
  fmt_buf_t b = FMT_BUF_INIT;
  ck_assert_int_eq(srv_gzip_deflate(z, in, n, true, &b), 0);
  ck_assert(!b.failed);
  ck_assert_uint_lt(b.len, n);
  char *out = malloc(n + 1);
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  ck_assert_int_eq(inflateInit2(&zs, 15 + 16), Z_OK);
  zs.next_in = (Bytef *)b.data;
  zs.avail_in = (uInt)b.len;
  zs.next_out = (Bytef *)out;
  zs.avail_out = (uInt)(n + 1);
  ck_assert_int_eq(inflate(&zs, Z_FINISH), Z_STREAM_END);
  ck_assert_uint_eq(zs.total_out, n);
  ck_assert(memcmp(out, in, n) == 0);
  inflateEnd(&zs);
  free(out);
  free(in);
  fmt_buf_free(&b);
  srv_gzip_free(z);
}
END_TEST

START_TEST(test_failed_buffer) {
  srv_gzip_t *z = srv_gzip_new();
  fmt_buf_t b = FMT_BUF_INIT;
  b.failed = true;
  ck_assert_int_eq(srv_gzip_deflate(z, "abc", 3, false, &b), -1);
  ck_assert_uint_eq(b.len, 0);
  fmt_buf_free(&b);
  srv_gzip_free(z);
}
END_TEST

Suite *server_http_gzip_stream_suite(void) {
  Suite *s = suite_create("server_http_gzip_stream");
  TCase *tc = tcase_create("gzip_stream");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_accepted_more);
  tcase_add_test(tc, test_each_chunk_decodes_at_once);
  tcase_add_test(tc, test_empty_member_and_append);
  tcase_add_test(tc, test_large_input);
  tcase_add_test(tc, test_failed_buffer);
  suite_add_tcase(s, tc);
  return s;
}
