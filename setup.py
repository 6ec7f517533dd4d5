"""Builds the compiled twin of the layer reader (pyfn/framenet/_clayers.pyx); the rest of the
package is declared in setup.cfg. Without a C compiler the extension is skipped and pyfn reads
with its Python twin (same output)."""

import lxml
from Cython.Build import cythonize
from setuptools import Extension, setup

setup(ext_modules=cythonize(
    [Extension("pyfn.framenet._clayers", ["pyfn/framenet/_clayers.pyx"], include_dirs=lxml.get_include(),
               optional=True)],
    compiler_directives={"language_level": "3"},
))
