/* gz.c — gzip a finished output stream with zlib (see gz.h). */
#include "util/gz.h"

#include <string.h>
#include <zlib.h>

int v10_gz_path(const char *path)
{
    size_t n = strlen(path);
    return n > 3 && !strcmp(path + n - 3, ".gz");
}

int v10_gz_copy(FILE *in, FILE *out, v10_err *err)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    /* windowBits 15 + 16: a gzip wrapper with a zero time stamp. */
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return v10_err_set(err, "gzip: out of memory");
    unsigned char ib[1 << 16], ob[1 << 16];
    int rc = 0, flush = Z_NO_FLUSH;
    rewind(in);
    while (rc == 0 && flush != Z_FINISH) {
        z.avail_in = (uInt)fread(ib, 1, sizeof ib, in);
        z.next_in = ib;
        if (ferror(in)) {
            rc = v10_err_set(err, "gzip: read error");
            break;
        }
        flush = feof(in) ? Z_FINISH : Z_NO_FLUSH;
        do {
            z.avail_out = sizeof ob;
            z.next_out = ob;
            if (deflate(&z, flush) == Z_STREAM_ERROR) {
                rc = v10_err_set(err, "gzip: zlib stream error");
                break;
            }
            size_t have = sizeof ob - z.avail_out;
            if (fwrite(ob, 1, have, out) != have) {
                rc = v10_err_set(err, "gzip: write error");
                break;
            }
        } while (z.avail_out == 0);
    }
    deflateEnd(&z);
    return rc;
}
