/* server/auth: client addresses for access control: parsing (peer names,
 * X-Forwarded-For entries), loopback, the key a client is counted under
 * by the rate limits, and prefix lists (trusted_proxies).
 *
 * Key choice: one 16-byte form for both families, IPv4 as IPv4-mapped
 * IPv6 (::ffff:a.b.c.d), so a prefix, a key and a comparison are the same
 * code for both. */
#ifndef ANIMD_SERVER_AUTH_ADDRESS_H
#define ANIMD_SERVER_AUTH_ADDRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct srv_addr_s {
  uint8_t b[16];
} srv_addr_t;

/* Parses an address of n bytes: "1.2.3.4", "1.2.3.4:port", "::1",
 * "[::1]" or "[::1]:port". Returns 0 or -1. */
int srv_addr_parse(const char *text, size_t n, srv_addr_t *out);

/* "a.b.c.d" or the IPv6 text of a (at least 46 bytes). */
void srv_addr_name(const srv_addr_t *a, char *out, size_t cap);

bool srv_addr_is_v4(const srv_addr_t *a);
/* 127.0.0.0/8 or ::1. */
bool srv_addr_is_loopback(const srv_addr_t *a);

/* What a client is counted under: an IPv4 address whole (/32), an IPv6
 * address by its /64 (one site's or one host's prefix). */
srv_addr_t srv_addr_client_key(const srv_addr_t *a);

/* An address prefix: bits leading bits of net (in the 16-byte form). */
typedef struct srv_prefix_s {
  srv_addr_t net;
  unsigned bits;
} srv_prefix_t;

#define SRV_MAX_PREFIXES 64

typedef struct srv_prefix_list_s {
  srv_prefix_t items[SRV_MAX_PREFIXES];
  unsigned count;
} srv_prefix_list_t;

/* Parses "10.0.0.0/8, 192.168.1.5, fd00::/8" (commas or spaces between;
 * "" is the empty list). Returns 0, or -1 with the entry at fault in
 * err. */
int srv_prefix_list_parse(const char *text, srv_prefix_list_t *out, char *err,
                          size_t err_len);

bool srv_prefix_list_has(const srv_prefix_list_t *l, const srv_addr_t *a);

#endif
