/* Options, shapes and presets shared by `fp8attn check` and `fp8attn bench`, and the argument
 * loop and value parsers every command uses (--flag VALUE and --flag=VALUE alike). */
#ifndef FP8ATTN_TOOL_COMMON_H
#define FP8ATTN_TOOL_COMMON_H

#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "fp8attn.h"

/* Size of the error-message buffers passed around the tool (char err[ERR_LEN]). */
#define ERR_LEN 512

/* Exit codes of every command (see commands.h). A run that fails (a CUDA error, a failure of
 * the CPU backend) is not a gate failure: it exits EXIT_RUN_FAILED, the same 2 as bad
 * arguments. */
#define EXIT_PASS 0
#define EXIT_GATE_FAILED 1
#define EXIT_BAD_ARGS 2
#define EXIT_RUN_FAILED 2

typedef enum { BACKEND_AUTO = 0, BACKEND_CPU, BACKEND_GPU } backend_t;

/* One attention problem size. Presets take `causal` from --causal, except those that carry
 * their own flag (fa3). */
typedef struct {
    char name[16]; /* preset name, or "custom" for --shape */
    int32_t batch, h_q, h_kv, seqlen_q, seqlen_k, head_dim;
    int causal;
} shape_t;

/* A shape named `name` (causal 1/0, or -1 for presets that follow --causal). */
shape_t make_shape(const char *name, int32_t b, int32_t hq, int32_t hkv, int32_t sq, int32_t sk,
                   int32_t d, int causal);

/* --inputs: how Q, K, V are drawn (common_usage_inputs says what each does). */
enum { INPUTS_NORMAL = 0, INPUTS_RISING, INPUTS_SPIKE };

/* Options common to check and bench. */
typedef struct {
    const char *cmd;                /* "check" or "bench", for messages */
    backend_t backend;
    const char *variant;            /* --variant, NULL = the library's default per shape */
    shape_t *shapes;
    int n_shapes;
    int causal;                     /* --causal */
    uint64_t *seeds;
    int n_seeds;
    int bshd;                       /* --layout bshd (else bhsd) */
    fp8attn_out_type_t out_type;    /* --out-type */
    fp8attn_granularity_t descale;  /* --descale */
    int lse;                        /* --lse */
    int no_workspace;               /* --no-workspace */
    int inputs;                     /* --inputs: INPUTS_NORMAL, _RISING or _SPIKE */
    const char *out_dir;            /* --out, NULL if not given */
    const char *label;              /* --label */
} run_opts_t;

/* Outcome of offering one argument to a parser. */
typedef enum { ARG_UNKNOWN = 0, ARG_OK, ARG_BAD, ARG_HELP } arg_result_t;

/* Cursor over argv while parsing; `i` is the argument being looked at. */
typedef struct {
    int argc;
    char **argv;
    int i;
    const char *cmd;
} args_t;

/* Command-specific options: called for every argument the common parser does not know.
 * Returns ARG_UNKNOWN for an argument it does not know either. */
typedef arg_result_t (*extra_parser_t)(args_t *a, void *ctx);

/* The argument loop of every command: argv[1..argc) one by one; --help / -h give ARG_HELP, any
 * other argument goes to `parse`. An argument nobody knows is refused with "fp8attn CMD: unknown
 * option 'X'". Returns ARG_OK, ARG_HELP or ARG_BAD (after printing what is wrong). */
arg_result_t args_parse(int argc, char **argv, const char *cmd, extra_parser_t parse, void *ctx);

/* Sets the defaults: automatic backend, head descales, bhsd, fp16, the given default seeds and
 * label. Shapes default to the four presets when none is given (see common_parse_args). */
void common_opts_init(run_opts_t *o, const char *cmd, const uint64_t *seeds, int n_seeds,
                      const char *label);
void common_opts_free(run_opts_t *o);

/* Parses argv[1..argc) into `o`, handing unknown options to `extra`. Returns ARG_OK, ARG_HELP
 * (--help seen) or ARG_BAD (after printing what is wrong). */
arg_result_t common_parse_args(int argc, char **argv, run_opts_t *o, extra_parser_t extra,
                               void *ctx);
/* Prints the help of the options parsed by common_parse_args. */
void common_usage_options(FILE *f);
/* Prints how the inputs are drawn and quantized. */
void common_usage_inputs(FILE *f);

/* ---- helpers for command-specific options ---- */
/* 1 if the current argument is the flag `name` (no value). */
int arg_flag(const args_t *a, const char *name);
/* If the current argument is `--name VALUE` or `--name=VALUE`: sets *value (advancing past a
 * separate value) and returns ARG_OK; ARG_BAD if the value is missing; else ARG_UNKNOWN. */
arg_result_t arg_value(args_t *a, const char *name, const char **value);
/* Value parsers: print "fp8attn CMD: FLAG 'TEXT': what is allowed" and return -1 on bad input. */
int parse_nonneg_double(const char *cmd, const char *flag, const char *text, double *out);
int parse_int_range(const char *cmd, const char *flag, const char *text, long lo, long hi,
                    int *out);
/* A whole number >= 0 (digits only). */
int parse_count(const char *cmd, const char *flag, const char *text, long long *out);
/* A fraction: "10%" and "0.10" both give 0.10; a bare number must be below 1 in magnitude ("10"
 * is refused as ambiguous). Negative values are allowed; callers check their own range. */
int parse_fraction(const char *cmd, const char *flag, const char *text, double *out);

/* Resolves BACKEND_AUTO: gpu when a CUDA device is usable, else cpu with one line on stderr.
 * --backend gpu without a device, or an unknown --variant, print why and return -1 (exit 2). */
int resolve_backend(run_opts_t *o);
/* 1 if `name` is a registered kernel variant; else 0 after printing the known names. */
int variant_known(const char *cmd, const char *flag, const char *name);

/* ---- shapes ---- */
/* "B=1 Hq=8 Hkv=8 Sq=512 Sk=512 D=64 causal=1" */
void shape_format(const shape_t *s, char *buf, size_t n);
/* Number of (query, key) pairs the mask lets through: Sq*Sk, or under the bottom-right causal
 * mask sum_i clamp(i + Sk - Sq + 1, 0, Sk). */
int64_t shape_visible_pairs(const shape_t *s);
/* Adds the shape key fields ("shape", "B", "h_q", "h_kv", "seqlen_q", "seqlen_k", "head_dim",
 * "causal") to a JSON object. */
void shape_to_json(const shape_t *s, json_t *obj);
/* Adds the run options that change what is computed -- "layout", "out_type", "lse" and
 * "descale" -- to a JSON object. With shape_to_json they make the key on which compare and gate
 * match perf.json and correctness.json records. */
void run_opts_to_json(const run_opts_t *o, json_t *obj);

/* ---- misc ---- */
/* The values of --backend, --layout, --out-type and --descale, NULL-terminated; the last three
 * in the order of bshd (0/1), fp8attn_out_type_t and fp8attn_granularity_t. */
extern const char *const k_backend_names[];
extern const char *const k_layout_names[];
extern const char *const k_out_type_names[];
extern const char *const k_descale_names[];
extern const char *const k_inputs_names[]; /* in the order of INPUTS_* */
/* Index of `text` in a NULL-terminated name list, or -1. */
int choice_index(const char *text, const char *const *names);
/* "a, b, c" from a NULL-terminated name list. */
void choice_list(const char *const *names, char *buf, size_t len);
const char *layout_name(int bshd);
const char *out_type_name(fp8attn_out_type_t t);
const char *descale_name(fp8attn_granularity_t g);
/* Appends `name` to list[0..n) unless already there (or empty); returns the new count. */
int add_distinct(const char **list, int n, const char *name);
/* Seconds on CLOCK_MONOTONIC. */
double now_seconds(void);
/* JSON number, or null when x is not finite (JSON has no NaN). */
json_t *json_number_or_null(double x);

#endif
