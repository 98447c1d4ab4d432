/* Reading and writing the pipeline's JSON files with messages that name the path. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common.h"
#include "files.h"
#include "json_file.h"

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

int json_file_write(const char *cmd, const char *flag, const char *path, json_t *root)
{
    char *dir = path_dirname(path);
    int rc = -1;
    if (!dir)
        fprintf(stderr, "fp8attn %s: %s %s: out of memory\n", cmd, flag, path);
    else if (make_dirs(dir) != 0)
        fprintf(stderr, "fp8attn %s: %s %s: cannot create directory '%s': %s\n", cmd, flag, path,
                dir, strerror(errno));
    else if (file_write_json(path, root) != 0)
        fprintf(stderr, "fp8attn %s: %s %s: cannot write the file: %s\n", cmd, flag, path,
                strerror(errno));
    else
        rc = 0;
    free(dir);
    return rc;
}

static arg_result_t parse_json_option(args_t *a, void *ctx)
{
    const char **json_path = ctx;
    arg_result_t r = arg_value(a, "--json", json_path);
    if (r == ARG_OK && !(*json_path)[0]) {
        fprintf(stderr, "fp8attn %s: --json '': needs a file name\n", a->cmd);
        return ARG_BAD;
    }
    return r;
}

int json_option_parse(int argc, char **argv, const char *cmd, void (*usage)(FILE *),
                      const char **json_path)
{
    arg_result_t r;
    *json_path = NULL;
    r = args_parse(argc, argv, cmd, parse_json_option, (void *)json_path);
    if (r == ARG_OK) return -1;
    usage(r == ARG_HELP ? stdout : stderr);
    return r == ARG_HELP ? 0 : 2;
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

long long json_int_field(const json_t *obj, const char *key)
{
    return (long long)json_integer_value(json_object_get(obj, key));
}
