# Compiled-kernel checks that need no GPU: native FP8 MMA in the sm_89 SASS, zero spills.
add_test(NAME kernels_sass_and_spills
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_kernels_sass.sh $<TARGET_FILE:fp8attn_cli>)

# The wgmma softmax's polynomial 2^x (src/kernels/wgmma/exp2_poly.cuh), checked on the CPU.
add_executable(test_exp2_poly test_exp2_poly.cu)
target_include_directories(test_exp2_poly PRIVATE ${CMAKE_SOURCE_DIR}/src/kernels/wgmma
                           ${CMAKE_SOURCE_DIR}/tests)
target_link_libraries(test_exp2_poly PRIVATE m)
add_test(NAME test_exp2_poly COMMAND test_exp2_poly)
