/* `fp8attn bench --profile`: one shape under Nsight Compute, headline metrics printed. */
#include <errno.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ncu_csv.h"
#include "ncu_profile.h"
#include "results.h"

#define PATH_LEN 4096

/* Sections that say where the time goes: SOL (compute vs memory), pipe utilisation (tensor
 * pipes), memory (DRAM throughput), occupancy, warp stall reasons, launch resources. */
static const char *const k_sections[] = {"SpeedOfLight", "ComputeWorkloadAnalysis",
                                         "MemoryWorkloadAnalysis", "Occupancy", "WarpStateStats",
                                         "SchedulerStats", "LaunchStats"};
/* Not in those sections: shared-memory bank conflicts of loads and stores. */
static const char k_extra_metrics[] = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,"
                                      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum";

/* ---- locating ncu and running programs ---- */

static int executable(const char *path) { return access(path, X_OK) == 0; }

/* ncu on PATH, in /usr/local/cuda/bin, or the newest /opt/nvidia/nsight-compute/ * /ncu. */
static int find_ncu(char *out)
{
    const char *path = getenv("PATH");
    glob_t g;
    while (path && *path) {
        const char *colon = strchr(path, ':');
        int len = colon ? (int)(colon - path) : (int)strlen(path);
        snprintf(out, PATH_LEN, "%.*s/ncu", len, path);
        if (len > 0 && executable(out)) return 0;
        path = colon ? colon + 1 : NULL;
    }
    snprintf(out, PATH_LEN, "/usr/local/cuda/bin/ncu");
    if (executable(out)) return 0;
    if (glob("/opt/nvidia/nsight-compute/*/ncu", 0, NULL, &g) == 0 && g.gl_pathc > 0) {
        snprintf(out, PATH_LEN, "%s", g.gl_pathv[g.gl_pathc - 1]); /* sorted: newest last */
        globfree(&g);
        return executable(out) ? 0 : -1;
    }
    return -1;
}

/* Runs argv[0] with argv, waits. With `captured` non-NULL, its stdout is read into a malloc'd
 * string. Returns the exit status, or -1 if it could not run or did not exit normally. */
static int run_program(char *const argv[], char **captured)
{
    int fds[2] = {-1, -1}, status = 0;
    size_t len = 0, cap = 0;
    pid_t pid;
    if (captured && pipe(fds)) return -1;
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        if (captured) {
            dup2(fds[1], STDOUT_FILENO);
            close(fds[0]);
            close(fds[1]);
        }
        execv(argv[0], argv);
        fprintf(stderr, "fp8attn bench: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    if (captured) {
        close(fds[1]);
        *captured = NULL;
        for (;;) {
            ssize_t got;
            if (len + 4097 > cap) {
                char *grown = realloc(*captured, cap = 2 * cap + 8192);
                if (!grown) break;
                *captured = grown;
            }
            got = read(fds[0], *captured + len, cap - len - 1);
            if (got <= 0) break;
            len += (size_t)got;
        }
        if (*captured) (*captured)[len] = '\0';
        close(fds[0]);
    }
    if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status)) return -1;
    return WEXITSTATUS(status);
}

/* ---- the command lines ---- */

typedef struct {
    char *argv[64];
    int n;
    char text[16][PATH_LEN]; /* storage for the formatted arguments */
    int n_text;
} argv_builder_t;

static void push(argv_builder_t *b, const char *arg) { b->argv[b->n++] = (char *)arg; }

static void pushf_shape(argv_builder_t *b, const shape_t *s)
{
    char *t = b->text[b->n_text++];
    snprintf(t, PATH_LEN, "%d,%d,%d,%d,%d,%d", (int)s->batch, (int)s->h_q, (int)s->h_kv,
             (int)s->seqlen_q, (int)s->seqlen_k, (int)s->head_dim);
    push(b, t);
}

static void push_text(argv_builder_t *b, const char *a, const char *c)
{
    char *t = b->text[b->n_text++];
    snprintf(t, PATH_LEN, "%s%s", a, c);
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
    char report[PATH_LEN], *csv = NULL;
    char *argv[] = {(char *)ncu, "--import", report, "--page", "raw", "--csv", NULL};
    int rc;
    snprintf(report, sizeof report, "%s/profile.ncu-rep", dir);
    rc = run_program(argv, &csv);
    if (rc != 0 || !csv || ncu_print_headline(csv, stdout)) {
        fprintf(stderr, "fp8attn bench: could not read the metrics of %s (ncu --import exit %d)\n",
                report, rc);
        free(csv);
        return EXIT_GATE_FAILED;
    }
    printf("profile: full report: ncu-ui %s\n", report);
    free(csv);
    return EXIT_PASS;
}

int ncu_profile_run(const run_opts_t *o)
{
    char ncu[PATH_LEN], exe[PATH_LEN], *dir;
    static argv_builder_t b;
    ssize_t len;
    int rc;
    if (find_ncu(ncu)) {
        fprintf(stderr, "fp8attn bench: --profile: ncu (Nsight Compute) not found on PATH, in "
                        "/usr/local/cuda/bin or /opt/nvidia/nsight-compute/*/\n");
        return EXIT_BAD_ARGS;
    }
    len = readlink("/proc/self/exe", exe, sizeof exe - 1); /* ncu runs a path, not our pid */
    if (len <= 0) {
        fprintf(stderr, "fp8attn bench: --profile: cannot read /proc/self/exe: %s\n",
                strerror(errno));
        return EXIT_BAD_ARGS;
    }
    exe[len] = '\0';
    dir = results_open_dir(o->out_dir, o->label, &o->variant, o->variant ? 1 : 0);
    if (!dir) return EXIT_BAD_ARGS;
    build_ncu_argv(&b, ncu, exe, dir, o);
    printf("profile: %s under %s (results in %s)\n", o->shapes[0].name, ncu, dir);
    rc = run_program(b.argv, NULL);
    if (rc != 0) {
        fprintf(stderr, "fp8attn bench: --profile: ncu exited with status %d\n", rc);
        rc = EXIT_GATE_FAILED;
    } else {
        rc = print_report(ncu, dir);
    }
    free(dir);
    return rc;
}
