/* Tests for client addresses (server/auth/address.h) and X-Forwarded-For
 * (server/auth/forwarded.h): parsing, loopback, prefixes, and the header
 * honoured only from trusted proxies, read from the right. */
#include <check.h>
#include <string.h>

#include "server/auth/forwarded.h"

static const char *name(const srv_addr_t *a) {
  static char buf[64];
  srv_addr_name(a, buf, sizeof buf);
  return buf;
}

static int parse(const char *s, srv_addr_t *a) {
  return srv_addr_parse(s, strlen(s), a);
}

START_TEST(test_parse) {
  srv_addr_t a;
  ck_assert_int_eq(parse("192.0.2.1", &a), 0);
  ck_assert_str_eq(name(&a), "192.0.2.1");
  ck_assert(srv_addr_is_v4(&a));
  ck_assert_int_eq(parse("192.0.2.1:8080", &a), 0);
  ck_assert_str_eq(name(&a), "192.0.2.1");
  ck_assert_int_eq(parse("[2001:db8::1]:443", &a), 0);
  ck_assert_str_eq(name(&a), "2001:db8::1");
  ck_assert(!srv_addr_is_v4(&a));
  ck_assert_int_eq(parse("2001:db8::1", &a), 0);
  ck_assert_int_eq(parse("[::1]", &a), 0);
  ck_assert(srv_addr_is_loopback(&a));
  /* A v4-mapped peer of a dual-stack socket is the IPv4 address. */
  ck_assert_int_eq(parse("[::ffff:127.0.0.5]:1", &a), 0);
  ck_assert(srv_addr_is_v4(&a));
  ck_assert(srv_addr_is_loopback(&a));
  ck_assert_str_eq(name(&a), "127.0.0.5");
  ck_assert_int_eq(parse("10.0.0.1", &a), 0);
  ck_assert(!srv_addr_is_loopback(&a));
  ck_assert_int_eq(parse("0.0.0.0", &a), 0);
  ck_assert(!srv_addr_is_loopback(&a));
  const char *bad[] = {
      "",       "memory", "1.2.3",          "1.2.3.4:", "1.2.3.4:x", "[::1",
      "[::1]x", "[::1]:", "1.2.3.4:123456", "unknown",  "999.1.1.1"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    ck_assert_msg(parse(bad[i], &a) == -1, "accepted '%s'", bad[i]);
}
END_TEST

START_TEST(test_prefixes) {
  srv_prefix_list_t l;
  char err[256];
  ck_assert_int_eq(srv_prefix_list_parse("10.0.0.0/8, 192.168.1.5 fd00::/8,"
                                         "::1",
                                         &l, err, sizeof err),
                   0);
  ck_assert_uint_eq(l.count, 4);
  srv_addr_t a;
  parse("10.200.3.4", &a);
  ck_assert(srv_prefix_list_has(&l, &a));
  parse("11.0.0.1", &a);
  ck_assert(!srv_prefix_list_has(&l, &a));
  parse("192.168.1.5", &a);
  ck_assert(srv_prefix_list_has(&l, &a));
  parse("192.168.1.6", &a);
  ck_assert(!srv_prefix_list_has(&l, &a));
  parse("fdab::1", &a);
  ck_assert(srv_prefix_list_has(&l, &a));
  parse("fe80::1", &a);
  ck_assert(!srv_prefix_list_has(&l, &a));
  parse("::1", &a);
  ck_assert(srv_prefix_list_has(&l, &a));
  /* Odd prefix lengths. */
  ck_assert_int_eq(srv_prefix_list_parse("172.16.0.0/12", &l, err, sizeof err),
                   0);
  parse("172.31.255.255", &a);
  ck_assert(srv_prefix_list_has(&l, &a));
  parse("172.32.0.0", &a);
  ck_assert(!srv_prefix_list_has(&l, &a));
  ck_assert_int_eq(srv_prefix_list_parse("", &l, err, sizeof err), 0);
  ck_assert_uint_eq(l.count, 0);
  ck_assert(!srv_prefix_list_has(&l, &a));
  const char *bad[] = {"10.0.0.0/33", "fd00::/129",  "10.0.0.0/",
                       "balancer",    "10.0.0.0/8x", "10.0.0.0/-1"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ck_assert_int_eq(srv_prefix_list_parse(bad[i], &l, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "is not an address or prefix"));
  }
}
END_TEST

/* The client of peer with one X-Forwarded-For line xff (NULL: none). */
static const char *client(const char *peer, const char *xff,
                          const char *trusted) {
  srv_prefix_list_t l;
  char err[128];
  ck_assert_int_eq(srv_prefix_list_parse(trusted, &l, err, sizeof err), 0);
  srv_addr_t a;
  const char *lines[1] = {xff};
  if (srv_client_address_of(peer, lines, xff ? 1 : 0, &l, &a) != 0)
    return "none";
  return name(&a);
}

START_TEST(test_forwarded_for) {
  /* Untrusted peer: the header is ignored. */
  ck_assert_str_eq(client("192.0.2.9:5000", "203.0.113.7", ""), "192.0.2.9");
  ck_assert_str_eq(client("192.0.2.9:5000", "203.0.113.7", "10.0.0.0/8"),
                   "192.0.2.9");
  /* Trusted peer: its entry names the client. */
  ck_assert_str_eq(client("10.0.0.2:5000", "203.0.113.7", "10.0.0.0/8"),
                   "203.0.113.7");
  /* No header from a trusted peer: the peer. */
  ck_assert_str_eq(client("10.0.0.2:5000", NULL, "10.0.0.0/8"), "10.0.0.2");
  /* What the client wrote itself (left) is not believed: the rightmost
   * untrusted entry is the client. */
  ck_assert_str_eq(
      client("10.0.0.2:5000", "1.1.1.1, 203.0.113.7", "10.0.0.0/8"),
      "203.0.113.7");
  /* Chained trusted proxies are skipped. */
  ck_assert_str_eq(
      client("10.0.0.2:5000", "1.1.1.1, 203.0.113.7 ,10.0.0.9", "10.0.0.0/8"),
      "203.0.113.7");
  /* Only trusted hops: the leftmost. */
  ck_assert_str_eq(client("10.0.0.2:5000", "10.1.1.1, 10.0.0.9", "10.0.0.0/8"),
                   "10.1.1.1");
  /* Garbage stops the walk at the last trusted hop. */
  ck_assert_str_eq(
      client("10.0.0.2:5000", "203.0.113.7, unknown", "10.0.0.0/8"),
      "10.0.0.2");
  ck_assert_str_eq(
      client("10.0.0.2:5000", "203.0.113.7, unknown, 10.0.0.3", "10.0.0.0/8"),
      "10.0.0.3");
  /* Ports and brackets, empty entries. */
  ck_assert_str_eq(client("[::1]:5000", "[2001:db8::5]:1234,,", "::1"),
                   "2001:db8::5");
  ck_assert_str_eq(client("127.0.0.1:5000", "203.0.113.7:80", "127.0.0.1"),
                   "203.0.113.7");
  /* A peer that is no IP address. */
  ck_assert_str_eq(client("memory", "203.0.113.7", "0.0.0.0/0"), "none");
  /* Several header lines are one list, in order. */
  srv_prefix_list_t l;
  char err[64];
  srv_prefix_list_parse("10.0.0.0/8", &l, err, sizeof err);
  const char *lines[] = {"1.1.1.1, 203.0.113.1", "203.0.113.2, 10.0.0.5"};
  srv_addr_t a;
  ck_assert_int_eq(srv_client_address_of("10.0.0.2:1", lines, 2, &l, &a), 0);
  ck_assert_str_eq(name(&a), "203.0.113.2");
  const char *lines2[] = {"203.0.113.1", "10.0.0.5"};
  ck_assert_int_eq(srv_client_address_of("10.0.0.2:1", lines2, 2, &l, &a), 0);
  ck_assert_str_eq(name(&a), "203.0.113.1");
}
END_TEST

Suite *server_auth_forwarded_suite(void) {
  Suite *s = suite_create("server_auth_forwarded");
  TCase *tc = tcase_create("forwarded");
  tcase_add_test(tc, test_parse);
  tcase_add_test(tc, test_prefixes);
  tcase_add_test(tc, test_forwarded_for);
  suite_add_tcase(s, tc);
  return s;
}
