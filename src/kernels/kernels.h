/* The GPU side of the library: kernel variants and the registry that picks among them.
 * C-callable; implemented in the .cu files of src/kernels/. */
#ifndef FP8ATTN_KERNELS_H
#define FP8ATTN_KERNELS_H

#include "fp8attn.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a variant needs to know about the device to decide whether it can run. */
typedef struct fp8attn_device_info {
    int cc_major, cc_minor; /* compute capability */
    size_t smem_optin;      /* max dynamic shared memory per block after opt-in */
    int sm_count;           /* streaming multiprocessors, >= 1 */
    int ordinal;            /* CUDA device number */
} fp8attn_device_info_t;

struct fp8attn_kernel_entry;

typedef struct fp8attn_variant {
    const char *name;
    const char *description;
    int priority; /* the default picks the supporting variant with the highest priority */
    /* Optional: the priority for this problem on this device (NULL: `priority`), for variants
     * that are the fastest on some problems only. */
    int (*rank)(const fp8attn_params_t *p, const fp8attn_device_info_t *dev);
    /* FP8ATTN_OK or a status with fp8attn_fail()'s message saying why not. */
    fp8attn_status_t (*supports)(const fp8attn_params_t *p, const fp8attn_device_info_t *dev);
    /* Launch on stream; p already validated and supported on dev. Checks the launch.
     * workspace: NULL, or device scratch of at least workspace_size(p, dev) bytes (checked by
     * the caller) that the variant may use as it likes during the call; the caller passes it
     * only when workspace_size(p, dev) > 0. */
    fp8attn_status_t (*launch)(const fp8attn_params_t *p, const fp8attn_device_info_t *dev,
                               void *workspace, fp8attn_stream_t stream);
    /* The kernel launch() would run (p validated and supported on dev, the current device);
     * NULL with *st set when that cannot be decided (a CUDA error). */
    const struct fp8attn_kernel_entry *(*kernel_for)(const fp8attn_params_t *p,
                                                     const fp8attn_device_info_t *dev,
                                                     fp8attn_status_t *st);
    /* Optional (NULL: none): bytes of device scratch launch() uses for p if given them. */
    size_t (*workspace_size)(const fp8attn_params_t *p, const fp8attn_device_info_t *dev);
    /* Optional (NULL: kernel_for): the kernel launch() runs for p when given that workspace. */
    const struct fp8attn_kernel_entry *(*kernel_for_ws)(const fp8attn_params_t *p,
                                                        const fp8attn_device_info_t *dev,
                                                        fp8attn_status_t *st);
} fp8attn_variant_t;

extern const fp8attn_variant_t fp8attn_variant_reference_gpu;
extern const fp8attn_variant_t fp8attn_variant_mma;
extern const fp8attn_variant_t fp8attn_variant_mma_m64;
extern const fp8attn_variant_t fp8attn_variant_mma_m128;
extern const fp8attn_variant_t fp8attn_variant_wgmma; /* only in builds with sm_90a */

/* One compiled __global__ kernel and the launch configuration its family uses for it. */
typedef struct fp8attn_kernel_entry {
    const char *variant;
    const char *symbol;   /* plain extern "C" name, as cuobjdump shows it */
    int32_t head_dim;     /* 0 = any */
    int32_t threads;
    int64_t dynamic_smem; /* bytes */
    const void *func;     /* for cudaFuncGetAttributes / occupancy */
} fp8attn_kernel_entry_t;

/* Each family lists its kernels (NULL past the end); dispatch.c concatenates the lists. */
const fp8attn_kernel_entry_t *fp8attn_reference_gpu_kernel(int index);
const fp8attn_kernel_entry_t *fp8attn_mma_kernel(int index);
const fp8attn_kernel_entry_t *fp8attn_wgmma_kernel(int index);

/* Per-device tables of process-wide caches (dispatch.c's device properties, mma's occupancy)
 * hold this many devices; devices numbered past it are asked every time. */
#define FP8ATTN_CACHED_DEVICES 64

/* The properties of `device` (which must exist), queried once per device and cached (dispatch.c);
 * fp8attn_current_device: the same for cudaGetDevice()'s device. FP8ATTN_ERR_CUDA or, for the
 * current device when there is none, FP8ATTN_ERR_NOT_SUPPORTED, with fp8attn_fail()'s message
 * starting with `prefix` ("" or the caller's name and ": "). */
fp8attn_status_t fp8attn_device_query(int device, const char *prefix, fp8attn_device_info_t *info);
fp8attn_status_t fp8attn_current_device(const char *prefix, fp8attn_device_info_t *info);

/* Shared by the families' supports(): FP8ATTN_OK if this build has machine code for the device
 * (see dispatch.c); `who` names the caller in the message. */
fp8attn_status_t fp8attn_check_arch(const fp8attn_device_info_t *dev, const char *who);

#ifdef __cplusplus
}
#endif
#endif
