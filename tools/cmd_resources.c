/* fp8attn resources: registers, shared memory, stack, local memory and spills of every compiled
 * kernel, read from this executable with `cuobjdump --dump-resource-usage` (no GPU needed).
 *
 * spill_bytes = STACK + LOCAL as cuobjdump reports them: the per-thread local memory of the
 * kernel. ptxas places register spills in the stack frame (cuobjdump's LOCAL stays 0 for them),
 * so LOCAL alone would never show a spill; local arrays land in the stack frame too. The kernels
 * are meant to use no local memory at all, so any non-zero value is worth a look. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "commands.h"
#include "cuobjdump_parse.h"
#include "fp8attn.h"
#include "json_file.h"
#include "proc.h"
#include "resources.h"

/* The cuobjdump that `pip install nvidia-cuda-cuobjdump` put beside python3's nvidia package. */
static int search_python_package(char *path)
{
    static const char script[] =
        "import os, nvidia\n"
        "for root in nvidia.__path__:\n"
        "    for sub in ('cu13/bin', 'cuda_cuobjdump/bin', 'cu12/bin'):\n"
        "        exe = os.path.join(root, sub, 'cuobjdump')\n"
        "        if os.access(exe, os.X_OK):\n"
        "            print(exe)\n"
        "            raise SystemExit(0)\n"
        "raise SystemExit(1)\n";
    char *argv[] = {"python3", "-c", (char *)script, NULL};
    char *out = NULL;
    int found = 0;
    if (proc_run(argv, PROC_SEARCH_PATH | PROC_CAPTURE_STDOUT | PROC_CAPTURE_STDERR, &out) == 0 &&
        out && out[0] == '/') {
        size_t len = strcspn(out, "\n");
        if (len < PROC_PATH_LEN) {
            memcpy(path, out, len);
            path[len] = '\0';
            found = access(path, X_OK) == 0;
        }
    }
    free(out);
    return found;
}

/* Finds cuobjdump: $FP8ATTN_CUOBJDUMP, PATH, /usr/local/cuda/bin, the PyPI package. */
static int find_cuobjdump(char *path, char *err, size_t errlen)
{
    const char *env = getenv("FP8ATTN_CUOBJDUMP");
    if (env && env[0]) {
        if (strlen(env) >= PROC_PATH_LEN) errno = ENAMETOOLONG;
        else if (access(env, X_OK) == 0) {
            strcpy(path, env);
            return 0;
        }
        snprintf(err, errlen, "FP8ATTN_CUOBJDUMP=%s: not an executable file (%s)", env,
                 strerror(errno));
        return -1;
    }
    if (proc_find_executable("cuobjdump", getenv("PATH"), path) ||
        proc_find_executable("cuobjdump", "/usr/local/cuda/bin", path) ||
        search_python_package(path))
        return 0;
    snprintf(err, errlen,
             "cuobjdump not found: looked at $FP8ATTN_CUOBJDUMP (unset), every directory of "
             "PATH, /usr/local/cuda/bin and python3's nvidia package (nvidia/cu13/bin); install "
             "it with `pip install nvidia-cuda-cuobjdump` or set FP8ATTN_CUOBJDUMP to its path");
    return -1;
}

/* Runs cuobjdump on this executable and parses it. Returns the kernel count (0 when the file
 * holds no device code), or -1 with err set. */
static int dump_self(const char *cuobjdump, const char *exe, cuobj_function_t **fns, char *err,
                     size_t errlen)
{
    char *argv[] = {(char *)cuobjdump, "--dump-resource-usage", (char *)exe, NULL};
    char *out = NULL;
    int status = proc_run(argv, PROC_CAPTURE_STDOUT | PROC_CAPTURE_STDERR, &out), n;
    if (status < 0 || !out) {
        snprintf(err, errlen, "cannot run %s: %s", cuobjdump, strerror(errno));
        return -1;
    }
    *fns = NULL;
    if (status != 0 && strstr(out, "does not contain device code")) {
        free(out);
        return 0;
    }
    if (status != 0) {
        snprintf(err, errlen, "%s --dump-resource-usage %s failed (exit %d): %.300s", cuobjdump,
                 exe, status, out);
        free(out);
        return -1;
    }
    n = cuobj_parse_resource_usage(out, fns, err, errlen);
    free(out);
    return n;
}

/* The library's kernel table (fp8attn_kernel_get for every index). */
typedef struct {
    fp8attn_kernel_info_t *info;
    int n;
} registry_t;

static int load_registry(registry_t *r, char *err, size_t errlen)
{
    int i;
    r->n = fp8attn_kernel_count();
    r->info = calloc((size_t)(r->n > 0 ? r->n : 1), sizeof *r->info);
    if (!r->info) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (i = 0; i < r->n; i++) {
        if (fp8attn_kernel_get(i, &r->info[i]) != FP8ATTN_OK || !r->info[i].symbol) {
            snprintf(err, errlen, "fp8attn_kernel_get(%d) failed: %s", i, fp8attn_last_error());
            free(r->info);
            return -1;
        }
    }
    return 0;
}

/* Registered kernel `symbol`, or NULL when the library does not register it. */
static const fp8attn_kernel_info_t *registered(const registry_t *r, const char *symbol)
{
    int i;
    for (i = 0; i < r->n; i++)
        if (!strcmp(r->info[i].symbol, symbol)) return &r->info[i];
    return NULL;
}

/* "sm_XY" of CUDA device 0, or "" without a usable GPU. */
static void device_arch(char *buf, size_t len)
{
    int count = 0, major = 0, minor = 0;
    buf[0] = '\0';
    if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1) return;
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0) != cudaSuccess)
        return;
    snprintf(buf, len, "sm_%d%d", major, minor);
}

/* Whether code built for `arch` ("sm_90a") is what device arch `dev` ("sm_90") runs. */
static int arch_runs_on(const char *arch, const char *dev)
{
    size_t n = strlen(dev);
    return n > 0 && !strncmp(arch, dev, n) && (arch[n] == '\0' || arch[n] == 'a' ||
                                               arch[n] == 'f');
}

static json_t *kernel_json(const cuobj_function_t *f, const registry_t *r, const char *dev)
{
    const fp8attn_kernel_info_t *info = registered(r, f->symbol);
    int blocks = info && arch_runs_on(f->arch, dev) ? info->max_blocks_per_sm : -1;
    return json_pack("{s:o, s:s, s:s, s:i, s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:i}", "variant",
                     info ? json_string(info->variant) : json_null(), "symbol", f->symbol,
                     "arch", f->arch, "head_dim", info ? info->head_dim : -1, "threads",
                     info ? info->threads : -1, "registers", (json_int_t)f->registers,
                     "static_smem", (json_int_t)f->shared, "dynamic_smem",
                     (json_int_t)(info ? info->dynamic_smem : -1), "stack",
                     (json_int_t)f->stack, "local", (json_int_t)f->local, "spill_bytes",
                     (json_int_t)(f->stack + f->local), "max_blocks_per_sm", blocks);
}

/* -1 with err naming the first registered kernel that cuobjdump did not list. */
static int check_registered_present(const registry_t *r, const cuobj_function_t *fns, int n,
                                    const char *exe, char *err, size_t errlen)
{
    int i, j;
    for (i = 0; i < r->n; i++) {
        for (j = 0; j < n && strcmp(fns[j].symbol, r->info[i].symbol) != 0; j++) continue;
        if (j == n) {
            snprintf(err, errlen, "kernel %s (variant %s) is registered by the library but "
                     "cuobjdump lists no such function in %s", r->info[i].symbol,
                     r->info[i].variant, exe);
            return -1;
        }
    }
    return 0;
}

json_t *resources_collect(char *err, size_t errlen)
{
    char cuobjdump[PROC_PATH_LEN], exe[PROC_PATH_LEN], dev[16];
    cuobj_function_t *fns = NULL;
    registry_t reg;
    json_t *kernels = NULL;
    int n, i;
    if (proc_self_exe(exe, sizeof exe) != 0) {
        snprintf(err, errlen, "readlink /proc/self/exe: %s", strerror(errno));
        return NULL;
    }
    if (find_cuobjdump(cuobjdump, err, errlen) != 0) return NULL;
    if ((n = dump_self(cuobjdump, exe, &fns, err, errlen)) < 0) return NULL;
    if (load_registry(&reg, err, errlen) != 0) {
        cuobj_functions_free(fns, n);
        return NULL;
    }
    if (check_registered_present(&reg, fns, n, exe, err, errlen) == 0) {
        device_arch(dev, sizeof dev);
        kernels = json_array();
        for (i = 0; i < n; i++) json_array_append_new(kernels, kernel_json(&fns[i], &reg, dev));
    }
    free(reg.info);
    cuobj_functions_free(fns, n);
    return kernels ? json_pack("{s:o}", "kernels", kernels) : NULL;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: fp8attn resources [--json FILE]\n\n"
            "Registers, static and dynamic shared memory, stack frame, local memory and spill\n"
            "bytes of every kernel compiled into this executable, for every architecture, read\n"
            "with `cuobjdump --dump-resource-usage` (no GPU needed; found via $FP8ATTN_CUOBJDUMP,\n"
            "PATH, /usr/local/cuda/bin or `pip install nvidia-cuda-cuobjdump`).\n"
            "spill_bytes = cuobjdump's STACK + LOCAL (per-thread local memory: ptxas puts\n"
            "register spills in the stack frame). max_blocks_per_sm needs a GPU (-1 without).\n"
            "  --json FILE   also write them in resources.json format (parent directories are\n"
            "                created; --json=FILE works too)\n"
            "Exit status: 0 listed, 2 bad arguments or cuobjdump missing/failed.\n");
}

static void print_table(const json_t *kernels)
{
    size_t i;
    printf("%-14s %-28s %-7s %4s %7s %5s %8s %8s %6s %6s %6s %9s\n", "variant", "symbol", "arch",
           "d", "threads", "regs", "smem_st", "smem_dyn", "stack", "local", "spill",
           "blocks/SM");
    for (i = 0; i < json_array_size(kernels); i++) {
        const json_t *k = json_array_get(kernels, i);
        const char *variant = json_string_value(json_object_get(k, "variant"));
        printf("%-14s %-28s %-7s %4lld %7lld %5lld %8lld %8lld %6lld %6lld %6lld %9lld\n",
               variant ? variant : "(unregistered)",
               json_string_value(json_object_get(k, "symbol")),
               json_string_value(json_object_get(k, "arch")), json_int_field(k, "head_dim"),
               json_int_field(k, "threads"), json_int_field(k, "registers"),
               json_int_field(k, "static_smem"), json_int_field(k, "dynamic_smem"),
               json_int_field(k, "stack"), json_int_field(k, "local"),
               json_int_field(k, "spill_bytes"), json_int_field(k, "max_blocks_per_sm"));
    }
}

int cmd_resources(int argc, char **argv)
{
    const char *json_path = NULL;
    char err[1024];
    json_t *root;
    size_t n;
    int rc;
    if ((rc = json_option_parse(argc, argv, "resources", usage, &json_path)) >= 0) return rc;
    rc = 0;
    if (!(root = resources_collect(err, sizeof err))) {
        fprintf(stderr, "fp8attn resources: %s\n", err);
        return 2;
    }
    n = json_array_size(json_object_get(root, "kernels"));
    if (n == 0)
        printf("no kernels: this executable contains no device code (the library registers %d "
               "kernel(s))\n", fp8attn_kernel_count());
    else
        print_table(json_object_get(root, "kernels"));
    if (n > 0)
        printf("%zu kernel build(s); spill = STACK + LOCAL bytes per thread; d = head_dim "
               "(0 = any); -1 = unknown (unregistered kernel, or no GPU for blocks/SM)\n", n);
    if (json_path && json_file_write("resources", "--json", json_path, root) != 0) rc = 2;
    json_decref(root);
    return rc;
}
