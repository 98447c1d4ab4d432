# Quantization on the GPU (src/kernels/quant/): its arithmetic checked on the CPU against the host
# codec (CI), the kernels against fp8attn_quantize_cpu (GPU; SKIP without one), and the bandwidth
# benchmark fp8attn_quant_bench (built here, run by hand and by tests/python/device_run.sh).
add_executable(test_quant_math test_quant_math.cu)
target_include_directories(test_quant_math PRIVATE ${CMAKE_SOURCE_DIR}/src/kernels/quant
                           ${CMAKE_SOURCE_DIR}/tests)
target_link_libraries(test_quant_math PRIVATE fp8attn m)
add_test(NAME test_quant_math COMMAND test_quant_math)

fp8attn_c_test(test_quant_gpu test_quant_gpu.c)
set_tests_properties(test_quant_gpu PROPERTIES TIMEOUT 900)

add_executable(fp8attn_quant_bench quant_bench.c)
set_target_properties(fp8attn_quant_bench PROPERTIES LINKER_LANGUAGE CUDA)
target_compile_options(fp8attn_quant_bench PRIVATE ${FP8ATTN_C_WARN})
target_link_libraries(fp8attn_quant_bench PRIVATE fp8attn m)
