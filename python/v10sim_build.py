"""v10sim_build.py — the PEP 517 build backend of `python3 -m pip install .`
(pyproject.toml): a wheel of python/v10sim/ with libv10sim.so beside it.
In-tree and standard-library only, so pip needs no package index.  The
library comes from build/ (`make`), or is built with CMake into
build-python/ when build/ has none."""
import base64
import hashlib
import os
import re
import subprocess
import sys
import sysconfig
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAME = "v10sim"


def _version():
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        return re.search(r"project\(v10sim VERSION ([0-9.]+)", f.read()).group(1)


def _library():
    """The path of libv10sim.so.VERSION: build/'s, or built for the wheel."""
    real = "libv10sim.so." + _version()
    for d in (os.environ.get("V10SIM_BUILD_DIR"), os.path.join(ROOT, "build")):
        if d and os.path.isfile(os.path.join(d, real)):
            return os.path.join(d, real)
    out = os.path.join(ROOT, "build-python")
    for cmd in (["cmake", "-S", ROOT, "-B", out, "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
                 "-DV10_PGO=OFF"],
                ["cmake", "--build", out, "--target", "v10sim_shared", "-j",
                 str(os.cpu_count() or 2)]):
        subprocess.run(cmd, check=True, stdout=sys.stderr)
    return os.path.join(out, real)


def _tag():
    return "py3-none-" + re.sub(r"[-.]", "_", sysconfig.get_platform())


def get_requires_for_build_wheel(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    version, tag = _version(), _tag()
    dist = "%s-%s.dist-info" % (NAME, version)
    files = []  # (name in the wheel, bytes)
    pkg = os.path.join(ROOT, "python", NAME)
    for f in sorted(os.listdir(pkg)):
        if f.endswith(".py") and f != "_libdir.py":
            with open(os.path.join(pkg, f), "rb") as h:
                files.append(("%s/%s" % (NAME, f), h.read()))
    with open(_library(), "rb") as h:
        files.append(("%s/libv10sim.so.0" % NAME, h.read()))
    files.append((dist + "/METADATA", (
        "Metadata-Version: 2.1\nName: %s\nVersion: %s\n"
        "Summary: Multi-tenant NPU simulator (V10, ISCA 2023): Python binding of libv10sim\n"
        "Requires-Python: >=3.9\n" % (NAME, version)).encode()))
    files.append((dist + "/WHEEL", (
        "Wheel-Version: 1.0\nGenerator: v10sim_build\nRoot-Is-Purelib: false\nTag: %s\n"
        % tag).encode()))
    record = ""
    for name, data in files:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record += "%s,sha256=%s,%d\n" % (name, digest, len(data))
    files.append((dist + "/RECORD", (record + dist + "/RECORD,,\n").encode()))
    wheel = "%s-%s-%s.whl" % (NAME, version, tag)
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel), "w",
                         zipfile.ZIP_DEFLATED) as z:
        for name, data in files:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if name.endswith(".so.0") else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    return wheel
