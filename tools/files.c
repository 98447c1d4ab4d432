/* Paths and files shared by the tool's commands (see files.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "files.h"

char *path_join(const char *dir, const char *name)
{
    size_t len = strlen(dir) + 1 + strlen(name) + 1;
    char *p = malloc(len);
    if (p) snprintf(p, len, "%s/%s", dir, name);
    return p;
}

char *path_dirname(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *d;
    if (!slash) return strdup(".");
    if (slash == path) return strdup("/");
    d = malloc((size_t)(slash - path) + 1);
    if (!d) return NULL;
    memcpy(d, path, (size_t)(slash - path));
    d[slash - path] = '\0';
    return d;
}

int make_dirs(const char *path)
{
    char *copy = strdup(path);
    char *p;
    struct stat st;
    int rc = 0;
    if (!copy) return -1;
    if (!copy[0]) {
        free(copy);
        errno = ENOENT;
        return -1;
    }
    for (p = copy + 1; rc == 0; p++) {
        int at_end = (*p == '\0');
        if (*p != '/' && !at_end) continue;
        *p = '\0';
        if (mkdir(copy, 0777) != 0 && errno != EEXIST) {
            rc = -1;
        } else if (stat(copy, &st) != 0) {
            rc = -1;
        } else if (!S_ISDIR(st.st_mode)) {
            errno = ENOTDIR;
            rc = -1;
        }
        if (at_end) break;
        *p = '/';
    }
    free(copy);
    return rc;
}

int file_write_json(const char *path, json_t *root)
{
    FILE *f = fopen(path, "w");
    int bad, saved;
    if (!f) return -1;
    errno = 0;
    bad = json_dumpf(root, f, JSON_INDENT(2)) != 0 || fputc('\n', f) == EOF;
    saved = errno;
    if (fclose(f) != 0) return -1;
    if (bad) {
        errno = saved ? saved : EIO;
        return -1;
    }
    return 0;
}
