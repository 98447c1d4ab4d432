# Library core without a GPU: codec, quantization, validation, CPU reference, README example.
fp8attn_c_test(test_codec test_codec.c)
fp8attn_c_test(test_quant test_quant.c)
fp8attn_c_test(test_validate test_validate.c)
fp8attn_c_test(test_reference test_reference.c)
fp8attn_c_test(example_readme example_readme.c)
