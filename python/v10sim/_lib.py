"""_lib.py — loads libv10sim.so and declares the C calls the package uses
(include/v10/api.h, include/v10/sweep.h) through ctypes; nothing else here
touches C."""
import ctypes
import ctypes.util
import os

ERR_MAX = 512  # V10_ERR_MAX, include/v10/err.h


class Err(ctypes.Structure):
    _fields_ = [("msg", ctypes.c_char * ERR_MAX)]


class V10Error(Exception):
    """A call the library refused: the message is the C library's own
    (the one the CLI prints), naming the file, key or value at fault."""


def _candidates():
    env = os.environ.get("V10SIM_LIB")
    if env:
        yield env
    here = os.path.dirname(os.path.abspath(__file__))
    for name in ("libv10sim.so.0", "libv10sim.so"):
        yield os.path.join(here, name)  # a wheel carries it beside the package
    try:  # make install PREFIX=DIR writes where it put the library
        from ._libdir import LIBDIR
        yield os.path.join(LIBDIR, "libv10sim.so.0")
    except ImportError:
        pass
    found = ctypes.util.find_library("v10sim")
    if found:
        yield found


def _load():
    tried = []
    for path in _candidates():
        if os.path.sep in path and not os.path.exists(path):
            tried.append(path)
            continue
        return ctypes.CDLL(path)
    raise ImportError("v10sim: libv10sim.so not found (tried %s); set V10SIM_LIB to its path, "
                      "or install with 'make install PREFIX=DIR' or 'python3 -m pip install .'"
                      % (", ".join(tried) or "nothing"))


lib = _load()
_cp = ctypes.c_char_p
_vp = ctypes.c_void_p
_ep = ctypes.POINTER(Err)

lib.v10_version.restype = _cp
lib.v10_version.argtypes = []
lib.v10_free.argtypes = [_vp]
lib.v10_free.restype = None
lib.v10_run_json.restype = _vp
lib.v10_run_json.argtypes = [_cp, _cp, _ep]
lib.v10_profile_json.restype = _vp
lib.v10_profile_json.argtypes = [_cp, _cp, _ep]
# A sweep through the same calls as `v10sim sweep` (include/v10/sweep.h).
lib.v10_sweep_parse.restype = ctypes.c_int
lib.v10_sweep_parse.argtypes = [_cp, _cp, ctypes.POINTER(_vp), _ep]
lib.v10_sweep_destroy.argtypes = [_vp]
lib.v10_sweep_destroy.restype = None
lib.v10_sweep_points.argtypes = [_vp]
lib.v10_sweep_points.restype = ctypes.c_size_t
lib.v10_sweep_store_open.restype = ctypes.c_int
lib.v10_sweep_store_open.argtypes = [_cp, _vp, ctypes.c_int, ctypes.POINTER(_vp), _ep]
lib.v10_sweep_run_local.restype = ctypes.c_int
lib.v10_sweep_run_local.argtypes = [_vp, _vp, ctypes.c_int, _cp, _ep]
lib.v10_sweep_store_finish.restype = ctypes.c_int
lib.v10_sweep_store_finish.argtypes = [_vp, _ep]
lib.v10_sweep_store_close.argtypes = [_vp]
lib.v10_sweep_store_close.restype = None
lib.v10_sweep_store_refused.argtypes = [_vp]
lib.v10_sweep_store_refused.restype = ctypes.c_size_t


def fail(err):
    raise V10Error(err.msg.decode("utf-8", "replace"))


def text_call(fn, *args):
    """Calls a v10/api.h function returning a malloc'd string: the string,
    freed; V10Error with the library's message on failure."""
    err = Err()
    p = fn(*args, ctypes.byref(err))
    if not p:
        fail(err)
    try:
        return ctypes.string_at(p).decode("utf-8")
    finally:
        lib.v10_free(p)
