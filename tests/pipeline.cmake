# Pipeline tests (no GPU needed): stats, the cuobjdump parser, and the info / compare / gate /
# resources commands of the fp8attn tool on crafted files under data/pipeline.
set(FP8ATTN_PIPELINE_DATA ${CMAKE_CURRENT_SOURCE_DIR}/data/pipeline)

fp8attn_c_test(test_pipeline_stats test_pipeline_stats.c ${CMAKE_SOURCE_DIR}/tools/stats.c)
target_include_directories(test_pipeline_stats PRIVATE ${CMAKE_SOURCE_DIR}/tools)

fp8attn_c_test(test_pipeline_results test_pipeline_results.c ${CMAKE_SOURCE_DIR}/tools/results.c
               ${CMAKE_SOURCE_DIR}/tools/files.c)
target_include_directories(test_pipeline_results PRIVATE ${CMAKE_SOURCE_DIR}/tools
                           ${CMAKE_BINARY_DIR}/generated)

# The shared helpers of tools/files.c and tools/proc.c: paths, mkdir -p, child processes.
fp8attn_c_test(test_pipeline_proc test_pipeline_proc.c ${CMAKE_SOURCE_DIR}/tools/files.c
               ${CMAKE_SOURCE_DIR}/tools/proc.c)
target_include_directories(test_pipeline_proc PRIVATE ${CMAKE_SOURCE_DIR}/tools)

fp8attn_c_test(test_pipeline_cuobjdump test_pipeline_cuobjdump.c
               ${CMAKE_SOURCE_DIR}/tools/cuobjdump_parse.c)
target_include_directories(test_pipeline_cuobjdump PRIVATE ${CMAKE_SOURCE_DIR}/tools)
target_compile_definitions(test_pipeline_cuobjdump PRIVATE
                           PIPELINE_DATA_DIR="${FP8ATTN_PIPELINE_DATA}")

# Runs the real tool, so it needs cuobjdump (CI: pip install nvidia-cuda-cuobjdump).
fp8attn_c_test(test_pipeline_resources_real test_pipeline_resources_real.c)
target_include_directories(test_pipeline_resources_real PRIVATE ${CMAKE_BINARY_DIR}/generated)
target_compile_definitions(test_pipeline_resources_real PRIVATE
                           FP8ATTN_CLI="$<TARGET_FILE:fp8attn_cli>"
                           RESOURCES_OUT="${CMAKE_CURRENT_BINARY_DIR}/pipeline_resources_real.json")
add_dependencies(test_pipeline_resources_real fp8attn_cli)

# One ctest entry per case of test_pipeline_cli.sh.
foreach(case info compare compare_variant compare_options gate_pass gate_kernels gate_correctness gate_slow
        gate_regress gate_regs gate_smem gate_spills gate_setup gate_provenance gate_variants
        gate_missing_files bad_inputs bad_flags resources_no_cuobjdump)
  add_test(NAME test_pipeline_cli_${case}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_pipeline_cli.sh
                   $<TARGET_FILE:fp8attn_cli> ${FP8ATTN_PIPELINE_DATA} ${case})
endforeach()
