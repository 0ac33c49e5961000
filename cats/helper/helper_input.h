/* SPDX-License-Identifier: GPL-2.0-or-later */
/* helper_input.h: the tool's stream, read by cats-helper on a thread of
 * its own.
 *
 * The tool sends value flow while the guest runs, and a time-stepped
 * program sends most of its graph in its first step: there the helper
 * is slower than the guest, and a pipe of 1 MiB left the guest waiting.
 * A thread that keeps the pipe
 * empty lets the guest run on while the helper works through what came,
 * during the later steps that send little. What is read and not yet
 * used is bounded (HELPER_INPUT_MAX_BACKLOG); beyond it the pipe fills again and
 * the guest waits, as before.
 *
 * The reads are those of frame.h, with the same results: FRAME_EOF when
 * the input ends before the first byte, FRAME_ESHORT inside, FRAME_EIO (and
 * errno) when a read fails. Without a thread (helper_input_start failed) they go
 * to the file descriptor directly. Single consumer: one thread reads. */
#ifndef CATS_HELPER_HELPER_INPUT_H
#define CATS_HELPER_HELPER_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "cats/trace/frame.h"

#define HELPER_INPUT_MAX_BACKLOG ((size_t)64 << 20)

/* Starts the reading thread on fd; 0, or -1 (reads then use fd). */
int helper_input_start(int fd);
frame_status helper_input_read_full(void *buf, size_t n);
frame_status helper_input_read_header(uint32_t *type, uint64_t *length);
frame_status helper_input_skip(uint64_t n);

#endif /* CATS_HELPER_HELPER_INPUT_H */
