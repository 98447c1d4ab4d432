# Compiled-kernel checks that need no GPU: native FP8 MMA in the sm_89 SASS, zero spills.
add_test(NAME kernels_sass_and_spills
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_kernels_sass.sh $<TARGET_FILE:fp8attn_cli>)
# The kernels' division by a launch-constant divisor (src/kernels/fastdiv.h): no GPU needed.
fp8attn_c_test(test_fastdiv test_fastdiv.c)
# The wgmma scheduler's host planner (where the family is built): no GPU needed.
if(TARGET fp8attn_wgmma)
  fp8attn_c_test(test_wgmma_sched test_wgmma_sched.c)
  # Its dispatcher's instance choice for a described H100 (test_gpu_dispatch: on the GPU).
  fp8attn_c_test(test_wgmma_dispatch test_wgmma_dispatch.c)
  # Its producer's V transpose, modelled on the CPU with the kernels' own address helpers.
  add_executable(test_wgmma_transpose test_wgmma_transpose.cu)
  target_include_directories(test_wgmma_transpose PRIVATE ${CMAKE_SOURCE_DIR}/include
                             ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/tests)
  add_test(NAME test_wgmma_transpose COMMAND test_wgmma_transpose)
endif()
