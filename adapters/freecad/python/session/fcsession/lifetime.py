"""The kernel dies with the process that started it.

adapters.StartStdio sets no parent-death signal, so the kernel asks the
Linux kernel for one itself (PR_SET_PDEATHSIG): SIGKILL when its parent
goes, even mid-operation in OpenCASCADE, where no Python code runs. The
parent may already have died between the fork and this call; the Go side
passes its pid in METAFORGE_PARENT_PID, and a different parent means that
happened.
"""
import ctypes
import ctypes.util
import os
import signal
import sys

_PR_SET_PDEATHSIG = 1


def die_with_parent():
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        sys.stderr.write("cannot set the parent-death signal (errno %d); exiting rather than risk outliving the worker\n"
                         % ctypes.get_errno())
        sys.exit(70)
    want = os.environ.get("METAFORGE_PARENT_PID")
    if want and os.getppid() != int(want):
        sys.exit(70)  # the worker is already gone
