/* Tests for client addresses and prefix lists (server/auth/address.h)
 * beyond parsing: the 16-byte form of both families, names, loopback in
 * both, the client key (IPv4 whole, IPv6 by its /64), CIDR prefixes of
 * every length at their edges in IPv4 and IPv6, and the list parser's
 * separators, limits and messages. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "server/auth/address.h"

static srv_addr_t addr(const char *s) {
  srv_addr_t a;
  ck_assert_msg(srv_addr_parse(s, strlen(s), &a) == 0, "'%s'", s);
  return a;
}

static const char *name(const srv_addr_t *a) {
  static char buf[64];
  srv_addr_name(a, buf, sizeof buf);
  return buf;
}

static bool in(const char *list, const char *a) {
  srv_prefix_list_t l;
  char err[256];
  ck_assert_msg(srv_prefix_list_parse(list, &l, err, sizeof err) == 0, "%s: %s",
                list, err);
  srv_addr_t x = addr(a);
  return srv_prefix_list_has(&l, &x);
}

START_TEST(test_forms_and_names) {
  srv_addr_t a = addr("192.0.2.33");
  static const unsigned char mapped[16] = {0, 0, 0,    0,    0,   0, 0, 0,
                                           0, 0, 0xff, 0xff, 192, 0, 2, 33};
  ck_assert(memcmp(a.b, mapped, 16) == 0);
  /* The same address written as IPv4-mapped IPv6 is the same. */
  srv_addr_t b = addr("::ffff:192.0.2.33");
  ck_assert(memcmp(a.b, b.b, 16) == 0);
  ck_assert_str_eq(name(&b), "192.0.2.33");
  a = addr("2001:DB8:0:0:0:0:0:1");
  ck_assert_str_eq(name(&a), "2001:db8::1");
  ck_assert_int_eq(a.b[0], 0x20);
  ck_assert_int_eq(a.b[15], 1);
  a = addr("::");
  ck_assert_str_eq(name(&a), "::");
  ck_assert(!srv_addr_is_v4(&a));
  /* Only n bytes are read. */
  ck_assert_int_eq(srv_addr_parse("10.0.0.1junk", 8, &a), 0);
  ck_assert_str_eq(name(&a), "10.0.0.1");
  /* A name too small is cut, still terminated. */
  char small[5];
  a = addr("10.20.30.40");
  srv_addr_name(&a, small, sizeof small);
  ck_assert_str_eq(small, "10.2");
  /* Ports of 1 to 5 digits only; brackets only around IPv6 text. */
  ck_assert_int_eq(srv_addr_parse("1.2.3.4:65535", 13, &a), 0);
  ck_assert_int_eq(srv_addr_parse("1.2.3.4:0", 9, &a), 0);
  const char *bad[] = {"[1.2.3.4]x", "1.2.3.4:1:2", "::1:",     "[::1]:123456",
                       "01.2.3.4x",  " 1.2.3.4",    "1.2.3.4 ", "[]"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    ck_assert_msg(srv_addr_parse(bad[i], strlen(bad[i]), &a) == -1,
                  "accepted '%s'", bad[i]);
  /* More than fits the parser's buffer. */
  char longname[80];
  memset(longname, '1', sizeof longname);
  ck_assert_int_eq(srv_addr_parse(longname, sizeof longname, &a), -1);
}
END_TEST

START_TEST(test_loopback) {
  const char *yes[] = {"127.0.0.1", "127.255.255.254", "127.0.0.0",
                       "::1",       "[::1]:80",        "::ffff:127.1.2.3"};
  for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
    srv_addr_t a = addr(yes[i]);
    ck_assert_msg(srv_addr_is_loopback(&a), "%s", yes[i]);
  }
  const char *no[] = {
      "126.255.255.255", "128.0.0.1", "::2",     "::",
      "::127.0.0.1",     "fe80::1",   "0.0.0.0", "::ffff:10.0.0.1"};
  for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
    srv_addr_t a = addr(no[i]);
    ck_assert_msg(!srv_addr_is_loopback(&a), "%s", no[i]);
  }
}
END_TEST

START_TEST(test_client_key) {
  /* IPv4: the whole address. */
  srv_addr_t a = addr("203.0.113.9"), k = srv_addr_client_key(&a);
  ck_assert(memcmp(a.b, k.b, 16) == 0);
  /* IPv6: the /64, the host half zeroed. */
  a = addr("2001:db8:1:2:aaaa:bbbb:cccc:dddd");
  k = srv_addr_client_key(&a);
  ck_assert_str_eq(name(&k), "2001:db8:1:2::");
  srv_addr_t b = addr("2001:db8:1:2::5"), kb = srv_addr_client_key(&b);
  ck_assert(memcmp(k.b, kb.b, 16) == 0);
  srv_addr_t c = addr("2001:db8:1:3::5"), kc = srv_addr_client_key(&c);
  ck_assert(memcmp(k.b, kc.b, 16) != 0);
}
END_TEST

START_TEST(test_ipv4_prefix_edges) {
  ck_assert(in("10.0.0.0/8", "10.255.255.255"));
  ck_assert(!in("10.0.0.0/8", "11.0.0.0"));
  ck_assert(!in("10.0.0.0/8", "9.255.255.255"));
  ck_assert(in("192.168.4.0/22", "192.168.7.255"));
  ck_assert(!in("192.168.4.0/22", "192.168.8.0"));
  ck_assert(!in("192.168.4.0/22", "192.168.3.255"));
  ck_assert(in("172.16.0.0/12", "172.31.1.1"));
  ck_assert(!in("172.16.0.0/12", "172.32.0.0"));
  /* /32 and an address without a length: that address only. */
  ck_assert(in("198.51.100.7/32", "198.51.100.7"));
  ck_assert(!in("198.51.100.7/32", "198.51.100.6"));
  ck_assert(in("198.51.100.7", "198.51.100.7"));
  ck_assert(!in("198.51.100.7", "198.51.100.8"));
  /* /0: every IPv4 address, but no IPv6 one. */
  ck_assert(in("0.0.0.0/0", "255.255.255.255"));
  ck_assert(in("0.0.0.0/0", "1.2.3.4"));
  ck_assert(!in("0.0.0.0/0", "2001:db8::1"));
  /* Host bits set in the prefix are ignored past its length. */
  ck_assert(in("10.1.2.3/8", "10.200.0.1"));
  /* Every length from 1 to 31 at its edge. */
  for (unsigned len = 1; len < 32; len++) {
    char list[32];
    snprintf(list, sizeof list, "128.0.0.0/%u", len);
    uint32_t last = 0x80000000u | ((1u << (32 - len)) - 1);
    uint32_t past = last + 1;
    char a1[20], a2[20];
    snprintf(a1, sizeof a1, "%u.%u.%u.%u", last >> 24, (last >> 16) & 255,
             (last >> 8) & 255, last & 255);
    snprintf(a2, sizeof a2, "%u.%u.%u.%u", past >> 24, (past >> 16) & 255,
             (past >> 8) & 255, past & 255);
    ck_assert_msg(in(list, a1), "%s has %s", list, a1);
    ck_assert_msg(!in(list, a2), "%s has not %s", list, a2);
  }
}
END_TEST

START_TEST(test_ipv6_prefix_edges) {
  ck_assert(in("fd00::/8", "fdff:ffff::1"));
  ck_assert(!in("fd00::/8", "fe00::1"));
  ck_assert(!in("fd00::/8", "fc00::1"));
  ck_assert(in("2001:db8::/32", "2001:db8:ffff:ffff::1"));
  ck_assert(!in("2001:db8::/32", "2001:db9::"));
  ck_assert(in("2001:db8:0:1::/64", "2001:db8:0:1:ffff:ffff:ffff:ffff"));
  ck_assert(!in("2001:db8:0:1::/64", "2001:db8:0:2::"));
  ck_assert(in("2001:db8::/127", "2001:db8::1"));
  ck_assert(!in("2001:db8::/127", "2001:db8::2"));
  ck_assert(in("::1/128", "::1"));
  ck_assert(!in("::1/128", "::2"));
  ck_assert(in("::/0", "2001:db8::1"));
  /* ::/0 covers the mapped IPv4 form too: every address. */
  ck_assert(in("::/0", "10.0.0.1"));
  /* A mapped IPv4 prefix is an IPv4 prefix. */
  ck_assert(in("::ffff:10.0.0.0/8", "10.9.9.9"));
  ck_assert(!in("::ffff:10.0.0.0/8", "11.0.0.0"));
  /* A bracketed address may carry a length. */
  ck_assert(in("[fd00::]/8", "fd12::1"));
  /* An odd length inside a byte. */
  ck_assert(in("2001:db8:8000::/33", "2001:db8:ffff::"));
  ck_assert(!in("2001:db8:8000::/33", "2001:db8:7fff::"));
}
END_TEST

START_TEST(test_list_parsing) {
  srv_prefix_list_t l;
  char err[256];
  ck_assert_int_eq(srv_prefix_list_parse("", &l, err, sizeof err), 0);
  ck_assert_uint_eq(l.count, 0);
  ck_assert_int_eq(srv_prefix_list_parse(" ,\t, ", &l, err, sizeof err), 0);
  ck_assert_uint_eq(l.count, 0);
  srv_addr_t a = addr("10.0.0.1");
  ck_assert(!srv_prefix_list_has(&l, &a));
  ck_assert_int_eq(
      srv_prefix_list_parse("1.1.1.1,,2.2.2.2\t3.3.3.3 ,", &l, err, sizeof err),
      0);
  ck_assert_uint_eq(l.count, 3);
  ck_assert_uint_eq(l.items[0].bits, 128);
  ck_assert_int_eq(
      srv_prefix_list_parse("10.0.0.0/8 fd00::/8", &l, err, sizeof err), 0);
  /* IPv4 lengths count from the start of the mapped form. */
  ck_assert_uint_eq(l.items[0].bits, 96 + 8);
  ck_assert_uint_eq(l.items[1].bits, 8);
  /* Bad entries and the message naming them. */
  static const struct {
    const char *list, *entry;
  } bad[] = {{"10.0.0.0/33", "10.0.0.0/33"},
             {"fd00::/129", "fd00::/129"},
             {"10.0.0.0/", "10.0.0.0/"},
             {"10.0.0.0/-1", "10.0.0.0/-1"},
             {"10.0.0.0/0008", "10.0.0.0/0008"},
             {"10.0.0.0/8x", "10.0.0.0/8x"},
             {"1.1.1.1, example.com", "example.com"},
             {"10.0.0.0/8;11.0.0.0/8", "10.0.0.0/8;11.0.0.0/8"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ck_assert_msg(srv_prefix_list_parse(bad[i].list, &l, err, sizeof err) == -1,
                  "accepted %s", bad[i].list);
    char want[256];
    snprintf(want, sizeof want,
             "'%s' is not an address or prefix (10.0.0.0/8, fd00::/8, "
             "192.168.1.5)",
             bad[i].entry);
    ck_assert_str_eq(err, want);
  }
  /* Leading zeros of a length within three digits are fine. */
  ck_assert_int_eq(srv_prefix_list_parse("10.0.0.0/008", &l, err, sizeof err),
                   0);
  ck_assert_uint_eq(l.items[0].bits, 104);
  /* A long bad entry is cut to 64 bytes in the message. */
  char longe[200];
  memset(longe, 'z', sizeof longe - 1);
  longe[sizeof longe - 1] = '\0';
  ck_assert_int_eq(srv_prefix_list_parse(longe, &l, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "'zzzz"));
  ck_assert_uint_eq(strspn(err + 1, "z"), 64);
}
END_TEST

START_TEST(test_list_limit) {
  char text[64 * 20 + 32];
  size_t n = 0;
  for (int i = 0; i < SRV_MAX_PREFIXES; i++)
    n += (size_t)snprintf(text + n, sizeof text - n, "10.0.%d.0/24,", i);
  srv_prefix_list_t l;
  char err[256];
  ck_assert_int_eq(srv_prefix_list_parse(text, &l, err, sizeof err), 0);
  ck_assert_uint_eq(l.count, SRV_MAX_PREFIXES);
  srv_addr_t a = addr("10.0.63.200");
  ck_assert(srv_prefix_list_has(&l, &a));
  a = addr("10.0.64.1");
  ck_assert(!srv_prefix_list_has(&l, &a));
  snprintf(text + n, sizeof text - n, "11.0.0.0/8");
  ck_assert_int_eq(srv_prefix_list_parse(text, &l, err, sizeof err), -1);
  ck_assert_str_eq(err, "more than 64 entries");
}
END_TEST

Suite *server_auth_address_suite(void) {
  Suite *s = suite_create("server_auth_address");
  TCase *tc = tcase_create("address");
  tcase_add_test(tc, test_forms_and_names);
  tcase_add_test(tc, test_loopback);
  tcase_add_test(tc, test_client_key);
  tcase_add_test(tc, test_ipv4_prefix_edges);
  tcase_add_test(tc, test_ipv6_prefix_edges);
  tcase_add_test(tc, test_list_parsing);
  tcase_add_test(tc, test_list_limit);
  suite_add_tcase(s, tc);
  return s;
}
