/* libFuzzer target: the C client's frame decoder (clients/c/animd_frame.h)
 * on arbitrary bytes. The input is a run of binary stream messages, each a
 * u16 little-endian length and the message; each goes through the header
 * reader, then the q16 or delta decoder of its layout (delta frames through
 * one chain, as a client keeps it), then q16 dequantization. Nothing may
 * read out of bounds, loop without end or trip a sanitizer. */
#include <stddef.h>
#include <stdint.h>

#include "../../clients/c/animd_frame.h"

#define MAX_VERTICES 2048u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t state[3 * (24 + 10 * MAX_VERTICES + 4) + 4 * MAX_VERTICES];
static float positions[3 * MAX_VERTICES], normals[3 * MAX_VERTICES];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  animd_delta chain;
  animd_delta_init(&chain, state, 0, 0);
  int chain_ready = 0;
  while (size >= 2) {
    size_t len = (size_t)data[0] | (size_t)data[1] << 8;
    data += 2;
    size -= 2;
    if (len > size) len = size;
    const uint8_t *msg = data;
    data += len;
    size -= len;
    animd_frame_header h;
    if (animd_frame_header_read(msg, len, &h) != ANIMD_FRAME_OK) continue;
    if (h.layout < ANIMD_LAYOUT_POSITIONS_Q16 || h.elements > MAX_VERTICES)
      continue;
    int with_normals = h.layout == ANIMD_LAYOUT_POSITIONS_NORMALS_Q16 ||
                       h.layout == ANIMD_LAYOUT_POSITIONS_NORMALS_DELTA;
    const uint8_t *q16 = msg + ANIMD_FRAME_HEADER_BYTES;
    size_t q16_len = 4 * (size_t)h.count;
    if (h.layout >= ANIMD_LAYOUT_POSITIONS_DELTA) {
      if (!chain_ready || chain.vertices != h.elements ||
          chain.normals != with_normals) {
        animd_delta_init(&chain, state, h.elements, with_normals);
        chain_ready = 1;
      }
      if (animd_delta_decode(&chain, q16, q16_len, &q16) != ANIMD_FRAME_OK)
        continue;
      q16_len = animd_q16_bytes(h.elements, with_normals);
    }
    animd_q16_decode(q16, q16_len, h.elements, with_normals, positions,
                     normals);
  }
  return 0;
}
