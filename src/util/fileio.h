/* fileio.h — closing a stdio file that was written, with the cause of any failure. */
#ifndef ST_FILEIO_H
#define ST_FILEIO_H

#include <stdio.h>

/*
 * Flushes and closes f (which is gone afterwards, whatever happens). Returns 0, or the errno of the
 * first failure (a write error seen earlier on f, the flush, or the close; EIO when the cause is not known),
 * so the caller can name the file and the cause (ENOSPC: "No space left on device").
 */
int st_file_close(FILE *f);

#endif
