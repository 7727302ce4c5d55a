/* formats: "did you mean" (suggest.h). Key design choice: a banded
 * optimal-string-alignment distance over lower-cased bytes, after their
 * common prefix and suffix, that gives up as soon as a whole row exceeds
 * the threshold, so most candidates cost a few dozen operations. */
#include "formats/suggest.h"

#include <string.h>

static unsigned char lower(unsigned char c) {
  return c >= 'A' && c <= 'Z' ? (unsigned char)(c - 'A' + 'a') : c;
}

static unsigned min3(unsigned a, unsigned b, unsigned c) {
  unsigned m = a < b ? a : b;
  return m < c ? m : c;
}

unsigned fmt_suggest_distance(const char *a, const char *b, unsigned max) {
  size_t n = strlen(a), m = strlen(b);
  if (n > FMT_SUGGEST_NAME_MAX || m > FMT_SUGGEST_NAME_MAX) return max + 1;
  size_t diff = n > m ? n - m : m - n;
  if (diff > max) return max + 1;
  /* A common prefix and suffix cost nothing: names that share a long stem
   * ("character_clip_0042", "character_clip_0024") leave a small table. */
  while (n > 0 && m > 0 &&
         lower((unsigned char)*a) == lower((unsigned char)*b)) {
    a++;
    b++;
    n--;
    m--;
  }
  while (n > 0 && m > 0 &&
         lower((unsigned char)a[n - 1]) == lower((unsigned char)b[m - 1])) {
    n--;
    m--;
  }
  const unsigned far = max + 1;
  /* Three rows: i - 2, i - 1, i. Cells outside the band read as far. */
  unsigned rows[3][FMT_SUGGEST_NAME_MAX + 1];
  unsigned *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
  for (size_t j = 0; j <= m; j++) {
    prev[j] = j <= max ? (unsigned)j : far;
    prev2[j] = far;
  }
  for (size_t i = 1; i <= n; i++) {
    size_t lo = i > max ? i - max : 1;
    size_t hi = i + max < m ? i + max : m;
    cur[0] = i <= max ? (unsigned)i : far;
    for (size_t j = 1; j < lo && j <= m; j++) cur[j] = far;
    unsigned row_min = cur[0];
    unsigned char ca = lower((unsigned char)a[i - 1]);
    for (size_t j = lo; j <= hi; j++) {
      unsigned char cb = lower((unsigned char)b[j - 1]);
      unsigned d = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb));
      if (i > 1 && j > 1 && ca == lower((unsigned char)b[j - 2]) &&
          lower((unsigned char)a[i - 2]) == cb && prev2[j - 2] + 1 < d)
        d = prev2[j - 2] + 1;
      if (d > far) d = far;
      cur[j] = d;
      if (d < row_min) row_min = d;
    }
    for (size_t j = hi + 1; j <= m; j++) cur[j] = far;
    if (row_min > max) return far;
    unsigned *t = prev2;
    prev2 = prev;
    prev = cur;
    cur = t;
  }
  return prev[m] <= max ? prev[m] : far;
}

void fmt_suggest_init(fmt_suggest_t *s, const char *typed,
                      size_t max_candidates) {
  memset(s, 0, sizeof *s);
  s->typed = typed != NULL ? typed : "";
  s->typed_len = strlen(s->typed);
  s->limit = s->typed_len <= 4 ? 1 : s->typed_len <= 8 ? 2 : 3;
  s->max_offered = max_candidates;
}

bool fmt_suggest_full(const fmt_suggest_t *s) {
  return s->max_offered != 0 && s->offered >= s->max_offered;
}

void fmt_suggest_offer(fmt_suggest_t *s, const char *candidate) {
  if (candidate == NULL || candidate[0] == '\0' || fmt_suggest_full(s)) return;
  s->offered++;
  if (s->typed_len == 0 || s->typed_len > FMT_SUGGEST_NAME_MAX ||
      strcmp(candidate, s->typed) == 0)
    return;
  if (s->best != NULL && s->best_score == 0) return;
  /* The best so far bounds the distance worth computing. */
  unsigned max = s->best != NULL ? s->best_score - 2 : s->limit;
  unsigned d = fmt_suggest_distance(s->typed, candidate, max);
  if (d > max) return;
  /* A distance of 0 without case is a match but for case. */
  unsigned score = d == 0 ? 0 : d + 1;
  if (s->best == NULL || score < s->best_score) {
    s->best = candidate;
    s->best_score = score;
  }
}

const char *fmt_suggest_best(const fmt_suggest_t *s) { return s->best; }

const char *fmt_suggest_list(const char *typed, const char *const *names) {
  fmt_suggest_t s;
  fmt_suggest_init(&s, typed, 0);
  for (; names != NULL && *names != NULL; names++)
    fmt_suggest_offer(&s, *names);
  return fmt_suggest_best(&s);
}
