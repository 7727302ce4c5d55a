/* server: the Host allow-list (hosts.h): a Host header split into its
 * host and port, matched against the loopback names and addresses, the
 * listen setting and the allowed_hosts list. Works on the strings as they
 * are, without allocating. */
#include "server/hosts.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "server/config.h"

/* The longest host part looked at (a DNS name is at most 253 bytes). */
#define HOST_MAX 255

bool srv_list_next(const char **s, const char **entry, size_t *len) {
  const char *p = *s;
  while (*p == ',' || isspace((unsigned char)*p)) p++;
  if (*p == '\0') return false;
  const char *e = p;
  while (*e != '\0' && *e != ',' && !isspace((unsigned char)*e)) e++;
  *entry = p;
  *len = (size_t)(e - p);
  *s = e;
  return true;
}

static bool same(const char *a, size_t an, const char *b, size_t bn) {
  return an == bn && strncasecmp(a, b, an) == 0;
}

/* The length of a host at s (n bytes): a name or IPv4 address (letters,
 * digits, '-', '.', '_') or a bracketed IPv6 address; 0 when s starts
 * with neither. */
static size_t host_length(const char *s, size_t n) {
  size_t i = 0;
  if (n > 0 && s[0] == '[') {
    for (i = 1;
         i < n && (isxdigit((unsigned char)s[i]) || s[i] == ':' || s[i] == '.');
         i++) {
    }
    return i < n && s[i] == ']' && i > 1 ? i + 1 : 0;
  }
  while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '-' || s[i] == '.' ||
                   s[i] == '_'))
    i++;
  return i;
}

/* Splits a Host value "host[:port]" into its host; false when it has
 * another shape. */
static bool split_host(const char *v, const char **h, size_t *hlen) {
  size_t n = strlen(v);
  size_t k = host_length(v, n);
  if (k == 0 || k > HOST_MAX) return false;
  if (k < n) {
    if (v[k] != ':' || n - k > 6) return false;
    for (size_t i = k + 1; i < n; i++)
      if (!isdigit((unsigned char)v[i])) return false;
  }
  *h = v;
  *hlen = k;
  return true;
}

/* The address of an IP literal host (a dotted quad, or IPv6 in brackets
 * or, from the listen setting, without); 0 when it is a name. */
static int ip_of(const char *h, size_t len, unsigned char addr[16]) {
  char text[HOST_MAX + 1];
  if (len >= 2 && h[0] == '[' && h[len - 1] == ']') {
    h++;
    len -= 2;
  }
  if (len == 0 || len > HOST_MAX) return 0;
  memcpy(text, h, len);
  text[len] = '\0';
  if (inet_pton(AF_INET, text, addr) == 1) return AF_INET;
  if (inet_pton(AF_INET6, text, addr) == 1) return AF_INET6;
  return 0;
}

/* 127.0.0.0/8 as a dotted quad. */
static bool is_ipv4_loopback(const char *h, size_t len) {
  if (len < 9 || strncmp(h, "127.", 4) != 0) return false;
  int parts = 2, digits = 0, value = 0; /* "127." is the first. */
  for (size_t i = 4; i < len; i++) {
    if (h[i] == '.') {
      if (digits == 0) return false;
      parts++;
      digits = value = 0;
    } else if (isdigit((unsigned char)h[i]) && digits < 3) {
      value = value * 10 + (h[i] - '0');
      if (value > 255) return false;
      digits++;
    } else {
      return false;
    }
  }
  return parts == 4 && digits > 0;
}

bool srv_host_is_loopback(const char *h, size_t len) {
  static const char under[] = ".localhost";
  size_t ul = sizeof under - 1;
  return same(h, len, "localhost", 9) || same(h, len, "[::1]", 5) ||
         (len > ul && same(h + len - ul, ul, under, ul)) ||
         is_ipv4_loopback(h, len);
}

/* Whether the host h names the listen setting's host, or is an address
 * literal when that is a wildcard. */
static bool is_listen_host(const char *listen, const char *h, size_t len) {
  char lhost[256];
  int port;
  if (listen == NULL ||
      srv_parse_host_port(listen, lhost, sizeof lhost, &port) != 0)
    return false;
  unsigned char want[16] = {0}, got[16] = {0};
  int wf = ip_of(lhost, strlen(lhost), want);
  if (wf == 0) return same(h, len, lhost, strlen(lhost));
  int gf = ip_of(h, len, got);
  if (gf == 0) return false;
  static const unsigned char zero[16] = {0};
  if (memcmp(want, zero, sizeof want) == 0) return true; /* 0.0.0.0, [::] */
  return gf == wf && memcmp(want, got, wf == AF_INET ? 4 : 16) == 0;
}

int srv_hosts_validate(const char *list, char *err, size_t err_len) {
  const char *s = list, *e;
  size_t n;
  while (srv_list_next(&s, &e, &n)) {
    if (same(e, n, "*", 1)) continue;
    if (n <= HOST_MAX && host_length(e, n) == n) continue;
    snprintf(err, err_len,
             "'%.*s' is not a host name or address (no scheme, no port) "
             "or *",
             (int)(n > 200 ? 200 : n), e);
    return -1;
  }
  return 0;
}

bool srv_host_allowed(const char *list, const char *listen, const char *host) {
  if (host == NULL || host[0] == '\0') return true;
  const char *h = host;
  size_t len = 0;
  bool parsed = split_host(host, &h, &len);
  const char *s = list, *e;
  size_t n;
  while (srv_list_next(&s, &e, &n)) {
    if (same(e, n, "*", 1)) return true;
    if (parsed && same(e, n, h, len)) return true;
  }
  return parsed &&
         (srv_host_is_loopback(h, len) || is_listen_host(listen, h, len));
}
