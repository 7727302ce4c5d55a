/* server: the origin policy (cors.h): parsing an Origin, matching it
 * against the allowed_origins list, and the CORS header lines of answers.
 * Everything works on the strings as they are, without allocating. */
#include "server/cors.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "server/hosts.h"

static bool word_is(const char *s, size_t len, const char *word) {
  return strlen(word) == len && strncasecmp(s, word, len) == 0;
}

/* An origin split into its host (with brackets for IPv6) and the part
 * after the scheme ("host[:port]"). */
typedef struct origin_s {
  const char *authority;
  size_t authority_len;
  const char *host;
  size_t host_len;
} origin_t;

/* Parses "http(s)://host[:port]" (len bytes). False when it is not one. */
static bool parse_origin(const char *s, size_t len, origin_t *o) {
  size_t skip;
  if (len > 7 && strncasecmp(s, "http://", 7) == 0)
    skip = 7;
  else if (len > 8 && strncasecmp(s, "https://", 8) == 0)
    skip = 8;
  else
    return false;
  const char *a = s + skip, *end = s + len;
  const char *h_end;
  if (*a == '[') {
    h_end = a + 1;
    while (h_end < end &&
           (isxdigit((unsigned char)*h_end) || *h_end == ':' || *h_end == '.'))
      h_end++;
    if (h_end == end || *h_end != ']') return false;
    h_end++;
  } else {
    h_end = a;
    while (h_end < end && *h_end != ':') {
      unsigned char c = (unsigned char)*h_end;
      if (!isalnum(c) && c != '-' && c != '.' && c != '_') return false;
      h_end++;
    }
  }
  if (h_end == a) return false;
  if (h_end < end) {
    if (*h_end != ':' || h_end + 1 == end || end - h_end > 6) return false;
    for (const char *p = h_end + 1; p < end; p++)
      if (!isdigit((unsigned char)*p)) return false;
  }
  o->authority = a;
  o->authority_len = (size_t)(end - a);
  o->host = a;
  o->host_len = (size_t)(h_end - a);
  return true;
}

static bool is_loopback(const origin_t *o) {
  return srv_host_is_loopback(o->host, o->host_len);
}

int srv_cors_validate(const char *list, char *err, size_t err_len) {
  const char *s = list, *e;
  size_t n;
  origin_t o;
  while (srv_list_next(&s, &e, &n)) {
    if (word_is(e, n, "*") || word_is(e, n, "loopback") ||
        word_is(e, n, "null"))
      continue;
    if (n <= SRV_CORS_ORIGIN_MAX && parse_origin(e, n, &o)) continue;
    snprintf(err, err_len,
             "'%.*s' is not an origin (http[s]://host[:port]), *, loopback "
             "or null",
             (int)(n > 200 ? 200 : n), e);
    return -1;
  }
  return 0;
}

/* True when the list allows every origin. */
static bool allows_any(const char *list) {
  const char *s = list, *e;
  size_t n;
  while (srv_list_next(&s, &e, &n))
    if (word_is(e, n, "*")) return true;
  return false;
}

bool srv_cors_allowed(const char *list, const char *origin, const char *host) {
  if (origin == NULL) return true;
  size_t olen = strlen(origin);
  if (olen == 0 || olen > SRV_CORS_ORIGIN_MAX) return false;
  origin_t o;
  bool parsed = parse_origin(origin, olen, &o);
  if (parsed && host != NULL && word_is(o.authority, o.authority_len, host))
    return true;
  const char *s = list, *e;
  size_t n;
  while (srv_list_next(&s, &e, &n)) {
    if (word_is(e, n, "*")) return true;
    if (word_is(e, n, "loopback")) {
      if (parsed && is_loopback(&o)) return true;
    } else if (n == olen && strncasecmp(e, origin, n) == 0) {
      return true; /* An exact origin, or null. */
    }
  }
  return false;
}

size_t srv_cors_answer_headers(const char *list, const char *origin,
                               const char *host, char *buf, size_t cap) {
  if (origin == NULL) return 0;
  bool any = allows_any(list);
  int n;
  if (!srv_cors_allowed(list, origin, host))
    n = snprintf(buf, cap, "%s", any ? "" : "Vary: Origin\r\n");
  else if (any)
    n = snprintf(buf, cap,
                 "Access-Control-Allow-Origin: *\r\n"
                 "Access-Control-Expose-Headers: %s\r\n",
                 SRV_CORS_EXPOSE_HEADERS);
  else
    n = snprintf(buf, cap,
                 "Access-Control-Allow-Origin: %s\r\nVary: Origin\r\n"
                 "Access-Control-Expose-Headers: %s\r\n",
                 origin, SRV_CORS_EXPOSE_HEADERS);
  if (n < 0 || (size_t)n >= cap) {
    if (cap > 0) buf[0] = '\0';
    return 0;
  }
  return (size_t)n;
}
