"""The state fuzz tests: random and adversarial injected states for every family.

Self-contained and deterministic (hypothesis ``derandomize=True``, fixed ``max_examples``), so
the folder can run as is under other builds (a debug or AddressSanitizer build of the kernel)
with ``pytest tests/fuzz``. The budget keeps the whole folder under about a minute on a
2-core machine; raise ``GRIDSIM_FUZZ_EXAMPLES`` for a longer search.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
