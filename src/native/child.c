/* child.c - clone the run's first process and carry it to the supervisor's exec (see child.h). */
#include "native/child.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CHILD_STACK_SIZE (64u * 1024u)

#if defined(__x86_64__)
/* A system call that returns -errno instead of touching errno: the child shares the caller's
 * memory, so errno would be the errno of the caller's thread. */
static inline long child_sys(long n, long a, long b, long c, long d, long e)
{
    long ret;
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8)
                     : "rcx", "r11", "memory");
    return ret;
}

/* clone3 onto the stack given in args; the child calls fn(arg) there and exits 127 should fn
 * ever return. The parent gets the pid or -errno. fn and arg ride in r9/r8, which the syscall
 * preserves and the child inherits. */
long asb_child_clone3_vm(struct clone_args *args, size_t size, void (*fn)(const asb_child_args_t *),
                         const asb_child_args_t *arg) __attribute__((visibility("hidden")));
__asm__(".text\n"
        ".globl asb_child_clone3_vm\n"
        ".hidden asb_child_clone3_vm\n"
        ".type asb_child_clone3_vm,@function\n"
        "asb_child_clone3_vm:\n"
        "\tendbr64\n"
        "\tmov %rdx, %r9\n"
        "\tmov %rcx, %r8\n"
        "\tmov $435, %eax\n" /* SYS_clone3 */
        "\tsyscall\n"
        "\ttest %rax, %rax\n"
        "\tjz 1f\n"
        "\tret\n"
        "1:\n"
        "\txor %ebp, %ebp\n"
        "\tand $-16, %rsp\n"
        "\tmov %r8, %rdi\n"
        "\tcall *%r9\n"
        "\tmov $127, %edi\n"
        "\tmov $60, %eax\n" /* SYS_exit */
        "\tsyscall\n"
        "\thlt\n"
        ".size asb_child_clone3_vm, .-asb_child_clone3_vm\n");
#else
/* Elsewhere the child is a copy of the caller (no CLONE_VM): errno is its own. */
static long child_sys(long n, long a, long b, long c, long d, long e)
{
    long r = syscall(n, a, b, c, d, e);
    return r < 0 ? -errno : r;
}
#endif

#define SYS1(n, a) child_sys(n, (long)(a), 0, 0, 0, 0)
#define SYS3(n, a, b, c) child_sys(n, (long)(a), (long)(b), (long)(c), 0, 0)

/* An errno in the room an exit status has for it (1..max); 0 for one beyond (review finding:
 * ELIBBAD, 80, read as EBUSY after a mask). */
__attribute__((always_inline)) static inline int errno_code(long e, long max)
{
    return e > 0 && e <= max ? (int)e : 0;
}

__attribute__((noreturn)) static void child_exit(int code)
{
    for (;;)
        SYS1(SYS_exit, code);
}

/* Runs in the child: raw system calls only, no libc state, nothing written outside its stack.
 * Sanitizer instrumentation would use the caller's thread state, hence none here. */
__attribute__((noreturn, no_sanitize("address", "undefined"))) static void
child_main(const asb_child_args_t *a)
{
    /* Nothing to wait for and no id to change: the child runs with the caller's credentials
     * (host root) until the exec, and the supervisor makes the user namespace itself, as the
     * sandbox's own owner uid (supervisor/userns.c). Changing any id here, while this memory
     * is still the caller's, would reset the caller's dumpable flag. */
    int n = a->n_fds, high = n + 8, tmp[ASB_CHILD_FDS];
    for (int i = 0; i < n; i++) {
        long fd = SYS3(SYS_fcntl, a->fds[i], F_DUPFD_CLOEXEC, high);
        if (fd < 0)
            child_exit(ASB_CHILD_EXIT_FDS + errno_code(-fd, 31));
        tmp[i] = (int)fd;
    }
    /* tmp[i] >= high > i: dup3 never sees equal fds. The supervisor binary's fd keeps CLOEXEC:
     * the exec below closes it. */
    for (int i = 0; i < n; i++) {
        long rc = SYS3(SYS_dup3, tmp[i], i, i == n - 1 ? O_CLOEXEC : 0);
        if (rc < 0)
            child_exit(ASB_CHILD_EXIT_FDS + errno_code(-rc, 31));
    }
    long cr = SYS3(SYS_close_range, n, ~0U, 0);
    if (cr < 0) /* never exec the supervisor holding the caller's other fds */
        child_exit(ASB_CHILD_EXIT_FDS + errno_code(-cr, 31));
    /* The supervisor's own image gets ASLR and no real-time class whatever the caller runs
     * with (setarch -R, SCHED_FIFO): both are per task, so the caller keeps its own. The
     * supervisor resets the rest, and again these, for everything it starts (inherited.c). */
    SYS1(SYS_personality, 0 /* PER_LINUX */);
    long pol = SYS1(SYS_sched_getscheduler, 0);
    if (pol == 1 /* SCHED_FIFO */ || pol == 2 /* SCHED_RR */) {
        struct {
            int prio;
        } param = {0};
        SYS3(SYS_sched_setscheduler, 0, 0 /* SCHED_OTHER */, &param);
    }
    char *const argv[] = {"asb-supervisor", NULL};
    char *const envp[] = {NULL};
    long e = child_sys(SYS_execveat, n - 1, (long)"", (long)argv, (long)envp, AT_EMPTY_PATH);
    child_exit(ASB_CHILD_EXIT_EXEC + errno_code(-e, 63));
}

long asb_child_spawn(struct clone_args *ca, const asb_child_args_t *a, asb_child_t *child)
{
    child->pid = -1;
    child->stack = NULL;
    child->stack_size = 0;
    if (a->n_fds < 1 || a->n_fds > ASB_CHILD_FDS)
        return -EINVAL;
#if defined(__x86_64__)
    /* A guard page below the stack: an overflow faults instead of writing the caller's memory. */
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t size = CHILD_STACK_SIZE + page;
    void *mem =
        mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (mem == MAP_FAILED)
        return -errno;
    if (mprotect(mem, page, PROT_NONE) < 0) {
        int e = errno;
        munmap(mem, size);
        return -e;
    }
    ca->flags |= CLONE_VM;
    ca->stack = (uint64_t)(uintptr_t)((char *)mem + page);
    ca->stack_size = CHILD_STACK_SIZE;
    long pid = asb_child_clone3_vm(ca, sizeof(*ca), child_main, a);
    if (pid < 0) {
        munmap(mem, size);
        return pid;
    }
    child->stack = mem;
    child->stack_size = size;
#else
    long pid = syscall(SYS_clone3, ca, sizeof(*ca));
    if (pid < 0)
        return -errno;
    if (pid == 0)
        child_main(a);
#endif
    child->pid = (pid_t)pid;
    return pid;
}

void asb_child_release(asb_child_t *child)
{
    if (child->stack)
        munmap(child->stack, child->stack_size);
    child->stack = NULL;
    child->stack_size = 0;
}
