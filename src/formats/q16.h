/* formats: q16, the compact encoding of skinned vertices (encoding=q16 on
 * GET /v1/skin and on WebSocket mesh streams).
 *
 * Layout, little-endian, after whatever header the answer has:
 *   f32 min[3], f32 max[3]   the bounding box of this frame's positions;
 *   u16 pos[3 * V]           q = round((p - min) / (max - min) * 65535)
 *                            per axis (0 where max == min);
 *   i16 nrm[2 * V]           with normals: the unit normal in octahedral
 *                            encoding (the lower hemisphere folded over
 *                            the diagonals, sign(0) = +1), each component
 *                            round(clamp(x, -1, 1) * 32767);
 *   zero padding to a multiple of 4 bytes.
 * 6 bytes per vertex (+4 with normals) against float32's 12 (+12).
 * Decoding: p = min + q / 65535 * (max - min), within (max - min) / 131070
 * per axis; normals within 0.01 degrees.
 *
 * Key design choice: a pure function over caller-owned arrays (no
 * allocation, no state), so one frame is encoded once and its bytes are
 * shared by every viewer; any thread. */
#ifndef ANIMD_FORMATS_Q16_H
#define ANIMD_FORMATS_Q16_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/buf.h"

/* Bytes of the bounding box that starts a q16 payload. */
#define FMT_Q16_BOX_BYTES 24

/* Bytes of the q16 payload of vertices vertices (a multiple of 4). */
size_t fmt_q16_size(uint32_t vertices, bool normals);

/* Encodes vertices positions (3 floats each) and normals (3 floats each,
 * any length; NULL: none) into out, fmt_q16_size(vertices, normals != NULL)
 * bytes. A zero normal encodes as (0, 0). */
void fmt_q16_encode(const float *positions, const float *normals,
                    uint32_t vertices, uint8_t *out);

/* The same, appended to b. 0, or -1 when b has failed. */
int fmt_q16_append(fmt_buf_t *b, const float *positions, const float *normals,
                   uint32_t vertices);

#endif
