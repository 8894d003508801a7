"""Build gridsim's compiled modules: ``gridsim._core``, ``gridsim.engine.kernel`` and one kernel per family.

Every ``.pyx`` under ``gridsim/`` is one extension module, named by its path: the core
(``gridsim/_core.pyx``), the kernel contract (``gridsim/engine/kernel.pyx``) and each family's
kernel (``gridsim/<family>/_kernel.pyx``, found by glob: a new family needs no edit here).
They are cythonized and compiled in parallel; editing one family's kernel recompiles that
module alone (the step skeleton or the contract recompiles every family). First, the kernels'
typed views of the state fields are generated from the field tables
(``gridsim/engine/codegen.py``: ``gridsim/<family>/_fields.pxi`` and the shared
``gridsim/engine/_kernel_fields*.pxi``); a file whose text is unchanged is not rewritten.

``GRIDSIM_CYTHON_DEBUG=1`` at build time turns bounds, wraparound and
initialization checks back on; CI runs the whole test suite against that build.
``GRIDSIM_SANITIZE=1`` builds with AddressSanitizer and UndefinedBehaviorSanitizer (gcc or
clang); Python itself is not instrumented, so the sanitizer runtimes must be preloaded when
the tests run (``.ci/run`` shows how).

Threads: the kernel's loops over worlds run on gridsim's own worker pool
(``gridsim/engine/_pool.h``, POSIX threads; ``num_threads=``) when the C compiler can build and
link a small program that starts a POSIX thread (``-pthread``: Linux, macOS, the BSDs). The pool
hands out small chunks of a batch that the calling thread claims too, so a thread that the
operating system has not scheduled never holds a call up; it survives ``fork()`` (a child
starts its workers again) and a failed ``pthread_create`` (it runs on the threads it has). No
OpenMP runtime is used. Elsewhere (MSVC) the kernel is built without threads
(``gridsim.threads_available()`` is False). ``GRIDSIM_THREADS=0`` at build time builds
without threads anyway (``GRIDSIM_OPENMP=0``, the name from when the threads were OpenMP's,
does the same).
"""

import glob
import os
import shutil
import tempfile
from pathlib import Path

import numpy
from Cython.Build import cythonize
from setuptools import Extension, find_packages, setup
from setuptools.command.build_ext import build_ext

DEBUG = os.environ.get("GRIDSIM_CYTHON_DEBUG", "0") not in ("", "0")
SANITIZE = os.environ.get("GRIDSIM_SANITIZE", "0") not in ("", "0")

_THREADS_PROBE = r"""
#include <pthread.h>
static int flag;
static void *run(void *arg) { flag = 1; return arg; }
int main(void) {
    pthread_t t;
    if (pthread_create(&t, 0, run, 0) != 0 || pthread_join(t, 0) != 0) return 1;
    return flag ? 0 : 1;
}
"""


def threads_flags() -> dict | None:
    """Compile and link flags with which the C compiler setuptools uses builds a POSIX-threads program, or None."""
    if os.environ.get("GRIDSIM_THREADS", "") == "0" or os.environ.get("GRIDSIM_OPENMP", "") == "0":
        return None
    try:
        from setuptools._distutils.ccompiler import new_compiler
        from setuptools._distutils.sysconfig import customize_compiler
    except ImportError:  # older setuptools
        from distutils.ccompiler import new_compiler
        from distutils.sysconfig import customize_compiler
    compiler = new_compiler()
    customize_compiler(compiler)
    if compiler.compiler_type == "msvc":
        return None
    flags = {"compile": ["-pthread"], "link": ["-pthread"]}
    tmp = tempfile.mkdtemp()
    try:
        src = os.path.join(tmp, "probe.c")
        with open(src, "w") as f:
            f.write(_THREADS_PROBE)
        objects = compiler.compile([src], output_dir=tmp, extra_postargs=flags["compile"])
        compiler.link_executable(objects, "probe", output_dir=tmp, extra_postargs=flags["link"])
        return flags
    except Exception:  # no pthreads here: a serial kernel
        return None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


THREADS = threads_flags()

directives = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "initializedcheck": DEBUG,
    "nonecheck": DEBUG,
    "cdivision": True,
    "embedsignature": True,
    # Kernels pickle through their env (Kernel.__reduce__ refuses): Cython's automatic pickling,
    # which it adds to a subclass compiled apart from its base, would only hide that message.
    "auto_pickle": False,
}

# No FMA contraction: the kernel and the pure-Python reference must round identically.
# Functions and loops start on 64-byte boundaries: otherwise where a hot loop happens to fall
# moved a family's speed by up to 10% after unrelated changes elsewhere in the module (the
# same instructions, measured with callgrind).
extra_compile_args = ["-O0", "-g"] if DEBUG else ["-O3", "-falign-functions=64", "-falign-loops=64"]
extra_compile_args.append("-ffp-contract=off")
# Every out-of-bounds access and undefined operation in the kernel is fatal: no report is let go.
SANITIZER_FLAGS = ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined", "-fno-omit-frame-pointer"]
if SANITIZE:
    extra_compile_args += [*SANITIZER_FLAGS, "-g"] + ([] if DEBUG else ["-O1"])

define_macros = [
    ("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION"),
    ("GRIDSIM_DEBUG", "1" if DEBUG else "0"),
    ("GRIDSIM_THREADS", "1" if THREADS else "0"),
    ("GRIDSIM_SANITIZE", "1" if SANITIZE else "0"),
]
if THREADS:
    extra_compile_args += THREADS["compile"]
extra_link_args = (THREADS["link"] if THREADS else []) + (SANITIZER_FLAGS if SANITIZE else [])
if not DEBUG:
    # The step skeleton (gridsim/engine/_skeleton.pxi) calls each family's per-env hooks, declared
    # `cdef inline`; gcc's size limits would leave the larger ones out of line (a call per env),
    # so inline functions are always inlined.
    define_macros.append(("CYTHON_INLINE", "inline __attribute__((always_inline))"))


def generate_sources() -> None:
    """Write the kernels' generated ``.pxi`` files from the field tables (gridsim/engine/codegen.py).

    Loaded by path: the package cannot be imported before its modules are compiled.
    """
    import importlib.util

    spec = importlib.util.spec_from_file_location("_gridsim_codegen", os.path.join("gridsim", "engine", "codegen.py"))
    codegen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(codegen)
    codegen.generate(Path("gridsim"))


generate_sources()

# Every compiled module, named by its path: gridsim/_core.pyx, gridsim/engine/kernel.pyx and each
# family's gridsim/<family>/_kernel.pyx.
SOURCES = sorted(glob.glob(os.path.join("gridsim", "**", "*.pyx"), recursive=True))
extensions = [
    Extension(
        os.path.splitext(source)[0].replace(os.sep, "."),
        [source],
        # gridsim/engine: the worker pool's header (_pool.h), which gridsim/engine/kernel.pyx includes.
        include_dirs=[numpy.get_include(), os.path.join("gridsim", "engine")],
        define_macros=define_macros,
        extra_compile_args=extra_compile_args,
        extra_link_args=extra_link_args,
    )
    for source in SOURCES
]

MODE_STAMP = os.path.join("build", "gridsim-build-mode")
MODE = ("debug" if DEBUG else "release") + ("+sanitize" if SANITIZE else "")


class BuildExt(build_ext):
    """``build_ext`` that rebuilds when the mode (debug or release, sanitized or not) differs from the last build's.

    Otherwise a release build after a debug one finds the compiled module newer than its
    sources and keeps it, checks and all (and the reverse).
    """

    def finalize_options(self):
        """Force a rebuild when the last build was of the other mode (or is unknown); compile in parallel."""
        super().finalize_options()
        if self.parallel is None:  # -j / --parallel not given: one job per CPU (the modules are independent)
            self.parallel = os.cpu_count() or 1
        try:
            with open(MODE_STAMP) as f:
                last = f.read().strip()
        except OSError:
            last = None
        if last != MODE:
            self.force = True

    def run(self):
        """Build, then record the mode."""
        super().run()
        os.makedirs(os.path.dirname(MODE_STAMP), exist_ok=True)
        with open(MODE_STAMP, "w") as f:
            f.write(MODE)


def cython_jobs() -> int:
    """Processes for cythonize: one per CPU where its pool forks (spawned workers would run this script again)."""
    import multiprocessing

    return (os.cpu_count() or 1) if multiprocessing.get_start_method() == "fork" else 0


PACKAGES = find_packages(include=["gridsim", "gridsim.*"])

setup(
    cmdclass={"build_ext": BuildExt},
    # gridsim and its subpackages (the engine, one per family), plus the built-in levels.
    packages=[*PACKAGES, "gridsim.builtin_levels"],
    package_dir={"gridsim.builtin_levels": "levels"},
    package_data={
        # The compiled modules' stubs and Cython declarations (the kernel contract and its
        # skeleton), wherever they are.
        **{package: ["*.pyi", "*.pxd", "*.pxi", "*.h"] for package in PACKAGES},
        "gridsim": ["*.pyi", "*.pxd", "py.typed"],
        "gridsim.builtin_levels": ["*.py", "*/*.txt", "*/*.py", "*/*/*.txt", "*/*/*.py", "*.md"],
    },
    # Each mode generates its C in its own folder: cythonize regenerates only when the .pyx
    # is newer than the .c, so a shared .c made by a debug build would be compiled again,
    # checks and all, by the next release build (and the reverse). Modules are cythonized
    # in parallel too.
    ext_modules=cythonize(extensions, compiler_directives=directives, nthreads=cython_jobs(),
                          build_dir=os.path.join("build", "cython-debug" if DEBUG else "cython-release")),
)
