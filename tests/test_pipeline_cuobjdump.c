/* tools/cuobjdump_parse.c on a captured `cuobjdump --dump-resource-usage` listing and on
 * crafted malformed ones.
 *
 * data/pipeline/cuobjdump_sample.txt was captured from an executable built by
 * `nvcc -O3 -maxrregcount=32 -gencode ...sm_89 -gencode ...sm_90a` from two small files with
 * kernels named like the library's (one spilling: ptxas reported its spills in the stack frame,
 * STACK 1008/1040, LOCAL 0). It has one section per (translation unit, arch), two of them
 * without any function. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuobjdump_parse.h"
#include "test_util.h"

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    long len;
    char *buf;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)len + 1);
    if (buf && fread(buf, 1, (size_t)len, f) != (size_t)len) {
        free(buf);
        buf = NULL;
    }
    if (buf) buf[len] = '\0';
    fclose(f);
    return buf;
}

typedef struct {
    const char *arch, *symbol;
    long long regs, stack, shared, local;
} expected_t;

static void expect_function(const cuobj_function_t *f, const expected_t *e)
{
    char what[160];
    snprintf(what, sizeof what, "%s %s: got %s %s REG %lld STACK %lld SHARED %lld LOCAL %lld",
             e->arch, e->symbol, f->arch, f->symbol, f->registers, f->stack, f->shared,
             f->local);
    expect_true(what, !strcmp(f->arch, e->arch) && !strcmp(f->symbol, e->symbol) &&
                     f->registers == e->regs && f->stack == e->stack &&
                     f->shared == e->shared && f->local == e->local);
}

static void test_captured_sample(void)
{
    /* The sample's Function/REG lines, in file order (see the header comment). */
    static const expected_t want[] = {
        {"sm_89", "fp8attn_mma_hd64", 32, 1008, 0, 0},
        {"sm_90a", "fp8attn_mma_hd64", 32, 1040, 0, 0},
        {"sm_89", "fp8attn_reference_gpu", 32, 0, 0, 0},
        {"sm_89", "fp8attn_mma_hd128", 12, 0, 4096, 0},
        {"sm_90a", "fp8attn_reference_gpu", 32, 160, 1024, 0},
        {"sm_90a", "fp8attn_mma_hd128", 12, 0, 5120, 0},
    };
    char err[256] = "";
    char *text = read_text(PIPELINE_DATA_DIR "/cuobjdump_sample.txt");
    cuobj_function_t *fns = NULL;
    int n, i;
    expect_true("read " PIPELINE_DATA_DIR "/cuobjdump_sample.txt", text != NULL);
    if (!text) return;
    n = cuobj_parse_resource_usage(text, &fns, err, sizeof err);
    if (n < 0) printf("parser error: %s\n", err);
    expect_true("sample has 6 kernel builds", n == 6);
    for (i = 0; i < n && i < 6; i++) expect_function(&fns[i], &want[i]);
    cuobj_functions_free(fns, n);
    free(text);
}

/* LOCAL is 0 throughout the sample; this one checks it (and any token order) is really read. */
static void test_crafted_values(void)
{
    const char *text = "arch = sm_90a\n Function k:\n  LOCAL:24 REG:7 SHARED:9 STACK:8 "
                       "CONSTANT[0]:1\n";
    static const expected_t want = {"sm_90a", "k", 7, 8, 9, 24};
    char err[256] = "";
    cuobj_function_t *fns = NULL;
    int n = cuobj_parse_resource_usage(text, &fns, err, sizeof err);
    expect_true("crafted listing has 1 kernel", n == 1);
    if (n == 1) expect_function(&fns[0], &want);
    cuobj_functions_free(fns, n);
}

/* A malformed listing gives -1 and a message holding `needle` (the line or the field). */
static void expect_error(const char *what, const char *text, const char *needle)
{
    char err[256] = "";
    cuobj_function_t *fns = NULL;
    int n = cuobj_parse_resource_usage(text, &fns, err, sizeof err);
    char label[256];
    snprintf(label, sizeof label, "%s: want -1 and '%s' in the message, got %d '%s'", what,
             needle, n, err);
    expect_true(label, n == -1 && strstr(err, needle) != NULL);
    if (n > 0) cuobj_functions_free(fns, n);
}

static void test_malformed(void)
{
    expect_error("function before arch", "Resource usage:\n Function k:\n  REG:1 STACK:0 "
                 "SHARED:0 LOCAL:0\n", "before any 'arch");
    expect_error("function without resource line at end", "arch = sm_89\n Function k:\n",
                 "line 2");
    expect_error("function followed by another line", "arch = sm_89\n Function k:\n "
                 "Function j:\n", "line 3");
    expect_error("LOCAL missing", "arch = sm_89\n Function k:\n  REG:1 STACK:0 SHARED:0\n",
                 "LOCAL");
    expect_error("REG not a number", "arch = sm_89\n Function k:\n  REG:x STACK:0 SHARED:0 "
                 "LOCAL:0\n", "REG");
}

static void test_empty(void)
{
    char err[256] = "";
    cuobj_function_t *fns = NULL;
    expect_true("empty text has 0 kernels", cuobj_parse_resource_usage("", &fns, err, sizeof err) == 0);
    expect_true("a section without functions has 0 kernels",
           cuobj_parse_resource_usage("arch = sm_89\nResource usage:\n Common:\n  GLOBAL:0\n",
                                      &fns, err, sizeof err) == 0);
}

int main(void)
{
    test_captured_sample();
    test_crafted_values();
    test_malformed();
    test_empty();
    if (g_failures) printf("%ld failure(s)\n", g_failures);
    else printf("all cuobjdump parser checks passed\n");
    return g_failures ? 1 : 0;
}
