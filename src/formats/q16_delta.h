/* formats: q16 delta frames, the stream encoding "delta": a frame's q16
 * values (formats/q16.h) as the difference from what the frames before it
 * predict, bit-packed.
 *
 * Layout, little-endian (docs/api.md, "Delta frames"):
 *   u32 seq        the frame's number in its chain (+1 per frame sent);
 *   u32 flags      FMT_DELTA_KEY, FMT_DELTA_ORDER2, FMT_DELTA_NORMALS;
 *   u32 vertices   V;
 *   u32 bits_bytes bytes of the packed planes (before the padding);
 *   f32 min[3], f32 max[3]   the frame's q16 box;
 *   planes         x, y, z of the positions, then u, v of the normals:
 *                  each V values in groups of 16 (the last V mod 16), a
 *                  group a u8 width w (0..FMT_DELTA_WIDTH_MAX) and
 *                  ceil(n * w / 8) bytes holding n values of w bits,
 *                  least significant bit first;
 *   zero padding to a multiple of 4 bytes.
 * A value z decodes as e = (z >> 1) ^ -(z & 1) (zig-zag), the residual as
 * r[i] = r[i - 1] + e[i] along the plane (r[-1] = 0), and the q16 value as
 * pred + r[i], pred 0 for a key frame, a (the previous frame's value) for
 * an order-1 delta and 2a - b (b: the one before) for an order-2 one.
 * Deltas of quantized values are exact: the decoded q16 payload is the
 * q16 encoding of the same frame, byte for byte.
 *
 * Key design choice: pure functions over caller-owned q16 payloads (no
 * allocation, no state): the stream keeps the payloads it sent. */
#ifndef ANIMD_FORMATS_Q16_DELTA_H
#define ANIMD_FORMATS_Q16_DELTA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FMT_DELTA_KEY 1u     /* Predicted by nothing: the values. */
#define FMT_DELTA_ORDER2 2u  /* Predicted by 2a - b (else by a). */
#define FMT_DELTA_NORMALS 4u /* Two normal planes follow. */
#define FMT_DELTA_HEAD_BYTES 40
#define FMT_DELTA_GROUP 16
/* Widest value: a residual of an order-2 prediction of u16 values, its
 * difference along the plane, zig-zagged, is below 2^19. */
#define FMT_DELTA_WIDTH_MAX 19

/* Bytes at most of a delta frame of vertices vertices (a multiple of 4). */
size_t fmt_q16_delta_bound(uint32_t vertices, bool normals);

/* Encodes the q16 payload cur of vertices vertices (fmt_q16_size bytes)
 * against a (the previous frame's q16 payload; NULL: a key frame) and b
 * (the one before a; NULL: an order-1 delta) into out
 * (fmt_q16_delta_bound bytes). Returns the bytes written. */
size_t fmt_q16_delta_encode(const uint8_t *cur, const uint8_t *a,
                            const uint8_t *b, uint32_t vertices, bool normals,
                            uint32_t seq, uint8_t *out);

#endif
