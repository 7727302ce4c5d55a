/* animd core: joints of two skeletons paired by name (animd/retarget.h,
 * anim_retarget_name_key, anim_retarget_auto_map).
 *
 * A name is cut into words (separators and camel-case humps), a namespace
 * and a rig prefix word dropped, the side word taken out, the rest joined
 * lowercase: the key. The humanoid vocabulary below, one table, turns a
 * key's body into its canonical word. Exact keys pair first, so two rigs
 * of one family pair joint for joint; the vocabulary pairs the rest. */
#include <stdio.h>
#include <string.h>

#include "animd/retarget.h"

/* ASCII classes (no locale: joint names are compared byte for byte). */
static bool is_upper(unsigned char c) { return c >= 'A' && c <= 'Z'; }
static bool is_lower(unsigned char c) { return c >= 'a' && c <= 'z'; }
static bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
static char to_lower(unsigned char c) {
  return (char)(is_upper(c) ? c - 'A' + 'a' : c);
}

/* Body words (digits removed) and the humanoid word they name. "hip"
 * alone names the hips, with a side the thigh (sided rows come first). */
typedef struct vocab_s {
  const char *word;
  const char *canon;
  int sided; /* 1: only with a side, 0: only without, -1: either. */
} vocab_t;

static const vocab_t VOCAB[] = {
    {"hip", "thigh", 1},          {"hip", "hips", 0},
    {"hips", "hips", -1},         {"pelvis", "hips", -1},
    {"spine", "spine", -1},       {"lowerback", "spine", -1},
    {"lowerspine", "spine", -1},  {"abdomen", "spine", -1},
    {"chest", "chest", -1},       {"torso", "chest", -1},
    {"upperspine", "chest", -1},  {"neck", "neck", -1},
    {"head", "head", -1},         {"shoulder", "shoulder", -1},
    {"clavicle", "shoulder", -1}, {"collar", "shoulder", -1},
    {"upperarm", "upperarm", -1}, {"arm", "upperarm", -1},
    {"uparm", "upperarm", -1},    {"forearm", "forearm", -1},
    {"lowerarm", "forearm", -1},  {"elbow", "forearm", -1},
    {"hand", "hand", -1},         {"wrist", "hand", -1},
    {"thigh", "thigh", -1},       {"upperleg", "thigh", -1},
    {"upleg", "thigh", -1},       {"shin", "shin", -1},
    {"calf", "shin", -1},         {"leg", "shin", -1},
    {"lowerleg", "shin", -1},     {"knee", "shin", -1},
    {"foot", "foot", -1},         {"ankle", "foot", -1},
    {"toe", "toe", -1},           {"toes", "toe", -1},
    {"toebase", "toe", -1},
};

/* Rig prefix words dropped from the front of a name. */
static const char *const PREFIXES[] = {"bip01", "bip001", "bip",      "def",
                                       "mch",   "org",    "mixamorig"};

static const char *vocab_find(const char *body, int sided) {
  for (size_t i = 0; i < sizeof VOCAB / sizeof VOCAB[0]; i++)
    if ((VOCAB[i].sided < 0 || VOCAB[i].sided == sided) &&
        strcmp(VOCAB[i].word, body) == 0)
      return VOCAB[i].canon;
  return NULL;
}

/* The body without its trailing digits, in out. */
static void strip_digits(const char *body, char *out, size_t size) {
  size_t n = strlen(body);
  while (n > 0 && is_digit((unsigned char)body[n - 1])) n--;
  if (n >= size) n = size - 1;
  memcpy(out, body, n);
  out[n] = '\0';
}

static bool is_sep(char c) {
  return c == ' ' || c == '_' || c == '-' || c == '.' || c == ':' || c == '|' ||
         c == '\t';
}

/* A word boundary before name[i]: a camel-case hump (aB, or ABc). */
static bool hump(const char *s, size_t i) {
  unsigned char p = (unsigned char)s[i - 1], c = (unsigned char)s[i],
                n = (unsigned char)s[i + 1];
  if (is_upper(c) && is_lower(p)) return true;
  if (is_upper(c) && is_upper(p) && n != '\0' && is_lower(n)) return true;
  return false;
}

#define WORDS_MAX 16

/* "<side>.<s>" into out (ANIM_RETARGET_KEY_MAX bytes), s cut to fit. */
static void sided(char *out, int side, const char *s) {
  size_t n = strlen(s);
  if (n > ANIM_RETARGET_KEY_MAX - 3) n = ANIM_RETARGET_KEY_MAX - 3;
  out[0] = (char)side;
  out[1] = '.';
  memcpy(out + 2, s, n);
  out[2 + n] = '\0';
}

void anim_retarget_name_key(const char *name, char key[ANIM_RETARGET_KEY_MAX],
                            char canon[ANIM_RETARGET_KEY_MAX]) {
  key[0] = canon[0] = '\0';
  if (name == NULL) return;
  /* The namespace: everything up to the last ':' or '|'. */
  const char *s = name;
  for (const char *c = name; *c; c++)
    if (*c == ':' || *c == '|') s = c + 1;
  /* Words, lowercased, each NUL-terminated in buf. */
  char buf[ANIM_RETARGET_KEY_MAX * 2];
  const char *words[WORDS_MAX];
  size_t nw = 0, at = 0;
  bool open = false;
  for (size_t i = 0; s[i] != '\0' && at + 2 < sizeof buf; i++) {
    if (is_sep(s[i])) {
      if (open) buf[at++] = '\0';
      open = false;
      continue;
    }
    if (open && i > 0 && hump(s, i)) {
      buf[at++] = '\0';
      open = false;
    }
    if (!open) {
      if (nw == WORDS_MAX) break;
      words[nw++] = buf + at;
      open = true;
    }
    buf[at++] = to_lower((unsigned char)s[i]);
  }
  if (open) buf[at++] = '\0';
  /* A rig prefix word in front. */
  size_t first = 0;
  for (size_t p = 0; nw > 1 && p < sizeof PREFIXES / sizeof PREFIXES[0]; p++)
    if (strcmp(words[0], PREFIXES[p]) == 0) first = 1;
  /* The side: a word of its own, or l / r glued to a vocabulary word. */
  char side = 0;
  char body[ANIM_RETARGET_KEY_MAX];
  size_t bn = 0;
  for (size_t w = first; w < nw; w++) {
    const char *word = words[w];
    if (side == 0 && (strcmp(word, "l") == 0 || strcmp(word, "left") == 0)) {
      side = 'l';
      continue;
    }
    if (side == 0 && (strcmp(word, "r") == 0 || strcmp(word, "right") == 0)) {
      side = 'r';
      continue;
    }
    size_t n = strlen(word);
    if (bn + n >= sizeof body) n = sizeof body - 1 - bn;
    memcpy(body + bn, word, n);
    bn += n;
  }
  body[bn] = '\0';
  char bare[ANIM_RETARGET_KEY_MAX];
  strip_digits(body, bare, sizeof bare);
  if (side == 0 && (body[0] == 'l' || body[0] == 'r') &&
      vocab_find(bare, 0) == NULL && vocab_find(bare + 1, 1) != NULL) {
    side = body[0];
    memmove(body, body + 1, strlen(body));
    memmove(bare, bare + 1, strlen(bare));
  }
  const char *word = vocab_find(bare, side != 0);
  if (side != 0) {
    sided(key, side, body);
    if (word != NULL) sided(canon, side, word);
  } else {
    snprintf(key, ANIM_RETARGET_KEY_MAX, "%s", body);
    if (word != NULL) snprintf(canon, ANIM_RETARGET_KEY_MAX, "%s", word);
  }
}

/* The first joint (storage order) of s whose canon is want, or -1. */
static int32_t find_canon(const char *canons, uint32_t from, uint32_t count,
                          const char *want) {
  for (uint32_t j = 0; j < count; j++)
    if (strcmp(canons + ANIM_RETARGET_KEY_MAX * (from + j), want) == 0)
      return (int32_t)j;
  return -1;
}

static uint32_t depth(const anim_skeleton_t *s, uint32_t j) {
  uint32_t d = 0;
  for (int32_t p = s->parents[j]; p >= 0; p = s->parents[p]) d++;
  return d;
}

/* A target without a joint named for the hips (a "Root" that holds the
 * legs and the spine): the nearest common ancestor of its two mapped
 * thighs, when unmapped, takes the source's hips. */
static void hips_by_structure(const anim_skeleton_t *source,
                              const anim_skeleton_t *target, const char *canons,
                              int32_t *link, const int32_t *taken) {
  uint32_t ns = source->joint_count, nt = target->joint_count;
  int32_t hips = find_canon(canons, 0, ns, "hips");
  if (hips < 0 || taken[hips]) return;
  int32_t a = -1, b = -1;
  for (uint32_t d = 0; d < nt; d++) {
    if (link[d] < 0) continue;
    const char *c = canons + ANIM_RETARGET_KEY_MAX * (ns + d);
    if (strcmp(c, "l.thigh") == 0 && a < 0) a = (int32_t)d;
    if (strcmp(c, "r.thigh") == 0 && b < 0) b = (int32_t)d;
  }
  if (a < 0 || b < 0) return;
  uint32_t da = depth(target, (uint32_t)a), db = depth(target, (uint32_t)b);
  for (; da > db; da--) a = target->parents[a];
  for (; db > da; db--) b = target->parents[b];
  while (a != b && a >= 0) {
    a = target->parents[a];
    b = target->parents[b];
  }
  if (a >= 0 && a == b && link[a] < 0) link[a] = hips;
}

size_t anim_retarget_auto_map(const anim_skeleton_t *source,
                              const anim_skeleton_t *target,
                              anim_retarget_pair_t *pairs, size_t capacity,
                              char *scratch, size_t scratch_bytes) {
  if (source == NULL || target == NULL || scratch == NULL) return 0;
  uint32_t ns = source->joint_count, nt = target->joint_count;
  size_t n = (size_t)ns + nt;
  if (scratch_bytes < ANIM_RETARGET_MAP_SCRATCH_PER_JOINT * n) return 0;
  /* Keys and canons of every joint, then the target -> source links and
   * which source joints are taken. */
  char *keys = scratch, *canons = scratch + ANIM_RETARGET_KEY_MAX * n;
  int32_t *link = (int32_t *)(scratch + 2 * ANIM_RETARGET_KEY_MAX * n);
  int32_t *taken = link + nt;
  for (uint32_t j = 0; j < ns; j++)
    anim_retarget_name_key(source->names[j], keys + ANIM_RETARGET_KEY_MAX * j,
                           canons + ANIM_RETARGET_KEY_MAX * j);
  for (uint32_t j = 0; j < nt; j++)
    anim_retarget_name_key(target->names[j],
                           keys + ANIM_RETARGET_KEY_MAX * (ns + j),
                           canons + ANIM_RETARGET_KEY_MAX * (ns + j));
  for (uint32_t j = 0; j < nt; j++) link[j] = -1;
  for (uint32_t j = 0; j < ns; j++) taken[j] = 0;
  for (int pass = 0; pass < 2; pass++) {
    const char *table = pass == 0 ? keys : canons;
    for (uint32_t d = 0; d < nt; d++) {
      const char *want = table + ANIM_RETARGET_KEY_MAX * (ns + d);
      if (link[d] >= 0 || want[0] == '\0') continue;
      for (uint32_t s = 0; s < ns; s++) {
        if (taken[s] || strcmp(want, table + ANIM_RETARGET_KEY_MAX * s) != 0)
          continue;
        link[d] = (int32_t)s;
        taken[s] = 1;
        break;
      }
    }
  }
  hips_by_structure(source, target, canons, link, taken);
  size_t count = 0;
  for (uint32_t d = 0; d < nt; d++) {
    if (link[d] < 0) continue;
    if (count < capacity)
      pairs[count] = (anim_retarget_pair_t){(uint32_t)link[d], d};
    count++;
  }
  return count;
}
