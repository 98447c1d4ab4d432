/* perf.json files and the shape-by-shape matching of two of them (compare, gate). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "json_file.h"
#include "perf_file.h"
#include "stats.h"

int shape_key_read(const json_t *rec, shape_key_t *key, const char **bad_field)
{
    static const char *const names[] = {"B",        "h_q",      "h_kv",  "seqlen_q",
                                        "seqlen_k", "head_dim", "causal"};
    long long *fields[7];
    int i;
    fields[0] = &key->b;
    fields[1] = &key->h_q;
    fields[2] = &key->h_kv;
    fields[3] = &key->seqlen_q;
    fields[4] = &key->seqlen_k;
    fields[5] = &key->head_dim;
    fields[6] = &key->causal;
    for (i = 0; i < 7; i++) {
        if (json_get_int(rec, names[i], fields[i]) != 0) {
            *bad_field = names[i];
            return -1;
        }
    }
    return 0;
}

int shape_key_equal(const shape_key_t *a, const shape_key_t *b)
{
    return a->b == b->b && a->h_q == b->h_q && a->h_kv == b->h_kv &&
           a->seqlen_q == b->seqlen_q && a->seqlen_k == b->seqlen_k &&
           a->head_dim == b->head_dim && (a->causal != 0) == (b->causal != 0);
}

void shape_key_format(const shape_key_t *k, char *buf, size_t len)
{
    snprintf(buf, len, "B=%lld hq=%lld hkv=%lld sq=%lld sk=%lld d=%lld causal=%d", k->b, k->h_q,
             k->h_kv, k->seqlen_q, k->seqlen_k, k->head_dim, k->causal != 0);
}

char *path_join(const char *dir, const char *name)
{
    size_t len = strlen(dir) + 1 + strlen(name) + 1;
    char *p = malloc(len);
    if (p) snprintf(p, len, "%s/%s", dir, name);
    return p;
}

/* malloc'd directory part of `path` ("." when it has none). */
static char *dir_of(const char *path)
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

/* Resolves `arg` to the perf.json to read and its directory. */
static int locate(const char *arg, perf_file_t *out)
{
    struct stat st;
    if (stat(arg, &st) != 0) {
        fprintf(stderr, "fp8attn: %s: %s (expected a results directory or a perf.json)\n", arg,
                strerror(errno));
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        out->dir = strdup(arg);
        out->path = path_join(arg, "perf.json");
        if (out->path && stat(out->path, &st) != 0) {
            fprintf(stderr, "fp8attn: %s: no perf.json in this directory (%s); run "
                    "`fp8attn bench --out %s` first\n", arg, out->path, arg);
            return -1;
        }
    } else {
        out->path = strdup(arg);
        out->dir = dir_of(arg);
    }
    if (!out->path || !out->dir) {
        fprintf(stderr, "fp8attn: out of memory\n");
        return -1;
    }
    return 0;
}

/* Fills *r from results[i]; prints what is wrong and returns -1 if unusable. */
static int read_record(const char *path, size_t i, const json_t *rec, perf_record_t *r)
{
    const char *bad = NULL;
    const json_t *variant = json_object_get(rec, "variant");
    if (!json_is_object(rec)) {
        fprintf(stderr, "fp8attn: %s: results[%zu] is not an object\n", path, i);
        return -1;
    }
    if (shape_key_read(rec, &r->key, &bad) != 0) {
        fprintf(stderr, "fp8attn: %s: results[%zu].%s is missing or not an integer\n", path, i,
                bad);
        return -1;
    }
    if (variant && !json_is_null(variant) && !json_is_string(variant)) {
        fprintf(stderr, "fp8attn: %s: results[%zu].variant must be a string or null\n", path, i);
        return -1;
    }
    r->variant = json_is_string(variant) ? json_string_value(variant) : NULL;
    if (json_get_number(rec, "p50_us", &r->p50_us) != 0 || !(r->p50_us > 0) ||
        !isfinite(r->p50_us)) {
        fprintf(stderr, "fp8attn: %s: results[%zu].p50_us must be a number > 0\n", path, i);
        return -1;
    }
    if (json_get_number(rec, "p90_us", &r->p90_us) != 0 || !isfinite(r->p90_us)) {
        fprintf(stderr, "fp8attn: %s: results[%zu].p90_us must be a finite number\n", path, i);
        return -1;
    }
    return 0;
}

static int read_records(perf_file_t *f)
{
    const json_t *results = json_object_get(f->root, "results");
    size_t i, n;
    if (!json_is_array(results)) {
        fprintf(stderr, "fp8attn: %s: no \"results\" array\n", f->path);
        return -1;
    }
    n = json_array_size(results);
    if (n == 0) {
        fprintf(stderr, "fp8attn: %s: \"results\" is empty: nothing to compare\n", f->path);
        return -1;
    }
    f->records = calloc(n, sizeof *f->records);
    if (!f->records) {
        fprintf(stderr, "fp8attn: out of memory reading %s\n", f->path);
        return -1;
    }
    for (i = 0; i < n; i++)
        if (read_record(f->path, i, json_array_get(results, i), &f->records[i]) != 0) return -1;
    f->n = (int)n;
    return 0;
}

int perf_file_load(const char *arg, perf_file_t *out)
{
    memset(out, 0, sizeof *out);
    if (locate(arg, out) != 0 || !(out->root = json_file_load(out->path, NULL)) ||
        read_records(out) != 0) {
        perf_file_free(out);
        return -1;
    }
    return 0;
}

void perf_file_free(perf_file_t *f)
{
    free(f->path);
    free(f->dir);
    free(f->records);
    json_decref(f->root);
    memset(f, 0, sizeof *f);
}

int pair_args_take(int argc, char **argv, int *i, pair_args_t *a, const char *cmd)
{
    const char *arg = argv[*i];
    const char **slot = !strcmp(arg, "--variant-base")   ? &a->variant_base
                        : !strcmp(arg, "--variant-cand") ? &a->variant_cand
                                                         : NULL;
    if (slot) {
        if (*i + 1 >= argc || !argv[*i + 1][0]) {
            fprintf(stderr, "fp8attn %s: %s needs a variant name\n", cmd, arg);
            return -1;
        }
        *slot = argv[*i + 1];
        *i += 2;
        return 1;
    }
    if (arg[0] == '-' && arg[1] != '\0') return 0;
    if (a->base && a->cand) {
        fprintf(stderr, "fp8attn %s: unexpected argument '%s' (BASE and CAND already given)\n",
                cmd, arg);
        return -1;
    }
    if (!a->base) a->base = arg;
    else a->cand = arg;
    *i += 1;
    return 1;
}

static int variant_matches(const perf_record_t *r, const char *variant)
{
    return !variant || (r->variant && !strcmp(r->variant, variant));
}

/* The p50s (or, with `p90`, the p90s) of f's records of `key` matching `variant` into v;
 * returns how many. */
static int collect(const perf_file_t *f, const char *variant, const shape_key_t *key, int p90,
                   double *v)
{
    int i, n = 0;
    for (i = 0; i < f->n; i++)
        if (variant_matches(&f->records[i], variant) && shape_key_equal(&f->records[i].key, key))
            v[n++] = p90 ? f->records[i].p90_us : f->records[i].p50_us;
    return n;
}

/* Medians of the p50s and p90s of f's records of `key` matching `variant`; returns how many
 * records there were (0: none, *p50 and *p90 untouched). */
static int aggregate(const perf_file_t *f, const char *variant, const shape_key_t *key,
                     double *scratch, double *p50, double *p90)
{
    stats_t st;
    int n = collect(f, variant, key, 0, scratch);
    if (n == 0 || stats_compute(scratch, n, &st) != 0) return 0;
    *p50 = st.p50; /* the numpy-style p50 is the median */
    collect(f, variant, key, 1, scratch);
    if (stats_compute(scratch, n, &st) != 0) return 0;
    *p90 = st.p50;
    return n;
}

static int find_row(const comparison_t *c, const shape_key_t *key)
{
    int i;
    for (i = 0; i < c->n; i++)
        if (shape_key_equal(&c->rows[i].key, key)) return i;
    return -1;
}

/* Adds a row for every shape of `f` not seen yet. */
static void add_shapes(comparison_t *c, const perf_file_t *f, const char *variant)
{
    int i;
    for (i = 0; i < f->n; i++)
        if (variant_matches(&f->records[i], variant) && find_row(c, &f->records[i].key) < 0)
            c->rows[c->n++].key = f->records[i].key;
}

static int same_variant(const char *a, const char *b)
{
    return (a == NULL) == (b == NULL) && (!a || !strcmp(a, b));
}

void perf_file_variants(const perf_file_t *f, const char *filter, char *buf, size_t len)
{
    size_t at = 0;
    int i, j;
    buf[0] = '\0';
    for (i = 0; i < f->n && at < len; i++) {
        const char *v = f->records[i].variant;
        if (!variant_matches(&f->records[i], filter)) continue;
        for (j = 0; j < i && !same_variant(f->records[j].variant, v); j++) continue;
        if (j == i) at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? ", " : "",
                                           v ? v : "(none)");
    }
    if (!buf[0]) snprintf(buf, len, "no variant");
}

/* Returns -1 after saying which variants the file has if `variant` is named by none of its
 * records. */
static int check_variant(const perf_file_t *f, const char *variant, const char *side)
{
    char have[256];
    int i;
    if (!variant) return 0;
    for (i = 0; i < f->n; i++)
        if (variant_matches(&f->records[i], variant)) return 0;
    perf_file_variants(f, NULL, have, sizeof have);
    fprintf(stderr, "fp8attn: --variant-%s %s: no record of %s has that variant; it has: %s\n",
            side, variant, f->path, have);
    return -1;
}

static int build_rows(const perf_file_t *base, const perf_file_t *cand, comparison_t *c)
{
    double *scratch = malloc((size_t)(base->n > cand->n ? base->n : cand->n) * sizeof *scratch);
    int i;
    c->rows = calloc((size_t)(base->n + cand->n), sizeof *c->rows);
    if (!scratch || !c->rows) {
        free(scratch);
        fprintf(stderr, "fp8attn: out of memory\n");
        return -1;
    }
    add_shapes(c, base, c->variant_base);
    add_shapes(c, cand, c->variant_cand);
    for (i = 0; i < c->n; i++) {
        shape_row_t *r = &c->rows[i];
        r->n_base = aggregate(base, c->variant_base, &r->key, scratch, &r->base_p50, &r->base_p90);
        r->n_cand = aggregate(cand, c->variant_cand, &r->key, scratch, &r->cand_p50, &r->cand_p90);
        c->n_common += r->n_base > 0 && r->n_cand > 0;
        c->n_only_base += r->n_cand == 0;
        c->n_only_cand += r->n_base == 0;
        c->base_aggregated += r->n_base > 1;
        c->cand_aggregated += r->n_cand > 1;
    }
    free(scratch);
    return 0;
}

int pair_load(const pair_args_t *a, perf_file_t *base, perf_file_t *cand, comparison_t *c)
{
    memset(c, 0, sizeof *c);
    c->variant_base = a->variant_base;
    c->variant_cand = a->variant_cand;
    if (perf_file_load(a->base, base) != 0) return -1;
    if (perf_file_load(a->cand, cand) != 0) {
        perf_file_free(base);
        return -1;
    }
    if (check_variant(base, a->variant_base, "base") != 0 ||
        check_variant(cand, a->variant_cand, "cand") != 0 || build_rows(base, cand, c) != 0) {
        comparison_free(c);
        perf_file_free(base);
        perf_file_free(cand);
        return -1;
    }
    return 0;
}

void comparison_free(comparison_t *c)
{
    free(c->rows);
    c->rows = NULL;
    c->n = c->n_common = c->n_only_base = c->n_only_cand = 0;
}

static void print_note(FILE *f, int count, const char *side, const char *flag,
                       const char *variant)
{
    if (count == 0) return;
    if (variant)
        fprintf(f, "note: %s has several records (seeds) of variant %s for %d shape(s); using the "
                "median of their p50s and p90s\n", side, variant, count);
    else
        fprintf(f, "note: %s has several records (variants or seeds) for %d shape(s); using the "
                "median of their p50s and p90s (choose one variant with %s)\n", side, count,
                flag);
}

void comparison_print_notes(const comparison_t *c, FILE *f)
{
    print_note(f, c->base_aggregated, "BASE", "--variant-base", c->variant_base);
    print_note(f, c->cand_aggregated, "CAND", "--variant-cand", c->variant_cand);
}

double row_speedup(const shape_row_t *r) { return r->base_p50 / r->cand_p50; }

double row_noise(const shape_row_t *r)
{
    double sb = (r->base_p90 - r->base_p50) / r->base_p50;
    double sc = (r->cand_p90 - r->cand_p50) / r->cand_p50;
    double s = sb > sc ? sb : sc;
    return s > 0 ? s : 0;
}

double comparison_geomean_speedup(const comparison_t *c)
{
    double log_sum = 0.0;
    int i, n = 0;
    for (i = 0; i < c->n; i++) {
        if (c->rows[i].n_base == 0 || c->rows[i].n_cand == 0) continue;
        log_sum += log(row_speedup(&c->rows[i]));
        n++;
    }
    return n ? exp(log_sum / n) : NAN;
}
