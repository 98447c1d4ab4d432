/* Child processes and executables, shared by `resources` (cuobjdump) and `bench --profile`
 * (ncu): running a program with or without capturing its output, finding an executable in a
 * list of directories, and the path of this executable. */
#ifndef FP8ATTN_TOOL_PROC_H
#define FP8ATTN_TOOL_PROC_H

#include <stddef.h>

/* Size of the path buffers passed to these functions. */
#define PROC_PATH_LEN 4096

enum {
    PROC_SEARCH_PATH = 1,    /* look argv[0] up in PATH (posix_spawnp) */
    PROC_CAPTURE_STDOUT = 2, /* read the child's stdout into *output */
    PROC_CAPTURE_STDERR = 4  /* read the child's stderr into *output (with stdout if both) */
};

/* Runs argv and waits for it. Streams not captured are inherited. With a PROC_CAPTURE_* flag,
 * *output receives what was captured (malloc'd, NUL-terminated; the caller frees it); without,
 * `output` may be NULL. Our stdio buffers are flushed first so that our output and the child's
 * appear in order. Returns the exit status (128 + the signal number if a signal ended it), or
 * -1 with errno set if it could not be started. */
int proc_run(char *const argv[], int flags, char **output);

/* Looks for an executable `name` in each directory of the ':'-separated list `dirs` (empty
 * entries are skipped; dirs may be NULL). 1 with its path in out[PROC_PATH_LEN], else 0. */
int proc_find_executable(const char *name, const char *dirs, char *out);

/* The absolute path of this executable (/proc/self/exe) in out[len]. 0, or -1 with errno set. */
int proc_self_exe(char *out, size_t len);

#endif
