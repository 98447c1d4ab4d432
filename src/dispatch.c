/* GPU entry points: the variant registry and fp8attn_forward / fp8attn_forward_variant.
 * Variants live in src/kernels/ (one family per file); this file only picks and launches. */
#include <string.h>

#include <cuda_runtime_api.h>

#include "internal.h"
#include "build_info.h"
#include "kernels/kernels.h"

/* Registry, in order of listing. The default is the supporting variant of highest priority. */
static const fp8attn_variant_t *const k_variants[] = {
    &fp8attn_variant_reference_gpu,
    &fp8attn_variant_mma,
    &fp8attn_variant_mma_m64,
    &fp8attn_variant_mma_m128,
#ifdef FP8ATTN_HAVE_WGMMA
    &fp8attn_variant_wgmma,
#endif
};
#define N_VARIANTS ((int)(sizeof k_variants / sizeof k_variants[0]))

int fp8attn_variant_count(void) { return N_VARIANTS; }

const char *fp8attn_variant_name(int index)
{
    return (index >= 0 && index < N_VARIANTS) ? k_variants[index]->name : NULL;
}

const char *fp8attn_variant_description(int index)
{
    return (index >= 0 && index < N_VARIANTS) ? k_variants[index]->description : NULL;
}

static const fp8attn_variant_t *find_variant(const char *name)
{
    int i;
    if (!name) return NULL;
    for (i = 0; i < N_VARIANTS; i++)
        if (!strcmp(k_variants[i]->name, name)) return k_variants[i];
    return NULL;
}

/* Compute capability, shared-memory limit and SM count of `device` (which must exist), queried
 * from the runtime once per device and kept: they cannot change while the process runs, and four
 * cudaDeviceGetAttribute calls cost about a microsecond on every attention call otherwise.
 * A slot's state goes 0 (empty) -> 1 (one thread writing) -> 2 (ready): the thread that wins the
 * compare-and-swap from 0 writes the fields, then publishes them with a release store of 2; a
 * reader uses them only after an acquire load sees 2. Threads that miss meanwhile query for
 * themselves and write nothing. Devices past the table are queried every time. */
static struct {
    fp8attn_device_info_t info;
    int state;
} g_devices[FP8ATTN_CACHED_DEVICES];

fp8attn_status_t fp8attn_device_query(int device, const char *prefix, fp8attn_device_info_t *info)
{
    int v = 0;
    cudaError_t e;
    const int cached = device >= 0 && device < FP8ATTN_CACHED_DEVICES;
    int empty = 0;
    if (cached && __atomic_load_n(&g_devices[device].state, __ATOMIC_ACQUIRE) == 2) {
        *info = g_devices[device].info;
        return FP8ATTN_OK;
    }
    memset(info, 0, sizeof *info);
    if ((e = cudaDeviceGetAttribute(&info->cc_major, cudaDevAttrComputeCapabilityMajor, device)) ||
        (e = cudaDeviceGetAttribute(&info->cc_minor, cudaDevAttrComputeCapabilityMinor, device)) ||
        (e = cudaDeviceGetAttribute(&info->sm_count, cudaDevAttrMultiProcessorCount, device)) ||
        (e = cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, device)))
        return fp8attn_fail(FP8ATTN_ERR_CUDA, "%scudaDeviceGetAttribute(device %d): %s", prefix,
                            device, cudaGetErrorString(e));
    if (info->sm_count < 1) info->sm_count = 1;
    info->smem_optin = (size_t)v;
    info->ordinal = device;
    if (cached && __atomic_compare_exchange_n(&g_devices[device].state, &empty, 1, 0,
                                              __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
        g_devices[device].info = *info;
        __atomic_store_n(&g_devices[device].state, 2, __ATOMIC_RELEASE);
    }
    return FP8ATTN_OK;
}

/* Like fp8attn_device_query, for a caller-chosen device number (checked against the device
 * count). */
static fp8attn_status_t device_info(int device, fp8attn_device_info_t *info)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0)
        return fp8attn_fail(FP8ATTN_ERR_NOT_SUPPORTED, "no CUDA device available (%s)",
                            e != cudaSuccess ? cudaGetErrorString(e) : "device count is 0");
    if (device < 0 || device >= count)
        return fp8attn_fail(FP8ATTN_ERR_INVALID_ARGUMENT, "device = %d: have %d device(s)", device,
                            count);
    return fp8attn_device_query(device, "", info);
}

/* Does this build hold machine code for the device? Each entry of FP8ATTN_CUDA_ARCHS ("89,90a")
 * is an sm_XY image: an "a" (architecture-specific) image runs only on exactly X.Y, a plain one
 * on X.Z with Z >= Y. No image, no kernel: there is no PTX to JIT. Decided from the compute
 * capability alone, so it answers for any device and never touches the CUDA error state. */
fp8attn_status_t fp8attn_check_arch(const fp8attn_device_info_t *dev, const char *who)
{
    const char *a = FP8ATTN_CUDA_ARCHS;
    while (*a) {
        int n = 0;
        while (*a >= '0' && *a <= '9') n = n * 10 + (*a++ - '0');
        const int specific = *a >= 'a' && *a <= 'z';
        while (*a && *a != ',') a++;
        if (*a == ',') a++;
        if (n / 10 == dev->cc_major &&
            (specific ? n % 10 == dev->cc_minor : dev->cc_minor >= n % 10))
            return FP8ATTN_OK;
    }
    return fp8attn_fail(FP8ATTN_ERR_NOT_SUPPORTED,
                        "%s: this build has no kernel image for sm_%d%d (built for sm_%s)", who,
                        dev->cc_major, dev->cc_minor, FP8ATTN_CUDA_ARCHS);
}

fp8attn_status_t fp8attn_variant_supports(const char *variant, const fp8attn_params_t *p,
                                          int device)
{
    fp8attn_device_info_t info;
    fp8attn_status_t st;
    const fp8attn_variant_t *v = find_variant(variant);
    if (!v)
        return fp8attn_fail(FP8ATTN_ERR_INVALID_ARGUMENT, "variant = '%s': unknown variant",
                            variant ? variant : "(null)");
    if ((st = fp8attn_validate(p)) != FP8ATTN_OK) return st;
    if ((st = device_info(device, &info)) != FP8ATTN_OK) return st;
    return v->supports(p, &info);
}

/* The supporting variant of highest priority. A failure other than "not supported" (a CUDA
 * error) is returned as is rather than hidden behind the next variant. */
static fp8attn_status_t pick_default(const fp8attn_params_t *p, const fp8attn_device_info_t *info,
                                     const fp8attn_variant_t **out)
{
    const fp8attn_variant_t *best = NULL;
    int i, best_rank = 0;
    for (i = 0; i < N_VARIANTS; i++) {
        const fp8attn_variant_t *v = k_variants[i];
        const int rank = v->rank ? v->rank(p, info) : v->priority;
        fp8attn_status_t st;
        if (best && rank <= best_rank) continue;
        st = v->supports(p, info);
        if (st == FP8ATTN_OK) {
            best = v;
            best_rank = rank;
        } else if (st != FP8ATTN_ERR_NOT_SUPPORTED) {
            return st;
        }
    }
    *out = best;
    if (!best)
        return fp8attn_fail(FP8ATTN_ERR_NOT_SUPPORTED,
                            "no kernel variant supports this problem on sm_%d%d", info->cc_major,
                            info->cc_minor);
    return FP8ATTN_OK;
}

const char *fp8attn_variant_default(const fp8attn_params_t *p, int device)
{
    fp8attn_device_info_t info;
    const fp8attn_variant_t *v = NULL;
    if (fp8attn_validate(p) != FP8ATTN_OK) return NULL;
    if (device_info(device, &info) != FP8ATTN_OK) return NULL;
    return pick_default(p, &info, &v) == FP8ATTN_OK ? v->name : NULL;
}

fp8attn_status_t fp8attn_current_device(const char *prefix, fp8attn_device_info_t *info)
{
    int device = 0;
    cudaError_t e = cudaGetDevice(&device);
    if (e != cudaSuccess)
        return fp8attn_fail(FP8ATTN_ERR_NOT_SUPPORTED, "%sno usable CUDA device: %s", prefix,
                            cudaGetErrorString(e));
    return fp8attn_device_query(device, prefix, info);
}

/* The variant fp8attn_forward_variant(p, variant, ...) uses on the current device, whose
 * properties go to *info. */
static fp8attn_status_t resolve_variant(const fp8attn_params_t *p, const char *variant,
                                        fp8attn_device_info_t *info,
                                        const fp8attn_variant_t **out)
{
    fp8attn_status_t st;
    if ((st = fp8attn_validate(p)) != FP8ATTN_OK) return st;
    if ((st = fp8attn_current_device("", info)) != FP8ATTN_OK) return st;
    if (!variant) return pick_default(p, info, out);
    if (!(*out = find_variant(variant)))
        return fp8attn_fail(FP8ATTN_ERR_INVALID_ARGUMENT, "variant = '%s': unknown variant",
                            variant);
    return (*out)->supports(p, info);
}

fp8attn_status_t fp8attn_forward_workspace_size(const fp8attn_params_t *p, const char *variant,
                                                size_t *bytes)
{
    fp8attn_device_info_t info;
    const fp8attn_variant_t *v = NULL;
    fp8attn_status_t st;
    if (!bytes)
        return fp8attn_fail(FP8ATTN_ERR_NULL_POINTER, "bytes = NULL: the size needs somewhere to go");
    *bytes = 0;
    if ((st = resolve_variant(p, variant, &info, &v)) != FP8ATTN_OK) return st;
    *bytes = v->workspace_size ? v->workspace_size(p, &info) : 0;
    return FP8ATTN_OK;
}

fp8attn_status_t fp8attn_forward_ws(const fp8attn_params_t *p, const char *variant,
                                    void *workspace, size_t workspace_size,
                                    fp8attn_stream_t stream)
{
    fp8attn_device_info_t info;
    const fp8attn_variant_t *v = NULL;
    size_t need;
    fp8attn_status_t st = resolve_variant(p, variant, &info, &v);
    if (st != FP8ATTN_OK) return st;
    if (!workspace) {
        if (workspace_size != 0)
            return fp8attn_fail(FP8ATTN_ERR_NULL_POINTER,
                                "workspace = NULL with workspace_size = %zu: pass both or neither",
                                workspace_size);
        return v->launch(p, &info, NULL, stream);
    }
    if ((uintptr_t)workspace % FP8ATTN_WORKSPACE_ALIGN != 0)
        return fp8attn_fail(FP8ATTN_ERR_INVALID_STRIDE,
                            "workspace = %p: must be %d-byte aligned (cudaMalloc's alignment)",
                            workspace, FP8ATTN_WORKSPACE_ALIGN);
    need = v->workspace_size ? v->workspace_size(p, &info) : 0;
    if (need == 0) return v->launch(p, &info, NULL, stream); /* this kernel needs no scratch */
    if (workspace_size < need)
        return fp8attn_fail(FP8ATTN_ERR_INVALID_ARGUMENT,
                            "workspace_size = %zu: variant %s needs %zu bytes for this problem "
                            "(fp8attn_forward_workspace_size)",
                            workspace_size, v->name, need);
    if ((st = fp8attn_check_workspace(p, workspace, need)) != FP8ATTN_OK) return st;
    return v->launch(p, &info, workspace, stream);
}

fp8attn_status_t fp8attn_forward_variant(const fp8attn_params_t *p, const char *variant,
                                         fp8attn_stream_t stream)
{
    return fp8attn_forward_ws(p, variant, NULL, 0, stream);
}

const char *fp8attn_forward_ws_kernel(const fp8attn_params_t *p, const char *variant,
                                      int with_workspace)
{
    fp8attn_device_info_t info;
    const fp8attn_variant_t *v = NULL;
    const fp8attn_kernel_entry_t *k;
    fp8attn_status_t st = resolve_variant(p, variant, &info, &v);
    if (st != FP8ATTN_OK) return NULL;
    k = with_workspace && v->kernel_for_ws ? v->kernel_for_ws(p, &info, &st)
                                           : v->kernel_for(p, &info, &st);
    return k ? k->symbol : NULL;
}

const char *fp8attn_forward_kernel(const fp8attn_params_t *p, const char *variant)
{
    return fp8attn_forward_ws_kernel(p, variant, 0);
}

fp8attn_status_t fp8attn_forward(const fp8attn_params_t *p, fp8attn_stream_t stream)
{
    return fp8attn_forward_variant(p, NULL, stream);
}

/* ---- compiled kernel table: the families' lists, concatenated ---- */
static const fp8attn_kernel_entry_t *(*const k_families[])(int) = {
    fp8attn_reference_gpu_kernel,
    fp8attn_mma_kernel,
#ifdef FP8ATTN_HAVE_WGMMA
    fp8attn_wgmma_kernel,
#endif
};
#define N_FAMILIES ((int)(sizeof k_families / sizeof k_families[0]))

static const fp8attn_kernel_entry_t *kernel_at(int index)
{
    int f, i;
    for (f = 0; f < N_FAMILIES && index >= 0; f++) {
        for (i = 0; k_families[f](i) != NULL; i++)
            if (index-- == 0) return k_families[f](i);
    }
    return NULL;
}

int fp8attn_kernel_count(void)
{
    int n = 0;
    while (kernel_at(n)) n++;
    return n;
}

fp8attn_status_t fp8attn_kernel_get(int index, fp8attn_kernel_info_t *info)
{
    const fp8attn_kernel_entry_t *k = kernel_at(index);
    struct cudaFuncAttributes a;
    int count = 0, blocks = 0;
    if (!info) return fp8attn_fail(FP8ATTN_ERR_NULL_POINTER, "info: must not be NULL");
    if (!k)
        return fp8attn_fail(FP8ATTN_ERR_INVALID_ARGUMENT, "index = %d: have %d kernels", index,
                            fp8attn_kernel_count());
    info->variant = k->variant;
    info->symbol = k->symbol;
    info->head_dim = k->head_dim;
    info->threads = k->threads;
    info->dynamic_smem = k->dynamic_smem;
    info->registers = -1;
    info->static_smem = -1;
    info->local_bytes = -1;
    info->max_blocks_per_sm = -1;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        cudaGetLastError();
        return FP8ATTN_OK; /* static fields only */
    }
    if (cudaFuncGetAttributes(&a, k->func) != cudaSuccess) {
        cudaGetLastError();
        return FP8ATTN_OK; /* no image for this device */
    }
    info->registers = a.numRegs;
    info->static_smem = (int64_t)a.sharedSizeBytes;
    info->local_bytes = (int64_t)a.localSizeBytes;
    if (k->dynamic_smem > 48 * 1024)
        cudaFuncSetAttribute(k->func, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             (int)k->dynamic_smem);
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k->func, k->threads,
                                                      (size_t)k->dynamic_smem) == cudaSuccess)
        info->max_blocks_per_sm = blocks;
    else
        cudaGetLastError();
    return FP8ATTN_OK;
}
