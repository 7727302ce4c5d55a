/* server/auth: client addresses and prefix lists (address.h). */
#include "server/auth/address.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t v4_mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

bool srv_addr_is_v4(const srv_addr_t *a) {
  return memcmp(a->b, v4_mapped, sizeof v4_mapped) == 0;
}

/* Whether s (n bytes) is all decimal digits, 1 to 5 of them. */
static bool is_port(const char *s, size_t n) {
  if (n == 0 || n > 5) return false;
  for (size_t i = 0; i < n; i++)
    if (s[i] < '0' || s[i] > '9') return false;
  return true;
}

int srv_addr_parse(const char *text, size_t n, srv_addr_t *out) {
  char buf[64];
  const char *host = text;
  size_t hn = n;
  if (n > 0 && text[0] == '[') {
    const char *close = memchr(text, ']', n);
    if (close == NULL) return -1;
    host = text + 1;
    hn = (size_t)(close - host);
    size_t after = n - (size_t)(close + 1 - text);
    if (after > 0 && (close[1] != ':' || !is_port(close + 2, after - 1)))
      return -1;
  } else {
    const char *colon = memchr(text, ':', n);
    /* One colon: IPv4 with a port; more: a bare IPv6 address. */
    if (colon != NULL &&
        memchr(colon + 1, ':', n - (size_t)(colon + 1 - text)) == NULL) {
      if (!is_port(colon + 1, n - (size_t)(colon + 1 - text))) return -1;
      hn = (size_t)(colon - text);
    }
  }
  if (hn == 0 || hn >= sizeof buf) return -1;
  memcpy(buf, host, hn);
  buf[hn] = '\0';
  struct in_addr v4;
  if (inet_pton(AF_INET, buf, &v4) == 1) {
    memcpy(out->b, v4_mapped, sizeof v4_mapped);
    memcpy(out->b + 12, &v4, 4);
    return 0;
  }
  struct in6_addr v6;
  if (inet_pton(AF_INET6, buf, &v6) == 1) {
    memcpy(out->b, &v6, 16);
    return 0;
  }
  return -1;
}

void srv_addr_name(const srv_addr_t *a, char *out, size_t cap) {
  char buf[INET6_ADDRSTRLEN];
  const char *s = srv_addr_is_v4(a)
                      ? inet_ntop(AF_INET, a->b + 12, buf, sizeof buf)
                      : inet_ntop(AF_INET6, a->b, buf, sizeof buf);
  snprintf(out, cap, "%s", s ? s : "?");
}

bool srv_addr_is_loopback(const srv_addr_t *a) {
  if (srv_addr_is_v4(a)) return a->b[12] == 127;
  static const uint8_t one[16] = {[15] = 1};
  return memcmp(a->b, one, 16) == 0;
}

srv_addr_t srv_addr_client_key(const srv_addr_t *a) {
  srv_addr_t k = *a;
  if (!srv_addr_is_v4(a)) memset(k.b + 8, 0, 8);
  return k;
}

/* Whether the first bits bits of a and b agree. */
static bool same_prefix(const srv_addr_t *a, const srv_addr_t *b,
                        unsigned bits) {
  unsigned whole = bits / 8, rest = bits % 8;
  if (memcmp(a->b, b->b, whole) != 0) return false;
  if (rest == 0) return true;
  uint8_t mask = (uint8_t)(0xff << (8 - rest));
  return (a->b[whole] & mask) == (b->b[whole] & mask);
}

/* Parses one "addr" or "addr/len" entry (n bytes). */
static int parse_prefix(const char *s, size_t n, srv_prefix_t *p) {
  const char *slash = memchr(s, '/', n);
  size_t an = slash ? (size_t)(slash - s) : n;
  if (srv_addr_parse(s, an, &p->net) != 0) return -1;
  unsigned max = srv_addr_is_v4(&p->net) ? 32 : 128;
  unsigned len = max;
  if (slash != NULL) {
    size_t ln = n - an - 1;
    if (ln == 0 || ln > 3) return -1;
    len = 0;
    for (size_t i = 0; i < ln; i++) {
      char c = slash[1 + i];
      if (c < '0' || c > '9') return -1;
      len = len * 10 + (unsigned)(c - '0');
    }
    if (len > max) return -1;
  }
  /* IPv4 prefixes count from the start of the mapped form. */
  p->bits = len + (128 - max);
  return 0;
}

int srv_prefix_list_parse(const char *text, srv_prefix_list_t *out, char *err,
                          size_t err_len) {
  out->count = 0;
  const char *s = text;
  for (;;) {
    while (*s == ' ' || *s == ',' || *s == '\t') s++;
    if (*s == '\0') return 0;
    size_t n = strcspn(s, " ,\t");
    if (out->count == SRV_MAX_PREFIXES) {
      snprintf(err, err_len, "more than %d entries", SRV_MAX_PREFIXES);
      return -1;
    }
    if (parse_prefix(s, n, &out->items[out->count]) != 0) {
      snprintf(err, err_len,
               "'%.*s' is not an address or prefix "
               "(10.0.0.0/8, fd00::/8, 192.168.1.5)",
               (int)(n > 64 ? 64 : n), s);
      return -1;
    }
    out->count++;
    s += n;
  }
}

bool srv_prefix_list_has(const srv_prefix_list_t *l, const srv_addr_t *a) {
  for (unsigned i = 0; i < l->count; i++)
    if (same_prefix(&l->items[i].net, a, l->items[i].bits)) return true;
  return false;
}
