/* `fp8attn bench --profile`: one shape under Nsight Compute, headline metrics printed. */
#ifndef FP8ATTN_TOOL_NCU_PROFILE_H
#define FP8ATTN_TOOL_NCU_PROFILE_H

#include "common.h"

/* Profiles o->shapes[0] with o->seeds[0]: re-runs this executable as
 * `bench --iters 1 --warmup 1 --hot` for that shape under ncu, stores profile.ncu-rep in the
 * results directory and prints the headline metrics. Returns the exit code: 0, or 2 when ncu
 * cannot be found, cannot run or fails, or its report cannot be read. */
int ncu_profile_run(const run_opts_t *o);

#endif
