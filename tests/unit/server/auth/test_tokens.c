/* Tests for the tokens file (server/auth/tokens.h): SHA-256 against the
 * FIPS 180-2 reference values, the line format and its errors (never
 * quoting a hash), scopes and their lookup, and token ids; white space,
 * CRLF and line numbers, a set large enough to grow, scope names out of
 * range, and the 1 MiB limit of a file. */
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

/* ---- edges ------------------------------------------------------------- */

/* A file line for token with scope. */
static void line_for(const char *scope, const char *token, char *out,
                     size_t cap) {
  unsigned char h[SRV_TOKEN_HASH_LEN];
  srv_token_hash(token, strlen(token), h);
  size_t n = (size_t)snprintf(out, cap, "%s sha256:", scope);
  for (int k = 0; k < SRV_TOKEN_HASH_LEN; k++)
    n += (size_t)snprintf(out + n, cap - n, "%02x", h[k]);
}

START_TEST(test_layout_and_line_numbers) {
  char l1[128], l2[128];
  line_for("read", "one", l1, sizeof l1);
  line_for("admin", "two", l2, sizeof l2);
  /* Spaces and tabs between the words, CRLF, no final newline. */
  char text[512];
  snprintf(text, sizeof text, "\r\n   \t\r\n#c\r\nread \t sha256:%s\r\n%s",
           l1 + strlen("read sha256:"), l2);
  srv_tokens_t t;
  char err[256] = "";
  ck_assert_int_eq(
      srv_tokens_parse(text, strlen(text), "f", &t, err, sizeof err), 0);
  ck_assert_uint_eq(t.count, 2);
  unsigned char h[SRV_TOKEN_HASH_LEN];
  srv_token_hash("one", 3, h);
  ck_assert_int_eq(srv_tokens_find(&t, h), SRV_SCOPE_READ);
  srv_token_hash("two", 3, h);
  ck_assert_int_eq(srv_tokens_find(&t, h), SRV_SCOPE_ADMIN);
  srv_tokens_free(&t);
  /* Scopes are lower case; the line number counts blank and comment
   * lines. */
  snprintf(text, sizeof text, "\n# a\n\n%s\nREAD sha256:%s\n", l1,
           l1 + strlen("read sha256:"));
  ck_assert_int_eq(
      srv_tokens_parse(text, strlen(text), "tokens", &t, err, sizeof err), -1);
  ck_assert_str_eq(err, "tokens:5: the scope must be read, write or admin");
  /* Only len bytes are read: a line cut short is refused. */
  ck_assert_int_eq(
      srv_tokens_parse(l1, strlen(l1) - 1, "f", &t, err, sizeof err), -1);
  ck_assert_str_eq(err, "f:1: expected '<scope> sha256:<64 hex digits>'");
  ck_assert_int_eq(srv_tokens_parse("", 0, "f", &t, err, sizeof err), 0);
  ck_assert_uint_eq(t.count, 0);
}
END_TEST

START_TEST(test_many_tokens) {
  /* Enough lines to grow the table several times. */
  size_t cap = 200 * 100;
  char *text = malloc(cap);
  size_t n = 0;
  const char *scopes[] = {"read", "write", "admin"};
  for (int i = 0; i < 150; i++) {
    char tok[32], line[128];
    snprintf(tok, sizeof tok, "token-%d", i);
    line_for(scopes[i % 3], tok, line, sizeof line);
    n += (size_t)snprintf(text + n, cap - n, "%s\n", line);
  }
  srv_tokens_t t;
  char err[256];
  ck_assert_int_eq(srv_tokens_parse(text, n, "f", &t, err, sizeof err), 0);
  ck_assert_uint_eq(t.count, 150);
  for (int s = SRV_SCOPE_READ; s <= SRV_SCOPE_ADMIN; s++)
    ck_assert_uint_eq(srv_tokens_count(&t, (srv_scope)s), 50);
  ck_assert_uint_eq(srv_tokens_count(&t, SRV_SCOPE_NONE), 0);
  for (int i = 0; i < 150; i++) {
    char tok[32];
    snprintf(tok, sizeof tok, "token-%d", i);
    unsigned char h[SRV_TOKEN_HASH_LEN];
    srv_token_hash(tok, strlen(tok), h);
    ck_assert_int_eq(srv_tokens_find(&t, h), SRV_SCOPE_READ + i % 3);
  }
  srv_tokens_free(&t);
  srv_tokens_free(&t);
  free(text);
  /* An empty set finds nothing. */
  srv_tokens_t none = {NULL, 0};
  unsigned char h[SRV_TOKEN_HASH_LEN] = {0};
  ck_assert_int_eq(srv_tokens_find(&none, h), SRV_SCOPE_NONE);
}
END_TEST

START_TEST(test_names_and_ids) {
  ck_assert_str_eq(srv_scope_name(SRV_SCOPE_NONE), "none");
  ck_assert_str_eq(srv_scope_name(SRV_SCOPE_READ), "read");
  ck_assert_str_eq(srv_scope_name(SRV_SCOPE_WRITE), "write");
  ck_assert_str_eq(srv_scope_name(SRV_SCOPE_ADMIN), "admin");
  ck_assert_str_eq(srv_scope_name((srv_scope)4), "none");
  ck_assert_str_eq(srv_scope_name((srv_scope)-1), "none");
  unsigned char h[SRV_TOKEN_HASH_LEN];
  char id[SRV_TOKEN_ID_LEN + 1];
  srv_token_hash("abc", 3, h);
  srv_token_id(h, id);
  ck_assert_str_eq(id, "ba7816bf");
  srv_token_hash("", 0, h);
  srv_token_id(h, id);
  ck_assert_str_eq(id, "e3b0c442");
}
END_TEST

START_TEST(test_load_limits) {
  char dir[] = "/tmp/animd-tokdir-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char path[128];
  snprintf(path, sizeof path, "%s/tokens", dir);
  /* Exactly 1 MiB of comments is read; one byte more is refused. */
  FILE *f = fopen(path, "w");
  for (int i = 0; i < 1024; i++) {
    char line[1024];
    memset(line, '#', sizeof line - 1);
    line[sizeof line - 1] = '\n';
    fwrite(line, 1, sizeof line, f);
  }
  fclose(f);
  srv_tokens_t t;
  char err[512];
  ck_assert_int_eq(srv_tokens_load(path, &t, err, sizeof err), 0);
  ck_assert_uint_eq(t.count, 0);
  f = fopen(path, "a");
  fputc('\n', f);
  fclose(f);
  ck_assert_int_eq(srv_tokens_load(path, &t, err, sizeof err), -1);
  char want[256];
  snprintf(want, sizeof want, "%s: larger than 1 MiB", path);
  ck_assert_str_eq(err, want);
  unlink(path);
  /* A directory cannot be read. */
  ck_assert_int_eq(srv_tokens_load(dir, &t, err, sizeof err), -1);
  snprintf(want, sizeof want, "%s: ", dir);
  ck_assert(strncmp(err, want, strlen(want)) == 0);
  ck_assert_uint_eq(t.count, 0);
  /* A bad line names the file's path and the line. */
  f = fopen(path, "w");
  fputs("# one\nwrite sha256:00\n", f);
  fclose(f);
  ck_assert_int_eq(srv_tokens_load(path, &t, err, sizeof err), -1);
  snprintf(want, sizeof want, "%s:2: expected '<scope> sha256:<64 hex digits>'",
           path);
  ck_assert_str_eq(err, want);
  unlink(path);
  rmdir(dir);
}
END_TEST

Suite *server_auth_tokens_suite(void) {
  Suite *s = suite_create("server_auth_tokens");
  TCase *tc = tcase_create("tokens");
  tcase_add_test(tc, test_sha256_reference);
  tcase_add_test(tc, test_parse_and_find);
  tcase_add_test(tc, test_bad_lines);
  tcase_add_test(tc, test_load);
  tcase_add_test(tc, test_layout_and_line_numbers);
  tcase_add_test(tc, test_many_tokens);
  tcase_add_test(tc, test_names_and_ids);
  tcase_add_test(tc, test_load_limits);
  suite_add_tcase(s, tc);
  return s;
}
