/* Unit test of reading `ncu --import --page raw --csv` output (bench --profile's headline). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ncu_csv.h"
#include "test_util.h"

/* Runs ncu_print_headline on a copy of csv; returns its status and the printed text. */
static int headline(const char *csv, char **printed)
{
    char *copy = strdup(csv);
    size_t len = 0;
    FILE *f = open_memstream(printed, &len);
    int rc = ncu_print_headline(copy, f);
    fclose(f);
    free(copy);
    return rc;
}

/* Index of needle in hay, or -1. */
static long find(const char *hay, const char *needle)
{
    const char *p = strstr(hay, needle);
    return p ? (long)(p - hay) : -1;
}

int main(void)
{
    /* A preamble line, quoted fields, a kernel name with a comma and an escaped quote, a
     * thousands separator, CRLF line ends, and a second kernel that must not be read. */
    const char *csv =
        "==PROF== Disconnected\n"
        "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\","
        "\"sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active\","
        "\"smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio\","
        "\"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio\","
        "\"smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio\","
        "\"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum\"\r\n"
        "\"\",\"\",\"usecond\",\"%\",\"ratio\",\"ratio\",\"ratio\",\"\"\r\n"
        "\"0\",\"fp8attn_mma_hd64(a, \"\"b\"\")\",\"123.45\",\"61.5\",\"0.75\",\"2.5\",\"1.25\","
        "\"1,234\"\r\n"
        "\"1\",\"other\",\"9\",\"9\",\"9\",\"9\",\"9\",\"9\"\r\n";
    char *out = NULL;
    long lsb, mio, bar;
    CHECK(headline(csv, &out) == 0, "well-formed CSV refused");
    CHECK(find(out, "fp8attn_mma_hd64(a, \"b\")") >= 0, "kernel name not unquoted:\n%s", out);
    CHECK(find(out, "123.45") >= 0 && find(out, "usecond") >= 0, "duration missing:\n%s", out);
    CHECK(find(out, "61.5") >= 0, "tensor pipe missing:\n%s", out);
    CHECK(find(out, "1,234") >= 0, "bank conflicts missing:\n%s", out);
    CHECK(find(out, "other") < 0, "second kernel read:\n%s", out);
    /* Stall reasons, largest first: long_scoreboard 2.5, mio_throttle 1.25, barrier 0.75. */
    lsb = find(out, "long_scoreboard");
    mio = find(out, "mio_throttle");
    bar = find(out, "stalled_barrier");
    CHECK(lsb >= 0 && mio > lsb && bar > mio, "stalls not sorted:\n%s", out);
    free(out);
    /* A units row with fewer fields than the header is malformed. */
    CHECK(headline("\"A\",\"B\"\n\"x\"\n\"1\",\"2\"\n", &out) == -1, "malformed CSV accepted");
    free(out);
    CHECK(headline("no csv here\n", &out) == -1, "text without a header accepted");
    free(out);
    if (g_failures) printf("%ld check(s) failed\n", g_failures);
    else printf("all passed\n");
    return g_failures ? 1 : 0;
}
