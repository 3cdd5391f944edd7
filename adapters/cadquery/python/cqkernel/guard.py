"""Python-level confinement of a script, installed last in its child
process: an audit hook (PEP 578) that refuses, naming what it refused, a
file outside the output folder, any network use, starting a process or
sending a signal, and ctypes.

It sees only what Python does, and a determined script can get around any
Python-level check: Landlock and the network namespace (isolation.py) are
the boundary. This layer is what turns the common mistakes into errors
that say what to fix.
"""
import functools
import os
import sys

import cadquery as cq
from cadquery.occ_impl import exporters, importers


class Refused(PermissionError):
    """The script tried something a script may not do. kind is file_access,
    network, process or native_code."""

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind
        self.message = message


# Audit events naming paths: (argument index, whether it is written).
_PATH_EVENTS = {
    "os.listdir": ((0, False),),
    "os.scandir": ((0, False),),
    "os.chdir": ((0, False),),
    "glob.glob": ((0, False),),
    "glob.glob/2": ((0, False),),
    "os.listxattr": ((0, False),),
    "os.getxattr": ((0, False),),
    "os.mkdir": ((0, True),),
    "os.remove": ((0, True),),
    "os.rmdir": ((0, True),),
    "os.rename": ((0, True), (1, True)),
    "os.truncate": ((0, True),),
    "os.chmod": ((0, True),),
    "os.chown": ((0, True),),
    "os.utime": ((0, True),),
    "os.setxattr": ((0, True),),
    "os.removexattr": ((0, True),),
    "shutil.rmtree": ((0, True),),
    "shutil.copyfile": ((0, False), (1, True)),
    "shutil.copytree": ((0, False), (1, True)),
    "shutil.move": ((0, True), (1, True)),
    "tempfile.mkstemp": ((0, True),),
    "tempfile.mkdtemp": ((0, True),),
}

_NETWORK_PREFIXES = ("socket.", "http.client.", "urllib.", "ftplib.", "smtplib.", "poplib.", "imaplib.",
                     "nntplib.", "telnetlib.", "webbrowser.")

_PROCESS_EVENTS = {"subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork",
                   "os.forkpty", "os.startfile", "pty.spawn", "os.kill", "os.killpg", "signal.pthread_kill"}

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC

# CadQuery's file functions whose reading or writing happens in
# OpenCASCADE's C++, out of the audit hook's sight.
_CADQUERY_FILE_FUNCTIONS = (
    (importers, "importStep"), (importers, "importBrep"), (importers, "importDXF"),
    (exporters, "export"), (cq.Shape, "exportStep"), (cq.Shape, "exportBrep"), (cq.Shape, "exportStl"),
    (cq.Shape, "exportBin"), (cq.Shape, "importBrep"), (cq.Shape, "importBin"),
    (cq.Assembly, "export"), (cq.Assembly, "save"), (cq.Workplane, "export"),
)


def install(out_dir, read_roots):
    policy = _Policy(os.path.realpath(out_dir), read_roots)
    for owner, name in _CADQUERY_FILE_FUNCTIONS:
        _check_paths_of(owner, name, policy)
    sys.addaudithook(policy.audit)


class _Policy:
    def __init__(self, out_dir, read_roots):
        self.out_dir = out_dir
        self.read_roots = tuple(read_roots)

    def audit(self, event, args):
        if event == "open":
            path, mode, flags = args
            self.check(path, _writes(mode, flags))
        elif event in _PATH_EVENTS:
            for index, write in _PATH_EVENTS[event]:
                self.check(args[index], write)
        elif event in ("os.symlink", "os.link"):
            raise Refused("file_access", "the script may not create links (it called %s); write plain files in "
                          "its output folder %s" % (event, self.out_dir))
        elif event.startswith(_NETWORK_PREFIXES):
            raise Refused("network", "the script may not use the network; it tried to %s" % _network_action(event, args))
        elif event in _PROCESS_EVENTS:
            raise Refused("process", "the script may not start processes, run commands or send signals; "
                          "it called %s" % event)
        elif event.startswith("ctypes."):
            raise Refused("native_code", "the script may not call native code through ctypes; it called %s" % event)

    def check(self, path, write):
        """Refuses a path outside the output folder, or, for reading, outside
        it and Python's own folders. A descriptor or None (the current
        folder, which is the output folder) passes."""
        if path is None or isinstance(path, int):
            return
        try:
            real = os.path.realpath(os.fsdecode(path))
        except TypeError:
            return
        if _inside(real, self.out_dir):
            return
        if not write and any(_inside(real, root) for root in self.read_roots):
            return
        raise Refused("file_access", "the script may only read and write files in its output folder %s; "
                      "it tried to %s %s" % (self.out_dir, "write" if write else "open", real))


def _writes(mode, flags):
    if isinstance(mode, str):
        return any(c in mode for c in "wax+")
    return bool((flags or 0) & _WRITE_FLAGS)


def _inside(path, root):
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _network_action(event, args):
    if event == "socket.__new__":
        return "create a socket"
    if event in ("socket.connect", "socket.bind") and len(args) > 1:
        return "%s to %s" % (event.split(".")[1], args[1])
    if event in ("socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyname_ex") and args:
        return "look up the host %s" % (args[0],)
    return "call %s" % event


def _check_paths_of(owner, name, policy):
    """Wraps owner.name so each string or path argument is checked as a
    file, as the audit hook checks what Python opens. A string that is not
    a path (an export type, say) reads as a name in the output folder and
    passes."""
    raw = vars(owner).get(name)
    if raw is None:
        return
    is_classmethod = isinstance(raw, classmethod)
    func = raw.__func__ if is_classmethod else raw
    write = name.startswith(("export", "save"))

    @functools.wraps(func)
    def checked(*args, **kwargs):
        for arg in list(args) + list(kwargs.values()):
            if isinstance(arg, (str, bytes, os.PathLike)):
                policy.check(arg, write)
        return func(*args, **kwargs)

    setattr(owner, name, classmethod(checked) if is_classmethod else checked)
