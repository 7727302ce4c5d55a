/* Fixtures of the streaming tests: the asset they play, with closed-form
 * answers, and the framing of a client's text message.
 *
 * Two joints: "a" at the root moves along x from 0 to 1 over 1 s; "b" is
 * its child at (0, 2, 0) and has no track. The mesh has one vertex on each
 * joint, so at time t its vertices are (t, 0, 0) and (t, 2, 0). */
#ifndef ANIMD_TESTS_WS_TEST_FIXTURES_H
#define ANIMD_TESTS_WS_TEST_FIXTURES_H

#include <stdint.h>
#include <string.h>

static const char ws_test_asset[] =
    "{\"skeleton\":{\"name\":\"line\",\"joints\":["
    "{\"name\":\"a\",\"parent\":-1,\"translation\":[0,0,0],"
    "\"rotation\":[0,0,0,1],\"scale\":[1,1,1]},"
    "{\"name\":\"b\",\"parent\":0,\"translation\":[0,2,0],"
    "\"rotation\":[0,0,0,1],\"scale\":[1,1,1]}]},"
    "\"clips\":[{\"name\":\"slide\",\"tracks\":[{\"joint\":\"a\","
    "\"path\":\"translation\",\"interpolation\":\"LINEAR\","
    "\"times\":[0,1],\"values\":[0,0,0,1,0,0]}]}],"
    "\"meshes\":[{\"name\":\"pair\",\"positions\":[0,0,0,0,2,0],"
    "\"joints\":[0,0,0,0,1,0,0,0],\"weights\":[1,0,0,0,1,0,0,0]}]}";

/* text as one masked client text frame in out (room for strlen + 8);
 * returns its length. */
static inline size_t ws_test_client_frame(const char *text, uint8_t *out) {
  size_t n = strlen(text), k = 0;
  const uint8_t mask[4] = {9, 8, 7, 6};
  out[k++] = 0x81;
  if (n < 126) {
    out[k++] = (uint8_t)(0x80 | n);
  } else {
    out[k++] = 0x80 | 126;
    out[k++] = (uint8_t)(n >> 8);
    out[k++] = (uint8_t)n;
  }
  memcpy(out + k, mask, 4);
  k += 4;
  for (size_t i = 0; i < n; i++) out[k + i] = (uint8_t)(text[i] ^ mask[i % 4]);
  return k + n;
}

#endif
