/* Reading and writing the pipeline's JSON files with messages that name the path. */
#ifndef FP8ATTN_TOOL_JSON_FILE_H
#define FP8ATTN_TOOL_JSON_FILE_H

#include <stdio.h>

#include <jansson.h>

/* Loads the JSON object in `path`. On failure returns NULL after printing to stderr the path and
 * what is wrong (jansson's line/column text for malformed JSON) -- except when the file does
 * not exist and `missing` is not NULL: then *missing = 1 and nothing is printed. */
json_t *json_file_load(const char *path, int *missing);

/* Writes `root` as pretty JSON to `path` (the file named by option `flag` of command `cmd`),
 * creating its missing parent directories like --out does. Returns 0, or -1 after printing
 * "fp8attn CMD: FLAG PATH: " and what failed, with the system's reason. */
int json_file_write(const char *cmd, const char *flag, const char *path, json_t *root);

/* Arguments of a command whose only options are --json FILE (or --json=FILE) and --help.
 * Returns -1 to go on (*json_path is NULL when --json is absent), else the exit code after
 * printing: 0 after usage for --help, 2 after naming a bad argument and printing usage to
 * stderr. */
int json_option_parse(int argc, char **argv, const char *cmd, void (*usage)(FILE *),
                      const char **json_path);

/* Number `key` of `obj` as a double (integers included); 0, or -1 if absent or not a number. */
int json_get_number(const json_t *obj, const char *key, double *out);

/* Integer `key` of `obj`; JSON true/false count as 1/0. 0, or -1 if absent or of another type. */
int json_get_int(const json_t *obj, const char *key, long long *out);

/* Integer `key` of `obj` for display: 0 when absent or not an integer. */
long long json_int_field(const json_t *obj, const char *key);

#endif
