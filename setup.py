"""Build the compiled kernel ``gridsim._core``.

``GRIDSIM_CYTHON_DEBUG=1`` at build time turns bounds, wraparound and
initialization checks back on; CI runs the whole test suite against that build.

OpenMP: the kernel's loops over worlds run on threads (``num_threads=``) when the C
compiler can build and link a small OpenMP program with ``-fopenmp``; otherwise the
kernel is built without threads (``gridsim.threads_available()`` is False).
``GRIDSIM_OPENMP=0`` at build time builds without threads anyway.
"""

import os
import shutil
import tempfile

import numpy
from Cython.Build import cythonize
from setuptools import Extension, find_packages, setup

DEBUG = os.environ.get("GRIDSIM_CYTHON_DEBUG", "0") not in ("", "0")

OPENMP_FLAGS = ["-fopenmp"]

_OPENMP_PROBE = r"""
#include <omp.h>
int main(void) {
    int n = 0;
    #pragma omp parallel num_threads(2) reduction(+:n)
    n += 1;
    return omp_get_max_threads() > 0 && n > 0 ? 0 : 1;
}
"""


def openmp_available() -> bool:
    """Whether the C compiler setuptools uses compiles and links an OpenMP program with -fopenmp."""
    if os.environ.get("GRIDSIM_OPENMP", "") == "0":
        return False
    try:
        from setuptools._distutils.ccompiler import new_compiler
        from setuptools._distutils.sysconfig import customize_compiler
    except ImportError:  # older setuptools
        from distutils.ccompiler import new_compiler
        from distutils.sysconfig import customize_compiler
    tmp = tempfile.mkdtemp(prefix="gridsim-openmp-")
    try:
        compiler = new_compiler()
        customize_compiler(compiler)
        src = os.path.join(tmp, "probe.c")
        with open(src, "w") as f:
            f.write(_OPENMP_PROBE)
        objects = compiler.compile([src], output_dir=tmp, extra_postargs=OPENMP_FLAGS)
        compiler.link_executable(objects, "probe", output_dir=tmp, extra_postargs=OPENMP_FLAGS)
        return True
    except Exception:  # noqa: BLE001 - any failure to build the probe means no OpenMP
        return False
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


OPENMP = openmp_available()

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
    ("GRIDSIM_OPENMP", "1" if OPENMP else "0"),
]
if OPENMP:
    extra_compile_args += OPENMP_FLAGS
extra_link_args = OPENMP_FLAGS if OPENMP else []
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
        extra_link_args=extra_link_args,
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
