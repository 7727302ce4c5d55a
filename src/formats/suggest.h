/* formats: "did you mean": the name nearest to one a person typed, among
 * the names they could have meant, for the hint of an error (an unknown
 * option, config key, query parameter, body or message field, joint,
 * clip, skeleton or mesh name).
 *
 * Nearest means: a candidate equal but for letter case first; else the
 * smallest edit distance (insertions, deletions, substitutions and swaps of
 * two neighbours, letters compared without case), within a threshold that
 * grows with the typed name's length (1 up to 4 bytes, 2 up to 8, else 3),
 * so a far-off name gets no hint. Ties go to the candidate offered first.
 *
 * The work is bounded: names longer than FMT_SUGGEST_NAME_MAX bytes are
 * skipped, a candidate whose length alone puts it beyond the threshold
 * costs a comparison of lengths, and the others a band of the threshold's
 * width (at most 7 x 64 cells); a caller with an unbounded number of
 * candidates stops offering after its own cap (fmt_suggest_full). */
#ifndef ANIMD_FORMATS_SUGGEST_H
#define ANIMD_FORMATS_SUGGEST_H

#include <stdbool.h>
#include <stddef.h>

/* Longest name compared, in bytes. */
#define FMT_SUGGEST_NAME_MAX 64

typedef struct fmt_suggest_s {
  const char *typed;
  size_t typed_len;
  unsigned limit;      /* The threshold for typed. */
  const char *best;    /* The nearest so far (a candidate's pointer). */
  unsigned best_score; /* 0: equal but for case; else 1 + distance. */
  size_t offered;      /* Candidates offered so far. */
  size_t max_offered;  /* 0: no cap. */
} fmt_suggest_t;

/* Starts a search for the name nearest to typed, taking at most
 * max_candidates candidates (0: no cap). typed must outlive s. */
void fmt_suggest_init(fmt_suggest_t *s, const char *typed,
                      size_t max_candidates);

/* Offers a candidate (kept by pointer: it must outlive the search's use
 * of fmt_suggest_best). NULL, "" and the typed name itself are ignored. */
void fmt_suggest_offer(fmt_suggest_t *s, const char *candidate);

/* True once the cap of candidates is reached (further offers are
 * ignored). */
bool fmt_suggest_full(const fmt_suggest_t *s);

/* The nearest candidate, or NULL when none is near enough. */
const char *fmt_suggest_best(const fmt_suggest_t *s);

/* The nearest of a NULL-terminated list of names, or NULL. */
const char *fmt_suggest_list(const char *typed, const char *const *names);

/* The edit distance between a and b (letters compared without case;
 * insertions, deletions, substitutions, swaps of neighbours), or a value
 * above max when it exceeds max. Names longer than FMT_SUGGEST_NAME_MAX
 * bytes give max + 1. */
unsigned fmt_suggest_distance(const char *a, const char *b, unsigned max);

#endif
