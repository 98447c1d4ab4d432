/* Options, shapes and presets of check and bench, and the argument loop and value parsers of
 * every command (see common.h). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"
#include "gpu.h"

#define MAX_SHAPE_DIM 1000000000L /* any single dimension; tensor sizes are checked later */

typedef struct {
    const char *name;
    int32_t batch, heads, seqlen, head_dim;
} preset_t;

/* Seed presets (B, H, S, D); H query heads = H key/value heads, Sq = Sk = S. */
static const preset_t k_presets[] = {
    {"small", 1, 1, 32, 64},
    {"mission", 1, 8, 512, 64},
    {"mission2", 2, 8, 256, 64},
    {"long", 1, 8, 2048, 64},
};
#define N_PRESETS ((int)(sizeof k_presets / sizeof k_presets[0]))

/* fa3 preset: 16k tokens in total and hidden size 2048, as in the FlashAttention-3 paper. */
#define FA3_TOKENS 16384
#define FA3_HIDDEN 2048
static const int32_t k_fa3_seqlens[] = {512, 1024, 2048, 4096, 8192, 16384};
static const int32_t k_fa3_head_dims[] = {64, 128, 256};

/* ---- shapes list ---- */

static int push_shape(run_opts_t *o, const shape_t *s)
{
    shape_t *grown = realloc(o->shapes, (size_t)(o->n_shapes + 1) * sizeof *grown);
    if (!grown) {
        fprintf(stderr, "fp8attn %s: out of memory for the shape list\n", o->cmd);
        return -1;
    }
    o->shapes = grown;
    o->shapes[o->n_shapes++] = *s;
    return 0;
}

shape_t make_shape(const char *name, int32_t b, int32_t hq, int32_t hkv, int32_t sq, int32_t sk,
                   int32_t d, int causal)
{
    shape_t s;
    memset(&s, 0, sizeof s);
    snprintf(s.name, sizeof s.name, "%s", name);
    s.batch = b;
    s.h_q = hq;
    s.h_kv = hkv;
    s.seqlen_q = sq;
    s.seqlen_k = sk;
    s.head_dim = d;
    s.causal = causal;
    return s;
}

/* Presets marked causal = -1 follow --causal; resolved once all options are read. */
static int push_preset(run_opts_t *o, const preset_t *p)
{
    shape_t s = make_shape(p->name, p->batch, p->heads, p->heads, p->seqlen, p->seqlen,
                           p->head_dim, -1);
    return push_shape(o, &s);
}

static int push_fa3(run_opts_t *o)
{
    size_t si, di;
    int causal;
    for (causal = 0; causal <= 1; causal++)
        for (di = 0; di < sizeof k_fa3_head_dims / sizeof k_fa3_head_dims[0]; di++)
            for (si = 0; si < sizeof k_fa3_seqlens / sizeof k_fa3_seqlens[0]; si++) {
                int32_t seq = k_fa3_seqlens[si], d = k_fa3_head_dims[di];
                shape_t s = make_shape("fa3", FA3_TOKENS / seq, FA3_HIDDEN / d, FA3_HIDDEN / d,
                                       seq, seq, d, causal);
                if (push_shape(o, &s)) return -1;
            }
    return 0;
}

static int push_preset_by_name(run_opts_t *o, const char *name, size_t len)
{
    int i;
    if (len == 3 && !strncmp(name, "fa3", 3)) return push_fa3(o);
    for (i = 0; i < N_PRESETS; i++)
        if (strlen(k_presets[i].name) == len && !strncmp(k_presets[i].name, name, len))
            return push_preset(o, &k_presets[i]);
    fprintf(stderr,
            "fp8attn %s: --shapes: unknown preset '%.*s' (allowed: small, mission, mission2, "
            "long, fa3)\n",
            o->cmd, (int)len, name);
    return -1;
}

/* --shapes small,mission,... */
static int parse_presets(run_opts_t *o, const char *text)
{
    const char *p = text;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (push_preset_by_name(o, p, len)) return -1;
        if (!comma) return 0;
        p = comma + 1;
    }
}

/* Splits "a,b,c" into at most `max` integers in [lo, hi]; returns the count, or -1 if an item
 * is not such an integer or there are more than `max`. */
static int split_ints(const char *text, long long lo, long long hi, long long *out, int max)
{
    const char *p = text;
    int n = 0;
    for (;;) {
        char *end;
        long long v;
        if (!isdigit((unsigned char)*p)) return -1; /* also refuses signs, spaces, empty items */
        errno = 0;
        v = strtoll(p, &end, 10);
        if (errno || v < lo || v > hi || n == max) return -1;
        out[n++] = v;
        if (*end == '\0') return n;
        if (*end != ',') return -1;
        p = end + 1;
    }
}

/* --shape B,Hq,Hkv,Sq,Sk,D */
static int parse_custom_shape(run_opts_t *o, const char *text)
{
    long long v[7];
    shape_t s;
    int n = split_ints(text, 1, MAX_SHAPE_DIM, v, 7);
    if (n != 6) {
        fprintf(stderr,
                "fp8attn %s: --shape '%s': expected 6 comma-separated integers B,Hq,Hkv,Sq,Sk,D, "
                "each in [1, %ld]\n",
                o->cmd, text, MAX_SHAPE_DIM);
        return -1;
    }
    if (v[1] % v[2] != 0) {
        fprintf(stderr,
                "fp8attn %s: --shape '%s': query heads Hq = %lld must be a multiple of key/value "
                "heads Hkv = %lld (grouped-query attention)\n",
                o->cmd, text, v[1], v[2]);
        return -1;
    }
    s = make_shape("custom", (int32_t)v[0], (int32_t)v[1], (int32_t)v[2], (int32_t)v[3],
                   (int32_t)v[4], (int32_t)v[5], -1);
    return push_shape(o, &s);
}

/* --seeds 0,1,2 */
static int parse_seeds(run_opts_t *o, const char *text)
{
    enum { MAX_SEEDS = 1024 };
    long long v[MAX_SEEDS];
    int i, n = split_ints(text, 0, 0x7fffffffffffffffLL, v, MAX_SEEDS);
    if (n < 1) {
        fprintf(stderr,
                "fp8attn %s: --seeds '%s': expected a comma-separated list of at most %d "
                "non-negative integers\n",
                o->cmd, text, MAX_SEEDS);
        return -1;
    }
    free(o->seeds);
    o->seeds = malloc((size_t)n * sizeof *o->seeds);
    if (!o->seeds) {
        fprintf(stderr, "fp8attn %s: out of memory for the seed list\n", o->cmd);
        return -1;
    }
    for (i = 0; i < n; i++) o->seeds[i] = (uint64_t)v[i];
    o->n_seeds = n;
    return 0;
}

int choice_index(const char *text, const char *const *names)
{
    int i;
    for (i = 0; names[i]; i++)
        if (!strcmp(text, names[i])) return i;
    return -1;
}

void choice_list(const char *const *names, char *buf, size_t len)
{
    size_t at = 0;
    int i;
    if (len) buf[0] = '\0';
    for (i = 0; names[i] && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? ", " : "", names[i]);
}

/* Matches `text` against a NULL-terminated list of names; returns the index or -1 after
 * printing the allowed names. */
static int parse_choice(const char *cmd, const char *flag, const char *text,
                        const char *const *names)
{
    char allowed[128];
    int i = choice_index(text, names);
    if (i >= 0) return i;
    choice_list(names, allowed, sizeof allowed);
    fprintf(stderr, "fp8attn %s: %s '%s': allowed values are %s\n", cmd, flag, text, allowed);
    return -1;
}

/* ---- generic argument helpers ---- */

int arg_flag(const args_t *a, const char *name) { return !strcmp(a->argv[a->i], name); }

arg_result_t arg_value(args_t *a, const char *name, const char **value)
{
    const char *arg = a->argv[a->i];
    size_t len = strlen(name);
    if (strncmp(arg, name, len)) return ARG_UNKNOWN;
    if (arg[len] == '=') {
        *value = arg + len + 1;
        return ARG_OK;
    }
    if (arg[len] != '\0') return ARG_UNKNOWN;
    if (a->i + 1 >= a->argc) {
        fprintf(stderr, "fp8attn %s: %s needs a value\n", a->cmd, name);
        return ARG_BAD;
    }
    *value = a->argv[++a->i];
    return ARG_OK;
}

arg_result_t args_parse(int argc, char **argv, const char *cmd, extra_parser_t parse, void *ctx)
{
    args_t a;
    a.argc = argc;
    a.argv = argv;
    a.cmd = cmd;
    for (a.i = 1; a.i < argc; a.i++) {
        arg_result_t r;
        if (arg_flag(&a, "--help") || arg_flag(&a, "-h")) return ARG_HELP;
        r = parse(&a, ctx);
        if (r == ARG_UNKNOWN) {
            fprintf(stderr, "fp8attn %s: unknown option '%s'\n", cmd, argv[a.i]);
            return ARG_BAD;
        }
        if (r != ARG_OK) return r;
    }
    return ARG_OK;
}

int parse_nonneg_double(const char *cmd, const char *flag, const char *text, double *out)
{
    char *end;
    double v;
    errno = 0;
    v = strtod(text, &end);
    if (errno || end == text || *end != '\0' || !isfinite(v) || v < 0.0) {
        fprintf(stderr, "fp8attn %s: %s '%s': expected a finite number >= 0\n", cmd, flag, text);
        return -1;
    }
    *out = v;
    return 0;
}

int parse_int_range(const char *cmd, const char *flag, const char *text, long lo, long hi,
                    int *out)
{
    long long v;
    if (split_ints(text, lo, hi, &v, 1) != 1) {
        fprintf(stderr, "fp8attn %s: %s '%s': expected an integer in [%ld, %ld]\n", cmd, flag,
                text, lo, hi);
        return -1;
    }
    *out = (int)v;
    return 0;
}

int parse_count(const char *cmd, const char *flag, const char *text, long long *out)
{
    long long v;
    if (split_ints(text, 0, LLONG_MAX, &v, 1) != 1) {
        fprintf(stderr, "fp8attn %s: %s '%s': expected a whole number >= 0\n", cmd, flag, text);
        return -1;
    }
    *out = v;
    return 0;
}

int parse_fraction(const char *cmd, const char *flag, const char *text, double *out)
{
    char *end;
    double v;
    errno = 0;
    v = strtod(text, &end);
    if (end == text || errno || !isfinite(v) || (*end && strcmp(end, "%") != 0)) {
        fprintf(stderr, "fp8attn %s: %s '%s': expected a percentage like 10%% or a fraction "
                "like 0.10\n", cmd, flag, text);
        return -1;
    }
    if (*end == '%') {
        v /= 100.0;
    } else if (fabs(v) >= 1.0) {
        fprintf(stderr, "fp8attn %s: %s '%s': ambiguous; write %g%% for %g percent or a "
                "fraction below 1 (0.10 = 10%%)\n", cmd, flag, text, v, v);
        return -1;
    }
    *out = v;
    return 0;
}

/* ---- the common options ---- */

const char *const k_backend_names[] = {"cpu", "gpu", NULL};
const char *const k_layout_names[] = {"bhsd", "bshd", NULL};
const char *const k_out_type_names[] = {"fp16", "bf16", NULL};
const char *const k_descale_names[] = {"tensor", "head", "batch-head", NULL};
const char *const k_inputs_names[] = {"normal", "rising", "spike", NULL};

void common_opts_init(run_opts_t *o, const char *cmd, const uint64_t *seeds, int n_seeds,
                      const char *label)
{
    memset(o, 0, sizeof *o);
    o->cmd = cmd;
    o->backend = BACKEND_AUTO;
    o->out_type = FP8ATTN_OUT_FP16;
    o->descale = FP8ATTN_SCALE_PER_HEAD;
    o->label = label;
    o->seeds = malloc((size_t)n_seeds * sizeof *o->seeds);
    if (o->seeds) {
        memcpy(o->seeds, seeds, (size_t)n_seeds * sizeof *o->seeds);
        o->n_seeds = n_seeds;
    }
}

void common_opts_free(run_opts_t *o)
{
    free(o->shapes);
    free(o->seeds);
    o->shapes = NULL;
    o->seeds = NULL;
}

static int set_backend(run_opts_t *o, const char *v)
{
    int idx = parse_choice(o->cmd, "--backend", v, k_backend_names);
    if (idx < 0) return -1;
    o->backend = idx == 0 ? BACKEND_CPU : BACKEND_GPU;
    return 0;
}

static int set_layout(run_opts_t *o, const char *v)
{
    int idx = parse_choice(o->cmd, "--layout", v, k_layout_names);
    if (idx < 0) return -1;
    o->bshd = idx;
    return 0;
}

static int set_out_type(run_opts_t *o, const char *v)
{
    int idx = parse_choice(o->cmd, "--out-type", v, k_out_type_names);
    if (idx < 0) return -1;
    o->out_type = idx == 0 ? FP8ATTN_OUT_FP16 : FP8ATTN_OUT_BF16;
    return 0;
}

static int set_descale(run_opts_t *o, const char *v)
{
    int idx = parse_choice(o->cmd, "--descale", v, k_descale_names);
    if (idx < 0) return -1;
    o->descale = (fp8attn_granularity_t)idx; /* k_descale_names is in the enum's order */
    return 0;
}

static int set_inputs(run_opts_t *o, const char *v)
{
    int idx = parse_choice(o->cmd, "--inputs", v, k_inputs_names);
    if (idx < 0) return -1;
    o->inputs = idx;
    return 0;
}

static int set_variant(run_opts_t *o, const char *v)
{
    o->variant = v;
    return 0;
}

static int set_out_dir(run_opts_t *o, const char *v)
{
    o->out_dir = v;
    return 0;
}

static int set_label(run_opts_t *o, const char *v)
{
    o->label = v;
    return 0;
}

/* Options that take a value, and what to do with it (0 = accepted, -1 = refused, printed). */
static const struct {
    const char *flag;
    int (*apply)(run_opts_t *o, const char *value);
} k_value_options[] = {
    {"--backend", set_backend}, {"--variant", set_variant},   {"--shapes", parse_presets},
    {"--shape", parse_custom_shape}, {"--seeds", parse_seeds}, {"--layout", set_layout},
    {"--out-type", set_out_type}, {"--descale", set_descale}, {"--out", set_out_dir},
    {"--label", set_label}, {"--inputs", set_inputs},
};

/* Parses one option with a value; ARG_UNKNOWN if the argument is none of them. */
static arg_result_t parse_value_option(args_t *a, run_opts_t *o)
{
    size_t i;
    for (i = 0; i < sizeof k_value_options / sizeof k_value_options[0]; i++) {
        const char *v;
        arg_result_t r = arg_value(a, k_value_options[i].flag, &v);
        if (r == ARG_UNKNOWN) continue;
        if (r == ARG_BAD) return r;
        return k_value_options[i].apply(o, v) ? ARG_BAD : ARG_OK;
    }
    return ARG_UNKNOWN;
}

/* The options of check and bench, then the command's own (ctx is a common_ctx_t). */
typedef struct {
    run_opts_t *o;
    extra_parser_t extra;
    void *extra_ctx;
} common_ctx_t;

static arg_result_t parse_common_arg(args_t *a, void *ctx)
{
    common_ctx_t *c = ctx;
    arg_result_t r;
    if (arg_flag(a, "--causal")) {
        c->o->causal = 1;
        return ARG_OK;
    }
    if (arg_flag(a, "--lse")) {
        c->o->lse = 1;
        return ARG_OK;
    }
    if (arg_flag(a, "--no-workspace")) {
        c->o->no_workspace = 1;
        return ARG_OK;
    }
    r = parse_value_option(a, c->o);
    if (r == ARG_UNKNOWN && c->extra) r = c->extra(a, c->extra_ctx);
    return r;
}

/* Defaults that depend on what was (not) given, and checks across options. */
static arg_result_t finish_opts(run_opts_t *o)
{
    int i;
    if (!o->n_shapes) {
        for (i = 0; i < N_PRESETS; i++)
            if (push_preset(o, &k_presets[i])) return ARG_BAD;
    }
    for (i = 0; i < o->n_shapes; i++)
        if (o->shapes[i].causal < 0) o->shapes[i].causal = o->causal;
    if (o->n_seeds < 1) {
        fprintf(stderr, "fp8attn %s: out of memory for the seed list\n", o->cmd);
        return ARG_BAD;
    }
    if (o->variant && o->backend == BACKEND_CPU) {
        fprintf(stderr, "fp8attn %s: --variant '%s' applies to --backend gpu only\n", o->cmd,
                o->variant);
        return ARG_BAD;
    }
    if (o->label[0] == '\0' || strchr(o->label, '/')) {
        fprintf(stderr, "fp8attn %s: --label '%s': must be non-empty and contain no '/'\n",
                o->cmd, o->label);
        return ARG_BAD;
    }
    return ARG_OK;
}

arg_result_t common_parse_args(int argc, char **argv, run_opts_t *o, extra_parser_t extra,
                               void *ctx)
{
    common_ctx_t c;
    arg_result_t r;
    c.o = o;
    c.extra = extra;
    c.extra_ctx = ctx;
    r = args_parse(argc, argv, o->cmd, parse_common_arg, &c);
    return r == ARG_OK ? finish_opts(o) : r;
}

void common_usage_options(FILE *f)
{
    fprintf(f,
            "  --backend cpu|gpu      gpu when a CUDA device is present, else cpu (one line on\n"
            "                         stderr says so); cpu = fp8attn_forward_cpu split over\n"
            "                         min(nproc, 16) threads per (batch, kv head)\n"
            "  --variant NAME         GPU kernel variant (default: fp8attn_forward's choice per\n"
            "                         shape); see `fp8attn info` for the list\n"
            "  --shapes LIST          presets (B,H,S,D; Hq = Hkv = H, Sq = Sk = S): small\n"
            "                         (1,1,32,64), mission (1,8,512,64), mission2 (2,8,256,64),\n"
            "                         long (1,8,2048,64), fa3 (36 shapes: 16k tokens, hidden\n"
            "                         2048, S = 512..16k, D = 64/128/256, each causal and not;\n"
            "                         carries its own causal flag). Default: the first four\n"
            "  --shape B,Hq,Hkv,Sq,Sk,D  a custom shape (repeatable; Hq a multiple of Hkv)\n"
            "  --causal               bottom-right aligned causal mask (all but fa3 shapes)\n"
            "  --seeds LIST           comma-separated input seeds\n"
            "  --layout bhsd|bshd     memory layout of Q, K, V and O (default bhsd)\n"
            "  --out-type fp16|bf16   output type (default fp16)\n"
            "  --descale tensor|head|batch-head  FP8 scale granularity (default head)\n"
            "  --inputs normal|rising|spike  how Q, K, V are drawn (default normal; below)\n"
            "  --lse                  also write the log-sum-exp\n"
            "  --no-workspace         GPU runs call fp8attn_forward_ws without scratch memory\n"
            "                         (default: a workspace of fp8attn_forward_workspace_size\n"
            "                         bytes, poisoned with 0xFF before every checked run)\n"
            "  --out DIR              results directory (build_meta.json and the results)\n"
            "  --label TEXT           label of the default results directory name\n"
            "  --help                 this text\n");
}

void common_usage_inputs(FILE *f)
{
    fprintf(f,
            "\nInputs: Q, K, V are drawn N(0,1) in float (splitmix64 seeded with the seed, then\n"
            "Box-Muller; Q, K, V in that order, each in [b, h, s, d] order whatever the\n"
            "layout), then quantized to E4M3 with descale = amax / 448 per group.\n"
            "--inputs rising: element 0 of every Q row is 2 and element 0 of key j is\n"
            "5 sqrt(D) j / Sk, so each score gains 10 j / Sk (at the default scale): every row's\n"
            "max rises along the keys while the attention stays spread over ~Sk/10 keys.\n"
            "--inputs spike: element 0 of every Q row is 2 and of key 3 Sk / 4 is 100 sqrt(D):\n"
            "that key's score is 200 above the others for every row that sees it.\n");
}

/* ---- backend and variants ---- */

int variant_known(const char *cmd, const char *flag, const char *name)
{
    int i, n = fp8attn_variant_count();
    for (i = 0; i < n; i++)
        if (!strcmp(fp8attn_variant_name(i), name)) return 1;
    fprintf(stderr, "fp8attn %s: %s '%s': unknown kernel variant (known:", cmd, flag, name);
    for (i = 0; i < n; i++) fprintf(stderr, "%s %s", i ? "," : "", fp8attn_variant_name(i));
    fprintf(stderr, ")\n");
    return 0;
}

int resolve_backend(run_opts_t *o)
{
    char why[ERR_LEN];
    int present = o->backend == BACKEND_CPU ? 0 : gpu_present(why);
    if (o->backend == BACKEND_AUTO) {
        o->backend = present ? BACKEND_GPU : BACKEND_CPU;
        if (!present)
            fprintf(stderr, "fp8attn %s: no GPU found: using the CPU backend (%s)\n", o->cmd, why);
    } else if (o->backend == BACKEND_GPU && !present) {
        fprintf(stderr, "fp8attn %s: --backend gpu: no usable CUDA device (%s)\n", o->cmd, why);
        return -1;
    }
    if (o->backend == BACKEND_CPU && o->variant) {
        fprintf(stderr,
                "fp8attn %s: --variant '%s' applies to the GPU backend only (no GPU here)\n",
                o->cmd, o->variant);
        return -1;
    }
    if (o->variant && !variant_known(o->cmd, "--variant", o->variant)) return -1;
    return 0;
}

/* ---- shapes ---- */

void shape_format(const shape_t *s, char *buf, size_t n)
{
    snprintf(buf, n, "B=%d Hq=%d Hkv=%d Sq=%d Sk=%d D=%d causal=%d", (int)s->batch, (int)s->h_q,
             (int)s->h_kv, (int)s->seqlen_q, (int)s->seqlen_k, (int)s->head_dim, s->causal);
}

int64_t shape_visible_pairs(const shape_t *s)
{
    int64_t total = 0, i;
    if (!s->causal) return (int64_t)s->seqlen_q * s->seqlen_k;
    for (i = 0; i < s->seqlen_q; i++) {
        int64_t seen = i + (int64_t)s->seqlen_k - s->seqlen_q + 1; /* keys j <= i + Sk - Sq */
        if (seen > s->seqlen_k) seen = s->seqlen_k;
        if (seen > 0) total += seen;
    }
    return total;
}

void shape_to_json(const shape_t *s, json_t *obj)
{
    json_object_set_new(obj, "shape", json_string(s->name));
    json_object_set_new(obj, "B", json_integer(s->batch));
    json_object_set_new(obj, "h_q", json_integer(s->h_q));
    json_object_set_new(obj, "h_kv", json_integer(s->h_kv));
    json_object_set_new(obj, "seqlen_q", json_integer(s->seqlen_q));
    json_object_set_new(obj, "seqlen_k", json_integer(s->seqlen_k));
    json_object_set_new(obj, "head_dim", json_integer(s->head_dim));
    json_object_set_new(obj, "causal", json_boolean(s->causal));
}

void run_opts_to_json(const run_opts_t *o, json_t *obj)
{
    json_object_set_new(obj, "layout", json_string(layout_name(o->bshd)));
    json_object_set_new(obj, "out_type", json_string(out_type_name(o->out_type)));
    json_object_set_new(obj, "lse", json_boolean(o->lse));
    json_object_set_new(obj, "descale", json_string(descale_name(o->descale)));
    json_object_set_new(obj, "workspace", json_boolean(!o->no_workspace));
    json_object_set_new(obj, "inputs", json_string(k_inputs_names[o->inputs]));
}

/* ---- misc ---- */

const char *layout_name(int bshd) { return k_layout_names[bshd ? 1 : 0]; }

const char *out_type_name(fp8attn_out_type_t t)
{
    return k_out_type_names[t == FP8ATTN_OUT_BF16 ? 1 : 0];
}

const char *descale_name(fp8attn_granularity_t g)
{
    return (unsigned)g < 3 ? k_descale_names[g] : "unknown";
}

int add_distinct(const char **list, int n, const char *name)
{
    int i;
    if (!name || !name[0]) return n;
    for (i = 0; i < n; i++)
        if (!strcmp(list[i], name)) return n;
    list[n] = name;
    return n + 1;
}

double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

json_t *json_number_or_null(double x) { return isfinite(x) ? json_real(x) : json_null(); }
