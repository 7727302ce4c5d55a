/* A tokens file for the access-control tests: one line per token, its
 * scope and the SHA-256 of its text (the form tokens_file takes), written
 * to a temporary file the test removes. */
#ifndef ANIMD_TESTS_TOKENS_FIXTURE_H
#define ANIMD_TESTS_TOKENS_FIXTURE_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server/auth/tokens.h"

/* Three tokens, one per scope. */
#define T_READ "read-token-0123456789"
#define T_WRITE "write-token-0123456789"
#define T_ADMIN "admin-token-0123456789"

/* Writes n tokens with their scopes to path (a new temporary file when
 * path is "", else the file named there; at least 64 bytes). */
static inline void tokens_fixture_write(char *path, const char *const *tok,
                                        const char *const *scope, int n) {
  char text[2048] = "# test tokens\n";
  for (int i = 0; i < n; i++) {
    unsigned char h[SRV_TOKEN_HASH_LEN];
    srv_token_hash(tok[i], strlen(tok[i]), h);
    size_t len = strlen(text);
    len +=
        (size_t)snprintf(text + len, sizeof text - len, "%s sha256:", scope[i]);
    for (int k = 0; k < SRV_TOKEN_HASH_LEN; k++)
      len += (size_t)snprintf(text + len, sizeof text - len, "%02x", h[k]);
    snprintf(text + len, sizeof text - len, "\n");
  }
  if (path[0] == '\0') {
    snprintf(path, 64, "/tmp/animd-tok-XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
  }
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
}

/* T_READ, T_WRITE and T_ADMIN with their scopes. */
static inline void tokens_fixture_write_three(char *path) {
  static const char *const tok[] = {T_READ, T_WRITE, T_ADMIN};
  static const char *const scope[] = {"read", "write", "admin"};
  tokens_fixture_write(path, tok, scope, 3);
}

#endif
