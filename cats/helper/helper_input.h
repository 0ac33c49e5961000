/* helper_input.h: the tool's stream, read by cats-helper on a thread of
 * its own.
 *
 * The tool sends value flow while the guest runs, and a time-stepped
 * program sends most of its graph in its first step: there the helper
 * is slower than the guest, and a pipe of 1 MiB left the guest waiting
 * (i-k-j matmul: 0.2 s of a 3 s run). A thread that keeps the pipe
 * empty lets the guest run on while the helper works through what came,
 * during the later steps that send little. What is read and not yet
 * used is bounded (HIN_MAX_BACKLOG); beyond it the pipe fills again and
 * the guest waits, as before.
 *
 * The reads are those of frame.h, with the same results: CFR_EOF when
 * the input ends before the first byte, CFR_ESHORT inside, CFR_EIO (and
 * errno) when a read fails. Without a thread (hin_start failed) they go
 * to the file descriptor directly. Single consumer: one thread reads. */
#ifndef CATS_HELPER_INPUT_H
#define CATS_HELPER_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "frame.h"

#define HIN_MAX_BACKLOG ((size_t)64 << 20)

/* Starts the reading thread on fd; 0, or -1 (reads then use fd). */
int hin_start(int fd);
cfr_status hin_read_full(void *buf, size_t n);
cfr_status hin_read_header(uint32_t *type, uint64_t *length);
cfr_status hin_skip(uint64_t n);

#endif /* CATS_HELPER_INPUT_H */
