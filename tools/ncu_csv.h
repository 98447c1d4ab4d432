/* Reading `ncu --import REPORT --page raw --csv`: the headline metrics of a profiled kernel. */
#ifndef FP8ATTN_TOOL_NCU_CSV_H
#define FP8ATTN_TOOL_NCU_CSV_H

#include <stdio.h>

/* Prints the headline metrics of the first kernel in `csv`, the output of
 * `ncu --import R --page raw --csv` (a header row of metric names, a row of units, one row per
 * kernel; lines before the header are skipped). Parses csv in place. 0, or -1 if malformed. */
int ncu_print_headline(char *csv, FILE *f);

#endif
