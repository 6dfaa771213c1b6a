/* fileio.c — see fileio.h. */
#include "fileio.h"

#include <errno.h>

/* errno after a failed call, EIO if the call left none. */
static int cause(void)
{
    return errno ? errno : EIO;
}

int st_file_close(FILE *f)
{
    /* The flush first: after a failed write the stream still holds data, and writing it again gives
     * the real cause (the errno of the first failure may have been overwritten since). */
    errno = 0;
    int err = fflush(f) != 0 ? cause() : ferror(f) ? EIO : 0;
    errno = 0;
    if (fclose(f) != 0 && !err)
        err = cause();
    return err;
}
