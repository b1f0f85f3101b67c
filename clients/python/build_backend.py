"""A PEP 517 / PEP 660 build backend for navkernel-client that needs nothing but the standard library.

pip builds in an isolated environment and would download setuptools for it; this backend has no requirements, so
``pip install ./clients/python`` works with no network. It packs ``navkernel_client.py`` (with ``py.typed``) into a
wheel as the package ``navkernel_client``, whose metadata comes from the ``[project]`` table of ``pyproject.toml`` (name, version, description,
requires-python, license: plain ``key = "value"`` lines, read without a TOML library so Python 3.9 can build it).
"""
from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile
from typing import Dict, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = "navkernel_client"
TAG = "py3-none-any"


def _project() -> Dict[str, str]:
    with open(os.path.join(HERE, "pyproject.toml"), encoding="utf-8") as f:
        text = f.read()
    section = re.search(r"^\[project\]\s*$(.*?)(?=^\[|\Z)", text, re.S | re.M)
    if section is None:
        raise RuntimeError("pyproject.toml has no [project] table")
    fields = dict(re.findall(r'^([A-Za-z-]+)\s*=\s*"([^"]*)"\s*$', section.group(1), re.M))
    for key in ("name", "version"):
        if key not in fields:
            raise RuntimeError(f"pyproject.toml [project] lacks {key}")
    return fields


def _dist_name(p: Dict[str, str]) -> str:
    return f"{re.sub(r'[-_.]+', '_', p['name']).lower()}-{p['version']}"


def _metadata(p: Dict[str, str]) -> str:
    lines = ["Metadata-Version: 2.1", f"Name: {p['name']}", f"Version: {p['version']}"]
    if "description" in p:
        lines.append(f"Summary: {p['description']}")
    if "requires-python" in p:
        lines.append(f"Requires-Python: {p['requires-python']}")
    if "license" in p:
        lines.append(f"License: {p['license']}")
    return "\n".join(lines) + "\n"


def _package_files() -> List[Tuple[str, bytes]]:
    """The wheel's package: the client module as ``navkernel_client/__init__.py``, with the ``py.typed`` marker.

    In the source tree the client stays one file (``navkernel_client.py``, importable with this folder on
    ``PYTHONPATH``); PEP 561 lets only packages declare their types, so the wheel makes it one.
    """
    out = []
    for source, target in (("navkernel_client.py", "__init__.py"), ("py.typed", "py.typed")):
        with open(os.path.join(HERE, source), "rb") as f:
            out.append((f"{PACKAGE}/{target}", f.read()))
    return out


def _write_wheel(directory: str, files: List[Tuple[str, bytes]]) -> str:
    p = _project()
    dist = _dist_name(p)
    info = f"{dist}.dist-info"
    files = files + [
        (f"{info}/METADATA", _metadata(p).encode()),
        (f"{info}/WHEEL", f"Wheel-Version: 1.0\nGenerator: navkernel build_backend\nRoot-Is-Purelib: true\nTag: {TAG}\n".encode()),
    ]
    record = []
    for name, data in files:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(data)}")
    record.append(f"{info}/RECORD,,")
    filename = f"{dist}-{TAG}.whl"
    # Fixed timestamps: the same sources give the same wheel bytes.
    with zipfile.ZipFile(os.path.join(directory, filename), "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files + [(f"{info}/RECORD", ("\n".join(record) + "\n").encode())]:
            z.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data)
    return filename


# -- PEP 517

def get_requires_for_build_wheel(config_settings: Optional[dict] = None) -> List[str]:
    return []


def get_requires_for_build_sdist(config_settings: Optional[dict] = None) -> List[str]:
    return []


def build_wheel(wheel_directory: str, config_settings: Optional[dict] = None, metadata_directory: Optional[str] = None) -> str:
    return _write_wheel(wheel_directory, _package_files())


def build_sdist(sdist_directory: str, config_settings: Optional[dict] = None) -> str:
    p = _project()
    dist = _dist_name(p)
    filename = f"{dist}.tar.gz"
    members = [(name, None) for name in ("pyproject.toml", "build_backend.py", "navkernel_client.py", "py.typed")]
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for name, data in members + [("PKG-INFO", _metadata(p).encode())]:
            if data is None:
                with open(os.path.join(HERE, name), "rb") as f:
                    data = f.read()
            entry = tarfile.TarInfo(f"{dist}/{name}")
            entry.size = len(data)
            entry.mtime = 0
            tar.addfile(entry, io.BytesIO(data))
    return filename


# -- PEP 660 (pip install -e): a wheel holding one .pth file that puts this folder on sys.path (the module itself,
# so an editable install is not marked typed).

def get_requires_for_build_editable(config_settings: Optional[dict] = None) -> List[str]:
    return []


def build_editable(wheel_directory: str, config_settings: Optional[dict] = None, metadata_directory: Optional[str] = None) -> str:
    return _write_wheel(wheel_directory, [(f"__editable__.{PACKAGE}.pth", (HERE + "\n").encode())])
