/* `fp8attn resources --json` on the real built tool (needs cuobjdump, not a GPU): every kernel
 * the library registers must be listed for every compiled architecture with registers > 0 and
 * the registry's variant, head_dim, threads and dynamic shared memory; the wgmma family is built
 * for sm_90a alone, so its kernels must be listed for sm_90a and for no other architecture. */
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include <jansson.h>

#include "build_info.h"
#include "fp8attn.h"

extern char **environ;

static int g_failures;

static void fail(const char *fmt, const char *a, const char *b)
{
    printf("FAIL ");
    printf(fmt, a, b);
    printf("\n");
    g_failures++;
}

/* Exit status of `fp8attn resources --json OUT`, or -1 if it could not be run. */
static int run_tool(void)
{
    char *argv[] = {FP8ATTN_CLI, "resources", "--json", RESOURCES_OUT, NULL};
    pid_t pid;
    int status;
    if (posix_spawn(&pid, argv[0], NULL, NULL, argv, environ) != 0) return -1;
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status)) return -1;
    return WEXITSTATUS(status);
}

static long long int_of(const json_t *k, const char *name)
{
    const json_t *v = json_object_get(k, name);
    return json_is_integer(v) ? (long long)json_integer_value(v) : -999;
}

/* How many entries of `symbol` were built for `arch`; *last (if not NULL) gets the last one. */
static int count_entries(const json_t *kernels, const char *symbol, const char *arch,
                         const json_t **last)
{
    const json_t *k;
    size_t i;
    int count = 0;
    json_array_foreach(kernels, i, k) {
        const char *s = json_string_value(json_object_get(k, "symbol"));
        const char *a = json_string_value(json_object_get(k, "arch"));
        if (s && a && !strcmp(s, symbol) && !strcmp(a, arch)) {
            if (last) *last = k;
            count++;
        }
    }
    return count;
}

/* The one entry of `symbol` built for `arch`, or NULL (reported) if there is none or several. */
static const json_t *find_entry(const json_t *kernels, const char *symbol, const char *arch)
{
    const json_t *found = NULL;
    if (count_entries(kernels, symbol, arch, &found) != 1) {
        fail("%s for %s: not listed exactly once", symbol, arch);
        return NULL;
    }
    return found;
}

static void check_entry(const json_t *k, const fp8attn_kernel_info_t *info, const char *arch)
{
    const char *variant = json_string_value(json_object_get(k, "variant"));
    if (int_of(k, "registers") <= 0) fail("%s %s: registers <= 0", info->symbol, arch);
    if (!variant || strcmp(variant, info->variant))
        fail("%s %s: variant differs from the registry", info->symbol, arch);
    if (int_of(k, "head_dim") != info->head_dim || int_of(k, "threads") != info->threads ||
        int_of(k, "dynamic_smem") != info->dynamic_smem)
        fail("%s %s: head_dim/threads/dynamic_smem differ from the registry", info->symbol,
             arch);
    if (int_of(k, "spill_bytes") != int_of(k, "stack") + int_of(k, "local") ||
        int_of(k, "stack") < 0)
        fail("%s %s: spill_bytes is not stack + local", info->symbol, arch);
}

/* Every registered kernel, for every architecture in FP8ATTN_CUDA_ARCHS ("89,90a"). */
static void check_registered(const json_t *kernels)
{
    fp8attn_kernel_info_t info;
    const char *archs = FP8ATTN_CUDA_ARCHS;
    int i;
    while (*archs) {
        char arch[32];
        size_t len = strcspn(archs, ",");
        snprintf(arch, sizeof arch, "sm_%.*s", (int)len, archs);
        for (i = 0; i < fp8attn_kernel_count(); i++) {
            const json_t *k;
            if (fp8attn_kernel_get(i, &info) != FP8ATTN_OK) {
                fail("fp8attn_kernel_get failed: %s%s", fp8attn_last_error(), "");
                continue;
            }
            if (!strcmp(info.variant, "wgmma") && strcmp(arch, "sm_90a") != 0) {
                if (count_entries(kernels, info.symbol, arch, NULL) != 0)
                    fail("%s for %s: listed, but the wgmma family is sm_90a only", info.symbol,
                         arch);
                continue;
            }
            if ((k = find_entry(kernels, info.symbol, arch)) != NULL)
                check_entry(k, &info, arch);
        }
        archs += len + (archs[len] == ',');
    }
}

int main(void)
{
    json_error_t err;
    json_t *root, *kernels;
    int rc = run_tool();
    if (rc != 0) {
        printf("FAIL %s resources --json %s exited %d\n", FP8ATTN_CLI, RESOURCES_OUT, rc);
        return 1;
    }
    root = json_load_file(RESOURCES_OUT, 0, &err);
    kernels = json_object_get(root, "kernels");
    if (!json_is_array(kernels)) {
        printf("FAIL %s: no \"kernels\" array (%s)\n", RESOURCES_OUT, root ? "" : err.text);
        json_decref(root);
        return 1;
    }
    if (fp8attn_kernel_count() == 0)
        printf("note: the library registers no kernels yet; checked only that the tool runs\n");
    check_registered(kernels);
    printf("%d registered kernel(s) x archs %s checked against %zu listed build(s): %s\n",
           fp8attn_kernel_count(), FP8ATTN_CUDA_ARCHS, json_array_size(kernels),
           g_failures ? "FAIL" : "ok");
    json_decref(root);
    return g_failures ? 1 : 0;
}
