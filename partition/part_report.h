/* part_report.h: a projection as a terminal table, as the communication
 * JSON of docs/COMM-JSON.md and as CSV matrices. */
#ifndef CATS_PART_REPORT_H
#define CATS_PART_REPORT_H

#include <stdio.h>

#include "part_project.h"

/* The table; figures per iteration when the projection has a region.
 * `prefix` starts every line (the helper passes Valgrind's "==pid== "). */
void prp_table(FILE *fp, const pp_projection *p, const char *prefix);

/* The JSON document; program may be NULL. 0, or -1 on a write error. */
int prp_json(FILE *fp, const pp_projection *p, const char *program);

/* One result's N x N matrix: N lines of N comma-separated bytes. */
int prp_csv(FILE *fp, const pc_result *r);

#endif /* CATS_PART_REPORT_H */
