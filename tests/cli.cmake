# Tests of the fp8attn tool's check and bench commands and their shared code (no GPU needed).
set(FP8ATTN_TOOLS_DIR ${CMAKE_SOURCE_DIR}/tools)

# Shared code of check/bench: RNG, threaded CPU backend, fp64 reference, error statistics.
fp8attn_c_test(test_cli_refs test_cli_refs.c ${FP8ATTN_TOOLS_DIR}/common.c
               ${FP8ATTN_TOOLS_DIR}/problem.c ${FP8ATTN_TOOLS_DIR}/refs.c
               ${FP8ATTN_TOOLS_DIR}/errstats.c ${FP8ATTN_TOOLS_DIR}/gpu.c)
target_include_directories(test_cli_refs PRIVATE ${FP8ATTN_TOOLS_DIR})

# bench --profile's reading of ncu's CSV.
fp8attn_c_test(test_cli_ncu_csv test_cli_ncu_csv.c ${FP8ATTN_TOOLS_DIR}/ncu_csv.c)
target_include_directories(test_cli_ncu_csv PRIVATE ${FP8ATTN_TOOLS_DIR})

# The command line, driven from Python (exit codes, messages, JSON files).
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  foreach(case check_pass check_gate_fail check_bad_args check_heads check_json check_json_paths
               check_inputs check_gqa_causal bench_cpu_out pipeline_cpu no_gpu)
    add_test(NAME cli_${case}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_cli.py
                     $<TARGET_FILE:fp8attn_cli> ${case})
    set_tests_properties(cli_${case} PROPERTIES SKIP_RETURN_CODE ${FP8ATTN_TEST_SKIP} TIMEOUT 300)
  endforeach()
else()
  message(WARNING "python3 not found: the cli_* command-line tests are not registered")
endif()
