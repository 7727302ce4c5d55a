/* Tests for the per-address token buckets (server/auth/rate_limit.h) on
 * a clock the test drives: a burst then refusals with the exact wait,
 * refill at the configured rate, kinds and addresses apart, IPv6 counted
 * by /64, the table's bound under a flood of distinct addresses, and one
 * table shared by several threads (the HTTP loops) counting every take;
 * no limit at a rate of 0, bursts below 1 and fractional, a clock going
 * back, and eviction counts down to a table of one. */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "server/auth/rate_limit.h"

#define S 1000000000ull /* ns per second */

static srv_addr_t addr(const char *text) {
  srv_addr_t a;
  ck_assert_int_eq(srv_addr_parse(text, strlen(text), &a), 0);
  return srv_addr_client_key(&a);
}

START_TEST(test_burst_then_refill) {
  srv_limiter_t *l;
  ck_assert_int_eq(srv_limiter_new(16, &l), 0);
  srv_rate_t r = {.per_s = 2, .burst = 3}; /* 2/s, 3 at once */
  srv_addr_t a = addr("192.0.2.1");
  uint64_t t = 1000 * S;
  for (int i = 0; i < 3; i++)
    ck_assert_uint_eq(srv_limiter_take(l, SRV_LIMIT_WRITE, &r, &a, t), 0);
  /* Empty: one token comes back in 1/2 s. */
  uint64_t wait = srv_limiter_take(l, SRV_LIMIT_WRITE, &r, &a, t);
  ck_assert_uint_ge(wait, S / 2);
  ck_assert_uint_le(wait, S / 2 + 2);
  /* 0.4 s later: still 0.1 s to wait. */
  wait = srv_limiter_take(l, SRV_LIMIT_WRITE, &r, &a, t + 4 * S / 10);
  ck_assert_uint_ge(wait, S / 10 - 2);
  ck_assert_uint_le(wait, S / 10 + 2);
  /* At 0.5 s one token, exactly. */
  ck_assert_uint_eq(srv_limiter_take(l, SRV_LIMIT_WRITE, &r, &a, t + S / 2), 0);
  ck_assert_uint_ne(srv_limiter_take(l, SRV_LIMIT_WRITE, &r, &a, t + S / 2), 0);
  /* A long quiet time refills to the burst, not beyond. */
  t += 3600 * S;
  for (int i = 0; i < 3; i++)
    ck_assert_uint_eq(srv_limiter_take(l, SRV_LIMIT_WRITE, &r, &a, t), 0);
  ck_assert_uint_ne(srv_limiter_take(l, SRV_LIMIT_WRITE, &r, &a, t), 0);
  srv_limiter_free(l);
}
END_TEST

START_TEST(test_kinds_and_addresses_apart) {
  srv_limiter_t *l;
  ck_assert_int_eq(srv_limiter_new(16, &l), 0);
  srv_rate_t r = {.per_s = 1.0 / 60, .burst = 1}; /* 1/min */
  srv_rate_t off = {.per_s = 0, .burst = 1};
  srv_addr_t a = addr("192.0.2.1"), b = addr("192.0.2.2");
  uint64_t t = 5 * S;
  ck_assert_uint_eq(srv_limiter_take(l, SRV_LIMIT_WRITE, &r, &a, t), 0);
  uint64_t wait = srv_limiter_take(l, SRV_LIMIT_WRITE, &r, &a, t);
  ck_assert_uint_ge(wait, 60 * S - 2);
  ck_assert_uint_le(wait, 60 * S + 2);
  ck_assert_uint_eq(srv_limiter_take(l, SRV_LIMIT_CONNECTION, &r, &a, t), 0);
  ck_assert_uint_eq(srv_limiter_take(l, SRV_LIMIT_WRITE, &r, &b, t), 0);
  /* A rate of 0 is no limit. */
  for (int i = 0; i < 100; i++)
    ck_assert_uint_eq(srv_limiter_take(l, SRV_LIMIT_WRITE, &off, &a, t), 0);
  /* A burst below 1 still lets one through. */
  srv_rate_t tiny = {.per_s = 1, .burst = 0};
  srv_addr_t c = addr("192.0.2.3");
  ck_assert_uint_eq(srv_limiter_take(l, SRV_LIMIT_WRITE, &tiny, &c, t), 0);
  ck_assert_uint_ne(srv_limiter_take(l, SRV_LIMIT_WRITE, &tiny, &c, t), 0);
  ck_assert_uint_eq(srv_limiter_size(l), 3);
  srv_limiter_free(l);
}
END_TEST

START_TEST(test_ipv6_by_64) {
  srv_limiter_t *l;
  ck_assert_int_eq(srv_limiter_new(16, &l), 0);
  srv_rate_t r = {.per_s = 1, .burst = 1};
  srv_addr_t a = addr("2001:db8:1:2::1"), b = addr("2001:db8:1:2:ffff::9");
  srv_addr_t c = addr("2001:db8:1:3::1");
  ck_assert_uint_eq(srv_limiter_take(l, SRV_LIMIT_WRITE, &r, &a, S), 0);
  /* Same /64: the same bucket. */
  ck_assert_uint_ne(srv_limiter_take(l, SRV_LIMIT_WRITE, &r, &b, S), 0);
  ck_assert_uint_eq(srv_limiter_take(l, SRV_LIMIT_WRITE, &r, &c, S), 0);
  /* IPv4 by the whole address. */
  srv_addr_t d = addr("198.51.100.7"), e = addr("198.51.100.8");
  ck_assert_uint_eq(srv_limiter_take(l, SRV_LIMIT_WRITE, &r, &d, S), 0);
  ck_assert_uint_eq(srv_limiter_take(l, SRV_LIMIT_WRITE, &r, &e, S), 0);
  srv_limiter_free(l);
}
END_TEST

/* The i-th address of 10.0.0.0/8. */
static srv_addr_t flood_addr(unsigned i) {
  srv_addr_t a;
  memset(&a, 0, sizeof a);
  a.b[10] = a.b[11] = 0xff;
  a.b[12] = 10;
  a.b[13] = (uint8_t)(i >> 16);
  a.b[14] = (uint8_t)(i >> 8);
  a.b[15] = (uint8_t)i;
  return a;
}

START_TEST(test_bounded_under_flood) {
  enum { CAP = 1000, FLOOD = 200000 };
  srv_limiter_t *l;
  ck_assert_int_eq(srv_limiter_new(CAP, &l), 0);
  srv_rate_t r = {.per_s = 1.0 / 3600, .burst = 1}; /* 1/h */
  srv_addr_t victim = addr("192.0.2.200");
  uint64_t t = S;
  ck_assert_uint_eq(srv_limiter_take(l, SRV_LIMIT_WRITE, &r, &victim, t), 0);
  ck_assert_uint_ne(srv_limiter_take(l, SRV_LIMIT_WRITE, &r, &victim, t), 0);
  /* Every address of 10.0.0.0/8 up to FLOOD, each once. */
  for (unsigned i = 0; i < FLOOD; i++) {
    srv_addr_t a = flood_addr(i);
    ck_assert_uint_eq(srv_limiter_take(l, SRV_LIMIT_WRITE, &r, &a, t), 0);
    /* While it stays among the CAP most recent, an address is held to
     * its limit. */
    if (i % 997 == 0)
      ck_assert_uint_ne(srv_limiter_take(l, SRV_LIMIT_WRITE, &r, &a, t), 0);
    ck_assert_uint_le(srv_limiter_size(l), CAP);
  }
  ck_assert_uint_eq(srv_limiter_size(l), CAP);
  ck_assert_uint_eq(srv_limiter_evictions(l), FLOOD + 1 - CAP);
  /* The victim was forgotten: back with a full bucket. */
  ck_assert_uint_eq(srv_limiter_take(l, SRV_LIMIT_WRITE, &r, &victim, t), 0);
  /* A recently seen address is still remembered (the last of the flood). */
  srv_addr_t last = flood_addr(FLOOD - 1);
  ck_assert_uint_ne(srv_limiter_take(l, SRV_LIMIT_WRITE, &r, &last, t), 0);
  srv_limiter_free(l);
}
END_TEST

START_TEST(test_lru_keeps_the_active) {
  /* An address seen again moves to the front: with a table of 2, a
   * busy address survives a stream of one-off ones. */
  srv_limiter_t *l;
  ck_assert_int_eq(srv_limiter_new(2, &l), 0);
  srv_rate_t r = {.per_s = 1.0 / 3600, .burst = 2};
  srv_addr_t busy = addr("192.0.2.1");
  ck_assert_uint_eq(srv_limiter_take(l, SRV_LIMIT_WRITE, &r, &busy, S), 0);
  for (int i = 0; i < 50; i++) {
    char name[32];
    snprintf(name, sizeof name, "198.51.100.%d", i);
    srv_addr_t a = addr(name);
    ck_assert_uint_eq(srv_limiter_take(l, SRV_LIMIT_WRITE, &r, &a, S), 0);
    if (i == 0)
      ck_assert_uint_eq(srv_limiter_take(l, SRV_LIMIT_WRITE, &r, &busy, S), 0);
    else
      ck_assert_uint_ne(srv_limiter_take(l, SRV_LIMIT_WRITE, &r, &busy, S), 0);
  }
  srv_limiter_free(l);
}
END_TEST

/* Four threads take from one bucket (burst 100, no refill to speak of)
 * and from their own addresses in a small table: exactly the burst is
 * granted in all, whichever thread asked. */
typedef struct taker_s {
  srv_limiter_t *l;
  unsigned index;
  unsigned granted;
} taker_t;

static void *take_many(void *arg) {
  taker_t *t = arg;
  const srv_rate_t rate = {1e-9, 100};
  srv_addr_t shared = addr("198.51.100.7");
  for (unsigned i = 0; i < 200; i++) {
    if (srv_limiter_take(t->l, SRV_LIMIT_CONNECTION, &rate, &shared,
                         1000000000ull) == 0)
      t->granted++;
    char own[32];
    snprintf(own, sizeof own, "203.0.113.%u", (t->index * 50 + i) % 250);
    srv_addr_t k = addr(own);
    srv_limiter_take(t->l, SRV_LIMIT_WRITE, &rate, &k, 1000000000ull);
  }
  return NULL;
}

START_TEST(test_shared_by_threads) {
  srv_limiter_t *l;
  ck_assert_int_eq(srv_limiter_new(64, &l), 0);
  pthread_t th[4];
  taker_t t[4];
  for (unsigned i = 0; i < 4; i++) {
    t[i] = (taker_t){.l = l, .index = i};
    ck_assert_int_eq(pthread_create(&th[i], NULL, take_many, &t[i]), 0);
  }
  unsigned granted = 0;
  for (unsigned i = 0; i < 4; i++) {
    pthread_join(th[i], NULL);
    granted += t[i].granted;
  }
  ck_assert_uint_eq(granted, 100);
  ck_assert_uint_le(srv_limiter_size(l), 64);
  srv_limiter_free(l);
}
END_TEST

/* ---- edges ------------------------------------------------------------- */

START_TEST(test_no_limit_and_bad_kind) {
  srv_limiter_t *l;
  ck_assert_int_eq(srv_limiter_new(4, &l), 0);
  srv_addr_t a = addr("192.0.2.7");
  srv_rate_t off = {.per_s = 0, .burst = 1};
  srv_rate_t neg = {.per_s = -5, .burst = 1};
  srv_rate_t on = {.per_s = 1, .burst = 1};
  for (int i = 0; i < 10; i++) {
    ck_assert_uint_eq(srv_limiter_take(l, SRV_LIMIT_WRITE, &off, &a, S), 0);
    ck_assert_uint_eq(srv_limiter_take(l, SRV_LIMIT_WRITE, &neg, &a, S), 0);
    ck_assert_uint_eq(srv_limiter_take(l, SRV_LIMIT_KINDS_, &on, &a, S), 0);
  }
  /* Nothing was remembered for them. */
  ck_assert_uint_eq(srv_limiter_size(l), 0);
  srv_limiter_free(l);
  srv_limiter_free(NULL);
}
END_TEST

START_TEST(test_burst_below_one_and_fractions) {
  srv_limiter_t *l;
  ck_assert_int_eq(srv_limiter_new(4, &l), 0);
  srv_addr_t a = addr("192.0.2.8"), b = addr("192.0.2.9");
  /* A burst below 1 is 1. */
  srv_rate_t tiny = {.per_s = 1, .burst = 0.25};
  ck_assert_uint_eq(srv_limiter_take(l, SRV_LIMIT_WRITE, &tiny, &a, S), 0);
  uint64_t wait = srv_limiter_take(l, SRV_LIMIT_WRITE, &tiny, &a, S);
  ck_assert_uint_ge(wait, S);
  ck_assert_uint_le(wait, S + 2);
  /* A burst of 2.5: two at once, then half a token to wait for. */
  srv_rate_t half = {.per_s = 4, .burst = 2.5};
  ck_assert_uint_eq(srv_limiter_take(l, SRV_LIMIT_WRITE, &half, &b, S), 0);
  ck_assert_uint_eq(srv_limiter_take(l, SRV_LIMIT_WRITE, &half, &b, S), 0);
  wait = srv_limiter_take(l, SRV_LIMIT_WRITE, &half, &b, S);
  ck_assert_uint_ge(wait, S / 8);
  ck_assert_uint_le(wait, S / 8 + 2);
  /* A refusal takes nothing: at the instant given, the token is there. */
  ck_assert_uint_eq(srv_limiter_take(l, SRV_LIMIT_WRITE, &half, &b, S + wait),
                    0);
  srv_limiter_free(l);
}
END_TEST

START_TEST(test_clock_going_back) {
  srv_limiter_t *l;
  ck_assert_int_eq(srv_limiter_new(4, &l), 0);
  srv_addr_t a = addr("192.0.2.10");
  srv_rate_t r = {.per_s = 1, .burst = 1};
  ck_assert_uint_eq(srv_limiter_take(l, SRV_LIMIT_WRITE, &r, &a, 100 * S), 0);
  /* An earlier instant refills nothing and never credits time. */
  uint64_t wait = srv_limiter_take(l, SRV_LIMIT_WRITE, &r, &a, 50 * S);
  ck_assert_uint_ge(wait, S);
  ck_assert_uint_le(wait, S + 2);
  /* Time is counted from the latest instant seen. */
  ck_assert_uint_ne(
      srv_limiter_take(l, SRV_LIMIT_WRITE, &r, &a, 100 * S + S / 2), 0);
  ck_assert_uint_eq(srv_limiter_take(l, SRV_LIMIT_WRITE, &r, &a, 101 * S), 0);
  srv_limiter_free(l);
}
END_TEST

START_TEST(test_capacity_and_evictions) {
  srv_limiter_t *l;
  /* Capacity 0 is 1. */
  ck_assert_int_eq(srv_limiter_new(0, &l), 0);
  srv_rate_t r = {.per_s = 0.001, .burst = 1};
  srv_addr_t a = addr("192.0.2.11"), b = addr("192.0.2.12");
  ck_assert_uint_eq(srv_limiter_take(l, SRV_LIMIT_WRITE, &r, &a, S), 0);
  ck_assert_uint_ne(srv_limiter_take(l, SRV_LIMIT_WRITE, &r, &a, S), 0);
  /* b takes a's place; a comes back with a full bucket. */
  ck_assert_uint_eq(srv_limiter_take(l, SRV_LIMIT_WRITE, &r, &b, S), 0);
  ck_assert_uint_eq(srv_limiter_size(l), 1);
  ck_assert_uint_eq(srv_limiter_evictions(l), 1);
  ck_assert_uint_eq(srv_limiter_take(l, SRV_LIMIT_WRITE, &r, &a, S), 0);
  ck_assert_uint_eq(srv_limiter_evictions(l), 2);
  srv_limiter_free(l);
  /* Capacity 4, ten addresses: four remembered, six forgotten, and the
   * four most recent are the ones kept. */
  ck_assert_int_eq(srv_limiter_new(4, &l), 0);
  srv_addr_t many[10];
  for (int i = 0; i < 10; i++) {
    char text[32];
    snprintf(text, sizeof text, "198.51.100.%d", i + 1);
    many[i] = addr(text);
    ck_assert_uint_eq(srv_limiter_take(l, SRV_LIMIT_WRITE, &r, &many[i], S), 0);
  }
  ck_assert_uint_eq(srv_limiter_size(l), 4);
  ck_assert_uint_eq(srv_limiter_evictions(l), 6);
  for (int i = 6; i < 10; i++)
    ck_assert_uint_ne(srv_limiter_take(l, SRV_LIMIT_WRITE, &r, &many[i], S), 0);
  ck_assert_uint_eq(srv_limiter_evictions(l), 6);
  srv_limiter_free(l);
}
END_TEST

Suite *server_auth_rate_limit_suite(void) {
  Suite *s = suite_create("server_auth_rate_limit");
  TCase *tc = tcase_create("rate_limit");
  tcase_add_test(tc, test_burst_then_refill);
  tcase_add_test(tc, test_kinds_and_addresses_apart);
  tcase_add_test(tc, test_ipv6_by_64);
  tcase_add_test(tc, test_bounded_under_flood);
  tcase_add_test(tc, test_lru_keeps_the_active);
  tcase_add_test(tc, test_shared_by_threads);
  tcase_add_test(tc, test_no_limit_and_bad_kind);
  tcase_add_test(tc, test_burst_below_one_and_fractions);
  tcase_add_test(tc, test_clock_going_back);
  tcase_add_test(tc, test_capacity_and_evictions);
  suite_add_tcase(s, tc);
  return s;
}
