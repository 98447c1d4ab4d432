/* Child processes and executables (see proc.h). */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc.h"

extern char **environ;

#define FIRST_CAPACITY 4096

/* Reads fd to its end into buf (malloc'd, FIRST_CAPACITY bytes, grown as needed) and returns it
 * NUL-terminated. If memory runs out the reading stops early (closing the pipe then ends a child
 * still writing with SIGPIPE). */
static char *read_all(int fd, char *buf)
{
    size_t len = 0, cap = FIRST_CAPACITY;
    for (;;) {
        ssize_t got;
        if (cap - len < 2) {
            char *grown = realloc(buf, cap * 2);
            if (!grown) break;
            buf = grown;
            cap *= 2;
        }
        got = read(fd, buf + len, cap - len - 1);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        len += (size_t)got;
    }
    buf[len] = '\0';
    return buf;
}

int proc_run(char *const argv[], int flags, char **output)
{
    int capture = flags & (PROC_CAPTURE_STDOUT | PROC_CAPTURE_STDERR);
    posix_spawn_file_actions_t fa;
    int fds[2] = {-1, -1}, rc, status = 0;
    char *buf = NULL;
    pid_t pid;
    if (output) *output = NULL;
    if (capture) {
        if (!output) {
            errno = EINVAL;
            return -1;
        }
        if (!(buf = malloc(FIRST_CAPACITY))) return -1;
        if (pipe(fds) != 0) {
            free(buf);
            return -1;
        }
    }
    posix_spawn_file_actions_init(&fa);
    if (capture) {
        if (flags & PROC_CAPTURE_STDOUT) posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
        if (flags & PROC_CAPTURE_STDERR) posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
        posix_spawn_file_actions_addclose(&fa, fds[0]);
        posix_spawn_file_actions_addclose(&fa, fds[1]);
    }
    fflush(NULL);
    rc = (flags & PROC_SEARCH_PATH) ? posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ)
                                    : posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (capture) close(fds[1]);
    if (rc != 0) {
        if (capture) close(fds[0]);
        free(buf);
        errno = rc;
        return -1;
    }
    if (capture) {
        *output = read_all(fds[0], buf);
        close(fds[0]);
    }
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) return -1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int proc_find_executable(const char *name, const char *dirs, char *out)
{
    const char *p = dirs;
    size_t name_len = strlen(name);
    while (p && *p) {
        size_t len = strcspn(p, ":");
        if (len > 0 && len + 1 + name_len < PROC_PATH_LEN) {
            memcpy(out, p, len);
            out[len] = '/';
            memcpy(out + len + 1, name, name_len + 1);
            if (access(out, X_OK) == 0) return 1;
        }
        p += len + (p[len] == ':');
    }
    return 0;
}

int proc_self_exe(char *out, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", out, len - 1);
    if (n < 0) return -1;
    if ((size_t)n >= len - 1) {
        errno = ENAMETOOLONG;
        return -1;
    }
    out[n] = '\0';
    return 0;
}
