/* Reading and writing the pipeline's JSON files with messages that name the path. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "json_file.h"
#include "results.h"

json_t *json_file_load(const char *path, int *missing)
{
    struct stat st;
    json_error_t err;
    json_t *root;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT && missing) {
            *missing = 1;
            return NULL;
        }
        fprintf(stderr, "fp8attn: %s: %s\n", path, strerror(errno));
        return NULL;
    }
    if (S_ISDIR(st.st_mode)) {
        fprintf(stderr, "fp8attn: %s: is a directory, expected a JSON file\n", path);
        return NULL;
    }
    if (st.st_size == 0) {
        fprintf(stderr, "fp8attn: %s: file is empty, expected a JSON object\n", path);
        return NULL;
    }
    root = json_load_file(path, 0, &err);
    if (!root) {
        fprintf(stderr, "fp8attn: %s: malformed JSON at line %d, column %d: %s\n", path,
                err.line, err.column, err.text);
        return NULL;
    }
    if (!json_is_object(root)) {
        fprintf(stderr, "fp8attn: %s: top level is not a JSON object\n", path);
        json_decref(root);
        return NULL;
    }
    return root;
}

int json_file_write(const char *path, json_t *root)
{
    const char *slash = strrchr(path, '/');
    char *dir;
    int rc;
    if (!slash) return results_write_json(".", path, root);
    if (slash == path) return results_write_json("/", slash + 1, root);
    dir = malloc((size_t)(slash - path) + 1);
    if (!dir) {
        fprintf(stderr, "fp8attn: out of memory writing %s\n", path);
        return -1;
    }
    memcpy(dir, path, (size_t)(slash - path));
    dir[slash - path] = '\0';
    rc = results_write_json(dir, slash + 1, root);
    free(dir);
    return rc;
}

int json_option_parse(int argc, char **argv, const char *cmd, void (*usage)(FILE *),
                      const char **json_path)
{
    int i;
    *json_path = NULL;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(argv[i], "--json") && i + 1 < argc && argv[i + 1][0]) {
            *json_path = argv[++i];
            continue;
        }
        if (!strcmp(argv[i], "--json"))
            fprintf(stderr, "fp8attn %s: --json needs a file name\n", cmd);
        else
            fprintf(stderr, "fp8attn %s: unknown argument '%s'\n", cmd, argv[i]);
        usage(stderr);
        return 2;
    }
    return -1;
}

int json_get_number(const json_t *obj, const char *key, double *out)
{
    const json_t *v = json_object_get(obj, key);
    if (!json_is_number(v)) return -1;
    *out = json_number_value(v);
    return 0;
}

int json_get_int(const json_t *obj, const char *key, long long *out)
{
    const json_t *v = json_object_get(obj, key);
    if (json_is_boolean(v)) {
        *out = json_is_true(v);
        return 0;
    }
    if (!json_is_integer(v)) return -1;
    *out = json_integer_value(v);
    return 0;
}
