/* tools/files.c and tools/proc.c: the path, directory and child-process helpers shared by the
 * tool's commands (compare/gate, check --json, resources' cuobjdump, bench --profile's ncu). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "files.h"
#include "proc.h"
#include "test_util.h"

static void expect_str(const char *what, const char *got, const char *want)
{
    if (!got || strcmp(got, want)) {
        printf("FAIL %s: got '%s', want '%s'\n", what, got ? got : "(null)", want);
        g_failures++;
    }
}

static void test_paths(void)
{
    static const char *const cases[][2] = {
        {"a/b/perf.json", "a/b"}, {"perf.json", "."}, {"/perf.json", "/"}, {"/x/y", "/x"},
    };
    size_t i;
    char *p = path_join("dir/sub", "perf.json");
    expect_str("path_join", p, "dir/sub/perf.json");
    free(p);
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *d = path_dirname(cases[i][0]);
        expect_str(cases[i][0], d, cases[i][1]);
        free(d);
    }
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* mkdir -p of a nested path, again (already there), and through a regular file (ENOTDIR);
 * file_write_json writes a document that reads back, and fails with errno in a missing dir. */
static void test_dirs_and_json(const char *tmp)
{
    char path[PATH_MAX], file[PATH_MAX];
    json_t *doc = json_pack("{s:i}", "x", 7), *back;
    FILE *f;
    snprintf(path, sizeof path, "%s/a/b/c", tmp);
    expect_true("make_dirs nested", make_dirs(path) == 0 && is_dir(path));
    expect_true("make_dirs existing", make_dirs(path) == 0);
    snprintf(file, sizeof file, "%s/plain", tmp);
    f = fopen(file, "w");
    if (f) fclose(f);
    snprintf(path, sizeof path, "%s/plain/sub", tmp);
    errno = 0;
    expect_true("make_dirs through a file fails with ENOTDIR", make_dirs(path) != 0 && errno == ENOTDIR);
    snprintf(file, sizeof file, "%s/a/b/c/doc.json", tmp);
    expect_true("file_write_json", file_write_json(file, doc) == 0);
    back = json_load_file(file, 0, NULL);
    expect_true("file_write_json reads back",
           back && json_integer_value(json_object_get(back, "x")) == 7);
    json_decref(back);
    snprintf(file, sizeof file, "%s/missing/doc.json", tmp);
    errno = 0;
    expect_true("file_write_json into a missing directory: ENOENT",
           file_write_json(file, doc) != 0 && errno == ENOENT);
    json_decref(doc);
}

/* Exit status, signals, captured stdout / stderr, PATH search, and a program that is missing. */
static void test_run(void)
{
    char *out = NULL;
    char *echo_both[] = {"/bin/sh", "-c", "echo out; echo err >&2; exit 3", NULL};
    char *killed[] = {"/bin/sh", "-c", "kill -9 $$", NULL};
    char *searched[] = {"sh", "-c", "printf found", NULL};
    char *missing[] = {"/nonexistent/fp8attn-no-such-program", NULL};
    expect_true("exit status 3, both streams",
           proc_run(echo_both, PROC_CAPTURE_STDOUT | PROC_CAPTURE_STDERR, &out) == 3 && out &&
               strstr(out, "out\n") && strstr(out, "err\n"));
    free(out);
    expect_true("stdout only", proc_run(echo_both, PROC_CAPTURE_STDOUT, &out) == 3 && out &&
                              !strcmp(out, "out\n"));
    free(out);
    expect_true("killed by signal 9: 128 + 9", proc_run(killed, 0, NULL) == 137);
    expect_true("PATH search", proc_run(searched, PROC_SEARCH_PATH | PROC_CAPTURE_STDOUT, &out) == 0 &&
                              out && !strcmp(out, "found"));
    free(out);
    errno = 0;
    expect_true("a missing program: -1, ENOENT", proc_run(missing, 0, NULL) == -1 && errno == ENOENT);
}

static void test_find(const char *tmp)
{
    char found[PROC_PATH_LEN], dirs[3 * PATH_MAX], exe[PROC_PATH_LEN];
    char tool_dir[PATH_MAX], tool[PATH_MAX + 16];
    FILE *f;
    snprintf(tool_dir, sizeof tool_dir, "%s/bin", tmp);
    make_dirs(tool_dir);
    snprintf(tool, sizeof tool, "%s/fake-tool", tool_dir);
    f = fopen(tool, "w");
    if (f) {
        fputs("#!/bin/sh\n", f);
        fclose(f);
    }
    /* an empty entry and a directory without it come first */
    snprintf(dirs, sizeof dirs, "::%s/a:%s", tmp, tool_dir);
    expect_true("not executable yet: not found", !proc_find_executable("fake-tool", dirs, found));
    chmod(tool, 0755);
    expect_true("found in the third directory", proc_find_executable("fake-tool", dirs, found));
    expect_str("its path", found, tool);
    expect_true("NULL list", !proc_find_executable("fake-tool", NULL, found));
    expect_true("proc_self_exe", proc_self_exe(exe, sizeof exe) == 0 && exe[0] == '/' &&
                                strstr(exe, "test_pipeline_proc"));
    errno = 0;
    expect_true("proc_self_exe into a tiny buffer: ENAMETOOLONG",
           proc_self_exe(exe, 4) != 0 && errno == ENAMETOOLONG);
}

int main(void)
{
    char tmp[] = "/tmp/fp8attn-proc-XXXXXX";
    char cmd[PATH_MAX + 16];
    if (!mkdtemp(tmp)) {
        printf("FAIL mkdtemp: %s\n", strerror(errno));
        return 1;
    }
    test_paths();
    test_dirs_and_json(tmp);
    test_run();
    test_find(tmp);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    if (system(cmd) != 0) printf("note: could not remove %s\n", tmp);
    if (g_failures) {
        printf("%ld failure(s)\n", g_failures);
        return 1;
    }
    printf("ok\n");
    return 0;
}
