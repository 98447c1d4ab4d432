# Library core without a GPU: codec, quantization, validation, CPU reference, README example.
fp8attn_c_test(test_codec test_codec.c)
fp8attn_c_test(test_quant test_quant.c)
fp8attn_c_test(test_validate test_validate.c)
fp8attn_c_test(test_reference test_reference.c)
fp8attn_c_test(example_readme example_readme.c)
add_test(NAME readme_example_in_sync COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_readme_example.sh ${CMAKE_SOURCE_DIR})
