/* fileio.c — see fileio.h. */
#include "fileio.h"

#include <errno.h>
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
