# bench + gate on a real GPU (tests/test_gpu_bench.sh): perf.json fields, --vs pairs, and gate's
# correctness/provenance path on real output. SKIP (77) only without an NVIDIA device node.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  set(FP8ATTN_GPU_BENCH_PYTHON ${Python3_EXECUTABLE})
else()
  set(FP8ATTN_GPU_BENCH_PYTHON python3) # the script fails (on a GPU machine) if it is missing
endif()
add_test(NAME gpu_bench
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_gpu_bench.sh $<TARGET_FILE:fp8attn_cli>
                 ${FP8ATTN_GPU_BENCH_PYTHON})
set_tests_properties(gpu_bench PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
