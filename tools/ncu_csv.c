/* Reading `ncu --import REPORT --page raw --csv`: the headline metrics of a profiled kernel. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ncu_csv.h"

#define TOP_STALLS 5

/* Headline metrics printed after the run, when the report has them. */
static const struct {
    const char *metric, *label;
} k_headline[] = {
    {"gpu__time_duration.sum", "duration"},
    {"sm__throughput.avg.pct_of_peak_sustained_elapsed", "SM throughput, % of peak"},
    {"sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
     "tensor pipe (mma.sync), % active"},
    {"sm__inst_executed_pipe_tensor_op_gmma.avg.pct_of_peak_sustained_active",
     "tensor pipe (wgmma), % of peak"},
    {"smsp__issue_active.avg.pct_of_peak_sustained_active", "issue slots busy, %"},
    {"sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active", "ALU pipe, % of peak"},
    {"dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM throughput, % of peak"},
    {"dram__cycles_active.avg.pct_of_peak_sustained_elapsed", "DRAM active, % of peak"},
    {"dram__bytes_read.sum", "DRAM read"},
    {"sm__warps_active.avg.pct_of_peak_sustained_active", "achieved occupancy, %"},
    {"sm__maximum_warps_per_active_cycle_pct", "theoretical occupancy, %"},
    {"launch__registers_per_thread", "registers per thread"},
    {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "smem bank conflicts, loads"},
    {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "smem bank conflicts, stores"},
};

/* Splits one CSV record starting at *p into at most max fields (quotes and "" handled, in
 * place); advances *p past the record. Returns the field count. */
static int csv_record(char **p, char **fields, int max)
{
    char *in = *p, *out = *p;
    int n = 0, quoted = 0;
    if (!*in) return 0;
    fields[n++] = out;
    for (; *in && (quoted || *in != '\n'); in++) {
        if (quoted && in[0] == '"' && in[1] == '"') {
            *out++ = '"';
            in++;
        } else if (*in == '"') {
            quoted = !quoted;
        } else if (!quoted && *in == ',') {
            *out++ = '\0';
            if (n < max) fields[n++] = out;
        } else if (quoted || *in != '\r') {
            *out++ = *in;
        }
    }
    *p = *in ? in + 1 : in;
    *out = '\0'; /* out <= in: never past this record */
    return n;
}

/* A metric value with any thousands separators removed (NAN when not a number). */
static double metric_number(const char *text)
{
    char digits[64], *end;
    size_t n = 0;
    double v;
    for (; *text && n + 1 < sizeof digits; text++)
        if (*text != ',') digits[n++] = *text;
    digits[n] = '\0';
    v = strtod(digits, &end);
    return (end == digits || *end) ? NAN : v;
}

static int column_of(char **names, int n, const char *metric)
{
    int i;
    for (i = 0; i < n; i++)
        if (!strcmp(names[i], metric)) return i;
    return -1;
}

static void print_metric(FILE *f, const char *label, const char *name, const char *value,
                         const char *unit)
{
    fprintf(f, "  %-34s %14s %-10s (%s)\n", label, value, unit, name);
}

/* The TOP_STALLS largest warp stall reasons (cycles per issued instruction). */
static void print_top_stalls(FILE *f, char **names, char **values, int n)
{
    int shown[TOP_STALLS], k, i, j;
    for (k = 0; k < TOP_STALLS; k++) {
        int best = -1;
        for (i = 0; i < n; i++) {
            int taken = 0;
            if (!strstr(names[i], "issue_stalled_") || !strstr(names[i], "per_issue_active"))
                continue;
            for (j = 0; j < k; j++) taken |= shown[j] == i;
            if (!taken && !isnan(metric_number(values[i])) &&
                (best < 0 || metric_number(values[i]) > metric_number(values[best])))
                best = i;
        }
        if (best < 0) return;
        shown[k] = best;
        print_metric(f, k == 0 ? "warp stalls (cycles per issue)" : "", names[best],
                     values[best], "");
    }
}

int ncu_print_headline(char *csv, FILE *f)
{
    enum { MAX_COLS = 8192 };
    static char *names[MAX_COLS], *units[MAX_COLS], *values[MAX_COLS];
    char *p = csv;
    int n, i, col;
    while (*p && *p != '"') p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p);
    n = csv_record(&p, names, MAX_COLS);
    if (n < 2 || csv_record(&p, units, MAX_COLS) != n || csv_record(&p, values, MAX_COLS) != n)
        return -1;
    col = column_of(names, n, "Kernel Name");
    fprintf(f, "profile: kernel %s\n", col >= 0 ? values[col] : "(unnamed)");
    for (i = 0; i < (int)(sizeof k_headline / sizeof k_headline[0]); i++)
        if ((col = column_of(names, n, k_headline[i].metric)) >= 0)
            print_metric(f, k_headline[i].label, names[col], values[col], units[col]);
    print_top_stalls(f, names, values, n);
    return 0;
}

