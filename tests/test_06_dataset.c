/* test_06_dataset.c - imgbatch's data sets (batch/dataset.c,
 * batch/batch_inputs.c) on the CPU, in a folder tree built in a
 * temporary folder: class folders in ImageFolder's order (classes by
 * name in byte order, each class's folders in sorted(os.walk()) order,
 * which is not the order of whole paths), labels, the files left out
 * named one line each (types not read, files beside the classes, a
 * link back up), the errors; a plain folder naming what it leaves out;
 * the README's extensions read in any case, others not;
 * list files with and without labels and their errors; labels that
 * follow their files when --skip-bad removes one. */
#include "test.h"
#include "../06_image_preprocess/batch/batch_inputs.h"
#include "../06_image_preprocess/batch/dataset.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char top[256];

/* top/rel; a static buffer per call site is enough here. */
static const char *at(const char *rel)
{
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", top, rel);
    return buf[k];
}

static void folder(const char *rel)
{
    if (mkdir(at(rel), 0755) != 0) {
        perror(at(rel));
        exit(1);
    }
}

static void file(const char *rel, const char *text)
{
    FILE *f = fopen(at(rel), "wb");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        perror(at(rel));
        exit(1);
    }
}

/* Everything written to say, with top/ taken out of each path. */
static char *said(FILE *say)
{
    static char text[4096];
    size_t n;
    rewind(say);
    n = fread(text, 1, sizeof text - 1, say);
    text[n] = '\0';
    fclose(say);
    char *p;
    while ((p = strstr(text, top)) != NULL)
        memmove(p, p + strlen(top) + 1, strlen(p + strlen(top) + 1) + 1);
    return text;
}

/* 1 if list holds exactly the paths want (relative to top) with labels
 * (NULL: none). */
static int holds(const path_list *list, const char *const *want, size_t n,
                 const int64_t *labels)
{
    if (list->count != n || !labels != !list->labels)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(list->paths[i], at(want[i])) != 0 ||
            (labels && list->labels[i] != labels[i])) {
            fprintf(stderr, "  [%zu] %s, label %lld\n", i, list->paths[i],
                    labels ? (long long)list->labels[i] : -1LL);
            return 0;
        }
    return 1;
}

static int gather(const char *root, int classes, path_list *list,
                  FILE *say, char *err, size_t err_len)
{
    char *args[1] = {(char *)root};
    inputs_request q = {.args = args, .n_args = 1,
                        .class_folders = classes, .skipped = say};
    return inputs_gather(&q, list, err, err_len);
}

static void class_folders(void)
{
    char err[1024];
    path_list list;
    /* Classes "Dog" < "cat" < "zebra" in byte order. In cat, the
     * folders sorted as whole paths are cat, cat/sub, cat/sub-x,
     * cat/sub/deeper ('-' sorts before '/'), each with its files: so
     * sub/c.png comes before sub-x/d.png, which a sort of whole file
     * paths would put first. */
    folder("tree");
    folder("tree/zebra");
    folder("tree/cat");
    folder("tree/cat/sub");
    folder("tree/cat/sub-x");
    folder("tree/cat/sub/deeper");
    folder("tree/Dog");
    file("tree/zebra/z1.png", "x");
    file("tree/zebra/z0.jpg", "x");
    file("tree/zebra/notes.txt", "x");
    file("tree/cat/b.png", "x");
    file("tree/cat/a.JPG", "x");
    file("tree/cat/sub/c.png", "x");
    file("tree/cat/sub-x/d.png", "x");
    file("tree/cat/sub/deeper/e.png", "x");
    file("tree/Dog/y.bmp", "x");
    file("tree/Dog/x.webp", "x");
    file("tree/Dog/README", "x");
    file("tree/loose.png", "x");
    if (symlink("..", at("tree/cat/sub/deeper/up")) != 0)
        perror("symlink");
    static const char *const want[] = {
        "tree/Dog/y.bmp", "tree/cat/a.JPG", "tree/cat/b.png",
        "tree/cat/sub/c.png", "tree/cat/sub-x/d.png",
        "tree/cat/sub/deeper/e.png", "tree/zebra/z0.jpg",
        "tree/zebra/z1.png"};
    static const int64_t labels[] = {0, 1, 1, 1, 1, 1, 2, 2};
    FILE *say = tmpfile();
    EXPECT(gather(at("tree/"), 1, &list, say, err, sizeof err) == 0);
    EXPECT(holds(&list, want, 8, labels));
    EXPECT(list.classes == 3 && strcmp(list.class_names[0], "Dog") == 0 &&
           strcmp(list.class_names[1], "cat") == 0 &&
           strcmp(list.class_names[2], "zebra") == 0);
    EXPECT(list.unread == 4);
    EXPECT_STR(strdup(said(say)),
               "skipped: tree/loose.png: not in a class folder\n"
               "skipped: tree/Dog/README: not an image imgbatch reads "
               "(no extension)\n"
               "skipped: tree/Dog/x.webp: not an image imgbatch reads "
               "(.webp)\n"
               "skipped: tree/cat/sub/deeper/up: a link to a folder above "
               "it, not followed\n"
               "skipped: tree/zebra/notes.txt: not an image imgbatch reads "
               "(.txt)\n");
    path_list_free(&list);

    /* Without --class-folders the root holds one image and names what
     * it leaves out; the subfolders are not read. */
    say = tmpfile();
    EXPECT(gather(at("tree"), 0, &list, say, err, sizeof err) == 0);
    static const char *const loose[] = {"tree/loose.png"};
    EXPECT(holds(&list, loose, 1, NULL) && list.classes == 0 &&
           list.unread == 0);
    EXPECT_STR(strdup(said(say)), "");
    path_list_free(&list);

    /* A class of no image it reads: named, with its label. */
    folder("tree/emu");
    file("tree/emu/e.tiff", "x");
    say = tmpfile();
    EXPECT(gather(at("tree"), 1, &list, say, err, sizeof err) == -1 &&
           strstr(err, "tree/emu: class 'emu' (label 2) holds no image "
                  "imgbatch reads (.png, .jpg,") && list.count == 0);
    fclose(say);
    /* A hidden folder is a class, as in ImageFolder. */
    folder("hidden");
    folder("hidden/.ipynb_checkpoints");
    folder("hidden/a");
    file("hidden/a/1.png", "x");
    EXPECT(gather(at("hidden"), 1, &list, NULL, err, sizeof err) == -1 &&
           strstr(err, "class '.ipynb_checkpoints' (label 0) holds no "
                  "image"));
    /* No class folder; not a folder; --class-folders with two paths. */
    folder("flat");
    file("flat/a.png", "x");
    EXPECT(gather(at("flat"), 1, &list, NULL, err, sizeof err) == -1 &&
           strstr(err, "flat: no class folder in it: --class-folders "
                  "takes a folder of one folder per class"));
    EXPECT(gather(at("flat/a.png"), 1, &list, NULL, err, sizeof err) ==
               -1 && strstr(err, "flat/a.png: not a folder"));
    EXPECT(gather(at("nothing"), 1, &list, NULL, err, sizeof err) == -1 &&
           strstr(err, "nothing: cannot list: No such file"));
    /* A class 65 folders deep: refused, not walked for ever. */
    char deep[256] = "nest";
    folder(deep);
    strcat(deep, "/c");
    for (int d = 0; d <= 65; d++) {
        folder(deep);
        if (d < 65)
            strcat(deep, "/d");
    }
    file("nest/c/x.png", "x");
    EXPECT(gather(at("nest"), 1, &list, NULL, err, sizeof err) == -1 &&
           strstr(err, "/d: folders nested more than 64 deep"));
    char *two[2] = {(char *)at("tree"), (char *)at("flat")};
    inputs_request q = {.args = two, .n_args = 2, .class_folders = 1};
    EXPECT(inputs_gather(&q, &list, err, sizeof err) == -1 &&
           strstr(err, "--class-folders takes one folder"));
}

static void plain_folder(void)
{
    char err[1024];
    path_list list;
    folder("plain");
    folder("plain/sub");
    file("plain/b.png", "x");
    file("plain/a.PGM", "x");
    file("plain/c.tif", "x");
    file("plain/.hidden.png", "x");
    file("plain/d.heic", "x");
    FILE *say = tmpfile();
    EXPECT(gather(at("plain"), 0, &list, say, err, sizeof err) == 0);
    static const char *const want[] = {"plain/a.PGM", "plain/b.png"};
    EXPECT(holds(&list, want, 2, NULL) && list.unread == 2);
    EXPECT_STR(strdup(said(say)),
               "skipped: plain/c.tif: not an image imgbatch reads (.tif)\n"
               "skipped: plain/d.heic: not an image imgbatch reads "
               "(.heic)\n");
    path_list_free(&list);
    /* Only folders: the reason says what would read them. */
    folder("only_folders");
    folder("only_folders/a");
    EXPECT(gather(at("only_folders"), 0, &list, NULL, err, sizeof err) ==
               -1 && strstr(err, "only_folders: no image files in this "
                            "folder (.png, .jpg, .bmp, .gif, .tga, .pgm, "
                            "...); its subfolders are read as classes with "
                            "--class-folders"));
}

/* The names a folder's listing reads: the README's extensions, in any
 * case, and no other (the dot's last one counts). */
static void extensions(void)
{
    static const char *const readme[] = {"png", "jpg", "jpeg", "bmp", "gif",
                                         "tga", "psd", "hdr", "pic", "pgm",
                                         "ppm", "pnm"};
    enum { N = sizeof readme / sizeof readme[0] };
    EXPECT(DS_IMAGE_EXTENSION_COUNT == N);
    for (size_t k = 0; k < N; k++) {
        char lower[16], upper[16];
        snprintf(lower, sizeof lower, "a.%s", readme[k]);
        for (size_t i = 0; i <= strlen(lower); i++)
            upper[i] = (char)toupper((unsigned char)lower[i]);
        EXPECT(ds_reads_name(lower) && ds_reads_name(upper));
    }
    static const char *const not_read[] = {"a.webp", "a.tif", "a.txt",
                                           "png", "a.png.txt", "a.",
                                           "a.jpgx"};
    for (size_t k = 0; k < sizeof not_read / sizeof not_read[0]; k++)
        EXPECT(!ds_reads_name(not_read[k]));
}

/* The list file rel holding text: 0 with list, or -1 with err. */
static int list_of(const char *rel, const char *text, path_list *list,
                   char *err, size_t err_len)
{
    file(rel, text);
    return inputs_collect(NULL, 0, at(rel), list, err, err_len);
}

static void list_files(void)
{
    char err[1024];
    path_list list;
    /* Labels after the last space or tab; a path may hold spaces. */
    EXPECT(list_of("l1.txt", "my photos/a b.png 3\r\nc.png\t0\n\n"
                   "d.png   12\n", &list, err, sizeof err) == 0);
    EXPECT(list.count == 3 && list.labels &&
           strcmp(list.paths[0], "my photos/a b.png") == 0 &&
           list.labels[0] == 3 && strcmp(list.paths[1], "c.png") == 0 &&
           list.labels[1] == 0 && strcmp(list.paths[2], "d.png") == 0 &&
           list.labels[2] == 12 && list.classes == 0);
    path_list_free(&list);
    /* No label anywhere: the whole line is the path, spaces and all. */
    EXPECT(list_of("l2.txt", "scan 2.png\nb.png\n", &list, err,
                   sizeof err) == 0);
    EXPECT(list.count == 2 && !list.labels &&
           strcmp(list.paths[0], "scan 2.png") == 0);
    path_list_free(&list);
    /* A line without a label among labelled ones, either way round. */
    EXPECT(list_of("l3.txt", "a.png 1\nb.png 2\nc.png\n", &list, err,
                   sizeof err) == -1 &&
           strstr(err, "l3.txt: line 3 has no label, but line 1 has one: "
                  "give every line a label (PATH LABEL) or none"));
    EXPECT(list_of("l4.txt", "a.png\nb.png 2\n", &list, err, sizeof err) ==
               -1 && strstr(err, "l4.txt: line 1 has no label, but line 2 "
                            "has one"));
    EXPECT(list_of("l5.txt", "a.png 1\nb.png -1\n", &list, err,
                   sizeof err) == -1 &&
           strstr(err, "l5.txt: line 2 is not a label from 0 to "
                  "9223372036854775807"));
    EXPECT(list_of("l6.txt", "a.png 9223372036854775808\n", &list, err,
                   sizeof err) == -1 &&
           strstr(err, "l6.txt: line 1 is not a label from 0"));
    EXPECT(list_of("l7.txt", "a.png 9223372036854775807\n", &list, err,
                   sizeof err) == 0 && list.labels[0] == INT64_MAX);
    path_list_free(&list);
    EXPECT(list_of("l8.txt", "a.png 1\n 2\n", &list, err, sizeof err) ==
               -1 && strstr(err, "l8.txt: line 2 holds a label but no "
                            "path"));
}

/* A 2 x 1 gray PGM. */
static void pgm(const char *rel)
{
    FILE *f = fopen(at(rel), "wb");
    if (!f || fwrite("P5 2 1 255\n\x10\x20", 1, 13, f) != 13 ||
        fclose(f) != 0) {
        perror(at(rel));
        exit(1);
    }
}

static void labels_follow_files(void)
{
    char err[1024], text[1024];
    path_list list;
    pgm("p0.pgm");
    file("p1.pgm", "not a PGM");
    pgm("p2.pgm");
    snprintf(text, sizeof text, "%s 4\n%s 5\n%s 6\n", at("p0.pgm"),
             at("p1.pgm"), at("p2.pgm"));
    EXPECT(list_of("labels.txt", text, &list, err, sizeof err) == 0);
    tf_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.mode = TF_SAME;
    spec.channels = 1;
    batch_source src = {.list = &list, .channels = 1, .spec = &spec,
                        .max_pixels = 1000};
    size_t skipped = 0, bytes = 0;
    EXPECT(inputs_check(&src, 1, 0, &skipped, &bytes, err, sizeof err) ==
           0);
    EXPECT(skipped == 1 && list.count == 2 && list.labels[0] == 4 &&
           list.labels[1] == 6 && strstr(list.paths[1], "p2.pgm"));
    inputs_free(&src);
    path_list_free(&list);
}

int main(void)
{
    snprintf(top, sizeof top, "%s/test_06_dataset.XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(top)) {
        perror(top);
        return 1;
    }
    class_folders();
    plain_folder();
    extensions();
    list_files();
    labels_follow_files();
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", top);
    return test_summary();
}
