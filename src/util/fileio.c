/* fileio.c — see fileio.h. */
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

/* errno after a failed call, EIO if the call left none. */
static int cause(void)
{
    return errno ? errno : EIO;
}

/*
 * Why a stream's earlier write failed: the stream keeps only the fact. One byte written again
 * directly gives the cause (a full disk: ENOSPC); the file is reported as failed in any case.
 */
static int failed_write_cause(FILE *f)
{
    errno = 0;
    int fd = fileno(f);
    return fd >= 0 && write(fd, "\n", 1) < 0 ? cause() : EIO;
}

int st_file_close(FILE *f)
{
    /* The flush first: after a failed write the stream may still hold data, and writing it again gives
     * the real cause (the errno of the first failure may have been overwritten since). */
    errno = 0;
    int err = fflush(f) != 0 ? cause() : ferror(f) ? failed_write_cause(f) : 0;
    errno = 0;
    if (fclose(f) != 0 && !err)
        err = cause();
    return err;
}

int st_file_new_open(st_file_new_t *n, const char *path)
{
    n->f = NULL;
    n->tmp[0] = 0;
    if (snprintf(n->path, sizeof n->path, "%s", path) >= (int)sizeof n->path)
        return ENAMETOOLONG;
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) { /* a device or pipe the user named: written into */
        n->f = fopen(path, "w");
        return n->f ? 0 : cause();
    }
    for (int attempt = 0; attempt < 64; attempt++) {
        uint64_t r;
        if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
            r = (uint64_t)getpid() << 32 ^ (uint64_t)(uintptr_t)n ^ (uint64_t)attempt * 0x9e3779b97f4a7c15u;
        if (snprintf(n->tmp, sizeof n->tmp, "%s.tmp-%016" PRIx64, path, r) >= (int)sizeof n->tmp)
            return ENAMETOOLONG;
        int fd = open(n->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0 && errno == EEXIST)
            continue;
        if (fd < 0)
            return cause();
        if (!(n->f = fdopen(fd, "w"))) {
            int err = cause();
            close(fd);
            unlink(n->tmp);
            return err;
        }
        return 0;
    }
    return EEXIST;
}

int st_file_new_commit(st_file_new_t *n, int failed)
{
    int err = st_file_close(n->f);
    n->f = NULL;
    if (!err)
        err = failed;
    if (!n->tmp[0])
        return err;
    if (!err && rename(n->tmp, n->path) != 0)
        err = cause();
    if (err)
        unlink(n->tmp);
    return err;
}
