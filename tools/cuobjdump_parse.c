/* Parser for the text of `cuobjdump --dump-resource-usage` (used by `fp8attn resources`). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuobjdump_parse.h"

typedef struct {
    cuobj_function_t *items;
    int n, cap;
    char arch[16];
    char *pending; /* "Function NAME:" seen, its resource line not yet */
    int pending_line;
} parser_t;

/* Value of "KEY:" in a resource line (whitespace-separated KEY:value tokens); -1 if absent. */
static int resource_value(const char *line, const char *key, long long *out)
{
    size_t klen = strlen(key);
    const char *p = line;
    while (*p) {
        while (isspace((unsigned char)*p)) p++;
        if (!strncmp(p, key, klen) && p[klen] == ':') {
            char *end;
            *out = strtoll(p + klen + 1, &end, 10);
            return (end == p + klen + 1 || *out < 0) ? -1 : 0;
        }
        while (*p && !isspace((unsigned char)*p)) p++;
    }
    return -1;
}

static int add_function(parser_t *ps, const char *line, int lineno, char *err, size_t errlen)
{
    static const char *const keys[] = {"REG", "STACK", "SHARED", "LOCAL"};
    cuobj_function_t f;
    long long *vals[4];
    int k;
    vals[0] = &f.registers;
    vals[1] = &f.stack;
    vals[2] = &f.shared;
    vals[3] = &f.local;
    for (k = 0; k < 4; k++)
        if (resource_value(line, keys[k], vals[k]) != 0) {
            snprintf(err, errlen, "line %d: no '%s:<number>' in the line after 'Function %s:' "
                     "(line %d)", lineno, keys[k], ps->pending, ps->pending_line);
            return -1;
        }
    if (ps->n == ps->cap) {
        int cap = ps->cap ? 2 * ps->cap : 16;
        cuobj_function_t *grown = realloc(ps->items, (size_t)cap * sizeof *grown);
        if (!grown) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        ps->items = grown;
        ps->cap = cap;
    }
    memcpy(f.arch, ps->arch, sizeof f.arch);
    f.symbol = ps->pending;
    ps->pending = NULL;
    ps->items[ps->n++] = f;
    return 0;
}

/* "Function NAME:" -> malloc'd NAME, or NULL if the line is not one. */
static char *function_name(const char *line)
{
    size_t len;
    char *name;
    if (strncmp(line, "Function ", 9) != 0) return NULL;
    line += 9;
    len = strlen(line);
    while (len > 0 && isspace((unsigned char)line[len - 1])) len--;
    if (len < 2 || line[len - 1] != ':') return NULL;
    name = malloc(len);
    if (!name) return NULL;
    memcpy(name, line, len - 1);
    name[len - 1] = '\0';
    return name;
}

/* One line, leading blanks removed; -1 with err set when it breaks the expected structure. */
static int parse_line(parser_t *ps, const char *line, int lineno, char *err, size_t errlen)
{
    char *name;
    if (ps->pending) return line[0] ? add_function(ps, line, lineno, err, errlen) : 0;
    if (!strncmp(line, "arch = ", 7)) {
        if (sscanf(line + 7, "%15s", ps->arch) != 1) {
            snprintf(err, errlen, "line %d: 'arch =' without an architecture", lineno);
            return -1;
        }
        return 0;
    }
    if ((name = function_name(line)) == NULL) return 0;
    if (!ps->arch[0]) {
        snprintf(err, errlen, "line %d: 'Function %s:' before any 'arch = sm_XX' line", lineno,
                 name);
        free(name);
        return -1;
    }
    ps->pending = name;
    ps->pending_line = lineno;
    return 0;
}

int cuobj_parse_resource_usage(const char *text, cuobj_function_t **out, char *err,
                               size_t errlen)
{
    parser_t ps;
    const char *p = text;
    char line[4096];
    int lineno = 0, rc = 0;
    memset(&ps, 0, sizeof ps);
    while (*p && rc == 0) {
        size_t len = strcspn(p, "\n");
        const char *start = p;
        lineno++;
        p += len + (p[len] == '\n');
        while (len > 0 && isspace((unsigned char)*start)) {
            start++;
            len--;
        }
        if (len >= sizeof line) {
            snprintf(err, errlen, "line %d: longer than %zu characters", lineno,
                     sizeof line - 1);
            rc = -1;
            break;
        }
        memcpy(line, start, len);
        line[len] = '\0';
        rc = parse_line(&ps, line, lineno, err, errlen);
    }
    if (rc == 0 && ps.pending) {
        snprintf(err, errlen, "line %d: 'Function %s:' has no resource line", ps.pending_line,
                 ps.pending);
        rc = -1;
    }
    free(ps.pending);
    if (rc != 0) {
        cuobj_functions_free(ps.items, ps.n);
        return -1;
    }
    *out = ps.items;
    return ps.n;
}

void cuobj_functions_free(cuobj_function_t *f, int n)
{
    int i;
    for (i = 0; f && i < n; i++) free(f[i].symbol);
    free(f);
}
