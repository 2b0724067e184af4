/* docker_archive.c - tar streams for the engine's archive API, with libarchive.
 *
 * Going in, we write the tar ourselves from plan data. Coming out, the tar is the workload's
 * work: every entry is untrusted. Only a regular file entry named exactly "<prefix>/<name>" for
 * a requested name is taken, capped; a symlink, hard link, device, FIFO or anything else is
 * refused with a reason, and nothing is ever written to the host's file system. */
#include "core/error.h"
#include "core/result.h"
#include "docker/docker.h"

#include "docker/docker_dl.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int write_fd_content(const asb_dl_t *dl, struct archive *a, int fd, size_t len)
{
    enum { CHUNK = 65536 };
    unsigned char *buf = malloc(CHUNK); /* not on a caller thread's stack (io/capture.c) */
    if (!buf)
        return -ENOMEM;
    size_t done = 0;
    int rc = 0;
    while (done < len) {
        size_t want = len - done < CHUNK ? len - done : CHUNK;
        ssize_t r = pread(fd, buf, want, (off_t)done);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0 || dl->archive_write_data(a, buf, (size_t)r) != r) {
            rc = -EIO; /* the file shrank: never send a silently short copy */
            break;
        }
        done += (size_t)r;
    }
    free(buf);
    return rc;
}

int asb_docker_tar_build(const char *const *dirs, size_t n_dirs, const asb_tar_in_t *files,
                         size_t n_files, unsigned char **tar, size_t *tar_len, asb_error_t *err)
{
    asb_dl_membuf_t m = {0};
    asb_dl_t L;
    const asb_dl_t *dl = &L;
    int rc = asb_dl_open(&L, err);
    if (rc < 0)
        return rc;
    struct archive *a = dl->archive_write_new();
    struct archive_entry *e = dl->archive_entry_new();
    if (!a || !e) {
        rc = asb_err_sys(err, ENOMEM, "tar");
        goto out;
    }
    dl->archive_write_set_format_pax_restricted(a);
    dl->archive_write_set_bytes_in_last_block(a, 1);
    if (dl->archive_write_open(a, &m, NULL, asb_dl_membuf_write, NULL) != ARCHIVE_OK) {
        rc = asb_err(err, -EIO, "tar: %s", dl->archive_error_string(a));
        goto out;
    }
    for (size_t i = 0; i < n_dirs; i++) {
        char name[256];
        size_t l = strlen(dirs[i]);
        bool sticky = l && dirs[i][l - 1] == '!';
        snprintf(name, sizeof(name), "%.*s", (int)(sticky ? l - 1 : l), dirs[i]);
        dl->archive_entry_clear(e);
        dl->archive_entry_set_pathname(e, name);
        dl->archive_entry_set_filetype(e, AE_IFDIR);
        dl->archive_entry_set_perm(e, sticky ? 01777 : 0755);
        if (dl->archive_write_header(a, e) != ARCHIVE_OK) {
            rc = asb_err(err, -EIO, "tar %s: %s", name, dl->archive_error_string(a));
            goto out;
        }
    }
    for (size_t i = 0; i < n_files; i++) {
        dl->archive_entry_clear(e);
        dl->archive_entry_set_pathname(e, files[i].name);
        dl->archive_entry_set_filetype(e, AE_IFREG);
        dl->archive_entry_set_perm(e, 0444);
        dl->archive_entry_set_size(e, (la_int64_t)files[i].len);
        if (dl->archive_write_header(a, e) != ARCHIVE_OK) {
            rc = asb_err(err, -EIO, "tar %s: %s", files[i].name, dl->archive_error_string(a));
            goto out;
        }
        if (files[i].fd >= 0) {
            if (write_fd_content(dl, a, files[i].fd, files[i].len) < 0) {
                rc = asb_err(err, -EIO, "tar %s: reading the file failed or it changed size",
                             files[i].name);
                goto out;
            }
        } else if (files[i].len && dl->archive_write_data(a, files[i].data, files[i].len) !=
                                       (la_ssize_t)files[i].len) {
            rc = asb_err(err, -EIO, "tar %s: %s", files[i].name, dl->archive_error_string(a));
            goto out;
        }
    }
    if (dl->archive_write_close(a) != ARCHIVE_OK) {
        rc = asb_err(err, -EIO, "tar: %s", dl->archive_error_string(a));
        goto out;
    }
out:
    if (e)
        dl->archive_entry_free(e);
    if (a)
        dl->archive_write_free(a);
    asb_dl_close(&L);
    if (rc < 0) {
        free(m.data);
        return rc;
    }
    *tar = m.data;
    *tar_len = m.len;
    return 0;
}
