"""OS-level confinement of a script's child process: its own process group,
resource limits, an empty network namespace and Landlock file rules.

These are what hold when the Python-level checks (guard.py) are bypassed.
Each layer applies where the kernel allows it without privileges and says
whether it did; none is skipped silently. They use ctypes, so they run
before guard.py forbids it.
"""
import ctypes
import os
import resource
import signal
import site
import sys
import tempfile

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long

_PR_SET_PDEATHSIG = 1
_PR_SET_NO_NEW_PRIVS = 38
_CLONE_NEWUSER = 0x10000000
_CLONE_NEWNET = 0x40000000

# What a script's process may read besides Python: shared libraries a later
# import may load, fonts for text(), and a few devices.
_SYSTEM_READ_DIRS = ("/lib", "/lib64", "/usr/lib", "/usr/lib64", "/usr/local/lib",
                     "/usr/share/fonts", "/usr/local/share/fonts", "/etc/fonts")
_SYSTEM_READ_FILES = ("/etc/ld.so.cache", "/dev/urandom", "/dev/random", "/dev/zero")
_SYSTEM_WRITE_FILES = ("/dev/null",)


def python_roots():
    """The folders Python imports from: its installation and sys.path."""
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    roots.update(site.getsitepackages())
    roots.add(site.getusersitepackages())
    roots.update(p for p in sys.path if p)
    return sorted({os.path.realpath(r) for r in roots if r and os.path.isdir(r)})


def confine(out_dir, memory_mb, cpu_seconds, keep_fds):
    """Applies every layer to this process; returns which ones hold."""
    os.setpgid(0, 0)  # so a timeout kills the whole group
    _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # dies with the fork server
    _close_inherited_fds(keep_fds)
    _limit_resources(memory_mb, cpu_seconds)
    layers = {"network_namespace": _leave_network(), "landlock": _landlock(out_dir)}
    os.chdir(out_dir)
    os.environ["TMPDIR"] = out_dir
    tempfile.tempdir = out_dir
    return layers


def _close_inherited_fds(keep):
    """The fork server's pipes are no business of a script."""
    for fd in sorted(set(int(f) for f in os.listdir("/proc/self/fd"))):
        if fd > 2 and fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass


def _limit_resources(memory_mb, cpu_seconds):
    """memory_mb is what the script may add to the address space CadQuery
    already maps (about a gigabyte), so the figure means what it says."""
    limit = _address_space_bytes() + memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 5))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _address_space_bytes():
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 2 * 1024 * 1024 * 1024


def _leave_network():
    """Moves into a new network namespace, which has no interface but a
    loopback that is down. Root may do it directly; anyone else through a
    user namespace of their own, where the kernel allows those."""
    if _libc.unshare(_CLONE_NEWNET) == 0:
        return True
    uid, gid = os.getuid(), os.getgid()
    if _libc.unshare(_CLONE_NEWUSER | _CLONE_NEWNET) != 0:
        return False
    # Map our own ids into the new user namespace, or files could not be made.
    for name, text in (("setgroups", "deny"), ("uid_map", "%d %d 1" % (uid, uid)), ("gid_map", "%d %d 1" % (gid, gid))):
        with open("/proc/self/" + name, "w", encoding="ascii") as f:
            f.write(text)
    return True


# Landlock (include/uapi/linux/landlock.h). The syscall numbers are the same
# on every architecture that has them.
_SYS_LANDLOCK_CREATE_RULESET = 444
_SYS_LANDLOCK_ADD_RULE = 445
_SYS_LANDLOCK_RESTRICT_SELF = 446
_LANDLOCK_CREATE_RULESET_VERSION = 1
_LANDLOCK_RULE_PATH_BENEATH = 1

_FS_EXECUTE = 1 << 0
_FS_WRITE_FILE = 1 << 1
_FS_READ_FILE = 1 << 2
_FS_READ_DIR = 1 << 3
_FS_MAKE_CHAR = 1 << 6
_FS_MAKE_SOCK = 1 << 9
_FS_MAKE_FIFO = 1 << 10
_FS_MAKE_BLOCK = 1 << 11
_FS_MAKE_SYM = 1 << 12
_FS_ABI1 = (1 << 13) - 1
_FS_REFER = 1 << 13  # ABI 2
_FS_TRUNCATE = 1 << 14  # ABI 3
_FS_IOCTL_DEV = 1 << 15  # ABI 5
_FS_FILE_RIGHTS = _FS_EXECUTE | _FS_WRITE_FILE | _FS_READ_FILE | _FS_TRUNCATE | _FS_IOCTL_DEV
_NET_BIND_TCP = 1 << 0  # ABI 4
_NET_CONNECT_TCP = 1 << 1
_SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6
_SCOPE_SIGNAL = 1 << 1


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _landlock(out_dir):
    """Confines every file access, native code's too: read-write in out_dir,
    read-only in Python's folders and the system ones above, nothing
    executable anywhere (so no program can be started), and, from ABI 4,
    no TCP and, from ABI 6, no signal or abstract socket leaving the sandbox.
    False when the kernel has no Landlock."""
    abi = _libc.syscall(_SYS_LANDLOCK_CREATE_RULESET, None, 0, _LANDLOCK_CREATE_RULESET_VERSION)
    if abi < 1:
        return False
    handled = _FS_ABI1 | (_FS_REFER if abi >= 2 else 0) | (_FS_TRUNCATE if abi >= 3 else 0) | (_FS_IOCTL_DEV if abi >= 5 else 0)
    attr = _RulesetAttr(handled_access_fs=handled)
    size = 8
    if abi >= 4:
        attr.handled_access_net, size = _NET_BIND_TCP | _NET_CONNECT_TCP, 16
    if abi >= 6:
        attr.scoped, size = _SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL, 24
    ruleset = _libc.syscall(_SYS_LANDLOCK_CREATE_RULESET, ctypes.byref(attr), size, 0)
    if ruleset < 0:
        raise _os_error("landlock_create_ruleset")
    try:
        read = _FS_READ_FILE | _FS_READ_DIR
        for path in python_roots() + list(_SYSTEM_READ_DIRS) + list(_SYSTEM_READ_FILES):
            _allow(ruleset, path, read & handled)
        for path in _SYSTEM_WRITE_FILES:
            _allow(ruleset, path, (read | _FS_WRITE_FILE | _FS_TRUNCATE) & handled)
        no_special_files = _FS_EXECUTE | _FS_MAKE_CHAR | _FS_MAKE_BLOCK | _FS_MAKE_SOCK | _FS_MAKE_FIFO | _FS_MAKE_SYM | _FS_IOCTL_DEV
        _allow(ruleset, out_dir, handled & ~no_special_files)
        if _libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise _os_error("prctl(PR_SET_NO_NEW_PRIVS)")
        if _libc.syscall(_SYS_LANDLOCK_RESTRICT_SELF, ruleset, 0) != 0:
            raise _os_error("landlock_restrict_self")
    finally:
        os.close(ruleset)
    return True


def _allow(ruleset, path, access):
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except FileNotFoundError:
        return
    try:
        if not os.path.isdir(path):
            access &= _FS_FILE_RIGHTS
        rule = _PathBeneathAttr(allowed_access=access, parent_fd=fd)
        if _libc.syscall(_SYS_LANDLOCK_ADD_RULE, ruleset, _LANDLOCK_RULE_PATH_BENEATH, ctypes.byref(rule), 0) != 0:
            raise _os_error("landlock_add_rule(%s)" % path)
    finally:
        os.close(fd)


def _os_error(what):
    err = ctypes.get_errno()
    return OSError(err, "%s: %s" % (what, os.strerror(err)))
