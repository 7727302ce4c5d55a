/* Tests for the Host allow-list (server/hosts.h) as pure functions: the
 * loopback names and addresses, the listen address (and any address when
 * it is a wildcard), configured names, "*", the shapes of Host refused,
 * and the syntax of allowed_hosts. */
#include <check.h>
#include <string.h>

#include "server/hosts.h"

START_TEST(test_loopback_always) {
  static const char *const ok[] = {
      "localhost",   "localhost:8080",
      "LOCALHOST:1", "app.localhost:3000",
      "127.0.0.1",   "127.0.0.1:8080",
      "127.1.2.3:9", "[::1]",
      "[::1]:8080",  "",
      NULL,
  };
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
    ck_assert_msg(srv_host_allowed("", "127.0.0.1:8080", ok[i]), "%s",
                  ok[i] ? ok[i] : "(none)");
  static const char *const no[] = {
      "evil.test",
      "evil.test:8080",
      "localhost.evil.test",
      "127.0.0.1.evil.test",
      "127.0.0.256",
      "[::2]:8080",
      "x",
      "localhost:80:80",
      "localhost/",
      "local host",
      "[::1",
      "localhost:1234567",
      "10.0.0.5:8080",
      "user@localhost",
  };
  for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
    ck_assert_msg(!srv_host_allowed("", "127.0.0.1:8080", no[i]), "%s", no[i]);
}
END_TEST

START_TEST(test_listen_address) {
  ck_assert(srv_host_allowed("", "10.0.0.5:8080", "10.0.0.5:8080"));
  ck_assert(srv_host_allowed("", "10.0.0.5:8080", "10.0.0.5"));
  ck_assert(!srv_host_allowed("", "10.0.0.5:8080", "10.0.0.6:8080"));
  ck_assert(srv_host_allowed("", "[fd00::1]:8080", "[fd00:0::1]:8080"));
  ck_assert(!srv_host_allowed("", "[fd00::1]:8080", "[fd00::2]"));
  ck_assert(srv_host_allowed("", "animd.lan:8080", "ANIMD.lan:8080"));
  ck_assert(!srv_host_allowed("", "animd.lan:8080", "evil.lan:8080"));
  /* A wildcard: any address literal (it cannot be rebound), no name. */
  ck_assert(srv_host_allowed("", "0.0.0.0:8080", "192.0.2.7:8080"));
  ck_assert(srv_host_allowed("", "[::]:8080", "[2001:db8::7]"));
  ck_assert(!srv_host_allowed("", "0.0.0.0:8080", "evil.test:8080"));
  ck_assert(!srv_host_allowed("", "[::]:8080", "evil.test"));
}
END_TEST

START_TEST(test_configured_names) {
  const char *list = "animd.example.com, 192.0.2.9 [2001:db8::9]";
  ck_assert(srv_host_allowed(list, "127.0.0.1:8080", "animd.example.com"));
  ck_assert(srv_host_allowed(list, "127.0.0.1:8080", "Animd.Example.Com:443"));
  ck_assert(srv_host_allowed(list, "127.0.0.1:8080", "192.0.2.9:80"));
  ck_assert(srv_host_allowed(list, "127.0.0.1:8080", "[2001:db8::9]:80"));
  ck_assert(!srv_host_allowed(list, "127.0.0.1:8080", "example.com"));
  ck_assert(!srv_host_allowed(list, "127.0.0.1:8080", "x.animd.example.com"));
  ck_assert(srv_host_allowed("*", "127.0.0.1:8080", "evil.test:1"));
  ck_assert(srv_host_allowed("a, *", "127.0.0.1:8080", "evil.test"));
}
END_TEST

START_TEST(test_validate) {
  char err[256];
  static const char *const good[] = {"", "*", "animd.example.com",
                                     "a.example, 10.0.0.1 [fd00::1]", "x"};
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
    ck_assert_msg(srv_hosts_validate(good[i], err, sizeof err) == 0, "%s: %s",
                  good[i], err);
  static const char *const bad[] = {"http://a.example",
                                    "a.example:8080",
                                    "[fd00::1]:80",
                                    "a/b",
                                    "[zz]",
                                    "a@b"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ck_assert_msg(srv_hosts_validate(bad[i], err, sizeof err) == -1, "%s",
                  bad[i]);
    ck_assert_ptr_nonnull(strstr(err, "is not a host name or address"));
  }
}
END_TEST

Suite *server_hosts_suite(void) {
  Suite *s = suite_create("server_hosts");
  TCase *tc = tcase_create("hosts");
  tcase_add_test(tc, test_loopback_always);
  tcase_add_test(tc, test_listen_address);
  tcase_add_test(tc, test_configured_names);
  tcase_add_test(tc, test_validate);
  suite_add_tcase(s, tc);
  return s;
}
