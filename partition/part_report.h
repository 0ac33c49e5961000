/* SPDX-License-Identifier: GPL-2.0-or-later */
/* part_report.h: a projection as a terminal table, as the communication
 * JSON of docs/COMM-JSON.md and as CSV matrices. */
#ifndef CATS_PARTITION_PART_REPORT_H
#define CATS_PARTITION_PART_REPORT_H

#include <stdio.h>

#include "part_project.h"

/* The table; figures per iteration when the projection has a region.
 * `prefix` starts every line (the helper passes Valgrind's "==pid== "). */
void part_report_table(FILE *fp, const part_projection *p, const char *prefix);

/* The JSON document; program may be NULL. 0, or -1 on a write error. */
int part_report_json(FILE *fp, const part_projection *p, const char *program);

/* How a result was decomposed: "grid 2x4", "METIS k-way", ... */
void part_report_decomposition(const part_comm_result *r, char *buf, size_t len);

/* One result's N x N matrix: N lines of N comma-separated bytes. */
int part_report_csv(FILE *fp, const part_comm_result *r);

#endif /* CATS_PARTITION_PART_REPORT_H */
