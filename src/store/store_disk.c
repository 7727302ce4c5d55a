/* store: persistence of assets as content-addressed files.
 *
 * One file per asset, <data_dir>/<kind>-<id>.json, holding exactly its
 * canonical encoding, so the file's SHA-256 is its name. A file is written
 * under a temporary name (".tmp-..."), fsynced, and renamed into place;
 * the directory is fsynced before the upload is acknowledged.
 *
 * An upload of several new assets is all or nothing across a crash: every
 * temp file is written and fsynced first, then a commit list
 * "commit-<pid>-<n>.list" naming each temp file and its final name is
 * written, fsynced and renamed into place (the commit point; the directory
 * is fsynced), then the temp files are renamed and the list removed. At
 * start-up a commit list found is replayed (renaming the temp files it
 * names that are still there) before the temp files left over, which
 * belong to uploads that never reached their commit point, are removed.
 * A single new asset needs no list: its rename is atomic.
 *
 * Removing several assets at once (a cascading delete) is all or nothing
 * the same way: a commit list of "remove <name>" lines is put in place
 * first; replaying it at start-up removes the files still there.
 *
 * At start-up every file is checked to be a regular file without opening
 * it (a FIFO would block the open forever), read, its hash checked against
 * its name, decoded and stored (skeletons first); anything else is
 * reported and skipped. */
#include "store/internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TMP_PREFIX ".tmp-"
#define COMMIT_PREFIX "commit-"
#define COMMIT_SUFFIX ".list"

static void file_name(char *out, size_t size, const store_asset_t *a) {
  snprintf(out, size, "%s-%s.json", store_kind_name(a->kind), a->id);
}

static int write_all(int fd, const char *data, size_t len) {
  while (len > 0) {
    ssize_t n = write(fd, data, len);
    if (n < 0) {
      if (errno == EINTR) continue;
      return -errno;
    }
    data += n;
    len -= (size_t)n;
  }
  return 0;
}

/* Writes data under a new temp name (into tmp), fsynced. */
static int write_temp(store_t *s, const char *what, const char *data,
                      size_t len, char tmp[160]) {
  snprintf(tmp, 160, TMP_PREFIX "%ld-%lu-%s", (long)getpid(), s->tmp_counter++,
           what);
  int fd =
      openat(s->dir_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return -errno;
  int r = write_all(fd, data, len);
  if (r == 0 && fsync(fd) != 0) r = -errno;
  if (close(fd) != 0 && r == 0) r = -errno;
  if (r != 0) unlinkat(s->dir_fd, tmp, 0);
  return r;
}

#define REMOVE_WORD "remove"

/* Writes the commit list of a multi-asset write (each temp file and its
 * final name) or, tmps NULL, of a multi-asset removal ("remove" and the
 * name), and renames it into place (name receives its final name). */
static int write_commit(store_t *s, char (*tmps)[160],
                        store_asset_t *const *assets, size_t count,
                        char name[96]) {
  fmt_buf_t list = FMT_BUF_INIT;
  for (size_t i = 0; i < count; i++) {
    char final[128];
    file_name(final, sizeof final, assets[i]);
    fmt_buf_printf(&list, "%s %s\n", tmps ? tmps[i] : REMOVE_WORD, final);
  }
  if (list.failed) {
    fmt_buf_free(&list);
    return -ENOMEM;
  }
  snprintf(name, 96, COMMIT_PREFIX "%ld-%lu" COMMIT_SUFFIX, (long)getpid(),
           s->tmp_counter++);
  char tmp[160];
  int r = write_temp(s, "commit", list.data, list.len, tmp);
  fmt_buf_free(&list);
  if (r == 0 && renameat(s->dir_fd, tmp, s->dir_fd, name) != 0) {
    r = -errno;
    unlinkat(s->dir_fd, tmp, 0);
  }
  if (r == 0 && fsync(s->dir_fd) != 0) r = -errno;
  return r;
}

int store__write_files(store_t *s, store_asset_t *const *assets,
                       const fmt_buf_t *texts, size_t count, fmt_error_t *err) {
  char(*tmps)[160] = calloc(count ? count : 1, sizeof *tmps);
  char commit[96] = "";
  size_t written = 0, renamed = 0;
  int r = tmps == NULL ? -ENOMEM : 0;
  for (; r == 0 && written < count; written++) {
    if (texts[written].failed || texts[written].data == NULL) {
      r = -ENOMEM;
      break;
    }
    char name[128];
    file_name(name, sizeof name, assets[written]);
    r = write_temp(s, name, texts[written].data, texts[written].len,
                   tmps[written]);
    if (r != 0) break;
  }
  if (r == 0 && count > 1) {
    if (s->_stop_at == STORE_STOP_BEFORE_COMMIT) goto stopped;
    r = write_commit(s, tmps, assets, count, commit);
    if (r == 0 && s->_stop_at == STORE_STOP_AFTER_COMMIT) goto stopped;
  }
  for (; r == 0 && renamed < count; renamed++) {
    char name[128];
    file_name(name, sizeof name, assets[renamed]);
    if (renameat(s->dir_fd, tmps[renamed], s->dir_fd, name) != 0) {
      r = -errno;
      break;
    }
  }
  if (r == 0 && fsync(s->dir_fd) != 0) r = -errno;
  if (commit[0] != '\0') unlinkat(s->dir_fd, commit, 0);
  if (r == 0) {
    free(tmps);
    return 0;
  }
  size_t at = written < count ? written : renamed;
  store__log(s, "cannot write %s %s in %s: %s",
             at < count ? store_kind_name(assets[at]->kind) : "directory",
             at < count ? assets[at]->id : "", s->data_dir, strerror(-r));
  /* Undo: the list is gone, so nothing of this upload may stay. */
  for (size_t j = 0; j < count; j++) {
    if (j < renamed)
      store__remove_file(s, assets[j]);
    else if (j < written)
      unlinkat(s->dir_fd, tmps[j], 0);
  }
  free(tmps);
  fmt_fail(err, r == -ENOSPC ? FMT_ERR_INSUFFICIENT_STORAGE : FMT_ERR_IO_ERROR,
           "", "the asset could not be saved: %s", strerror(-r));
  return r;
stopped:
  free(tmps);
  return fmt_fail(err, FMT_ERR_IO_ERROR, "", "stopped for a test");
}

int store__remove_file(store_t *s, const store_asset_t *asset) {
  char name[128];
  file_name(name, sizeof name, asset);
  if (unlinkat(s->dir_fd, name, 0) != 0 && errno != ENOENT) return -errno;
  if (fsync(s->dir_fd) != 0) return -errno;
  return 0;
}

int store__remove_files(store_t *s, store_asset_t *const *assets,
                        size_t count) {
  if (count == 1) return store__remove_file(s, assets[0]);
  char commit[96];
  if (s->_stop_at == STORE_STOP_BEFORE_COMMIT) return -EIO;
  int r = write_commit(s, NULL, assets, count, commit);
  if (r != 0) return r;
  if (s->_stop_at == STORE_STOP_AFTER_COMMIT) return 0;
  /* Past the commit point the removal is decided: a file that cannot go
   * now goes when the list is replayed, so the list stays. */
  bool all = true;
  for (size_t i = 0; i < count; i++) {
    char name[128];
    file_name(name, sizeof name, assets[i]);
    if (unlinkat(s->dir_fd, name, 0) != 0 && errno != ENOENT) {
      store__log(s, "cannot remove %s now (%s): it goes at the next start",
                 name, strerror(errno));
      all = false;
    }
  }
  fsync(s->dir_fd);
  if (all) unlinkat(s->dir_fd, commit, 0);
  return 0;
}

/* Reads a whole file relative to the data dir. */
static int read_file(store_t *s, const char *name, char **out, size_t *len) {
  /* O_NONBLOCK: a FIFO swapped in after the check must not block. */
  int fd = openat(s->dir_fd, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return -errno;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return -EINVAL;
  }
  size_t size = (size_t)st.st_size;
  char *data = malloc(size ? size : 1);
  if (data == NULL) {
    close(fd);
    return -ENOMEM;
  }
  size_t got = 0;
  while (got < size) {
    ssize_t n = read(fd, data + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += (size_t)n;
  }
  close(fd);
  if (got != size) {
    free(data);
    return -EIO;
  }
  *out = data;
  *len = size;
  return 0;
}

/* The kind of an asset file name "<kind>-<id>.json", with the id copied
 * out; -1 when the name has another shape. */
static int parse_name(const char *name, char id[FMT_ID_LEN + 1]) {
  for (int k = STORE_SKELETON; k <= STORE_MESH; k++) {
    const char *kind = store_kind_name((store_kind)k);
    size_t kl = strlen(kind);
    if (strncmp(name, kind, kl) != 0 || name[kl] != '-') continue;
    const char *p = name + kl + 1;
    if (strlen(p) != FMT_ID_LEN + 5 || strcmp(p + FMT_ID_LEN, ".json") != 0)
      return -1;
    memcpy(id, p, FMT_ID_LEN);
    id[FMT_ID_LEN] = '\0';
    return fmt_is_content_id(id) ? k : -1;
  }
  return -1;
}

/* Loads one asset file; failures are reported and skipped. */
static void load_one(store_t *s, const char *name, store_kind kind,
                     const char *id) {
  char *data = NULL;
  size_t len = 0;
  struct stat st;
  if (fstatat(s->dir_fd, name, &st, 0) != 0 || !S_ISREG(st.st_mode)) {
    store__log(s, "skipped %s: not a regular file", name);
    s->stats.skipped++;
    return;
  }
  int r = read_file(s, name, &data, &len);
  if (r != 0) {
    store__log(s, "skipped %s: cannot read it (%s)", name, strerror(-r));
    s->stats.skipped++;
    return;
  }
  char hash[FMT_ID_LEN + 1];
  if (fmt_content_id(data, len, hash) != 0 || strcmp(hash, id) != 0) {
    store__log(s,
               "skipped %s: its content does not match its name "
               "(truncated or damaged)",
               name);
    s->stats.skipped++;
    free(data);
    return;
  }
  store_resolver_t resolver;
  store_resolver_init(&resolver, s);
  fmt_decode_options_t opts = s->decode;
  opts.skeleton = NULL;
  opts.resolve = store_resolve;
  opts.resolve_user_data = &resolver;
  fmt_bundle_t bundle;
  fmt_error_t err = {0};
  r = fmt_decode_native_json(data, len, &opts, &bundle, &err);
  free(data);
  size_t count = bundle.skeleton_count + bundle.clip_count + bundle.mesh_count;
  bool shape_ok = r == 0 && count == 1 &&
                  (kind == STORE_SKELETON ? bundle.skeleton_count == 1
                   : kind == STORE_CLIP   ? bundle.clip_count == 1
                                          : bundle.mesh_count == 1);
  if (!shape_ok) {
    if (r != 0)
      store__log(s, "skipped %s: %s (at %s)", name, err.message, err.at);
    else
      store__log(s, "skipped %s: it does not hold exactly one %s", name,
                 store_kind_name(kind));
    s->stats.skipped++;
    fmt_bundle_free(&bundle);
    store_resolver_release(&resolver);
    return;
  }
  store_ingest_result_t res;
  r = store__ingest(s, &bundle, store_resolver_external(&resolver), NULL, id,
                    true, &res, &err);
  store_resolver_release(&resolver);
  if (r != 0) {
    store__log(s, "skipped %s: %s", name, err.message);
    s->stats.skipped++;
    return;
  }
  store_ingest_result_free(&res);
}

/* True when name has the shape of a temp file this store writes: the
 * prefix and no '/', so a list cannot reach outside the directory. */
static bool is_temp_name(const char *name, size_t len) {
  return len > strlen(TMP_PREFIX) && len < 160 &&
         strncmp(name, TMP_PREFIX, strlen(TMP_PREFIX)) == 0 &&
         memchr(name, '/', len) == NULL;
}

/* Finishes the write a commit list describes: each line "<temp> <final>"
 * (temp files still there are renamed into place) or "remove <final>"
 * (the file is removed). Then the list goes. */
static void replay_commit(store_t *s, const char *list_name) {
  char *data = NULL;
  size_t len = 0;
  struct stat st;
  int r = fstatat(s->dir_fd, list_name, &st, 0) != 0 || !S_ISREG(st.st_mode)
              ? -EINVAL
              : read_file(s, list_name, &data, &len);
  if (r != 0) {
    store__log(s, "skipped %s: cannot read it (%s)", list_name, strerror(-r));
    s->stats.skipped++;
    return;
  }
  size_t done = 0;
  for (char *p = data, *end = data + len; p < end;) {
    char *nl = memchr(p, '\n', (size_t)(end - p));
    if (nl == NULL) break; /* A list is written whole: ignore a tail. */
    *nl = '\0';
    char *sp = strchr(p, ' ');
    char id[FMT_ID_LEN + 1];
    if (sp != NULL) *sp = '\0';
    if (sp != NULL && strcmp(p, REMOVE_WORD) == 0 &&
        parse_name(sp + 1, id) >= 0 && unlinkat(s->dir_fd, sp + 1, 0) == 0)
      done++;
    else if (sp != NULL && is_temp_name(p, strlen(p)) &&
             parse_name(sp + 1, id) >= 0 &&
             renameat(s->dir_fd, p, s->dir_fd, sp + 1) == 0)
      done++;
    p = nl + 1;
  }
  free(data);
  unlinkat(s->dir_fd, list_name, 0);
  fsync(s->dir_fd);
  store__log(s, "completed %s (%zu file(s) renamed or removed)", list_name,
             done);
}

static bool is_commit_name(const char *name) {
  size_t n = strlen(name), p = strlen(COMMIT_PREFIX), x = strlen(COMMIT_SUFFIX);
  return n > p + x && strncmp(name, COMMIT_PREFIX, p) == 0 &&
         strcmp(name + n - x, COMMIT_SUFFIX) == 0;
}

int store__load_dir(store_t *s, fmt_error_t *err) {
  if (mkdir(s->data_dir, 0750) != 0 && errno != EEXIST) {
    int r = -errno;
    fmt_fail(err, FMT_ERR_IO_ERROR, "data_dir", "cannot create %s: %s",
             s->data_dir, strerror(errno));
    return r;
  }
  s->dir_fd = open(s->data_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (s->dir_fd < 0) {
    int r = -errno;
    fmt_fail(err, FMT_ERR_IO_ERROR, "data_dir", "cannot open %s: %s",
             s->data_dir, strerror(errno));
    return r;
  }
  int fd = dup(s->dir_fd);
  DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
  if (dir == NULL) {
    int r = -errno;
    if (fd >= 0) close(fd);
    fmt_fail(err, FMT_ERR_IO_ERROR, "data_dir", "cannot list %s: %s",
             s->data_dir, strerror(-r));
    return r;
  }
  /* Committed uploads first (their temp files become asset files), then
   * collect the names; load skeletons, then the rest. */
  struct dirent *d;
  while ((d = readdir(dir)) != NULL)
    if (is_commit_name(d->d_name)) replay_commit(s, d->d_name);
  rewinddir(dir);
  char **names = NULL;
  size_t count = 0, cap = 0;
  int r = 0;
  while ((d = readdir(dir)) != NULL) {
    if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0) continue;
    if (strncmp(d->d_name, TMP_PREFIX, strlen(TMP_PREFIX)) == 0) {
      store__log(s, "removed %s: an unfinished write", d->d_name);
      unlinkat(s->dir_fd, d->d_name, 0);
      s->stats.skipped++;
      continue;
    }
    if (count == cap) {
      cap = cap ? cap * 2 : 64;
      char **grown = realloc(names, cap * sizeof *grown);
      if (grown == NULL) {
        r = -ENOMEM;
        break;
      }
      names = grown;
    }
    names[count] = strdup(d->d_name);
    if (names[count] == NULL) {
      r = -ENOMEM;
      break;
    }
    count++;
  }
  closedir(dir);
  for (int pass = 0; r == 0 && pass < 2; pass++) {
    for (size_t i = 0; i < count; i++) {
      char id[FMT_ID_LEN + 1];
      int kind = parse_name(names[i], id);
      if (kind < 0) {
        if (pass == 0) {
          store__log(s, "skipped %s: not an asset file name", names[i]);
          s->stats.skipped++;
        }
        continue;
      }
      if ((kind == STORE_SKELETON) != (pass == 0)) continue;
      load_one(s, names[i], (store_kind)kind, id);
    }
  }
  for (size_t i = 0; i < count; i++) free(names[i]);
  free(names);
  if (r != 0)
    fmt_fail(err, FMT_ERR_OUT_OF_MEMORY, "", "out of memory loading %s",
             s->data_dir);
  return r;
}
