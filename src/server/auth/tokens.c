/* server/auth: the tokens file and token lookups (tokens.h). */
#include "server/auth/tokens.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#define TOKENS_FILE_MAX (1u << 20)

static const char *const scope_names[] = {"none", "read", "write", "admin"};

const char *srv_scope_name(srv_scope s) {
  return (unsigned)s <= SRV_SCOPE_ADMIN ? scope_names[s] : "none";
}

static srv_scope scope_of(const char *word, size_t n) {
  for (int s = SRV_SCOPE_READ; s <= SRV_SCOPE_ADMIN; s++)
    if (strlen(scope_names[s]) == n && memcmp(scope_names[s], word, n) == 0)
      return (srv_scope)s;
  return SRV_SCOPE_NONE;
}

void srv_tokens_free(srv_tokens_t *t) {
  free(t->items);
  t->items = NULL;
  t->count = 0;
}

/* Parses one line (n bytes, no newline) into tok. 0, 1 for a line to
 * skip, or -1 with the reason in why. */
static int parse_line(const char *s, size_t n, srv_token_t *tok,
                      const char **why) {
  size_t i = 0;
  while (i < n && isspace((unsigned char)s[i])) i++;
  while (n > i && isspace((unsigned char)s[n - 1])) n--;
  if (i == n || s[i] == '#') return 1;
  size_t w = i;
  while (i < n && !isspace((unsigned char)s[i])) i++;
  tok->scope = scope_of(s + w, i - w);
  if (tok->scope == SRV_SCOPE_NONE) {
    *why = "the scope must be read, write or admin";
    return -1;
  }
  while (i < n && isspace((unsigned char)s[i])) i++;
  static const char prefix[] = "sha256:";
  size_t plen = sizeof prefix - 1;
  if (n - i != plen + 2 * SRV_TOKEN_HASH_LEN ||
      memcmp(s + i, prefix, plen) != 0) {
    *why = "expected '<scope> sha256:<64 hex digits>'";
    return -1;
  }
  i += plen;
  for (size_t k = 0; k < SRV_TOKEN_HASH_LEN; k++) {
    int hi = OPENSSL_hexchar2int((unsigned char)s[i + 2 * k]);
    int lo = OPENSSL_hexchar2int((unsigned char)s[i + 2 * k + 1]);
    if (hi < 0 || lo < 0) {
      *why = "the hash must be 64 hex digits";
      return -1;
    }
    tok->hash[k] = (unsigned char)(hi << 4 | lo);
  }
  return 0;
}

int srv_tokens_parse(const char *text, size_t len, const char *name,
                     srv_tokens_t *out, char *err, size_t err_len) {
  out->items = NULL;
  out->count = 0;
  size_t cap = 0;
  unsigned lineno = 0;
  const char *why = NULL;
  for (size_t pos = 0; pos < len;) {
    const char *nl = memchr(text + pos, '\n', len - pos);
    size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
    lineno++;
    srv_token_t tok;
    int rc = parse_line(text + pos, n, &tok, &why);
    pos += n + 1;
    if (rc == 1) continue;
    if (rc < 0) goto fail;
    for (size_t k = 0; k < out->count; k++) {
      if (memcmp(out->items[k].hash, tok.hash, SRV_TOKEN_HASH_LEN) == 0) {
        why = "the same hash is listed twice";
        goto fail;
      }
    }
    if (out->count == cap) {
      size_t ncap = cap ? 2 * cap : 8;
      srv_token_t *p = realloc(out->items, ncap * sizeof *p);
      if (p == NULL) {
        why = "out of memory";
        goto fail;
      }
      out->items = p;
      cap = ncap;
    }
    out->items[out->count++] = tok;
  }
  return 0;

fail:
  snprintf(err, err_len, "%s:%u: %s", name, lineno, why);
  srv_tokens_free(out);
  return -1;
}

int srv_tokens_load(const char *path, srv_tokens_t *out, char *err,
                    size_t err_len) {
  out->items = NULL;
  out->count = 0;
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    snprintf(err, err_len, "%s: %s", path, strerror(errno));
    return -1;
  }
  char *text = malloc(TOKENS_FILE_MAX + 1);
  if (text == NULL) {
    fclose(f);
    snprintf(err, err_len, "%s: out of memory", path);
    return -1;
  }
  size_t len = fread(text, 1, TOKENS_FILE_MAX + 1, f);
  int bad = ferror(f);
  fclose(f);
  int rc = -1;
  if (bad)
    snprintf(err, err_len, "%s: read error", path);
  else if (len > TOKENS_FILE_MAX)
    snprintf(err, err_len, "%s: larger than 1 MiB", path);
  else
    rc = srv_tokens_parse(text, len, path, out, err, err_len);
  free(text);
  return rc;
}

void srv_token_hash(const char *token, size_t len,
                    unsigned char hash[SRV_TOKEN_HASH_LEN]) {
  unsigned int n = 0;
  if (EVP_Digest(token, len, hash, &n, EVP_sha256(), NULL) != 1 ||
      n != SRV_TOKEN_HASH_LEN)
    memset(hash, 0, SRV_TOKEN_HASH_LEN); /* Matches no listed token. */
}

srv_scope srv_tokens_find(const srv_tokens_t *t,
                          const unsigned char hash[SRV_TOKEN_HASH_LEN]) {
  /* No early exit and no branch on secret data: the scope is picked
   * with a mask. */
  unsigned found = 0;
  for (size_t i = 0; i < t->count; i++) {
    unsigned eq =
        CRYPTO_memcmp(t->items[i].hash, hash, SRV_TOKEN_HASH_LEN) == 0;
    unsigned mask = 0u - eq;
    found |= mask & (unsigned)t->items[i].scope;
  }
  return (srv_scope)found;
}

size_t srv_tokens_count(const srv_tokens_t *t, srv_scope s) {
  size_t n = 0;
  for (size_t i = 0; i < t->count; i++) n += t->items[i].scope == s;
  return n;
}

void srv_token_id(const unsigned char hash[SRV_TOKEN_HASH_LEN], char *out) {
  static const char hex[] = "0123456789abcdef";
  for (int i = 0; i < SRV_TOKEN_ID_LEN / 2; i++) {
    out[2 * i] = hex[hash[i] >> 4];
    out[2 * i + 1] = hex[hash[i] & 15];
  }
  out[SRV_TOKEN_ID_LEN] = '\0';
}
