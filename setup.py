"""Build the compiled kernel ``gridsim._core``.

``GRIDSIM_CYTHON_DEBUG=1`` at build time turns bounds, wraparound and
initialization checks back on; CI runs the whole test suite against that build.
"""

import os

import numpy
from Cython.Build import cythonize
from setuptools import Extension, find_packages, setup

DEBUG = os.environ.get("GRIDSIM_CYTHON_DEBUG", "0") not in ("", "0")

directives = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "initializedcheck": DEBUG,
    "nonecheck": DEBUG,
    "cdivision": True,
    "embedsignature": True,
}

# No FMA contraction: the kernel and the pure-Python reference must round identically.
extra_compile_args = ["-O0", "-g"] if DEBUG else ["-O3"]
extra_compile_args.append("-ffp-contract=off")

define_macros = [
    ("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION"),
    ("GRIDSIM_DEBUG", "1" if DEBUG else "0"),
]
if not DEBUG:
    # The step skeleton (gridsim/_engine.pxi) calls each family's per-env hooks, declared
    # `cdef inline`; gcc's size limits would leave the larger ones out of line (a call per env),
    # so inline functions are always inlined.
    define_macros.append(("CYTHON_INLINE", "inline __attribute__((always_inline))"))

extensions = [
    Extension(
        "gridsim._core",
        ["gridsim/_core.pyx"],
        include_dirs=[numpy.get_include()],
        define_macros=define_macros,
        extra_compile_args=extra_compile_args,
    )
]

setup(
    # gridsim and its subpackages (one per family), plus the built-in levels.
    packages=[*find_packages(include=["gridsim", "gridsim.*"]), "gridsim.builtin_levels"],
    package_dir={"gridsim.builtin_levels": "levels"},
    package_data={
        "gridsim": ["*.pyi", "*.pxd", "py.typed"],
        "gridsim.builtin_levels": ["*.py", "*/*.txt", "*/*.py", "*/*/*.txt", "*/*/*.py", "*.md"],
    },
    ext_modules=cythonize(extensions, compiler_directives=directives),
)
