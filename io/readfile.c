/*
 * readfile.c — the one way the program opens a file to read: scripts and
 * their modules, images, tiles, tile records, manifests. A path is named
 * by the user or by a file the user can edit, so it may be a FIFO with no
 * writer (an open that blocks for ever), a device (/dev/zero: a read that
 * never ends) or a file far larger than its format can be. Each is refused
 * by what it is, on the descriptor that would be read, before a byte is.
 */
#include "ng_io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int ng_file_open_read(const char *path, const char *what, uint64_t max_bytes, uint64_t *bytes, ng_error *err)
{
    struct stat st;
    int en, fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        en = errno;
        ng_errorf(err, "%s: cannot open %s (%s)", path, what, strerror(en));
        errno = en;
        return -1;
    }
    if (fstat(fd, &st) != 0) {
        en = errno;
        ng_errorf(err, "%s: cannot open %s (%s)", path, what, strerror(en));
    } else if (S_ISDIR(st.st_mode)) {
        en = EISDIR;
        ng_errorf(err, "%s: is a directory, not %s", path, what);
    } else if (!S_ISREG(st.st_mode)) {
        en = EINVAL;
        ng_errorf(err, "%s: is not a regular file (a FIFO, device or socket), not %s", path, what);
    } else if (max_bytes && (uint64_t)st.st_size > max_bytes) {
        const int mib = max_bytes >= (1u << 20);
        en = EFBIG;
        ng_errorf(err, "%s: a %llu-byte file is larger than %s can be (%llu %s at most)", path,
                  (unsigned long long)st.st_size, what, (unsigned long long)(mib ? max_bytes >> 20 : max_bytes),
                  mib ? "MiB" : "bytes");
    } else {
        *bytes = (uint64_t)st.st_size;
        return fd; /* O_NONBLOCK changes no read of a regular file */
    }
    close(fd);
    errno = en;
    return -1;
}

char *ng_file_read_all(const char *path, const char *what, uint64_t max_bytes, size_t *len, ng_error *err)
{
    uint64_t bytes = 0;
    size_t got = 0;
    char *text;
    int fd = ng_file_open_read(path, what, max_bytes, &bytes, err);
    if (fd < 0) return NULL;
    if (bytes >= SIZE_MAX || !(text = malloc((size_t)bytes + 1))) {
        close(fd);
        ng_errorf(err, "%s: out of memory for %llu bytes", path, (unsigned long long)bytes);
        errno = ENOMEM;
        return NULL;
    }
    while (got < (size_t)bytes) { /* a file that shrank meanwhile: what is there */
        ssize_t r = read(fd, text + got, (size_t)bytes - got);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            const int en = errno;
            ng_errorf(err, "%s: cannot read %s (%s)", path, what, strerror(en));
            close(fd);
            free(text);
            errno = en;
            return NULL;
        }
        if (r == 0) break;
        got += (size_t)r;
    }
    close(fd);
    text[got] = '\0';
    *len = got;
    return text;
}
