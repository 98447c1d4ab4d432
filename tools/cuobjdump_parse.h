/* Parser for the text of `cuobjdump --dump-resource-usage` (used by `fp8attn resources`). */
#ifndef FP8ATTN_TOOL_CUOBJDUMP_PARSE_H
#define FP8ATTN_TOOL_CUOBJDUMP_PARSE_H

#include <stddef.h>

/* One kernel of one architecture, as cuobjdump reports it (bytes are per thread for stack and
 * local memory, per block for shared memory). */
typedef struct {
    char arch[16]; /* "sm_90a" */
    char *symbol;  /* malloc'd */
    long long registers, stack, shared, local;
} cuobj_function_t;

/* Parses `text`: "arch = sm_XX" opens a section; "Function NAME:" followed by a line
 * "REG:n STACK:n SHARED:n LOCAL:n ..." is one kernel. Other lines are ignored. Returns the number
 * of kernels (*out malloc'd, free with cuobj_functions_free), or -1 with the line number and
 * what is wrong in err. */
int cuobj_parse_resource_usage(const char *text, cuobj_function_t **out, char *err,
                               size_t errlen);
void cuobj_functions_free(cuobj_function_t *f, int n);

#endif
