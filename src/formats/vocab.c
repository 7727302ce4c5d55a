/* formats: the API's word tables (vocab.h). */
#include "formats/vocab.h"

#include <stdio.h>
#include <string.h>

/* Indexed by fmt_vocab, then by the table's enum. */
static const char *const words[FMT_VOCAB_COUNT_][9] = {
    [FMT_VOCAB_WRAP] = {"clamp", "loop", "pingpong", NULL},
    [FMT_VOCAB_SPACE] = {"local", "model", "skin", NULL},
    [FMT_VOCAB_LAYOUT] = {"trs10", "mat4", "positions", "positions+normals",
                          "positions/q16", "positions+normals/q16",
                          "positions/delta", "positions+normals/delta", NULL},
    [FMT_VOCAB_FORMAT] = {"json", "bin", "svg", NULL},
    [FMT_VOCAB_ENCODING] = {"f32", "q16", "delta", NULL},
    [FMT_VOCAB_METHOD] = {"lbs", "dqs", NULL},
    [FMT_VOCAB_NORMALS] = {"0", "1", "invt", NULL},
    [FMT_VOCAB_MODE] = {"normal", "additive", NULL},
    [FMT_VOCAB_VIEW] = {"front", "side", "top", NULL},
    [FMT_VOCAB_ARRANGE] = {"grid", "overlay", NULL},
};

int fmt_vocab_count(fmt_vocab v) {
  if ((unsigned)v >= FMT_VOCAB_COUNT_) return 0;
  int n = 0;
  while (words[v][n] != NULL) n++;
  return n;
}

int fmt_vocab_parse(fmt_vocab v, const char *s) {
  if (s == NULL) return -1;
  for (int i = 0; i < fmt_vocab_count(v); i++)
    if (strcmp(s, words[v][i]) == 0) return i;
  return -1;
}

const char *fmt_vocab_name(fmt_vocab v, int value) {
  if (value < 0 || value >= fmt_vocab_count(v)) return NULL;
  return words[v][value];
}

void fmt_vocab_list(fmt_vocab v, char *out, size_t cap) {
  if (cap == 0) return;
  out[0] = '\0';
  int n = fmt_vocab_count(v);
  size_t len = 0;
  for (int i = 0; i < n && len < cap; i++) {
    const char *sep = i == 0 ? "" : i == n - 1 ? " or " : ", ";
    int k = snprintf(out + len, cap - len, "%s%s", sep, words[v][i]);
    if (k < 0) break;
    len += (size_t)k;
  }
}

fmt_layout fmt_layout_of_pose(fmt_space space) {
  return space == FMT_SPACE_LOCAL ? FMT_LAYOUT_TRS10 : FMT_LAYOUT_MAT4;
}

fmt_layout fmt_layout_of_skin(bool normals) {
  return normals ? FMT_LAYOUT_POSITIONS_NORMALS : FMT_LAYOUT_POSITIONS;
}

fmt_layout fmt_layout_of_skin_encoded(bool normals, fmt_encoding encoding) {
  if (encoding == FMT_ENCODING_Q16)
    return normals ? FMT_LAYOUT_POSITIONS_NORMALS_Q16
                   : FMT_LAYOUT_POSITIONS_Q16;
  if (encoding == FMT_ENCODING_DELTA)
    return normals ? FMT_LAYOUT_POSITIONS_NORMALS_DELTA
                   : FMT_LAYOUT_POSITIONS_DELTA;
  return fmt_layout_of_skin(normals);
}
