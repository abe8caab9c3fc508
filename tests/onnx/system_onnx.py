"""system_onnx.py -- for the scripts of tests/onnx: Debian's python3-onnx is
installed for the system interpreter, /usr/bin/python3, and a python3 that
comes first on PATH (a pyenv, a venv) may not have it.  require() returns
when `import onnx` works; else it runs the calling script again under the
system interpreter (once), or exits saying what to install."""
import os
import sys

SYSTEM = "/usr/bin/python3"


def require():
    try:
        import onnx  # noqa: F401
        return
    except ImportError:
        pass
    if not os.environ.get("V10_SYSTEM_ONNX") and os.access(SYSTEM, os.X_OK):
        os.environ["V10_SYSTEM_ONNX"] = "1"
        os.execv(SYSTEM, [SYSTEM, os.path.abspath(sys.argv[0])] + sys.argv[1:])
    sys.exit(f"{os.path.basename(sys.argv[0])}: needs the onnx Python package "
             "(Debian: apt-get install python3-onnx)")
