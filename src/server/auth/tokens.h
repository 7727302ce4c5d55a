/* server/auth: the set of bearer tokens the daemon accepts, read from the
 * tokens file.
 *
 * The file never holds a token, only its SHA-256: each non-empty line not
 * starting with '#' is "<scope> sha256:<64 hex digits>", scope read, write
 * (implies read) or admin (implies write). A presented token is hashed and
 * compared with every entry in constant time (CRYPTO_memcmp, no early
 * exit), so the answer's timing says nothing about how close a guess was.
 * A token is named in logs by the first 8 hex digits of its hash. */
#ifndef ANIMD_SERVER_AUTH_TOKENS_H
#define ANIMD_SERVER_AUTH_TOKENS_H

#include <stddef.h>

#define SRV_TOKEN_HASH_LEN 32
/* Hex digits of its hash that name a token in logs. */
#define SRV_TOKEN_ID_LEN 8

/* What a token allows; each scope includes the ones below it. */
typedef enum srv_scope {
  SRV_SCOPE_NONE = 0, /* Not a known token. */
  SRV_SCOPE_READ,
  SRV_SCOPE_WRITE,
  SRV_SCOPE_ADMIN
} srv_scope;

typedef struct srv_token_s {
  srv_scope scope;
  unsigned char hash[SRV_TOKEN_HASH_LEN];
} srv_token_t;

/* A loaded set: count entries in items (malloc'd; NULL when empty). */
typedef struct srv_tokens_s {
  srv_token_t *items;
  size_t count;
} srv_tokens_t;

/* Parses the text of a tokens file (len bytes) into *out. name prefixes
 * messages ("name:line: ..."). Returns 0, or -1 with a message in err
 * (*out is then empty); a message never quotes the line's hash. */
int srv_tokens_parse(const char *text, size_t len, const char *name,
                     srv_tokens_t *out, char *err, size_t err_len);

/* Reads and parses the file at path (at most 1 MiB). Returns 0 or -1 with
 * "path: ..." in err. */
int srv_tokens_load(const char *path, srv_tokens_t *out, char *err,
                    size_t err_len);

void srv_tokens_free(srv_tokens_t *t);

/* The SHA-256 of token (len bytes) into hash. */
void srv_token_hash(const char *token, size_t len,
                    unsigned char hash[SRV_TOKEN_HASH_LEN]);

/* The scope of the token whose hash is hash (SRV_SCOPE_NONE when none):
 * every entry is compared, in constant time. */
srv_scope srv_tokens_find(const srv_tokens_t *t,
                          const unsigned char hash[SRV_TOKEN_HASH_LEN]);

/* How many tokens of scope s the set holds. */
size_t srv_tokens_count(const srv_tokens_t *t, srv_scope s);

/* "read", "write", "admin" ("none" for SRV_SCOPE_NONE). */
const char *srv_scope_name(srv_scope s);

/* The log name of a token: the first 8 hex digits of its hash, into out
 * (SRV_TOKEN_ID_LEN + 1 bytes). */
void srv_token_id(const unsigned char hash[SRV_TOKEN_HASH_LEN], char *out);

#endif
