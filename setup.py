"""pyfn's build: the packages (found, not listed: every folder under pyfn/ with an __init__.py, plus resources/
installed as pyfn._resources) and the compiled twins of the annotation readers' inner loops
(pyfn/framenet/_clayers.pyx), the JSON-line decoder and the writers' per-set work (pyfn/formats/_cjsonl.pyx,
_cwrite.pyx); the metadata is in setup.cfg. Without Cython or a C compiler the extensions are skipped and pyfn
uses their Python twins (the same output, slower); PYFN_BUILD_PURE=1 skips them on purpose (the packaging test
builds a wheel in seconds)."""

import hashlib
import os
from pathlib import Path

from setuptools import Extension, find_packages, setup

SOURCES = {"pyfn.framenet._clayers": "pyfn/framenet/_clayers.pyx", "pyfn.formats._cjsonl": "pyfn/formats/_cjsonl.pyx",
           "pyfn.formats._cwrite": "pyfn/formats/_cwrite.pyx"}

# resources/ (sample, split lists, templates, patches) is installed inside the package as pyfn._resources
PACKAGES = [*find_packages(include=["pyfn", "pyfn.*"]), "pyfn._resources"]

try:
    if os.environ.get("PYFN_BUILD_PURE") == "1":
        raise ImportError("PYFN_BUILD_PURE=1")
    import lxml
    from Cython.Build import cythonize
except ImportError as exc:  # a build without isolation, in an environment lacking them
    print(f"pyfn: the compiled readers are not built ({exc}); pyfn reads with their Python twins")
    extensions = []
else:
    extensions = cythonize(
        [Extension(name, [source], include_dirs=lxml.get_include(),
                   # the module knows its source: pyfn uses it only while the .pyx beside it is the same
                   define_macros=[("PYFN_SOURCE_SHA256", f'"{hashlib.sha256(Path(source).read_bytes()).hexdigest()}"')])
         for name, source in SOURCES.items()],
        compiler_directives={"language_level": "3"},
    )
    for extension in extensions:
        extension.optional = True  # a failed compile is a warning, not a failed install (cythonize drops the flag)

setup(packages=PACKAGES, package_dir={"pyfn._resources": "resources"}, ext_modules=extensions)
