/* fuzz_list.c - libFuzzer target: imgbatch's --list reader
 * (06_image_preprocess/batch/dataset.c, inputs_collect with a list
 * file) on any bytes, written to a file first as the reader takes a
 * path. A list it accepts holds each non-empty line, cut at its first
 * carriage return, in order: whole, or, when every line ends in a space
 * or tab and digits, the path before them and the digits as its label.
 *
 *   make fuzz                  builds $(BUILD)/fuzz/fuzz_list, runs it
 *   tests/test_06_fuzz.c       replays tests/fuzz/corpus/ and crashes/
 */
#include "../../06_image_preprocess/batch/batch_inputs.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char path[64];

static void remove_list(void)
{
    remove(path);
}

int fuzz_list(const uint8_t *data, size_t size)
{
    if (!path[0]) {
        /* In memory where we can: a disk makes it 100 times slower. */
        const char *tmp = getenv("TMPDIR");
        if (!tmp || !tmp[0])
            tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        snprintf(path, sizeof path, "%.40s/fuzz_list_XXXXXX", tmp);
        int fd = mkstemp(path);
        if (fd < 0)
            abort();
        close(fd);
        atexit(remove_list);
    }
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
    path_list list;
    char err[512] = "";
    if (inputs_collect(NULL, 0, path, &list, err, sizeof err) != 0) {
        if (strncmp(err, path, strlen(path)) != 0 || strchr(err, '\n'))
            abort();
        return 0;
    }
    size_t at = 0, n = 0;
    while (at < size) {
        const uint8_t *nl = memchr(data + at, '\n', size - at);
        size_t end = nl ? (size_t)(nl - data) : size, cut = at;
        while (cut < end && data[cut] != '\r')
            cut++;
        if (cut > at) {
            /* The label: digits after the line's last space or tab. */
            size_t sep = cut, path_end = cut;
            uint64_t label = 0;
            for (size_t i = at; i < cut; i++)
                if (data[i] == ' ' || data[i] == '\t')
                    sep = i;
            int labelled = sep < cut - 1;
            for (size_t i = sep + 1; labelled && i < cut; i++) {
                labelled = data[i] >= '0' && data[i] <= '9';
                label = label * 10 + (uint64_t)(data[i] - '0');
            }
            if (labelled) {
                path_end = sep;
                while (path_end > at && (data[path_end - 1] == ' ' ||
                                         data[path_end - 1] == '\t'))
                    path_end--;
            }
            if (n >= list.count || !labelled != !list.labels ||
                (labelled && list.labels[n] != (int64_t)label) ||
                strlen(list.paths[n]) != path_end - at ||
                memcmp(list.paths[n], data + at, path_end - at) != 0)
                abort();
            n++;
        }
        at = end + 1;
    }
    if (n != list.count)
        abort();
    path_list_free(&list);
    return 0;
}

#ifndef FUZZ_REPLAY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_list(data, size);
}
#endif
