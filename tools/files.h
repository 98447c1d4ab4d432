/* Paths and files shared by the tool's commands: joining and splitting paths, mkdir -p, writing
 * a JSON document to a file. */
#ifndef FP8ATTN_TOOL_FILES_H
#define FP8ATTN_TOOL_FILES_H

#include <jansson.h>

/* malloc'd "dir/name" (NULL if out of memory). */
char *path_join(const char *dir, const char *name);
/* malloc'd directory part of `path`: "." when it has no '/', "/" for "/name" (NULL if out of
 * memory). */
char *path_dirname(const char *path);
/* mkdir -p: creates `path` and its missing parents. 0, or -1 with errno set (ENOTDIR when a part
 * exists and is not a directory). */
int make_dirs(const char *path);
/* Writes `root` as pretty JSON (2-space indent, final newline) to `path`, which must be in an
 * existing directory. 0, or -1 with errno set. */
int file_write_json(const char *path, json_t *root);

#endif
