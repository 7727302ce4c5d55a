/* Tests for the tokens file (server/auth/tokens.h): SHA-256 against the
 * FIPS 180-2 reference values, the line format and its errors (never
 * quoting a hash), scopes and their lookup, and token ids. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server/auth/tokens.h"

static void hex(const unsigned char *h, char *out) {
  for (int i = 0; i < SRV_TOKEN_HASH_LEN; i++)
    sprintf(out + 2 * i, "%02x", h[i]);
}

START_TEST(test_sha256_reference) {
  /* FIPS 180-2, appendix B.1 ("abc"), and the empty message. */
  unsigned char h[SRV_TOKEN_HASH_LEN];
  char text[2 * SRV_TOKEN_HASH_LEN + 1];
  srv_token_hash("abc", 3, h);
  hex(h, text);
  ck_assert_str_eq(text, "ba7816bf8f01cfea414140de5dae2223"
                         "b00361a396177a9cb410ff61f20015ad");
  srv_token_hash("", 0, h);
  hex(h, text);
  ck_assert_str_eq(text, "e3b0c44298fc1c149afbf4c8996fb924"
                         "27ae41e4649b934ca495991b7852b855");
  char id[SRV_TOKEN_ID_LEN + 1];
  srv_token_id(h, id);
  ck_assert_str_eq(id, "e3b0c442");
}
END_TEST

/* "abc" and "" hashed, as a file would list them. */
#define H_ABC "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
#define H_EMPTY                                                                \
  "E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855"
/* sha256("read-me") from sha256sum. */
#define H_READ                                                                 \
  "aacb0b575020df5ae74a4b28174ad2e998236b1218c3e39f7de44025ccde7502"

START_TEST(test_parse_and_find) {
  const char *text = "# tokens\n\n  write sha256:" H_ABC "  \n"
                     "\tadmin sha256:" H_EMPTY "\r\n"
                     "read sha256:" H_READ;
  srv_tokens_t t;
  char err[256] = "";
  ck_assert_int_eq(
      srv_tokens_parse(text, strlen(text), "f", &t, err, sizeof err), 0);
  ck_assert_uint_eq(t.count, 3);
  ck_assert_uint_eq(srv_tokens_count(&t, SRV_SCOPE_READ), 1);
  ck_assert_uint_eq(srv_tokens_count(&t, SRV_SCOPE_WRITE), 1);
  ck_assert_uint_eq(srv_tokens_count(&t, SRV_SCOPE_ADMIN), 1);
  unsigned char h[SRV_TOKEN_HASH_LEN];
  srv_token_hash("abc", 3, h);
  ck_assert_int_eq(srv_tokens_find(&t, h), SRV_SCOPE_WRITE);
  srv_token_hash("", 0, h); /* Upper-case hex in the file. */
  ck_assert_int_eq(srv_tokens_find(&t, h), SRV_SCOPE_ADMIN);
  srv_token_hash("abd", 3, h);
  ck_assert_int_eq(srv_tokens_find(&t, h), SRV_SCOPE_NONE);
  /* The hash itself is not a token. */
  ck_assert_int_eq(srv_tokens_find(&t, (const unsigned char *)H_ABC),
                   SRV_SCOPE_NONE);
  ck_assert_str_eq(srv_scope_name(SRV_SCOPE_WRITE), "write");
  ck_assert_str_eq(srv_scope_name(SRV_SCOPE_NONE), "none");
  srv_tokens_free(&t);
  ck_assert_uint_eq(t.count, 0);
  /* An empty file is a valid set: nobody may write. */
  ck_assert_int_eq(srv_tokens_parse("# none\n", 7, "f", &t, err, sizeof err),
                   0);
  ck_assert_uint_eq(t.count, 0);
  srv_token_hash("abc", 3, h);
  ck_assert_int_eq(srv_tokens_find(&t, h), SRV_SCOPE_NONE);
}
END_TEST

START_TEST(test_bad_lines) {
  static const struct {
    const char *text;
    const char *want;
  } cases[] = {
      {"owner sha256:" H_ABC "\n", "f:1: the scope must be read"},
      {"# x\nwrite " H_ABC "\n", "f:2: expected '<scope> sha256:"},
      {"write sha256:" H_ABC " extra\n", "f:1: expected"},
      {"write sha256:" H_ABC "0\n", "f:1: expected"},
      {"write sha256:abc\n", "f:1: expected"},
      {"write\n", "f:1: expected"},
      {"write sha256:"
       "g" H_ABC "\n",
       "f:1: expected"},
      {"write sha256:zz" H_ABC "\n", "f:1: expected"},
      {"read sha1:" H_ABC "\n", "f:1: expected"},
      {"write sha256:xa7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61"
       "f20015ad\n",
       "f:1: the hash must be 64 hex digits"},
      {"write sha256:" H_ABC "\nread sha256:" H_ABC "\n",
       "f:2: the same hash is listed twice"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    srv_tokens_t t;
    char err[256] = "";
    ck_assert_int_eq(srv_tokens_parse(cases[i].text, strlen(cases[i].text), "f",
                                      &t, err, sizeof err),
                     -1);
    ck_assert_msg(strstr(err, cases[i].want) == err, "case %zu: %s", i, err);
    /* A message never quotes the line (it may hold a secret pasted by
     * mistake). */
    ck_assert_ptr_null(strstr(err, "7816bf"));
    ck_assert_uint_eq(t.count, 0);
    ck_assert_ptr_null(t.items);
  }
}
END_TEST

START_TEST(test_load) {
  char path[] = "/tmp/animd-tokens-XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  const char *text = "read sha256:" H_ABC "\n";
  ck_assert_int_eq(write(fd, text, strlen(text)), (int)strlen(text));
  close(fd);
  srv_tokens_t t;
  char err[512];
  ck_assert_int_eq(srv_tokens_load(path, &t, err, sizeof err), 0);
  ck_assert_uint_eq(t.count, 1);
  srv_tokens_free(&t);
  unlink(path);
  ck_assert_int_eq(srv_tokens_load(path, &t, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "No such file"));
}
END_TEST

Suite *server_auth_tokens_suite(void) {
  Suite *s = suite_create("server_auth_tokens");
  TCase *tc = tcase_create("tokens");
  tcase_add_test(tc, test_sha256_reference);
  tcase_add_test(tc, test_parse_and_find);
  tcase_add_test(tc, test_bad_lines);
  tcase_add_test(tc, test_load);
  suite_add_tcase(s, tc);
  return s;
}
