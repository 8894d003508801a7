"""The fuzzers: bad levels, settings, properties and actions, and injected states, for every family.

Self-contained and deterministic (hypothesis ``derandomize=True``, fixed ``max_examples``), so
the folder runs as is under other builds (a debug or AddressSanitizer build of the kernel)
with ``pytest tests/fuzz``. ``test_fuzz_state.py`` takes ``GRIDSIM_FUZZ_EXAMPLES`` examples
per test and case (default 200: about 30 s on a 2-core machine); raise it for a longer search.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))  # the helpers import as top-level modules
