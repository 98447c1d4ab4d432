/* perf.json files and the shape-by-shape matching of two of them (compare, gate). */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "files.h"
#include "json_file.h"
#include "perf_file.h"
#include "stats.h"

/* ---- keys ---- */

/* The string key fields and their allowed values. */
static const struct {
    const char *field;
    const char *const *names;
    size_t offset, size;
} k_choice_fields[] = {
    {"layout", k_layout_names, offsetof(shape_key_t, layout), sizeof(((shape_key_t *)0)->layout)},
    {"out_type", k_out_type_names, offsetof(shape_key_t, out_type),
     sizeof(((shape_key_t *)0)->out_type)},
    {"descale", k_descale_names, offsetof(shape_key_t, descale),
     sizeof(((shape_key_t *)0)->descale)},
};
#define N_CHOICE_FIELDS (sizeof k_choice_fields / sizeof k_choice_fields[0])

int shape_key_read(const json_t *rec, shape_key_t *key, const char **bad_field,
                   const char **allowed)
{
    static const char *const names[] = {"B",        "h_q",      "h_kv",   "seqlen_q",
                                        "seqlen_k", "head_dim", "causal", "lse"};
    static char allowed_text[N_CHOICE_FIELDS][96];
    long long *fields[8];
    size_t i;
    memset(key, 0, sizeof *key);
    fields[0] = &key->b;
    fields[1] = &key->h_q;
    fields[2] = &key->h_kv;
    fields[3] = &key->seqlen_q;
    fields[4] = &key->seqlen_k;
    fields[5] = &key->head_dim;
    fields[6] = &key->causal;
    fields[7] = &key->lse;
    for (i = 0; i < 8; i++) {
        if (json_get_int(rec, names[i], fields[i]) != 0) {
            *bad_field = names[i];
            *allowed = i >= 6 ? "a boolean" : "an integer"; /* causal, lse: booleans (or 0/1) */
            return -1;
        }
    }
    for (i = 0; i < N_CHOICE_FIELDS; i++) {
        const char *v = json_string_value(json_object_get(rec, k_choice_fields[i].field));
        if (!v || choice_index(v, k_choice_fields[i].names) < 0) {
            char list[64];
            choice_list(k_choice_fields[i].names, list, sizeof list);
            snprintf(allowed_text[i], sizeof allowed_text[i], "one of %s", list);
            *bad_field = k_choice_fields[i].field;
            *allowed = allowed_text[i];
            return -1;
        }
        snprintf((char *)key + k_choice_fields[i].offset, k_choice_fields[i].size, "%s", v);
    }
    return 0;
}

int shape_key_equal(const shape_key_t *a, const shape_key_t *b)
{
    return a->b == b->b && a->h_q == b->h_q && a->h_kv == b->h_kv &&
           a->seqlen_q == b->seqlen_q && a->seqlen_k == b->seqlen_k &&
           a->head_dim == b->head_dim && (a->causal != 0) == (b->causal != 0) &&
           (a->lse != 0) == (b->lse != 0) && !strcmp(a->layout, b->layout) &&
           !strcmp(a->out_type, b->out_type) && !strcmp(a->descale, b->descale);
}

void shape_key_format(const shape_key_t *k, char *buf, size_t len)
{
    snprintf(buf, len, "B=%lld hq=%lld hkv=%lld sq=%lld sk=%lld d=%lld causal=%d %s %s "
             "descale=%s lse=%d", k->b, k->h_q, k->h_kv, k->seqlen_q, k->seqlen_k, k->head_dim,
             k->causal != 0, k->layout, k->out_type, k->descale, k->lse != 0);
}

/* ---- one perf.json ---- */

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
        out->dir = path_dirname(arg);
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
    const char *bad = NULL, *allowed = NULL;
    const json_t *variant = json_object_get(rec, "variant");
    const json_t *flush = json_object_get(rec, "l2_flush");
    if (!json_is_object(rec)) {
        fprintf(stderr, "fp8attn: %s: results[%zu] is not an object\n", path, i);
        return -1;
    }
    if (shape_key_read(rec, &r->key, &bad, &allowed) != 0) {
        fprintf(stderr, "fp8attn: %s: results[%zu].%s is missing or not %s (perf.json files "
                "written before fp8attn recorded it must be measured again)\n", path, i, bad,
                allowed);
        return -1;
    }
    if (variant && !json_is_null(variant) && !json_is_string(variant)) {
        fprintf(stderr, "fp8attn: %s: results[%zu].variant must be a string or null\n", path, i);
        return -1;
    }
    r->variant = json_is_string(variant) ? json_string_value(variant) : NULL;
    r->kernel = json_string_value(json_object_get(rec, "kernel")); /* NULL unless a string */
    r->backend = json_string_value(json_object_get(rec, "backend"));
    if (!r->backend || choice_index(r->backend, k_backend_names) < 0) {
        fprintf(stderr, "fp8attn: %s: results[%zu].backend is missing or not one of cpu, gpu\n",
                path, i);
        return -1;
    }
    if (!json_is_boolean(flush)) {
        fprintf(stderr, "fp8attn: %s: results[%zu].l2_flush is missing or not a boolean\n", path,
                i);
        return -1;
    }
    r->l2_flush = json_is_true(flush);
    const json_t *ws = json_object_get(rec, "workspace");
    if (ws && !json_is_boolean(ws)) {
        fprintf(stderr, "fp8attn: %s: results[%zu].workspace is not a boolean\n", path, i);
        return -1;
    }
    r->workspace = ws ? json_is_true(ws) : -1;
    const json_t *inputs = json_object_get(rec, "inputs");
    r->inputs = json_string_value(inputs);
    if (inputs && (!r->inputs || choice_index(r->inputs, k_inputs_names) < 0)) {
        char list[64];
        choice_list(k_inputs_names, list, sizeof list);
        fprintf(stderr, "fp8attn: %s: results[%zu].inputs is not one of %s\n", path, i, list);
        return -1;
    }
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

static int variant_matches(const perf_record_t *r, const char *variant)
{
    return !variant || (r->variant && !strcmp(r->variant, variant));
}

static int same_variant(const char *a, const char *b)
{
    return (a == NULL) == (b == NULL) && (!a || !strcmp(a, b));
}

int perf_record_selected(const perf_file_t *f, int i, const char *filter, const shape_key_t *key)
{
    return variant_matches(&f->records[i], filter) &&
           (!key || shape_key_equal(&f->records[i].key, key));
}

/* Number of distinct variants among f's records of `filter` and `key`. */
static int count_variants(const perf_file_t *f, const char *filter, const shape_key_t *key)
{
    int i, j, n = 0;
    for (i = 0; i < f->n; i++) {
        if (!perf_record_selected(f, i, filter, key)) continue;
        for (j = 0; j < i; j++)
            if (perf_record_selected(f, j, filter, key) &&
                same_variant(f->records[j].variant, f->records[i].variant))
                break;
        n += j == i;
    }
    return n;
}

void perf_file_variants(const perf_file_t *f, const char *filter, const shape_key_t *key,
                        char *buf, size_t len)
{
    size_t at = 0;
    int i, j;
    buf[0] = '\0';
    for (i = 0; i < f->n && at < len; i++) {
        const char *v = f->records[i].variant;
        if (!perf_record_selected(f, i, filter, key)) continue;
        for (j = 0; j < i; j++)
            if (perf_record_selected(f, j, filter, key) && same_variant(f->records[j].variant, v))
                break;
        if (j == i) at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? ", " : "",
                                           v ? v : "(none)");
    }
    if (!buf[0]) snprintf(buf, len, "no variant");
}

void perf_setup_of(const perf_file_t *f, int i, perf_setup_t *s)
{
    const perf_record_t *r = &f->records[i];
    s->backend = r->backend;
    s->l2_flush = r->l2_flush;
    s->workspace = r->workspace;
    s->inputs = r->inputs;
    s->first = i;
    s->conflict = -1;
}

/* 1 if two setups were measured alike (first and conflict aside). */
static int setups_equal(const perf_setup_t *a, const perf_setup_t *b)
{
    return !strcmp(a->backend, b->backend) && a->l2_flush == b->l2_flush &&
           a->workspace == b->workspace &&
           (a->inputs && b->inputs ? !strcmp(a->inputs, b->inputs) : a->inputs == b->inputs);
}

/* The measurement setup of f's records of `filter` (see perf_setup_t). */
static void find_setup(const perf_file_t *f, const char *filter, perf_setup_t *s)
{
    int i;
    memset(s, 0, sizeof *s);
    s->first = s->conflict = -1;
    for (i = 0; i < f->n; i++) {
        perf_setup_t r;
        if (!variant_matches(&f->records[i], filter)) continue;
        if (s->first < 0) {
            perf_setup_of(f, i, s);
            continue;
        }
        perf_setup_of(f, i, &r);
        if (!setups_equal(&r, s)) {
            s->conflict = i;
            return;
        }
    }
}

void perf_setup_format(const perf_setup_t *s, char *buf, size_t len)
{
    snprintf(buf, len, "backend %s, l2_flush %s%s%s%s%s", s->backend ? s->backend : "?",
             s->l2_flush ? "true" : "false", s->workspace < 0 ? "" : ", workspace ",
             s->workspace < 0 ? "" : s->workspace ? "true" : "false", s->inputs ? ", inputs " : "",
             s->inputs ? s->inputs : "");
}

/* ---- the command line ---- */

arg_result_t pair_args_parse(args_t *a, void *pair_args)
{
    pair_args_t *p = pair_args;
    const char *arg = a->argv[a->i], *v;
    arg_result_t r;
    if ((r = arg_value(a, "--variant-base", &v)) != ARG_UNKNOWN ||
        (r = arg_value(a, "--variant-cand", &v)) != ARG_UNKNOWN) {
        if (r != ARG_OK) return r;
        if (!v[0]) {
            fprintf(stderr, "fp8attn %s: %s '': needs a variant name (see `fp8attn info`)\n",
                    a->cmd, !strncmp(arg, "--variant-base", 14) ? "--variant-base"
                                                                : "--variant-cand");
            return ARG_BAD;
        }
        if (!strncmp(arg, "--variant-base", 14)) p->variant_base = v;
        else p->variant_cand = v;
        return ARG_OK;
    }
    if (arg[0] == '-' && arg[1] != '\0') return ARG_UNKNOWN;
    if (p->base && p->cand) {
        fprintf(stderr, "fp8attn %s: unexpected argument '%s' (BASE and CAND already given)\n",
                a->cmd, arg);
        return ARG_BAD;
    }
    if (!p->base) p->base = arg;
    else p->cand = arg;
    return ARG_OK;
}

/* ---- matching ---- */

/* The p50s (or, with `p90`, the p90s) of f's records of `key` matching `variant` into v;
 * returns how many. */
static int collect(const perf_file_t *f, const char *variant, const shape_key_t *key, int p90,
                   double *v)
{
    int i, n = 0;
    for (i = 0; i < f->n; i++)
        if (perf_record_selected(f, i, variant, key))
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

/* Returns -1 after saying which variants the file has if `variant` is named by none of its
 * records. */
static int check_variant(const perf_file_t *f, const char *variant, const char *side)
{
    char have[256];
    int i;
    if (!variant) return 0;
    for (i = 0; i < f->n; i++)
        if (variant_matches(&f->records[i], variant)) return 0;
    perf_file_variants(f, NULL, NULL, have, sizeof have);
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
        r->n_base_variants = count_variants(base, c->variant_base, &r->key);
        r->n_cand_variants = count_variants(cand, c->variant_cand, &r->key);
        c->n_common += r->n_base > 0 && r->n_cand > 0;
        c->n_only_base += r->n_cand == 0;
        c->n_only_cand += r->n_base == 0;
        c->base_aggregated += r->n_base > 1;
        c->cand_aggregated += r->n_cand > 1;
        c->base_multi_variant += r->n_base_variants > 1;
        c->cand_multi_variant += r->n_cand_variants > 1;
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
    find_setup(base, c->variant_base, &c->base_setup);
    find_setup(cand, c->variant_cand, &c->cand_setup);
    return 0;
}

void comparison_free(comparison_t *c)
{
    free(c->rows);
    c->rows = NULL;
    c->n = c->n_common = c->n_only_base = c->n_only_cand = 0;
}

int comparison_setups_match(const comparison_t *c)
{
    return c->base_setup.conflict < 0 && c->cand_setup.conflict < 0 &&
           c->base_setup.backend && c->cand_setup.backend &&
           setups_equal(&c->base_setup, &c->cand_setup);
}

/* Notes on the shapes of one side whose value is a median of several records. */
static void print_notes(FILE *f, const comparison_t *c, int cand)
{
    const char *side = cand ? "CAND" : "BASE", *flag = cand ? "--variant-cand" : "--variant-base";
    const char *variant = cand ? c->variant_cand : c->variant_base;
    int aggregated = cand ? c->cand_aggregated : c->base_aggregated;
    int multi = cand ? c->cand_multi_variant : c->base_multi_variant;
    if (multi)
        fprintf(f, "note: %s has records of several variants for %d shape(s); using the median "
                "of their p50s and p90s (choose one variant with %s)\n", side, multi, flag);
    if (aggregated > multi)
        fprintf(f, "note: %s has several records (seeds) of %s%s for %d shape(s); using the "
                "median of their p50s and p90s\n", side, variant ? "variant " : "one variant",
                variant ? variant : "", aggregated - multi);
}

/* A warning when one side's records were not all measured alike. */
static void print_mixed(FILE *f, const perf_setup_t *s, const char *side)
{
    if (s->conflict >= 0)
        fprintf(f, "warning: %s mixes measurement setups: results[%d] and results[%d] differ in "
                "backend, l2_flush, workspace or inputs\n", side, s->first, s->conflict);
}

void comparison_print_notes(const comparison_t *c, FILE *f)
{
    char b[128], k[128];
    print_notes(f, c, 0);
    print_notes(f, c, 1);
    print_mixed(f, &c->base_setup, "BASE");
    print_mixed(f, &c->cand_setup, "CAND");
    if (c->base_setup.conflict < 0 && c->cand_setup.conflict < 0 &&
        !comparison_setups_match(c)) {
        perf_setup_format(&c->base_setup, b, sizeof b);
        perf_setup_format(&c->cand_setup, k, sizeof k);
        fprintf(f, "warning: BASE was measured with %s, CAND with %s: their timings are not "
                "comparable\n", b, k);
    }
}

/* ---- figures ---- */

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
