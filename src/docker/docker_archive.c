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
    unsigned char buf[65536];
    size_t done = 0;
    while (done < len) {
        size_t want = len - done < sizeof(buf) ? len - done : sizeof(buf);
        ssize_t r = pread(fd, buf, want, (off_t)done);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -EIO; /* the file shrank: never send a silently short copy */
        if (dl->archive_write_data(a, buf, (size_t)r) != r)
            return -EIO;
        done += (size_t)r;
    }
    return 0;
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

static const char *type_name(mode_t t)
{
    switch (t) {
    case AE_IFLNK:
        return "symlink refused";
    case AE_IFDIR:
        return "not a regular file (directory)";
    case AE_IFIFO:
        return "not a regular file (fifo)";
    case AE_IFCHR:
        return "not a regular file (character device)";
    case AE_IFBLK:
        return "not a regular file (block device)";
    case AE_IFSOCK:
        return "not a regular file (socket)";
    default:
        return "not a regular file";
    }
}

int asb_docker_tar_extract(const unsigned char *tar, size_t len, const char *prefix,
                           char *const *names, size_t n_names, uint64_t cap, asb_result_t *res,
                           asb_error_t *err)
{
    asb_dl_t L;
    const asb_dl_t *dl = &L;
    int rc = asb_dl_open(&L, err);
    if (rc < 0)
        return rc;
    bool *done = calloc(n_names + 1, sizeof(bool));
    struct archive *a = dl->archive_read_new();
    if (!done || !a) {
        rc = asb_err_sys(err, ENOMEM, "tar");
        goto out;
    }
    dl->archive_read_support_format_tar(a);
    if (dl->archive_read_open_memory(a, tar, len) != ARCHIVE_OK) {
        rc = asb_err(err, -EPROTO, "file-out tar: %s", dl->archive_error_string(a));
        goto out;
    }
    size_t plen = strlen(prefix);
    struct archive_entry *e;
    for (;;) {
        int r = dl->archive_read_next_header(a, &e);
        if (r == ARCHIVE_EOF)
            break;
        if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
            rc = asb_err(err, -EPROTO, "file-out tar: %s", dl->archive_error_string(a));
            goto out;
        }
        const char *path = dl->archive_entry_pathname(e);
        if (!path)
            continue;
        /* "<prefix>" or "<prefix>/" is the directory itself. */
        if (strncmp(path, prefix, plen) != 0 || (path[plen] != '/' && path[plen] != '\0'))
            continue;
        const char *name = path[plen] ? path + plen + 1 : "";
        if (!*name || strcmp(name, "/") == 0)
            continue;
        size_t idx = n_names;
        for (size_t i = 0; i < n_names; i++)
            if (!done[i] && strcmp(names[i], name) == 0)
                idx = i;
        if (idx == n_names)
            continue; /* not requested (or a nested path): never taken */
        done[idx] = true;
        const char *hardlink = dl->archive_entry_hardlink(e);
        mode_t t = dl->archive_entry_filetype(e);
        if (hardlink) {
            asb_result_add_refused(res, name, "hard link refused");
            continue;
        }
        if (t != AE_IFREG) {
            asb_result_add_refused(res, name, type_name(t));
            continue;
        }
        if (dl->archive_entry_nlink(e) > 1) {
            asb_result_add_refused(res, name, "hard link refused");
            continue;
        }
        la_int64_t size = dl->archive_entry_size(e);
        if (size < 0 || (uint64_t)size > cap) {
            char why[96];
            snprintf(why, sizeof(why), "larger than %llu bytes", (unsigned long long)cap);
            asb_result_add_refused(res, name, why);
            continue;
        }
        unsigned char *data = malloc((size_t)size + 1);
        if (!data) {
            rc = asb_err_sys(err, ENOMEM, "file-out %s", name);
            goto out;
        }
        la_ssize_t got = dl->archive_read_data(a, data, (size_t)size);
        if (got != size) {
            free(data);
            asb_result_add_refused(res, name, "truncated in the engine's archive");
            continue;
        }
        asb_result_add_file(res, name, data, (size_t)size);
    }
    for (size_t i = 0; i < n_names; i++)
        if (!done[i])
            asb_result_add_refused(res, names[i], "no such file");
out:
    if (a)
        dl->archive_read_free(a);
    free(done);
    asb_dl_close(&L);
    return rc;
}
