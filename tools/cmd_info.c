/* fp8attn info: version, build, compiled architectures, kernel variants and CUDA devices. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "fp8attn.h"
#include "json_file.h"
#include "results.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: fp8attn info [--json FILE]\n\n"
               "Prints the version, git state, build flags, compiled CUDA architectures, kernel\n"
               "variants and CUDA devices (\"devices: none (why)\" without a GPU; still exit 0).\n"
               "  --json FILE   also write the same as build_meta.json (parent directories are\n"
               "                created; --json=FILE works too)\n"
               "Exit status: 0 printed (and written), 2 bad arguments or --json not writable.\n");
}

static const char *str_field(const json_t *obj, const char *name)
{
    const char *s = json_string_value(json_object_get(obj, name));
    return s ? s : "?";
}

/* CUDA's version integer 12080 -> "12.8"; 0 or absent (no driver) -> "none". */
static void print_cuda_version(const char *label, const json_t *v)
{
    long long x = json_integer_value(v);
    if (json_is_integer(v) && x > 0) printf("%s %lld.%lld", label, x / 1000, (x % 1000) / 10);
    else printf("%s none", label);
}

static void print_build(const json_t *meta)
{
    const json_t *build = json_object_get(meta, "build");
    const json_t *git = json_object_get(build, "git");
    const json_t *archs = json_object_get(build, "cuda_archs");
    size_t i;
    printf("fp8attn %s\n", str_field(meta, "fp8attn_version"));
    printf("git:         %s (branch %s%s)\n", str_field(git, "sha"), str_field(git, "branch"),
           json_is_true(json_object_get(git, "dirty")) ? ", dirty" : ", clean");
    printf("build type:  %s\n", str_field(build, "build_type"));
    printf("C compiler:  %s\nCUDA:        %s, flags %s\n", str_field(build, "c_compiler"),
           str_field(build, "cuda_compiler"), str_field(build, "cuda_flags"));
    printf("CUDA archs: ");
    for (i = 0; i < json_array_size(archs); i++)
        printf(" sm_%s", json_string_value(json_array_get(archs, i)));
    printf("\n");
    print_cuda_version("CUDA runtime:", json_object_get(meta, "cuda_runtime_version"));
    print_cuda_version(", driver:", json_object_get(meta, "cuda_driver_version"));
    printf("\n");
}

static void print_variants(void)
{
    int i;
    printf("variants (%d):\n", fp8attn_variant_count());
    for (i = 0; i < fp8attn_variant_count(); i++)
        printf("  %-16s %s\n", fp8attn_variant_name(i), fp8attn_variant_description(i));
}

static void print_devices(const json_t *meta)
{
    const json_t *devices = json_object_get(meta, "devices");
    size_t i;
    if (json_array_size(devices) == 0) {
        const char *why = json_string_value(json_object_get(meta, "device_error"));
        printf("devices: none (%s)\n", why ? why : "no device could be queried");
        return;
    }
    printf("devices (%zu):\n", json_array_size(devices));
    for (i = 0; i < json_array_size(devices); i++) {
        const json_t *d = json_array_get(devices, i);
        printf("  %lld: %s, compute capability %s, %lld SMs, %.1f GiB, L2 %.1f MiB, "
               "SM clock %lld MHz, memory clock %lld MHz\n",
               json_int_field(d, "index"), str_field(d, "name"), str_field(d, "compute_capability"),
               json_int_field(d, "sm_count"), (double)json_int_field(d, "memory_bytes") / (1 << 30),
               (double)json_int_field(d, "l2_bytes") / (1 << 20), json_int_field(d, "sm_clock_mhz"),
               json_int_field(d, "memory_clock_mhz"));
    }
}

int cmd_info(int argc, char **argv)
{
    const char *json_path = NULL, **names;
    json_t *meta;
    int i, n = fp8attn_variant_count(), rc;
    if ((rc = json_option_parse(argc, argv, "info", usage, &json_path)) >= 0) return rc;
    rc = 0;
    names = malloc((size_t)(n > 0 ? n : 1) * sizeof *names);
    if (!names) {
        fprintf(stderr, "fp8attn info: out of memory\n");
        return 2;
    }
    for (i = 0; i < n; i++) names[i] = fp8attn_variant_name(i);
    meta = results_build_meta(names, n);
    free(names);
    print_build(meta);
    print_variants();
    print_devices(meta);
    if (json_path && json_file_write("info", "--json", json_path, meta) != 0) rc = 2;
    json_decref(meta);
    return rc;
}
