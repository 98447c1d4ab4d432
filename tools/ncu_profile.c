/* `fp8attn bench --profile`: one shape under Nsight Compute, headline metrics printed. */
#include <errno.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ncu_csv.h"
#include "ncu_profile.h"
#include "proc.h"
#include "results.h"

/* Sections that say where the time goes: SOL (compute vs memory), pipe utilisation (tensor
 * pipes), memory (DRAM throughput), occupancy, warp stall reasons, launch resources. */
static const char *const k_sections[] = {"SpeedOfLight", "ComputeWorkloadAnalysis",
                                         "MemoryWorkloadAnalysis", "Occupancy", "WarpStateStats",
                                         "SchedulerStats", "LaunchStats"};
/* Not in those sections: shared-memory bank conflicts of loads and stores. */
static const char k_extra_metrics[] = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,"
                                      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum";

/* ---- locating ncu ---- */

/* ncu on PATH, in /usr/local/cuda/bin, or the newest /opt/nvidia/nsight-compute/ * /ncu. */
static int find_ncu(char *out)
{
    glob_t g;
    int found = 0;
    if (proc_find_executable("ncu", getenv("PATH"), out) ||
        proc_find_executable("ncu", "/usr/local/cuda/bin", out))
        return 0;
    if (glob("/opt/nvidia/nsight-compute/*/ncu", 0, NULL, &g) == 0) {
        if (g.gl_pathc > 0) {
            snprintf(out, PROC_PATH_LEN, "%s", g.gl_pathv[g.gl_pathc - 1]); /* newest last */
            found = access(out, X_OK) == 0;
        }
        globfree(&g);
    }
    return found ? 0 : -1;
}

/* ---- the command lines ---- */

typedef struct {
    char *argv[64];
    int n;
    char text[16][PROC_PATH_LEN]; /* storage for the formatted arguments */
    int n_text;
} argv_builder_t;

static void push(argv_builder_t *b, const char *arg) { b->argv[b->n++] = (char *)arg; }

static void pushf_shape(argv_builder_t *b, const shape_t *s)
{
    char *t = b->text[b->n_text++];
    snprintf(t, PROC_PATH_LEN, "%d,%d,%d,%d,%d,%d", (int)s->batch, (int)s->h_q, (int)s->h_kv,
             (int)s->seqlen_q, (int)s->seqlen_k, (int)s->head_dim);
    push(b, t);
}

static void push_text(argv_builder_t *b, const char *a, const char *c)
{
    char *t = b->text[b->n_text++];
    snprintf(t, PROC_PATH_LEN, "%s%s", a, c);
    push(b, t);
}

/* ncu ... /proc/self/exe bench --iters 1 --warmup 1 --hot <the first shape and options>. */
static void build_ncu_argv(argv_builder_t *b, const char *ncu, const char *exe, const char *dir,
                           const run_opts_t *o)
{
    char seed[32];
    size_t i;
    memset(b, 0, sizeof *b);
    push(b, ncu);
    push(b, "--clock-control");
    push(b, "none");
    push(b, "--kernel-name");
    push(b, "regex:fp8attn_");
    push(b, "--launch-count");
    push(b, "1");
    for (i = 0; i < sizeof k_sections / sizeof k_sections[0]; i++) {
        push(b, "--section");
        push(b, k_sections[i]);
    }
    push(b, "--metrics");
    push(b, k_extra_metrics);
    push(b, "--force-overwrite");
    push(b, "--export");
    push_text(b, dir, "/profile");
    push(b, exe);
    push(b, "bench");
    push(b, "--backend");
    push(b, "gpu");
    push(b, "--iters");
    push(b, "1");
    push(b, "--warmup");
    push(b, "1");
    push(b, "--hot");
    push(b, "--shape");
    pushf_shape(b, &o->shapes[0]);
    if (o->shapes[0].causal) push(b, "--causal");
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)o->seeds[0]);
    push(b, "--seeds");
    push_text(b, seed, "");
    push(b, "--layout");
    push(b, layout_name(o->bshd));
    push(b, "--out-type");
    push(b, out_type_name(o->out_type));
    push(b, "--descale");
    push(b, descale_name(o->descale));
    if (o->lse) push(b, "--lse");
    if (o->inputs != INPUTS_NORMAL) {
        push(b, "--inputs");
        push(b, k_inputs_names[o->inputs]);
    }
    if (o->variant) {
        push(b, "--variant");
        push(b, o->variant);
    }
    push(b, "--out");
    push_text(b, dir, "/ncu-run");
    push(b, NULL);
}

/* ---- the whole --profile run ---- */

static int print_report(const char *ncu, const char *dir)
{
    char report[PROC_PATH_LEN], *csv = NULL;
    char *argv[] = {(char *)ncu, "--import", report, "--page", "raw", "--csv", NULL};
    int rc;
    snprintf(report, sizeof report, "%s/profile.ncu-rep", dir);
    rc = proc_run(argv, PROC_CAPTURE_STDOUT, &csv);
    if (rc != 0 || !csv || ncu_print_headline(csv, stdout)) {
        fprintf(stderr, "fp8attn bench: could not read the metrics of %s (ncu --import exit "
                "%d%s%s)\n", report, rc, rc < 0 ? ": " : "", rc < 0 ? strerror(errno) : "");
        free(csv);
        return EXIT_RUN_FAILED;
    }
    printf("profile: full report: ncu-ui %s\n", report);
    free(csv);
    return EXIT_PASS;
}

int ncu_profile_run(const run_opts_t *o)
{
    char ncu[PROC_PATH_LEN], exe[PROC_PATH_LEN], *dir;
    static argv_builder_t b;
    int rc;
    if (find_ncu(ncu)) {
        fprintf(stderr, "fp8attn bench: --profile: ncu (Nsight Compute) not found on PATH, in "
                        "/usr/local/cuda/bin or /opt/nvidia/nsight-compute/*/\n");
        return EXIT_BAD_ARGS;
    }
    if (proc_self_exe(exe, sizeof exe) != 0) { /* ncu runs a path, not our pid */
        fprintf(stderr, "fp8attn bench: --profile: cannot read /proc/self/exe: %s\n",
                strerror(errno));
        return EXIT_BAD_ARGS;
    }
    dir = results_open_dir(o->out_dir, o->label, &o->variant, o->variant ? 1 : 0);
    if (!dir) return EXIT_BAD_ARGS;
    build_ncu_argv(&b, ncu, exe, dir, o);
    printf("profile: %s under %s (results in %s)\n", o->shapes[0].name, ncu, dir);
    rc = proc_run(b.argv, 0, NULL);
    if (rc < 0) {
        fprintf(stderr, "fp8attn bench: --profile: cannot run %s: %s\n", ncu, strerror(errno));
        rc = EXIT_RUN_FAILED;
    } else if (rc != 0) {
        fprintf(stderr, "fp8attn bench: --profile: ncu exited with status %d\n", rc);
        rc = EXIT_RUN_FAILED;
    } else {
        rc = print_report(ncu, dir);
    }
    free(dir);
    return rc;
}
