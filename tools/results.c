/* Results directories on disk and build/device metadata (build_meta.json). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "build_info.h"
#include "files.h"
#include "fp8attn.h"
#include "results.h"

/* UTC time in strftime format `fmt`. */
static void utc_time(char *buf, size_t len, const char *fmt)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(buf, len, fmt, &tm);
}

/* Splits "a,b,c" into a JSON array of strings ("89,90a" -> ["89", "90a"]). */
static json_t *split_list(const char *list, char sep)
{
    json_t *arr = json_array();
    const char *start = list;
    while (*start) {
        const char *end = strchr(start, sep);
        size_t len = end ? (size_t)(end - start) : strlen(start);
        if (len > 0) json_array_append_new(arr, json_stringn(start, len));
        if (!end) break;
        start = end + 1;
    }
    return arr;
}

/* The CMake flag list with its ';' separators shown as spaces. */
static json_t *cuda_flags_string(void)
{
    char flags[sizeof FP8ATTN_CUDA_FLAGS_STR];
    char *p;
    memcpy(flags, FP8ATTN_CUDA_FLAGS_STR, sizeof flags);
    for (p = flags; *p; p++)
        if (*p == ';') *p = ' ';
    return json_string(flags);
}

static json_t *build_object(void)
{
    json_t *git = json_pack("{s:s, s:s, s:b}", "sha", FP8ATTN_GIT_SHA, "branch",
                            FP8ATTN_GIT_BRANCH, "dirty", FP8ATTN_GIT_DIRTY);
    return json_pack("{s:o, s:s, s:s, s:s, s:o, s:o}", "git", git, "build_type",
                     FP8ATTN_BUILD_TYPE, "c_compiler", FP8ATTN_C_COMPILER, "cuda_compiler",
                     FP8ATTN_CUDA_COMPILER, "cuda_flags", cuda_flags_string(), "cuda_archs",
                     split_list(FP8ATTN_CUDA_ARCHS, ','));
}

/* An integer device attribute, or -1 if the runtime refuses it. */
static json_int_t device_attr(enum cudaDeviceAttr attr, int device)
{
    int v = 0;
    return cudaDeviceGetAttribute(&v, attr, device) == cudaSuccess ? v : -1;
}

static json_t *device_object(int device)
{
    struct cudaDeviceProp prop;
    char cc[16];
    json_int_t clock_khz = device_attr(cudaDevAttrClockRate, device);
    json_int_t mem_clock_khz = device_attr(cudaDevAttrMemoryClockRate, device);
    if (cudaGetDeviceProperties(&prop, device) != cudaSuccess) return NULL;
    snprintf(cc, sizeof cc, "%d.%d", prop.major, prop.minor);
    return json_pack("{s:i, s:s, s:s, s:I, s:I, s:I, s:I, s:I}", "index", device, "name",
                     prop.name, "compute_capability", cc, "sm_count",
                     device_attr(cudaDevAttrMultiProcessorCount, device), "memory_bytes",
                     (json_int_t)prop.totalGlobalMem, "l2_bytes",
                     device_attr(cudaDevAttrL2CacheSize, device), "sm_clock_mhz",
                     clock_khz < 0 ? clock_khz : clock_khz / 1000, "memory_clock_mhz",
                     mem_clock_khz < 0 ? mem_clock_khz : mem_clock_khz / 1000);
}

/* Adds "devices", "device_error" (why there are none, else null) and the CUDA versions. */
static void add_devices(json_t *meta)
{
    json_t *devices = json_array();
    char reason[256] = "";
    int count = 0, driver = 0, runtime = 0, i;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess)
        snprintf(reason, sizeof reason, "cudaGetDeviceCount: %s", cudaGetErrorString(e));
    else if (count == 0)
        snprintf(reason, sizeof reason, "cudaGetDeviceCount found 0 devices");
    for (i = 0; e == cudaSuccess && i < count; i++) {
        json_t *d = device_object(i);
        if (d) json_array_append_new(devices, d);
    }
    json_object_set_new(meta, "cuda_driver_version",
                        cudaDriverGetVersion(&driver) == cudaSuccess ? json_integer(driver)
                                                                     : json_null());
    json_object_set_new(meta, "cuda_runtime_version",
                        cudaRuntimeGetVersion(&runtime) == cudaSuccess ? json_integer(runtime)
                                                                       : json_null());
    json_object_set_new(meta, "devices", devices);
    json_object_set_new(meta, "device_error", reason[0] ? json_string(reason) : json_null());
}

json_t *results_build_meta(const char *const *variants, int n_variants)
{
    char stamp[32];
    json_t *meta, *used = json_array();
    int i;
    utc_time(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ");
    for (i = 0; i < n_variants; i++)
        if (variants && variants[i]) json_array_append_new(used, json_string(variants[i]));
    meta = json_pack("{s:s, s:s, s:o, s:o}", "written_at", stamp, "fp8attn_version",
                     fp8attn_version(), "build", build_object(), "variants", used);
    add_devices(meta);
    return meta;
}

/* 1 if `path` is a directory holding at least one entry, else 0. */
static int dir_has_entries(const char *path)
{
    DIR *d = opendir(path);
    struct dirent *e;
    int found = 0;
    if (!d) return 0;
    while (!found && (e = readdir(d)) != NULL)
        found = strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return found;
}

/* results/<UTC YYYYmmdd-HHMMSS>-<label>, the label reduced to [A-Za-z0-9._-]. */
static char *default_dir(const char *label)
{
    char stamp[32];
    size_t len, i, base;
    char *path;
    utc_time(stamp, sizeof stamp, "%Y%m%d-%H%M%S");
    len = strlen("results/") + strlen(stamp) + 1 + (label ? strlen(label) : 0) + 1;
    path = malloc(len);
    if (!path) return NULL;
    snprintf(path, len, "results/%s%s", stamp, label && label[0] ? "-" : "");
    base = strlen(path);
    for (i = 0; label && label[i]; i++) {
        char c = label[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '_' || c == '-';
        path[base + i] = ok ? c : '_';
    }
    path[base + i] = '\0';
    return path;
}

char *results_open_dir(const char *dir, const char *label, const char *const *variants,
                       int n_variants)
{
    char *path = dir ? strdup(dir) : default_dir(label);
    json_t *meta;
    int reused;
    if (!path) {
        fprintf(stderr, "fp8attn: out of memory creating the results directory name\n");
        return NULL;
    }
    reused = dir_has_entries(path);
    if (make_dirs(path) != 0) {
        fprintf(stderr, "fp8attn: cannot create results directory '%s': %s\n", path,
                strerror(errno));
        free(path);
        return NULL;
    }
    meta = results_build_meta(variants, n_variants);
    /* A reused directory may hold files of an earlier run: written_at dates this one. */
    json_object_set_new(meta, "reused_dir", json_boolean(reused));
    if (results_write_json(path, "build_meta.json", meta) != 0) {
        json_decref(meta);
        free(path);
        return NULL;
    }
    json_decref(meta);
    return path;
}

int results_write_json(const char *dir, const char *name, json_t *root)
{
    char *path = path_join(dir, name);
    int rc = -1;
    if (!path)
        fprintf(stderr, "fp8attn: out of memory writing %s\n", name);
    else if (file_write_json(path, root) != 0)
        fprintf(stderr, "fp8attn: cannot write '%s': %s\n", path, strerror(errno));
    else
        rc = 0;
    free(path);
    return rc;
}
