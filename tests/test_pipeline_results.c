/* tools/results.c: results directories (mkdir -p, default name, reuse) and build_meta.json. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "fp8attn.h"
#include "results.h"
#include "test_util.h"

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* "YYYY-mm-ddTHH:MM:SSZ" */
static int is_iso_utc(const char *s)
{
    static const char pattern[] = "dddd-dd-ddTdd:dd:ddZ";
    size_t i;
    if (!s || strlen(s) != sizeof pattern - 1) return 0;
    for (i = 0; pattern[i]; i++)
        if (pattern[i] == 'd' ? (s[i] < '0' || s[i] > '9') : s[i] != pattern[i]) return 0;
    return 1;
}

static json_t *load_meta(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/build_meta.json", dir);
    return json_load_file(path, 0, NULL);
}

static void check_meta(const json_t *meta, int want_reused)
{
    const json_t *variants = json_object_get(meta, "variants");
    const json_t *devices = json_object_get(meta, "devices");
    const json_t *build = json_object_get(meta, "build");
    expect_true("build_meta.json is a JSON object", json_is_object(meta));
    expect_true("written_at is UTC ISO-8601",
           is_iso_utc(json_string_value(json_object_get(meta, "written_at"))));
    expect_true("fp8attn_version is the library's",
           !strcmp(json_string_value(json_object_get(meta, "fp8attn_version")) ?
                       json_string_value(json_object_get(meta, "fp8attn_version")) : "",
                   fp8attn_version()));
    expect_true("variants == [\"mma\"]", json_array_size(variants) == 1 &&
                                       !strcmp(json_string_value(json_array_get(variants, 0)),
                                               "mma"));
    expect_true("build.cuda_archs lists at least one arch",
           json_array_size(json_object_get(build, "cuda_archs")) > 0);
    expect_true("build.git.sha is a string",
           json_is_string(json_object_get(json_object_get(build, "git"), "sha")));
    expect_true("devices is an array", json_is_array(devices));
    expect_true("no devices comes with device_error",
           json_array_size(devices) > 0 ||
               json_is_string(json_object_get(meta, "device_error")));
    expect_true(want_reused ? "reused_dir is true" : "reused_dir is false",
           json_is_boolean(json_object_get(meta, "reused_dir")) &&
               json_is_true(json_object_get(meta, "reused_dir")) == want_reused);
}

static void test_open_nested_and_reuse(const char *root)
{
    const char *variants[] = {"mma"};
    char dir[4096];
    char *got;
    json_t *meta;
    snprintf(dir, sizeof dir, "%s/a/b/c", root);
    got = results_open_dir(dir, "ignored", variants, 1);
    expect_true("nested dir created and its path returned", got && !strcmp(got, dir) && is_dir(dir));
    meta = load_meta(dir);
    check_meta(meta, 0);
    json_decref(meta);
    free(got);
    got = results_open_dir(dir, NULL, variants, 1);
    meta = load_meta(dir);
    expect_true("reopening works", got != NULL);
    check_meta(meta, 1);
    json_decref(meta);
    free(got);
}

/* Default name: results/YYYYmmdd-HHMMSS-<label with odd characters replaced by '_'>. */
static void test_default_name(const char *root)
{
    char *got;
    expect_true("chdir to the scratch dir", chdir(root) == 0);
    got = results_open_dir(NULL, "my label/x", NULL, 0);
    expect_true("default dir returned", got != NULL);
    if (!got) return;
    expect_true("default dir is results/<15-char stamp>-my_label_x",
           strlen(got) == strlen("results/") + 15 + strlen("-my_label_x") &&
               !strncmp(got, "results/", 8) && got[16] == '-' &&
               !strcmp(got + 8 + 15, "-my_label_x"));
    expect_true("default dir exists", is_dir(got));
    free(got);
}

static void test_failures(const char *root)
{
    char file[1024], dir[1100];
    FILE *f;
    json_t *obj = json_pack("{s:i}", "x", 1);
    snprintf(file, sizeof file, "%s/plain_file", root);
    f = fopen(file, "w");
    if (f) fclose(f);
    snprintf(dir, sizeof dir, "%s/sub", file);
    printf("(two error messages expected below)\n");
    expect_true("a dir under a regular file is refused", results_open_dir(dir, NULL, NULL, 0) == NULL);
    expect_true("writing into a missing dir is refused",
           results_write_json(dir, "out.json", obj) == -1);
    expect_true("writing into an existing dir works", results_write_json(root, "out.json", obj) == 0);
    json_decref(obj);
}

int main(void)
{
    char root[] = "/tmp/fp8attn_results_test_XXXXXX";
    char cmd[256];
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        return 1;
    }
    test_open_nested_and_reuse(root);
    test_default_name(root);
    test_failures(root);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root); /* our own mkdtemp name: no quote in it */
    if (system(cmd) != 0) printf("note: could not remove %s\n", root);
    if (g_failures) printf("%ld failure(s)\n", g_failures);
    else printf("all results checks passed\n");
    return g_failures ? 1 : 0;
}
